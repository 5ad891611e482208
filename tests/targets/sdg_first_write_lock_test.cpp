// SDG on SQLite, a transaction whose first statement is a write that waits for another's write lock (issue 21, the
// instrumentation differential): SQLite's deferred BEGIN takes no lock and no snapshot, and a first write that gets
// SQLITE_BUSY holds neither, so the plain write takes its snapshot when it finally runs. TxCheck's reads before it
// would take the snapshot before the wait (the retried write then fails: SQLITE_BUSY_SNAPSHOT in WAL mode). The
// instrumentation begins such a group with a write that writes nothing (properties/sdg/instrumentation.hpp, write
// lock), which waits where the plain write waits, so the prepared run equals the plain one and SDG judges the case.
// SQLite is embedded: no server needed.
#include <gtest/gtest.h>

#include <algorithm>

#include "../../properties/sdg/instrumentation.hpp"
#include "txprop/internal/instrumentation_diff.hpp"
#include "txprop/oracle.hpp"
#include "txprop/scenario.hpp"
#include "txprop/target.hpp"

using namespace txprop;

namespace {

// T1 begins while T0 holds the write lock; its first statement, a write, waits for T0's COMMIT.
const char* const kWaitingFirstWrite =
    "setup:\nCREATE TABLE t (k INTEGER NOT NULL, v INTEGER);\nINSERT INTO t (k, v) VALUES (1, 10);\n"
    "steps:\nT0: BEGIN;\nT0: UPDATE t SET v = 11 WHERE k = 1;\nT1: BEGIN;\nT1: UPDATE t SET v = v + 1 WHERE k = 1;\n"
    "T0: COMMIT;\nT1: SELECT * FROM t;\nT1: COMMIT;\n";

}  // namespace

TEST(SdgFirstWriteLock, PreparedRunEqualsThePlainOneOnSqlite) {
  for (const char* uri : {"sqlite:", "sqlite:?journal_mode=delete"}) {
    SCOPED_TRACE(uri);
    const std::unique_ptr<Target> target = Target::open(parse_target_uri(uri));
    const TestCase c = parse_scenario(kWaitingFirstWrite, "first_write.txn").test_case(IsolationLevel::Serializable);
    const History plain = target->run(c);
    ASSERT_TRUE(plain.was_blocked[1][1]) << describe(plain);  // T1's UPDATE waited for T0's write lock
    ASSERT_EQ(plain.transactions[1].fate, TxnFate::Committed) << describe(plain);
    // With the write lock first, the prepared run blocks, returns and ends as the plain one.
    const TestCase locked = sdg::instrument(c, true);
    EXPECT_EQ(differential::compare_runs(plain, target->run(locked)), "");
    // Without it TxCheck's reads take T1's snapshot before the wait, and the runs differ.
    EXPECT_NE(differential::compare_runs(plain, target->run(sdg::instrument(c, false))), "");
    // The oracle prepares it so and judges it: T0 then T1, serializable.
    const Oracle& sdg = oracle("sdg");
    EXPECT_EQ(sdg.prepare(c, target->engine()), sdg::instrument(c, true, {}, true));
    const Judgement j = judge_case(sdg, *target, c, [&](const TestCase& p) { return target->run(p); });
    EXPECT_EQ(j.refused, "");
    EXPECT_TRUE(j.verdict.ok()) << j.verdict.note;
    EXPECT_EQ(sdg.strip(locked), c);
  }
}

// An UPDATE that sets a row to its own values leaves SQLite's page unwritten, so T1 commits nothing and T0's later
// write succeeds. TxCheck's version key written unconditionally writes the row, and T0's write then fails
// (SQLITE_BUSY_SNAPSHOT in WAL mode); SDG gave no verdict on that run. The version key is now set only where an
// assigned column changes (instrument, on_change): the prepared run is the plain one's, and the case is judged.
TEST(SdgFirstWriteLock, AnUnchangedRowStaysUnwrittenOnSqlite) {
  const std::unique_ptr<Target> target = Target::open(parse_target_uri("sqlite:"));
  const TestCase c = parse_scenario(
                         "setup:\nCREATE TABLE t (k INTEGER NOT NULL, v INTEGER);\nINSERT INTO t (k, v) VALUES (1, 10);\n"
                         "steps:\nT0: BEGIN;\nT0: SELECT * FROM t;\nT1: BEGIN;\nT1: UPDATE t SET v = 10 WHERE k = 1;\n"
                         "T1: COMMIT;\nT0: UPDATE t SET v = 12 WHERE k = 1;\nT0: COMMIT;\n",
                         "unchanged.txn")
                         .test_case(IsolationLevel::Serializable);
  const History plain = target->run(c);
  ASSERT_EQ(plain.transactions[0].fate, TxnFate::Committed) << describe(plain);
  const Oracle& sdg = oracle("sdg");
  // Unconditionally, the version key writes the row and T0's write fails.
  EXPECT_NE(differential::compare_runs(plain, target->run(sdg::instrument(c, true))), "");
  EXPECT_EQ(differential::compare_runs(plain, target->run(sdg.prepare(c, target->engine()))), "");
  const Judgement j = judge_case(sdg, *target, c, [&](const TestCase& p) { return target->run(p); });
  EXPECT_TRUE(j.verdict.ok() && !j.verdict.inconclusive) << j.verdict.explain() << j.verdict.note;
}
