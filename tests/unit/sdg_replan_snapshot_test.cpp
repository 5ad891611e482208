// TxCheck's blocking scheduling re-plans a group that waited to after what it waited for (properties/sdg/sdg.hpp,
// replan). Where that group holds the step that takes its transaction's snapshot (PostgreSQL REPEATABLE READ and
// SERIALIZABLE: the first statement, which takes it before it waits for a lock), the re-planned run gives the
// transaction another snapshot: another case than the one that ran, which the oracle does not judge (start_moved). Seen
// with tests/scenarios/engine_bugs/pg_ssi_access_exclusive_holder_reads_unseen.txn, where SDG gave `ok` on a write skew
// PostgreSQL commits. No server: planted runs, judged with PostgreSQL's profile.
#include <gtest/gtest.h>

#include <memory>

#include "../../properties/sdg/sdg.hpp"
#include "tests/support/planted.hpp"
#include "txprop/sql.hpp"
#include "txprop/target.hpp"
#include "txprop/target_config.hpp"

namespace txprop::sdg {
namespace {

const Target& postgresql() {
  static std::unique_ptr<Target> target =
      Target::open_judged_as(parse_target_uri("sqlite:"), parse_target_uri("postgresql://u@127.0.0.1/db"));
  return *target;
}

// T1 inserts a row and reads t, then commits; T0 updates every row of t, its first statement. Prepared: T1 is BEGIN,
// version-set read, INSERT, after-write read, version-set read, SELECT, COMMIT; T0 is BEGIN, version-set read,
// before-write read, UPDATE, after-write read, COMMIT. As planned, T0's version-set read (its first statement: its
// snapshot) is sent before T1's second group (in the scenario it waited there for T1's LOCK TABLE); re-planned, T0's
// whole group runs after T1's COMMIT.
// `t1_commits`: else T1 ends with ROLLBACK.
History run(IsolationLevel level, bool replanned, bool t1_commits = true, bool pinned = false) {
  TestCase c;
  c.schema.tables = {test::table_ab({{1, 0}})};
  c.transactions = {test::txn(level, {"UPDATE t SET b = 1"}),
                    test::txn(level, {"INSERT INTO t (a, b) VALUES (2, 0)", "SELECT * FROM t"})};
  c.transactions[1].end = t1_commits ? TxnEnd::Commit : TxnEnd::Rollback;
  c.order = {1, 1, 0, 1, 1, 0, 0};
  const std::vector<IsolationLevel> pins =
      pinned ? postgresql().engine().capabilities().table_free_snapshot_levels : std::vector<IsolationLevel>{};
  TestCase p = instrument(c, false, {}, false, false, false, pins);
  p.order = replanned ? std::vector<int>{1, 1, 1, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0}
                      : std::vector<int>{1, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0};
  // With each transaction's SnapshotPin (its step 1, SELECT 1), sent at the planned position in both runs: right after
  // its BEGIN (T1's at order index 0, T0's then at 5).
  if (pinned) {
    p.order.insert(p.order.begin() + 1, 1);
    p.order.insert(p.order.begin() + 6, 0);
  }
  EXPECT_EQ(p.validate(), "");
  History h = test::completed_in_order(p);
  h.outcomes[1][2] = test::affected(1);  // T1's INSERT (after BEGIN and its version-set read)
  h.outcomes[0][p.transactions[0].statements.size() - 1] = test::affected(1);  // T0's UPDATE (before its after-write read)
  return h;
}

TEST(SdgReplanSnapshot, ReplanningPastTheEndOfAnotherMovesASnapshotAndIsNamed) {
  const std::string why = start_moved(run(IsolationLevel::Serializable, false), run(IsolationLevel::Serializable, true),
                                      postgresql().engine(), postgresql().config());
  EXPECT_NE(why.find("re-planning moved T0's start"), std::string::npos) << why;
  EXPECT_NE(why.find("from before T1 ended to after it"), std::string::npos) << why;
  EXPECT_EQ(why.find("which held LOCK TABLE"), std::string::npos) << why;  // T1 locks no table here
  EXPECT_NE(why.find("first statement, which takes the snapshot"), std::string::npos) << why;
  // The same at REPEATABLE READ.
  EXPECT_NE(start_moved(run(IsolationLevel::RepeatableRead, false), run(IsolationLevel::RepeatableRead, true),
                        postgresql().engine(), postgresql().config()),
            "");
}

TEST(SdgReplanSnapshot, NoSnapshotMovesWithoutATransactionSnapshotAChangeOrAMove) {
  // READ COMMITTED: every statement takes its own snapshot; the re-planned statement reads as it would have.
  EXPECT_EQ(start_moved(run(IsolationLevel::ReadCommitted, false), run(IsolationLevel::ReadCommitted, true),
                        postgresql().engine(), postgresql().config()),
            "");
  // T1 rolled back: a snapshot after its end sees what one before it saw.
  EXPECT_EQ(start_moved(run(IsolationLevel::Serializable, false, false), run(IsolationLevel::Serializable, true, false),
                        postgresql().engine(), postgresql().config()),
            "");
  // A re-planned run whose starts stay on the same side of every end.
  EXPECT_EQ(start_moved(run(IsolationLevel::Serializable, true), run(IsolationLevel::Serializable, true),
                        postgresql().engine(), postgresql().config()),
            "");
}

// Where the engine takes a transaction snapshot with a statement that reads no table (PostgreSQL REPEATABLE READ and
// SERIALIZABLE, EngineCapabilities::table_free_snapshot_levels), each transaction begins with SELECT 1 before its first
// group; re-planning moves the group, not the pin, so the snapshot stays where the plain case takes it.
TEST(SdgReplanSnapshot, APinnedSnapshotStaysWhereThePlainCaseTakesIt) {
  for (IsolationLevel level : {IsolationLevel::RepeatableRead, IsolationLevel::Serializable}) {
    const History planned = run(level, false, true, true), replanned = run(level, true, true, true);
    const Layout roles = layout(replanned.test_case);
    ASSERT_EQ(roles[0][1].role, Role::SnapshotPin) << "T0's first step after BEGIN";
    EXPECT_EQ(roles[0][1].group, -1);
    EXPECT_EQ(render(replanned.test_case.transactions[0].statements[0], Dialect::PostgreSql), "SELECT 1");
    // The pin and the group after it are no statements of the case: strip() gives back the plain case.
    EXPECT_EQ(strip(replanned.test_case).transactions[0].statements.size(), 1U);
    EXPECT_EQ(start_moved(planned, replanned, postgresql().engine(), postgresql().config()), "");
    // The pin is what keeps it: the same runs without it move T0's start past T1's commit.
    EXPECT_NE(start_moved(run(level, false), run(level, true), postgresql().engine(), postgresql().config()), "");
  }
}

TEST(SdgReplanSnapshot, NoPinBelowATransactionSnapshotOrInAnAutocommitStatement) {
  const std::vector<IsolationLevel> levels = postgresql().engine().capabilities().table_free_snapshot_levels;
  TestCase c;
  c.schema.tables = {test::table_ab({{1, 0}})};
  c.transactions = {test::txn(IsolationLevel::ReadCommitted, {"UPDATE t SET b = 1"}),
                    test::txn(IsolationLevel::RepeatableRead, {"UPDATE t SET b = 2"})};
  c.transactions[1].autocommit = true;
  c.order = {0, 0, 0, 1, 1, 1};
  const TestCase p = instrument(c, false, {}, false, false, false, levels);
  for (const std::vector<StepRole>& steps : layout(p))
    for (const StepRole& r : steps) EXPECT_NE(r.role, Role::SnapshotPin);
}

}  // namespace
}  // namespace txprop::sdg
