// txprop/table_locks.hpp: which transactions ran LOCK TABLE ... IN ACCESS EXCLUSIVE MODE before their snapshot, the
// shape of the PostgreSQL bug behaviour::kSsiIgnoresXidAssignedBeforeSnapshot names
// (docs/engine_bugs/postgresql_ssi_access_exclusive.md: checked by hand on 15.18 and 18.4, SELECT 1 before the lock
// gives 40001, a lock on an unrelated table gives the bug, EXCLUSIVE mode gives 40001).
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

#include "txprop/sql_parser.hpp"
#include "txprop/table_locks.hpp"

using namespace txprop;

namespace {

Transaction of(std::initializer_list<const char*> sql) {
  Transaction t;
  for (const char* s : sql) t.statements.push_back(parse_statement(s));
  return t;
}

}  // namespace

TEST(TableLocks, AnAccessExclusiveLockBeforeTheFirstSnapshotIsFound) {
  const auto lock = access_exclusive_lock_before_snapshot(
      of({"LOCK TABLE t IN ACCESS EXCLUSIVE MODE", "INSERT INTO t (k) VALUES (1)", "SELECT * FROM t"}));
  ASSERT_TRUE(lock);
  EXPECT_EQ(lock->statement, 0u);
  EXPECT_EQ(lock->table, "t");
  // LOCK TABLE without a mode is ACCESS EXCLUSIVE (PostgreSQL manual, LOCK).
  EXPECT_TRUE(access_exclusive_lock_before_snapshot(of({"LOCK TABLE t", "SELECT * FROM t"})));
}

TEST(TableLocks, AnyTableCountsAndLocksOrSavepointsBeforeItTakeNoSnapshot) {
  const auto lock = access_exclusive_lock_before_snapshot(
      of({"SAVEPOINT s", "LOCK TABLE t IN SHARE MODE", "LOCK TABLE u IN ACCESS EXCLUSIVE MODE", "SELECT * FROM t"}));
  ASSERT_TRUE(lock);
  EXPECT_EQ(lock->statement, 2u);
  EXPECT_EQ(lock->table, "u");
}

TEST(TableLocks, ALockAfterTheSnapshotOrInAnotherModeIsNot) {
  EXPECT_FALSE(access_exclusive_lock_before_snapshot(
      of({"SELECT * FROM t", "LOCK TABLE t IN ACCESS EXCLUSIVE MODE", "INSERT INTO t (k) VALUES (1)"})));
  EXPECT_FALSE(access_exclusive_lock_before_snapshot(of({"LOCK TABLE t IN EXCLUSIVE MODE", "SELECT * FROM t"})));
  EXPECT_FALSE(access_exclusive_lock_before_snapshot(of({"SELECT * FROM t"})));
}
