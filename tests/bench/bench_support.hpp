// What the engine benchmarks share: the raw cost of a case's statements, the baseline every ratio divides by.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "txprop/driver.hpp"
#include "txprop/sql.hpp"

namespace txprop::bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The case's statements in one session with the same driver: a reset, every transaction's steps one transaction
// after the other, the final state. Seconds.
inline double raw_cost(drivers::Driver& driver, drivers::Session& session, const TestCase& c) {
  const auto start = Clock::now();
  driver.reset(c.schema);
  for (const Transaction& t : c.transactions)
    for (std::size_t i = 0; i < t.step_count(); ++i) session.execute(render(t.step(i), driver.dialect()));
  driver.read_state(c.schema);
  return seconds_since(start);
}

// Calls bench(keep) twice, with TXPROP_KEEP_TABLES=0 (every reset recreates the tables) and =1 (a reset to the
// shape the database already holds keeps the tables: framework/engines/reset_plan.hpp), so one run prints both.
// A target opened inside bench(keep) reads the setting. Unless the caller set TXPROP_KEEP_TABLES: then only that.
template <typename Bench>
void for_each_reset_mode(Bench&& bench) {
  if (const char* set = std::getenv("TXPROP_KEEP_TABLES"); set && *set) {
    bench(std::string(set) != "0");
    return;
  }
  for (const bool keep : {false, true}) {
    ::setenv("TXPROP_KEEP_TABLES", keep ? "1" : "0", 1);
    bench(keep);
  }
  ::unsetenv("TXPROP_KEEP_TABLES");
}

inline const char* reset_mode_name(bool keep) { return keep ? "keep tables" : "recreate"; }

// Runs `bench` for every configured target (TXPROP_TARGETS); a target that cannot be used ends the program with
// its one-line error. The exit code for main().
template <typename Bench>
int for_each_configured_target(Bench&& bench) {
  try {
    for (const TargetConfig& config : configured_targets()) bench(config);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}

}  // namespace txprop::bench
