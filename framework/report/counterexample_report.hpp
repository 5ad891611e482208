// A failing property's counterexample, as text for the test output and as a report folder: the scenario file that
// replays it (copy it into tests/scenarios/ to keep it as a regression test), one SQL script per connection to
// paste into terminals, the whole schedule, a summary, and the dependency graph where the property drew one.
#pragma once

#include <optional>
#include <string>

#include "txprop/history.hpp"
#include "txprop/target_config.hpp"
#include "txprop/verdict.hpp"

namespace txprop::report {

struct Counterexample {
  std::string property;  // "Atomicity": the property (test suite) that failed
  std::string oracle;    // the registered oracle that judged it ("atomicity"); empty when the property judged itself
  std::string suite;     // "mariadb_read_uncommitted"
  TargetConfig target;
  IsolationLevel level = IsolationLevel::Serializable;
  History history;       // holds the test case that ran
  // The case the scenario file keeps: the one generated, before any instrumentation the property added (the
  // scenario's property instruments it again on replay). Defaults to the history's.
  std::optional<TestCase> scenario_case;
  std::string preparation;  // the oracle's sentence on what its preparation added (Oracle::preparation)
  Verdict verdict;
  std::string reproduce;  // RC_PARAMS="reproduce=..." or empty
};

// The counterexample as a database engineer reads it: schema and rows, transactions with their level, the
// submitted order, the actual order with blocked steps marked, the verdict with its evidence.
std::string describe(const Counterexample& c);

// Writes the report folder under `base_dir` and returns its path.
std::string write_report(const Counterexample& c, const std::string& base_dir);

}  // namespace txprop::report
