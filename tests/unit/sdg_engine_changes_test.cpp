// SDG refuses the cases TxCheck's reads would change (properties/sdg/engine_changes.cpp, issue 21 item 1), and only
// those: each rule on a case that has its shape and on the same case where the other transaction ended first.
#include <gtest/gtest.h>

#include <string>

#include "txprop/engine.hpp"
#include "txprop/oracle.hpp"
#include "txprop/scenario.hpp"

using namespace txprop;

namespace {

const char* const kSetup = "setup:\nCREATE TABLE t (k INTEGER NOT NULL, v INTEGER);\nINSERT INTO t (k, v) VALUES (1, 10);\n";

std::string refusal(const std::string& steps, IsolationLevel level, const char* engine) {
  const TestCase c = parse_scenario(std::string(kSetup) + "steps:\n" + steps, "sdg.txn").test_case(level);
  return oracle("sdg").cannot_judge(c, *find_engine(engine));
}

// T1's first statement is a write while T0 has written and not ended.
const char* const kWaitingFirstWrite =
    "T0: BEGIN;\nT0: UPDATE t SET v = 11 WHERE k = 1;\nT1: BEGIN;\nT1: UPDATE t SET v = 12 WHERE k = 1;\n"
    "T0: COMMIT;\nT1: SELECT * FROM t;\nT1: COMMIT;\n";
// The same statements with T0 ended before T1 begins.
const char* const kSerial =
    "T0: BEGIN;\nT0: UPDATE t SET v = 11 WHERE k = 1;\nT0: COMMIT;\nT1: BEGIN;\nT1: UPDATE t SET v = 12 WHERE k = 1;\n"
    "T1: SELECT * FROM t;\nT1: COMMIT;\n";

}  // namespace

// SQLite's waiting first write is judged: the instrumentation takes the write lock first, where the plain write waits
// (tests/targets/sdg_first_write_lock_test.cpp).
TEST(SdgEngineChanges, SqliteWaitingFirstWriteIsJudged) {
  EXPECT_EQ(refusal(kWaitingFirstWrite, IsolationLevel::Serializable, "sqlite"), "");
  EXPECT_EQ(refusal(kSerial, IsolationLevel::Serializable, "sqlite"), "");
}

TEST(SdgEngineChanges, InnodbEarlyReadViewAndShareLocks) {
  EXPECT_NE(refusal(kWaitingFirstWrite, IsolationLevel::RepeatableRead, "mariadb").find("opens no read view"),
            std::string::npos);
  EXPECT_NE(refusal(kWaitingFirstWrite, IsolationLevel::Serializable, "mariadb").find("take share locks"),
            std::string::npos);
  EXPECT_EQ(refusal(kWaitingFirstWrite, IsolationLevel::ReadCommitted, "mariadb"), "");
  EXPECT_EQ(refusal(kSerial, IsolationLevel::RepeatableRead, "mariadb"), "");
  EXPECT_EQ(refusal(kSerial, IsolationLevel::Serializable, "mariadb"), "");
  // Neither applies on PostgreSQL, whose first statement takes the snapshot and whose reads take no blocking locks.
  EXPECT_EQ(refusal(kWaitingFirstWrite, IsolationLevel::RepeatableRead, "postgresql"), "");
}

TEST(SdgEngineChanges, PostgresqlSerializableInsertOnlyRead) {
  const char* const insert =
      "T0: BEGIN;\nT0: INSERT INTO t (k, v) VALUES (2, 20);\nT1: BEGIN;\nT1: UPDATE t SET v = 12 WHERE k = 1;\n"
      "T1: COMMIT;\nT0: COMMIT;\n";
  EXPECT_NE(refusal(insert, IsolationLevel::Serializable, "postgresql").find("SIREAD"), std::string::npos);
  EXPECT_EQ(refusal(insert, IsolationLevel::RepeatableRead, "postgresql"), "");
}

// A lone first write: the view TxCheck's read opens before it matters only where it may wait for a writer that then
// commits (with innodb_snapshot_isolation=ON it fails with 1020 on the row changed since the view).
TEST(SdgEngineChanges, InnodbLoneFirstWriteOnlyWhereItMayWaitForAWriter) {
  const char* const waits = "T0: BEGIN;\nT0: UPDATE t SET v = 11 WHERE k = 1;\nT1: BEGIN;\nT1: UPDATE t SET v = 12 "
                            "WHERE k = 1;\nT0: COMMIT;\nT1: COMMIT;\n";
  EXPECT_NE(refusal(waits, IsolationLevel::RepeatableRead, "mariadb").find("T1 begins with a write"),
            std::string::npos);
  // T0 writes after T1's statement: nothing T1 could wait for.
  const char* const after = "T0: BEGIN;\nT0: SELECT * FROM t;\nT1: BEGIN;\nT1: UPDATE t SET v = 12 WHERE k = 1;\n"
                            "T1: COMMIT;\nT0: UPDATE t SET v = 11 WHERE k = 1;\nT0: COMMIT;\n";
  EXPECT_EQ(refusal(after, IsolationLevel::RepeatableRead, "mariadb"), "");
}
