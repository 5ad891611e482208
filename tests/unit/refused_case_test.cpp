// A case an oracle refuses (Oracle::cannot_judge) is never run by a property suite: the one judging path
// (judge_case) asks before it prepares and runs, and the suite counts it as "no verdict" (issue 20 item 2).
// Runs on embedded SQLite: no server needed.
#include <gtest/gtest.h>

#include <atomic>

#include "txprop/property.hpp"
#include "txprop/target.hpp"
#include "txprop/target_config.hpp"

namespace txprop {
namespace {

// Judges only cases of at most two transactions (a stand-in for a method that compares pairs), and counts what it
// was given: every prepared case must have been accepted.
class PairsOnly final : public Oracle {
 public:
  mutable std::atomic<int> prepared{0}, judged{0}, prepared_refused{0};
  std::string name() const override { return "pairs-only"; }
  std::vector<std::string> finding_kinds() const override { return {}; }
  std::string cannot_judge(const TestCase& c, const EngineProfile&) const override {
    return c.transactions.size() > 2 ? "it has more than two transactions" : "";
  }
  TestCase prepare(const TestCase& c, const EngineProfile& engine) const override {
    ++prepared;
    if (!cannot_judge(c, engine).empty()) ++prepared_refused;
    return c;
  }
  Verdict judge(Target&, const History&) const override {
    ++judged;
    return Verdict::pass(name());
  }
};

TEST(JudgingPath, APropertySuiteDoesNotRunACaseItsOracleRefuses) {
  auto target = Target::open(parse_target_uri("sqlite:"));
  PairsOnly o;
  SuiteParam suite{target->config(), IsolationLevel::Serializable, {}};
  PropertySettings s = settings_for("PairsOnly", suite);  // the generator as the engine's capabilities allow
  s.cases = 60;
  s.seed = 20;
  s.generator.min_transactions = 2;
  s.generator.max_transactions = 4;
  PropertyRunner runner("PairsOnly", *target, suite, s);
  int ran = 0;
  const PropertyResult r = runner.check([&](const TestCase& c) {
    const Verdict v = runner.run_oracle(o, c);
    if (!v.inconclusive) {
      ++ran;
      EXPECT_LE(runner.last_history().test_case.transactions.size(), 2u);
    } else {
      // Nothing ran: the last history is the case as given, every step skipped.
      EXPECT_TRUE(runner.last_history().events.empty());
    }
    if (runner.judge(v, runner.last_history())) RC_FAIL(v.explain());
  });
  ASSERT_FALSE(r.failed) << r.message;
  EXPECT_EQ(o.prepared_refused.load(), 0) << "a refused case was prepared (and run)";
  EXPECT_EQ(o.prepared.load(), ran);
  EXPECT_EQ(o.judged.load(), ran);
  EXPECT_GT(r.inconclusive, 0) << "no case had more than two transactions: the test shows nothing";
  EXPECT_GT(ran, 0);
  EXPECT_EQ(r.inconclusive + ran, r.cases);
  EXPECT_EQ(r.tags.count("no verdict: it has more than two transactions"), 1u) << r.summary();
}

// The same path serves Oracle::check (scenario files, txprop replay): a refused case gives no verdict with the reason.
TEST(JudgingPath, CheckGivesNoVerdictForARefusedCase) {
  auto target = Target::open(parse_target_uri("sqlite:"));
  PairsOnly o;
  TestCase c;
  c.transactions.resize(3);
  const Verdict v = o.check(*target, c);
  EXPECT_TRUE(v.inconclusive);
  EXPECT_NE(v.note.find("it has more than two transactions"), std::string::npos) << v.note;
  EXPECT_EQ(o.prepared.load(), 0);
}

// Gives no verdict while judging, naming a class of its own only when asked to.
class UndecidedJudge final : public Oracle {
 public:
  bool own_tag = false;
  std::string name() const override { return "undecided"; }
  std::vector<std::string> finding_kinds() const override { return {}; }
  Verdict judge(Target&, const History&) const override {
    Verdict v = Verdict::pass(name());
    if (own_tag) v.tags.push_back("no verdict: a class of its own");
    return v.without_verdict("T1.2 waited for T10\nand the details of this one case");
  }
};

// Every case without a verdict is counted under a reason: one given while judging without a class of its own is
// counted under the first line of its reason, transaction names made "T"; one with its own class is not counted twice.
TEST(JudgingPath, ANoVerdictGivenWhileJudgingIsCountedUnderItsReason) {
  auto target = Target::open(parse_target_uri("sqlite:"));
  UndecidedJudge o;
  TestCase c;
  Verdict v = o.check(*target, c);
  EXPECT_TRUE(v.inconclusive);
  EXPECT_EQ(v.tags, std::vector<std::string>{"no verdict: T waited for T"});
  o.own_tag = true;
  v = o.check(*target, c);
  EXPECT_EQ(v.tags, std::vector<std::string>{"no verdict: a class of its own"});
}

}  // namespace
}  // namespace txprop
