// The examples of docs/property-guide.md, compiled and run as part of the test suite (label `guide`), so the guide
// cannot drift from the API. Each example sits between "// [example: NAME]" and "// [end]"; the guide quotes them.
#include <fmt/format.h>

#include <txprop/txprop.hpp>

// [example: first-property]
// A property is a function of one generated TestCase. run() executes it on this suite's target and level, on a
// freshly reset database, one session per transaction; an oracle turns the History into a Verdict.
TXPROP_PROPERTY(GuideAtomicity, (const txprop::TestCase& c)) {
  const txprop::History h = run(c);
  RC_ASSERT_VERDICT(txprop::check_atomicity(target(), h));
}
// [end]

// [example: own-verdict]
// An oracle of your own: every transaction that the engine aborted was aborted for a reason the engine documents
// at this level (a serialization failure, a deadlock, ...). Such aborts are findings marked `documented`, with
// their source: counted and shown in the summary, never failing the test. Any other abort fails it.
txprop::Verdict aborts_are_documented(const txprop::History& h) {
  txprop::Verdict v = txprop::Verdict::pass("aborts-documented");
  for (std::size_t t = 0; t < h.transactions.size(); ++t) {
    const txprop::TxnResult& r = h.transactions[t];
    if (r.fate != txprop::TxnFate::Aborted) continue;
    txprop::Finding f;
    f.kind = "unexpected-error";
    f.explanation = fmt::format("T{} was aborted by {}: {}\n", t, txprop::to_string(r.abort_reason.cls),
                                r.abort_reason.message);
    switch (r.abort_reason.cls) {
      case txprop::ErrorClass::SerializationFailure:
      case txprop::ErrorClass::Deadlock:
      case txprop::ErrorClass::SnapshotConflict:
      case txprop::ErrorClass::LockTimeout:
      case txprop::ErrorClass::ConstraintViolation:
      case txprop::ErrorClass::DataError:
        f.standing = txprop::Standing::Documented;
        f.source = "the engine's manual: transactions may be rolled back on conflicts and constraint errors";
        break;
      case txprop::ErrorClass::CertificationFailure:  // a Galera cluster: a conflicting commit on another node won
        f.standing = txprop::Standing::Documented;
        f.source = "Galera Cluster documentation, Certification-Based Replication: a transaction whose write set "
                   "conflicts with one certified before it is rolled back";
        break;
      default:
        break;
    }
    v.findings.push_back(std::move(f));
  }
  if (h.any_blocked()) v.tags.push_back("a step waited on a lock");  // counted over the run, printed at the end
  return v;
}

TXPROP_PROPERTY(GuideAbortsAreDocumented, (const txprop::TestCase& c)) {
  RC_ASSERT_VERDICT(aborts_are_documented(run(c)));
}
// [end]

// [example: plain-assertions]
// Plain RapidCheck works too: RC_ASSERT / RC_FAIL (and exceptions) fail the case with the same shrinking budget,
// counts and report folder as RC_ASSERT_VERDICT (the finding is of kind "assertion"). RC_TAG and RC_CLASSIFY
// are counted and shown in the summary.
TXPROP_PROPERTY(GuideEveryTransactionEnds, (const txprop::TestCase& c)) {
  const txprop::History h = run(c);
  RC_CLASSIFY(h.any_blocked(), "blocked");
  RC_TAG(h.committed().size() == h.transactions.size() ? "all committed" : "some did not commit");
  if (h.finding) RC_FAIL("the run crashed or hung");  // run() has already failed the case in that event
  for (const txprop::TxnResult& r : h.transactions) RC_ASSERT(r.fate != txprop::TxnFate::Unfinished);
}
// [end]

// [example: settings]
// Settings per property, in code; TXPROP_CASES, TXPROP_SHRINK_ATTEMPTS, ... override them from the environment.
TXPROP_SETTINGS(GuideAtomicity) {
  s.cases = 10;                                    // cases that must pass on each (target, level)
  s.generator.max_transactions = 3;                // see txprop/generators.hpp for every generator option
  s.generator.rollback_probability = 0.5;
  s.levels = {txprop::IsolationLevel::Serializable, txprop::IsolationLevel::ReadCommitted};  // only these
  s.shrink_attempts = 200;                         // shrink budget: attempts ...
  s.shrink_time = std::chrono::seconds(30);        // ... and time
}
// [end]

TXPROP_SETTINGS(GuideAbortsAreDocumented) {
  s.cases = 10;
  s.levels = {txprop::IsolationLevel::Serializable};
}
TXPROP_SETTINGS(GuideEveryTransactionEnds) {
  s.cases = 10;
  s.levels = {txprop::IsolationLevel::Serializable};
}

// [example: oracle]
// An oracle is the registered form of a judge: a name, the finding kinds it may report, optionally how it prepares
// a case for an engine (and strips that for reports), and how it judges a history. Registered, it can be named in
// scenario files' expect: lines and replayed with `txprop replay --property` (a command built with
// txprop_add_command), and its counterexamples' scenario.txn name it.
class NoAbortedCommit final : public txprop::Oracle {
 public:
  std::string name() const override { return "guide-no-aborted-commit"; }
  std::vector<std::string> finding_kinds() const override { return {"unexpected-error"}; }
  txprop::Verdict judge(txprop::Target& target, const txprop::History& h) const override {
    txprop::Verdict v = txprop::Verdict::pass(name());
    for (std::size_t t = 0; t < h.transactions.size(); ++t) {
      const txprop::TxnResult& r = h.transactions[t];
      if (r.fate != txprop::TxnFate::Aborted || r.abort_reason.cls != txprop::ErrorClass::Other) continue;
      txprop::Finding f;
      f.kind = "unexpected-error";
      f.transactions = {static_cast<int>(t)};  // judged at this transaction's own level
      f.explanation = fmt::format("T{} at {} on {} was aborted by an unclassified error: {}\n", t,
                                  txprop::sql_name(h.test_case.transactions[t].isolation), target.engine().name(),
                                  r.abort_reason.message);
      v.findings.push_back(std::move(f));
    }
    return v;
  }
};
TXPROP_REGISTER_ORACLE(NoAbortedCommit);

TXPROP_PROPERTY(GuideNoAbortedCommit, (const txprop::TestCase& c)) {
  RC_ASSERT_VERDICT(check(txprop::oracle("guide-no-aborted-commit"), c));  // prepare, run, judge
}
// [end]
