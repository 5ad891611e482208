// SDG refuses the cases TxCheck's reads would change (properties/sdg/engine_changes.cpp, issue 21 item 1), and only
// those: each rule on a case that has its shape and on the same case where the other transaction ended first.
#include <gtest/gtest.h>

#include <string>

#include "txprop/engine.hpp"
#include "txprop/oracle.hpp"
#include "txprop/scenario.hpp"
#include "../../properties/sdg/engine_changes.hpp"

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

// InnoDB's early read view and share locks: the reads that would change the engine run on a companion session at READ
// UNCOMMITTED (moved_reads), so the case is judged at REPEATABLE READ, where the reads of the statements before the
// first plain SELECT move (at READ COMMITTED none need to), and at SERIALIZABLE, where every plain read locks, every
// statement's reads move.
TEST(SdgEngineChanges, InnodbReadsThatWouldChangeTheEngineMoveToACompanion) {
  const EngineProfile& mariadb = *find_engine("mariadb");
  for (IsolationLevel level : {IsolationLevel::RepeatableRead, IsolationLevel::ReadCommitted, IsolationLevel::Serializable})
    EXPECT_EQ(refusal(kWaitingFirstWrite, level, "mariadb"), "") << sql_name(level);
  auto moved = [&](IsolationLevel level) {
    return sdg::moved_reads(parse_scenario(std::string(kSetup) + "steps:\n" + kWaitingFirstWrite, "sdg.txn").test_case(level),
                            mariadb);
  };
  using M = sdg::Moved;
  EXPECT_EQ(moved(IsolationLevel::RepeatableRead), (M{{true}, {true, false}}));
  EXPECT_EQ(moved(IsolationLevel::Serializable), (M{{true}, {true, true}}));
  EXPECT_EQ(moved(IsolationLevel::ReadCommitted), (M{{false}, {false, false}}));
  // PostgreSQL has no dirty reads (its READ UNCOMMITTED is READ COMMITTED): nothing moves there.
  EXPECT_EQ(sdg::moved_reads(parse_scenario(std::string(kSetup) + "steps:\n" + kWaitingFirstWrite, "sdg.txn")
                                 .test_case(IsolationLevel::Serializable),
                             *find_engine("postgresql")),
            (M{{false}, {false, false}}));
  // Neither applies on PostgreSQL, whose first statement takes the snapshot and whose reads take no blocking locks.
  EXPECT_EQ(refusal(kWaitingFirstWrite, IsolationLevel::RepeatableRead, "postgresql"), "");
}

// A transaction that reads a table only through an INSERT, beside a serializable writer of it, gains SIREAD locks at
// PostgreSQL SERIALIZABLE: not refused (SIREAD locks never block), but named, so that check_sdg judges its run only
// where a plain run shows the same (tests/targets/sdg_siread_test.cpp).
TEST(SdgEngineChanges, PostgresqlSerializableInsertOnlyReadIsJudgedAgainstThePlainRun) {
  const char* const insert =
      "T0: BEGIN;\nT0: INSERT INTO t (k, v) VALUES (2, 20);\nT1: BEGIN;\nT1: UPDATE t SET v = 12 WHERE k = 1;\n"
      "T1: COMMIT;\nT0: COMMIT;\n";
  EXPECT_EQ(refusal(insert, IsolationLevel::Serializable, "postgresql"), "");
  const auto added = [&](IsolationLevel level) {
    return sdg::reads_add_predicate_locks(
        parse_scenario(std::string(kSetup) + "steps:\n" + insert, "sdg.txn").test_case(level), *find_engine("postgresql"));
  };
  EXPECT_NE(added(IsolationLevel::Serializable).find("SIREAD"), std::string::npos);
  EXPECT_EQ(added(IsolationLevel::RepeatableRead), "");
}
