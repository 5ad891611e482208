// An oracle judges histories: it has a name, the finding kinds it may report, how it prepares (instruments) a test
// case for an engine and strips that again for reports, and how it judges the history of the prepared case.
// Property suites (TXPROP_PROPERTY), scenario files (expect: lines), `txprop replay --property`, `txprop check` and
// the validation of finding kinds all read one registry. An oracle is one folder under properties/ plus one line in
// properties/oracles.cpp; a project registers its own the same way, and its counterexamples replay:
//
//   class NoLostRows : public txprop::Oracle {
//    public:
//     std::string name() const override { return "no-lost-rows"; }
//     std::vector<std::string> finding_kinds() const override { return {"lost-row"}; }
//     txprop::Verdict judge(txprop::Target& target, const txprop::History& h) const override;
//   };
//   TXPROP_REGISTER_ORACLE(NoLostRows);
//
//   TXPROP_PROPERTY(NoLostRows, (const txprop::TestCase& c)) { RC_ASSERT_VERDICT(check(txprop::oracle("no-lost-rows"), c)); }
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "txprop/engine.hpp"
#include "txprop/history.hpp"
#include "txprop/target.hpp"
#include "txprop/test_case.hpp"
#include "txprop/verdict.hpp"

namespace txprop {

class Oracle {
 public:
  virtual ~Oracle() = default;

  // Lower case, no spaces: what verdicts, scenario expectations and --property call it.
  virtual std::string name() const = 0;
  // Other names scenario files may use for it.
  virtual std::vector<std::string> aliases() const { return {}; }
  // Every finding kind judge() may report (besides the run's own: crash, hang, invalid-statement).
  virtual std::vector<std::string> finding_kinds() const = 0;
  // The classes a finding of `kind` belongs to, itself included: a scenario expectation naming a class is met by a
  // finding of any kind in it (Adya: "G-single" is met by lost-update and read-skew, "G2" by G2-item). Default: {kind}.
  virtual std::vector<std::string> classes_of(const std::string& kind) const { return {kind}; }

  // Empty if this oracle can judge `c` on `engine`; otherwise one line saying why not (e.g. a shape of a hand-written
  // isolation test, an autocommit statement, that its method cannot handle). check() then runs nothing and gives no
  // verdict with that reason, and a scenario expectation of this oracle fails with it: an oracle never passes a case
  // it cannot judge. judge_case() asks it before prepare(), with the case as given, so judge() is never handed a
  // history of a refused case and need not ask again.
  virtual std::string cannot_judge(const TestCase& c, const EngineProfile& engine) const {
    (void)c;
    (void)engine;
    return {};
  }
  // The case as this oracle runs it on `engine` (e.g. with instrumentation columns); the case itself by default.
  virtual TestCase prepare(const TestCase& c, const EngineProfile& engine) const;
  // The prepared case as it was before prepare(), for reports and scenario files (which prepare it again on replay).
  virtual TestCase strip(const TestCase& prepared) const;
  // The verdict on the history of a prepared case run on `target`. Each transaction is judged at its own level.
  virtual Verdict judge(Target& target, const History& h) const = 0;

  // One sentence for reports saying what prepare() added to the case (empty: it runs the case as it is).
  virtual std::string preparation(const TestCase& prepared) const;

  // judge_case() with the target's own run: prepare, run on a freshly reset database, judge.
  Verdict check(Target& target, const TestCase& c) const;
};

// What judging one case gave: nothing ran when the oracle refused it.
struct Judgement {
  std::string refused;  // cannot_judge's line; then `verdict` is "no verdict" with it and `history` is empty
  TestCase prepared;    // the case as it ran (as the judged run ran it: Verdict::judged_run)
  History history;      // the run the verdict is about (the oracle's judged run where it judged one of its own)
  Verdict verdict;
};
using RunCase = std::function<History(const TestCase&)>;
// The one judging path property suites, scenario files and `txprop replay` take: asks cannot_judge (a refused case
// is never run), prepares the case, runs it with `run` (the property harness passes its own, which re-runs a crash),
// and judges the history.
Judgement judge_case(const Oracle& oracle, Target& target, const TestCase& c, const RunCase& run);

// Registering a name or alias already taken throws std::logic_error.
bool register_oracle(std::unique_ptr<Oracle> oracle);
// By name or alias; nullptr when there is none.
const Oracle* find_oracle(std::string_view name);
// By name or alias; throws std::invalid_argument naming the registered oracles when there is none.
const Oracle& oracle(std::string_view name);
std::vector<const Oracle*> registered_oracles();

// Kinds any run may give, whatever the oracle: the run crashed, hung, or the engine rejected a statement as invalid.
const std::vector<std::string>& run_finding_kinds();
// Those findings of one history as a verdict: run_verdict (history.hpp), what the oracle "run" judges
// (properties/run/), which scenario files expect for an engine bug whose run ends in a run finding.
// Whether some registered oracle (or the run itself) may report `kind`.
bool is_known_finding_kind(std::string_view kind);

}  // namespace txprop

#define TXPROP_ORACLE_CONCAT_INNER(a, b) a##b
#define TXPROP_ORACLE_CONCAT(a, b) TXPROP_ORACLE_CONCAT_INNER(a, b)
// Registers an oracle type (default-constructible) from a project's own source file.
#define TXPROP_REGISTER_ORACLE(Type)                                                                          \
  [[maybe_unused]] static const bool TXPROP_ORACLE_CONCAT(txprop_oracle_registered_, __LINE__) =             \
      ::txprop::register_oracle(std::make_unique<Type>())
