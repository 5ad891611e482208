// Writing a property: one GoogleTest case per (configured target, isolation level), RapidCheck generates and
// shrinks the test case, every case and every shrink attempt runs on a freshly reset database.
//
//   TXPROP_PROPERTY(Atomicity, (const txprop::TestCase& c)) {
//     RC_ASSERT_VERDICT(check(txprop::oracle("atomicity"), c));   // prepare, run, judge with a registered oracle
//   }
//   TXPROP_PROPERTY(MyOwn, (const txprop::TestCase& c)) {
//     const txprop::History h = run(c);                             // or run the case and judge it yourself
//     RC_ASSERT(h.committed().size() <= c.transactions.size());
//   }
//   TXPROP_SETTINGS(Atomicity) { s.cases = 200; s.generator.max_transactions = 3; }   // optional
//
// Test names say target and level: Atomicity.check/postgresql_serializable. Settings are set in code and can be
// overridden from the environment: TXPROP_CASES, TXPROP_MAX_SIZE, TXPROP_SHRINK_ATTEMPTS, TXPROP_SHRINK_SECONDS,
// TXPROP_SEED, TXPROP_REPORT_DIR, TXPROP_JOBS, TXPROP_SHRINK_JOBS; RC_PARAMS keeps working (seed=, max_success=, reproduce=).
#pragma once

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "txprop/generators.hpp"
#include "txprop/history.hpp"
#include "txprop/oracle.hpp"
#include "txprop/target.hpp"
#include "txprop/target_config.hpp"
#include "txprop/internal/targets.hpp"
#include "txprop/verdict.hpp"

namespace txprop {

namespace shrink_helpers {
class Pool;
enum class Judged;
}

struct PropertySettings {
  int cases = 100;                         // cases that must pass
  int max_size = 100;                      // RapidCheck size bound
  int shrink_attempts = 2000;              // shrink attempts after the first failure
  std::chrono::seconds shrink_time{180};   // and at most this long shrinking
  std::optional<std::uint64_t> seed;       // fixed seed; random (RapidCheck's) otherwise
  std::string report_dir = "txprop-reports";
  gen::Options generator;                  // engine and isolation are set from the suite
  std::vector<IsolationLevel> levels;      // run only at these levels (empty: every level of the target)
  // Cases run at once, each by a worker process with its own database and sessions (TXPROP_JOBS;
  // framework/gtest/workers.hpp). 1: the suite's own process runs them one after the other.
  int jobs = 1;
  // Processes that judge shrink candidates at once, this one included (TXPROP_SHRINK_JOBS;
  // framework/gtest/shrink_helpers.hpp). The shrunk case is the same as with 1; only the wall time differs.
  int shrink_jobs = 1;
};

// One instantiation of a property suite.
struct SuiteParam {
  TargetConfig config;
  IsolationLevel level = IsolationLevel::Serializable;
  // Invalid settings or TXPROP_TARGETS, or a target with no level: the test fails with this line.
  std::string config_error;
  std::string name() const;  // "postgresql_serializable"
};
std::ostream& operator<<(std::ostream& os, const SuiteParam& p);

// What checking a property found: the figures of the run and, on failure, the shrunk counterexample.
struct PropertyResult {
  bool failed = false;
  int cases = 0;                          // generated cases run (not counting shrink attempts)
  double seconds = 0;                     // whole run, shrinking included
  double reset_seconds = 0;               // of the processes' time, resetting the database (a suite of TXPROP_JOBS
                                          // workers: the sum over the workers, whose wall times overlap)
  double seconds_to_first_finding = -1;   // -1: nothing found
  std::uint64_t seed = 0;                 // the seed RapidCheck ran with (a shard's own: framework/gtest/shards.hpp)
  int shrink_steps = 0, shrink_attempts = 0;
  int shrink_attempts_answered_ahead = 0;  // of those, found passing by a shrink helper (shrink_jobs > 1)
  bool shrink_budget_spent = false;
  std::optional<History> history;         // the minimal failing case's history (holds the test case)
  std::optional<Verdict> verdict;         // and its verdict
  std::string report_dir;                 // the report folder written for it
  std::string reproduce;                  // RC_PARAMS="reproduce=..."
  std::string message;                    // the text a failing test prints
  // Findings that did not fail a case (Standing::Documented, Standing::Allowed), by standing and kind: in how many
  // cases, and where that is documented (which level allows it).
  struct Counted {
    int cases = 0;
    std::string source;
  };
  std::map<Standing, std::map<std::string, Counted>> counted;
  std::map<std::string, int> tags;        // verdict tag -> cases
  int inconclusive = 0;
  std::vector<std::string> transient_crashes;  // crashes that did not reproduce on a re-run (counted, reported)
  std::string target_lost;                 // why the target could not be used any more, if it could not
  std::string summary() const;            // one line: cases, rate, documented behaviour, tags
};

// Runs one property on one target and level: generation, a fresh database per case and per shrink attempt,
// the shrink budget, progress lines, and the report folder on failure.
class PropertyRunner {
 public:
  PropertyRunner(std::string property, Target& target, SuiteParam suite, PropertySettings settings);

  Target& target() { return target_; }
  IsolationLevel level() const { return suite_.level; }
  const PropertySettings& settings() const { return settings_; }

  // Runs the case on the target, on a freshly reset database. A crash, a hang or a statement the engine rejects
  // as invalid (a generator defect) fails the property with its own finding.
  History run(const TestCase& c);
  // Records a verdict; returns whether it fails the property (the caller then RC_FAILs).
  bool judge(const Verdict& v, const History& h);
  // Prepares the case for `oracle`, runs it and judges the history. A counterexample's report strips the preparation
  // again and its scenario file names the oracle, so that `txprop replay` and scenario tests judge it the same way.
  Verdict run_oracle(const Oracle& oracle, const TestCase& c);
  const History& last_history() const { return last_history_; }

  // `body` is called once per generated case and per shrink attempt; it fails with RC_FAIL / RC_ASSERT*.
  PropertyResult check(const std::function<void(const TestCase&)>& body);

 private:
  std::string property_;
  Target& target_;
  SuiteParam suite_;
  PropertySettings settings_;
  History last_history_;
  const Oracle* oracle_ = nullptr;  // the oracle of the last run_oracle, if any
  bool shrinking_ = false;
  bool attempt_ran_ = false, attempt_judged_ = false;  // this case (or shrink attempt) ran / failed a verdict
  void record_failure(const TestCase& c, const std::string& description);  // RC_ASSERT, RC_FAIL, exception
  // Infrastructure faults (lost connection, server gone or stalled): the case is the counterexample as it is,
  // never shrunk against a dead server.
  bool no_shrink_ = false;      // the failure is a crash: no shrinking
  bool target_lost_ = false;    // a shrink attempt or re-run could not reach the target: stop using it
  bool rerunning_ = false;
  // `fault`: the target's failure as its driver typed it (Rejected: the engine refused the case's setup).
  void crash(const TestCase& c, const History* h, const std::string& detail, Fault fault);
  std::optional<History> failing_history_;
  std::optional<Verdict> failing_verdict_;
  PropertyResult result_;
  std::chrono::steady_clock::time_point shrink_start_;  // the first shrink attempt
  std::shared_ptr<shrink_helpers::Pool> shrink_pool_;   // helpers judging shrink candidates ahead (shrink_jobs > 1)
  void note_failure(const TestCase& c);                 // a case or an accepted shrink attempt failed
  shrink_helpers::Judged judge_for_helper(const std::function<void(const TestCase&)>& body, const TestCase& c);
  void attempt(const std::function<void(const TestCase&)>& body, const TestCase& c);  // one case or shrink attempt
  void write_counterexample(const std::string& rc_reproduce);  // the report folder and message of the failure
};

class PropertyTest : public ::testing::TestWithParam<SuiteParam> {
 public:
  Target& target() { return runner_->target(); }
  IsolationLevel level() const { return GetParam().level; }
  const PropertySettings& settings() const { return runner_->settings(); }
  History run(const TestCase& c) { return runner_->run(c); }
  bool judge(const Verdict& v, const History& h) { return runner_->judge(v, h); }
  // Prepare, run and judge with a registered oracle (txprop::oracle("wss")): the verdict for RC_ASSERT_VERDICT.
  Verdict check(const Oracle& oracle, const TestCase& c) { return runner_->run_oracle(oracle, c); }
  const History& last_history() const { return runner_->last_history(); }

  // Runs the property for this suite's target and level; fails the test with the counterexample.
  void check_property(const std::string& property, const std::function<void(const TestCase&)>& body);

 private:
  std::unique_ptr<PropertyRunner> runner_;
};

namespace detail {
// Closes the shared targets (dropping their test databases) when GoogleTest finishes, before static destructors.
class SharedTargetsEnvironment : public ::testing::Environment {
 public:
  void TearDown() override { close_shared_targets(); }
};
inline const bool shared_targets_closed_at_teardown =
    (::testing::AddGlobalTestEnvironment(new SharedTargetsEnvironment), true);
}  // namespace detail

// Makes a run fail, with a line per pattern, when a positive --gtest_filter pattern matched no test that ran
// (GoogleTest passes such a run with 0 tests). Installed by every program that includes this header.
bool install_unmet_filter_check();
namespace detail {
inline const bool unmet_filter_check_installed = install_unmet_filter_check();
}  // namespace detail

// Every (configured target, level) the property runs on, honouring its registered settings.
std::vector<SuiteParam> property_suites(const std::string& property);
struct SuiteParamName {
  std::string operator()(const ::testing::TestParamInfo<SuiteParam>& info) const { return info.param.name(); }
};

// Settings registered by TXPROP_SETTINGS, applied to every suite of the property.
using SettingsHook = std::function<void(PropertySettings&, const SuiteParam&)>;
bool register_property_settings(const std::string& property, SettingsHook hook);
PropertySettings settings_for(const std::string& property, const SuiteParam& param);

}  // namespace txprop

#define TXPROP_PROPERTY(Name, ArgList)                                                                     \
  class Name : public ::txprop::PropertyTest {                                                             \
   public:                                                                                                 \
    void property ArgList;                                                                                 \
  };                                                                                                       \
  TEST_P(Name, check) {                                                                                    \
    check_property(#Name, [this](const ::txprop::TestCase& txprop_case_) { property(txprop_case_); });   \
  }                                                                                                        \
  INSTANTIATE_TEST_SUITE_P(, Name, ::testing::ValuesIn(::txprop::property_suites(#Name)),                \
                           ::txprop::SuiteParamName{});                                                   \
  void Name::property ArgList

#define TXPROP_SETTINGS(Name)                                                                              \
  static void txprop_settings_##Name(::txprop::PropertySettings& s, const ::txprop::SuiteParam& suite);  \
  [[maybe_unused]] static const bool txprop_settings_registered_##Name =                                 \
      ::txprop::register_property_settings(#Name, &txprop_settings_##Name);                               \
  static void txprop_settings_##Name([[maybe_unused]] ::txprop::PropertySettings& s,                     \
                                     [[maybe_unused]] const ::txprop::SuiteParam& suite)

// Fails the property (and starts shrinking) when the verdict has a finding that is not documented behaviour.
#define RC_ASSERT_VERDICT(expression)                                                                      \
  do {                                                                                                     \
    const ::txprop::Verdict txprop_verdict_ = (expression);                                                \
    if (this->judge(txprop_verdict_, this->last_history())) RC_FAIL(txprop_verdict_.explain());          \
  } while (false)
