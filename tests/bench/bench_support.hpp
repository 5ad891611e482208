// What the engine benchmarks share: the raw cost of a case's statements, the baseline every ratio divides by.
#pragma once

#include <chrono>
#include <cstdio>
#include <exception>

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
