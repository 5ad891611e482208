// The SDG oracle judges a later run than the one it is handed where that run's groups did not run contiguously
// (TxCheck's blocking scheduling re-plans the case; decycling runs it again): the verdict is about that run, so the
// judgement's history, the failure report and its scenario file are that run, not the first (Verdict::judged_run).
// Embedded SQLite, no server: two transactions each read t; the first run interleaves every step of the two, so each
// group has the other transaction's version-set read inside it, and the oracle re-plans to the completion order.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "../../properties/sdg/sdg.hpp"
#include "tests/support/planted.hpp"
#include "txprop/oracle.hpp"
#include "txprop/property.hpp"
#include "txprop/target.hpp"
#include "txprop/target_config.hpp"

namespace txprop {
namespace {

// T0 and T1: BEGIN; SELECT * FROM t WHERE a = 1; COMMIT, one after the other.
TestCase two_readers() {
  TestCase c;
  c.schema.tables = {test::table_ab({{1, 0}, {2, 0}})};
  for (int t = 0; t < 2; ++t) c.transactions.push_back(test::txn(IsolationLevel::Serializable, {"SELECT * FROM t WHERE a = 1"}));
  c.order = {0, 0, 0, 1, 1, 1};
  return c;
}

// The prepared case (BEGIN, version-set read, SELECT, COMMIT per transaction) with its steps interleaved one by one.
TestCase interleaved(TestCase prepared) {
  prepared.order = {0, 1, 0, 1, 0, 1, 0, 1};
  return prepared;
}

// Each group glued to where its SELECT completed (sdg::replan of the interleaved run).
const std::vector<int> kReplanned = {0, 1, 0, 0, 1, 1, 0, 1};

TEST(SdgJudgedRun, TheJudgementsHistoryIsTheReplannedRun) {
  auto target = Target::open(parse_target_uri("sqlite:"));
  const Oracle& sdg = oracle("sdg");
  const Judgement j = judge_case(sdg, *target, two_readers(),
                                 [&](const TestCase& prepared) { return target->run(interleaved(prepared)); });
  ASSERT_TRUE(j.verdict.ok()) << j.verdict.explain() << j.verdict.note;
  EXPECT_NE(std::find(j.verdict.tags.begin(), j.verdict.tags.end(), "sdg-replanned"), j.verdict.tags.end())
      << "the first run was judged as it ran: the test shows nothing";
  ASSERT_TRUE(j.verdict.judged_run);
  EXPECT_EQ(j.history.test_case.order, kReplanned);
  EXPECT_EQ(j.prepared.order, kReplanned);
  // The run itself, not only its plan: the steps completed in the re-planned order.
  ASSERT_EQ(j.history.events.size(), kReplanned.size());
  for (std::size_t e = 0; e < kReplanned.size(); ++e) EXPECT_EQ(j.history.events[e].step.txn, kReplanned[e]) << e;
  // The case a scenario file keeps: the plain statements in the order that run submitted them.
  TestCase scenario = two_readers();
  scenario.order = {0, 1, 0, 1, 0, 1};
  EXPECT_EQ(sdg::strip(j.history.test_case), scenario);
}

// The same case through a property suite whose oracle (SDG's preparation and judge) plants a failing finding on the
// run it judged: the report, its history and the summary it writes are the re-planned run.
class ReplannedSdg final : public Oracle {
 public:
  std::string name() const override { return "replanned-sdg"; }
  std::vector<std::string> finding_kinds() const override { return {"planted"}; }
  TestCase prepare(const TestCase& c, const EngineProfile& engine) const override {
    return interleaved(oracle("sdg").prepare(c, engine));
  }
  TestCase strip(const TestCase& prepared) const override { return sdg::strip(prepared); }
  Verdict judge(Target& target, const History& h) const override {
    Verdict v = sdg::check_sdg(target, h);
    Finding f;
    f.kind = "planted";
    f.explanation = "planted on the judged run\n";
    v.findings.push_back(std::move(f));
    return v;
  }
};

TEST(SdgJudgedRun, TheFailureReportShowsTheReplannedRun) {
  auto target = Target::open(parse_target_uri("sqlite:"));
  ReplannedSdg o;
  SuiteParam suite{target->config(), IsolationLevel::Serializable, {}};
  PropertySettings s = settings_for("ReplannedSdg", suite);
  s.cases = 1;
  s.shrink_attempts = 0;  // every case is the same one: nothing to shrink
  s.report_dir = ::testing::TempDir() + "sdg-judged-run";
  PropertyRunner runner("ReplannedSdg", *target, suite, s);
  const PropertyResult r = runner.check([&](const TestCase&) {
    const Verdict v = runner.run_oracle(o, two_readers());
    if (runner.judge(v, runner.last_history())) RC_FAIL(v.explain());
  });
  ASSERT_TRUE(r.failed && r.history) << r.message;
  EXPECT_EQ(r.history->test_case.order, kReplanned);
  ASSERT_EQ(r.history->events.size(), kReplanned.size());
  for (std::size_t e = 0; e < kReplanned.size(); ++e) EXPECT_EQ(r.history->events[e].step.txn, kReplanned[e]) << e;
  // The summary shows that run's actual order (describe(History)), not the interleaved one.
  std::ifstream in(std::filesystem::path(r.report_dir) / "summary.txt");
  std::stringstream summary;
  summary << in.rdbuf();
  EXPECT_NE(summary.str().find(describe(*r.history)), std::string::npos) << summary.str();
  std::filesystem::remove_all(s.report_dir);
}

}  // namespace
}  // namespace txprop
