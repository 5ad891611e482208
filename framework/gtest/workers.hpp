// Parallel workers in one suite (TXPROP_JOBS=N): RapidCheck checks one property on one thread, and a case spends
// most of its time waiting on round trips, so N cases run at once as N processes. The suite's process runs no case
// itself: it starts N copies of its own test program filtered to its own test, each one a shard of the suite as
// shards.hpp makes them (GTEST_TOTAL_SHARDS=N, GTEST_SHARD_INDEX=k, with the suite's case count and seed as
// TXPROP_CASES and TXPROP_SEED): each worker runs its share of the cases with its own seed derived from the suite's,
// in its own database or schema with its own sessions (every process opens its own test object, driver.hpp), so a
// run is reproducible and worker k alone is `TXPROP_JOBS=1 TXPROP_SEED=<its seed> TXPROP_CASES=<its share>`.
// The first worker to find a failure creates a stop file; the others run no further case (the ones they ran count),
// and it shrinks its failure as a single process would. The workers' suite records are merged as `txprop summary`
// merges shards (summary_shards.hpp): cases, documented and allowed findings, tags and cases without a verdict are
// the union, and the suite passes, fails or shows a deviation as one process would, with the report folder and
// replay line of the worker that failed. Progress is one line for the union: each worker keeps a snapshot of its
// progress in its own file (report_progress) and the suite's process prints their sum every few seconds. Known
// limit: the suite's outcome is printed when every worker has ended (the others end their current case first, each
// bounded by the hang limit).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "txprop/property.hpp"

namespace txprop::workers {

// This process's environment ("KEY=value" entries) without the variables named in `dropped`: what a child process
// of this program (a worker, a shrink helper) inherits before it is given its own.
std::vector<std::string> environment_without(std::initializer_list<std::string_view> dropped);

// Whether this process is a worker of a suite run with TXPROP_JOBS > 1 (its parent set TXPROP_WORKER_STOP_FILE).
bool is_worker();
// In a worker: whether another worker found a failure, so no further case should run.
bool stop_requested();
// In a worker: tells the others to stop (this one found a failure and shrinks it).
void request_stop();
// In a worker: replaces its progress snapshot (ProgressSnapshot::to_text(), progress.hpp) that the suite's process
// sums into one progress line.
void report_progress(const std::string& snapshot);

// Whether the current GoogleTest test can be run as workers: it is known by name, and RC_PARAMS does not reproduce a
// case (a reproduce string is replayed by one process, whatever TXPROP_JOBS says).
bool can_split();

struct Plan {
  std::string property;  // "Wss"
  std::string suite;     // "sqlite_serializable"
  int jobs = 2;
  int cases = 100;       // the suite's cases (a shard's share when the run is sharded across machines)
  std::uint64_t seed = 0;
};
// Runs the current test as `plan.jobs` workers and returns the union of their results.
PropertyResult run(const Plan& plan);

}  // namespace txprop::workers
