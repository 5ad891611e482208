// A live target: one configured engine, connected, with this process's own test database on it. Runs test cases
// (each on a freshly reset database) and gives back Histories.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "txprop/history.hpp"
#include "txprop/sql.hpp"
#include "txprop/engine.hpp"
#include "txprop/target_config.hpp"
#include "txprop/test_case.hpp"

namespace txprop {

namespace drivers {
class Driver;
class DriverError;
}
namespace runner {
class SessionWorker;
}

struct RunOptions {
  // A statement that neither completes nor waits on a lock for this long is a hang finding
  // (TXPROP_HANG_LIMIT_MS overrides it). It is not how blocking is decided: the server is asked.
  std::chrono::milliseconds hang_limit{30000};
  // After sending a statement, how long to wait for its completion before asking the server whether it waits.
  std::chrono::microseconds first_probe_after{300};
};

// Counters a benchmark or a progress line reads.
struct RunMetrics {
  std::uint64_t runs = 0;
  std::uint64_t statements = 0;
  std::uint64_t probes = 0;
  std::uint64_t blocked = 0;
  // For each statement found blocked: microseconds from sending it to the runner declaring it blocked.
  std::vector<double> detection_latency_us;
  // Where the time of run() goes, in seconds: resetting the database, scheduling the steps, reading the state.
  double reset_seconds = 0, schedule_seconds = 0, state_seconds = 0;
  // Sessions that ran the driver's session_refresh_sql after a reset (part of the reset's time).
  std::uint64_t session_refreshes = 0;
  // Tables the resets left as they were (unchanged since the reset before: Driver::unchanged_since_reset).
  std::uint64_t tables_left = 0;
};

// The engine rejected the tables and rows of a case (a missing privilege, a limit): one line with the engine's own
// error. Not an engine failure: running the case again fails the same way.
class CaseRejected : public TargetError {
 public:
  using TargetError::TargetError;
};

class Target {
 public:
  // Connects and creates the test database; throws TargetError with one line naming the URI (password masked).
  static std::unique_ptr<Target> open(const TargetConfig& config, RunOptions options = {});
  // For judging without a server (the server-free tests of every profile's standing rules): a target that runs cases
  // on `run_on` (embedded SQLite: the serial replays an oracle makes give the same rows on any engine for portable
  // SQL) and answers every question about the engine, its levels and its documentation as `judged_as` does.
  static std::unique_ptr<Target> open_judged_as(const TargetConfig& run_on, const TargetConfig& judged_as,
                                                RunOptions options = {});
  ~Target();

  const TargetConfig& config() const { return config_; }
  const std::string& name() const { return config_.name; }
  const EngineProfile& engine() const { return config_.profile(); }
  Dialect dialect() const;
  const std::string& server_version() const { return server_version_; }
  // Configuration flags that change behaviour, e.g. "innodb_snapshot_isolation=ON" (empty if none).
  std::string configuration() const;

  // Resets the test database to the case's schema and runs the case: one session per connection (per transaction,
  // unless transactions share a session: TestCase::sessions()), one statement
  // in flight per session, in the submitted order. Throws TargetError if the target cannot be used at all
  // (the connection cannot be re-established); engine failures during the run are findings in the History.
  History run(const TestCase& c);

  // Whether the engine answers; re-establishes the control connection (completely set up) if it was lost, and
  // has the next run open fresh sessions. Throws TargetError (one line) when it cannot.
  void check_alive();

  RunOptions& options() { return options_; }
  const RunMetrics& metrics() const { return metrics_; }
  RunMetrics& metrics() { return metrics_; }

  // The engine boundary, for benchmarks and tests that measure raw costs. What runs through it is not seen by the
  // target: from then on every reset restores every table (no unchanged table is left as it is).
  drivers::Driver& driver() {
    untracked_ = true;
    return *driver_;
  }

 private:
  struct Sessions;
  Target(TargetConfig config, RunOptions options);
  std::unique_ptr<runner::SessionWorker> new_worker(int node);
  void refresh_sessions(std::size_t used);
  TargetError target_error(const drivers::DriverError& e) const;

  TargetConfig config_;
  RunOptions options_;
  RunMetrics metrics_;
  std::string server_version_;
  std::unique_ptr<drivers::Driver> driver_;
  std::unique_ptr<Sessions> sessions_;
  bool untracked_ = false;              // driver() was handed out
  std::vector<std::string> unchanged_;  // tables the last run left as its reset made them (changed_tables)
};

}  // namespace txprop
