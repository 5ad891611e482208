// The run's own findings as verdicts (run_verdict): a divergence (cluster nodes whose final states differ after the
// run, drivers::NodesDiverge) is a kind of its own, not a crash: the nodes still answer, so the harness shrinks it like
// an isolation finding, and a scenario expects it as 'run <target> <level> divergence'.
#include <gtest/gtest.h>

#include <algorithm>

#include "txprop/history.hpp"
#include "txprop/oracle.hpp"
#include "tests/support/planted.hpp"

using namespace txprop;

namespace {

History finished_with(RunFinding::Kind kind, Fault fault) {
  TestCase c;
  c.schema.tables = {test::table_ab({{1, 1}})};
  c.transactions = {test::txn({"SELECT * FROM t"})};
  c.order = TestCase::serial_order(c.transactions);
  History h = test::completed_in_order(c);
  h.finding = RunFinding{kind, StepRef{-1, -1}, "nodes diverge: node 2's applied state differs from node 1's", fault};
  return h;
}

}  // namespace

TEST(RunFinding, ADivergenceIsItsOwnKind) {
  const History h = finished_with(RunFinding::Kind::Divergence, Fault::None);
  const Verdict v = run_verdict(h, Dialect::Portable);
  ASSERT_EQ(v.findings.size(), 1u);
  EXPECT_EQ(v.findings[0].kind, "divergence");
  EXPECT_TRUE(v.fails());
  EXPECT_NE(v.findings[0].explanation.find("divergence at the final-state read: nodes diverge"), std::string::npos)
      << v.findings[0].explanation;
  EXPECT_NE(describe(h).find("-- DIVERGENCE at the final-state read"), std::string::npos) << describe(h);
  const auto& kinds = run_finding_kinds();
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "divergence"), kinds.end());
  // A crash outside every step stays a crash, and says where it was not.
  const Verdict crash = run_verdict(finished_with(RunFinding::Kind::Crash, Fault::Lost), Dialect::Portable);
  ASSERT_EQ(crash.findings.size(), 1u);
  EXPECT_EQ(crash.findings[0].kind, "crash");
  EXPECT_NE(crash.findings[0].explanation.find("crash at no step (the reset or the final-state read)"),
            std::string::npos)
      << crash.findings[0].explanation;
}
