// The runner on real engines, with hand-written schedules whose outcome is known (shared/notes/engines.md).
#include <gtest/gtest.h>

#include "support/engine_targets.hpp"
#include "txprop/sql.hpp"
#include "txprop/target.hpp"

using namespace txprop;

namespace {

// t(k INTEGER PRIMARY KEY, v INTEGER) with rows (1, 10), (2, 20).
Schema two_rows() {
  Table t;
  t.name = "t";
  t.columns = {{"k", ColumnType::Integer, true}, {"v", ColumnType::Integer, false}};
  t.primary_key = {"k"};
  t.rows = {{1, 10}, {2, 20}};
  return Schema{{t}};
}

Expr key_is(int k) { return Expr::binary(BinaryOp::Eq, Expr::col("k"), Expr::lit(k)); }
Statement set_v(int k, int v) { return Statement::update("t", {{"v", Expr::lit(v)}}, key_is(k)); }
Statement add_v(int k, int d) {
  return Statement::update("t", {{"v", Expr::binary(BinaryOp::Add, Expr::col("v"), Expr::lit(d))}}, key_is(k));
}

Transaction txn(IsolationLevel level, std::vector<Statement> statements, TxnEnd end = TxnEnd::Commit) {
  return Transaction{level, std::move(statements), end};
}

Event done(int t, int i) { return Event{Event::Kind::Completed, StepRef{t, i}}; }
Event blocked(int t, int i) { return Event{Event::Kind::Blocked, StepRef{t, i}}; }

// T0 and T1 update the same row; T1's UPDATE waits for T0's row lock and resumes when T0 commits.
TestCase same_row_updates(IsolationLevel level) {
  TestCase c;
  c.schema = two_rows();
  c.transactions = {txn(level, {set_v(1, 11)}), txn(level, {set_v(1, 12)})};
  c.order = {0, 1, 0, 1, 0, 1};  // T0 BEGIN, T1 BEGIN, T0 UPDATE, T1 UPDATE, T0 COMMIT, T1 COMMIT
  return c;
}

void expect_blocked_then_resumed(Target& target) {
  const History h = target.run(same_row_updates(IsolationLevel::ReadCommitted));
  SCOPED_TRACE(describe(h));
  ASSERT_FALSE(h.finding);
  const std::vector<Event> expected = {done(0, 0), done(1, 0), done(0, 1), blocked(1, 1),
                                       done(0, 2), done(1, 1), done(1, 2)};
  EXPECT_EQ(h.events, expected);
  EXPECT_TRUE(h.was_blocked[1][1]);
  EXPECT_EQ(h.transactions[0].fate, TxnFate::Committed);
  EXPECT_EQ(h.transactions[1].fate, TxnFate::Committed);
  EXPECT_EQ(h.final_state.at("t"), (std::vector<Row>{{1, 12}, {2, 20}}));
  EXPECT_EQ(h.end_order(), (std::vector<int>{0, 1}));
}

// T0 locks row 1, T1 locks row 2, then each wants the other's row.
void expect_deadlock(Target& target) {
  TestCase c;
  c.schema = two_rows();
  const auto level = IsolationLevel::ReadCommitted;
  c.transactions = {txn(level, {set_v(1, 11), set_v(2, 21)}), txn(level, {set_v(2, 22), set_v(1, 12)})};
  c.order = {0, 1, 0, 1, 0, 1, 0, 1};
  const History h = target.run(c);
  SCOPED_TRACE(describe(h));
  ASSERT_FALSE(h.finding);
  int aborted = 0, committed = 0;
  for (const TxnResult& r : h.transactions) {
    if (r.fate == TxnFate::Aborted) {
      ++aborted;
      EXPECT_EQ(r.abort_reason.cls, ErrorClass::Deadlock) << r.abort_reason.message;
    }
    if (r.fate == TxnFate::Committed) ++committed;
  }
  EXPECT_EQ(aborted, 1);
  EXPECT_EQ(committed, 1);
  EXPECT_TRUE(h.any_blocked());
}

}  // namespace

TEST(RunnerPostgresql, BlockedUpdateResumesAfterCommit) {
  TXPROP_USE_ENGINE(target, "postgresql", false);
  expect_blocked_then_resumed(*target);
}

TEST(RunnerMariadb, BlockedUpdateResumesAfterCommit) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  expect_blocked_then_resumed(*target);
}

TEST(RunnerPostgresql, DeadlockIsClassified) {
  TXPROP_USE_ENGINE(target, "postgresql", false);
  expect_deadlock(*target);
}

TEST(RunnerMariadb, DeadlockIsClassified) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  expect_deadlock(*target);
}

// PostgreSQL REPEATABLE READ: first-updater-wins. T1 waits for T0's row lock, and when T0 commits, T1 fails.
TEST(RunnerPostgresql, RepeatableReadConcurrentUpdateIsSerializationFailure) {
  TXPROP_USE_ENGINE(target, "postgresql", false);
  const History h = target->run(same_row_updates(IsolationLevel::RepeatableRead));
  SCOPED_TRACE(describe(h));
  ASSERT_FALSE(h.finding);
  EXPECT_TRUE(h.was_blocked[1][1]);
  EXPECT_EQ(h.transactions[0].fate, TxnFate::Committed);
  EXPECT_EQ(h.transactions[1].fate, TxnFate::Aborted);
  EXPECT_EQ(h.transactions[1].abort_reason.cls, ErrorClass::SerializationFailure);
  EXPECT_EQ(h.transactions[1].abort_reason.code, "40001");
  EXPECT_EQ(h.outcomes[1][2].status, Outcome::Status::Skipped);  // its COMMIT is never sent
  EXPECT_EQ(h.final_state.at("t"), (std::vector<Row>{{1, 11}, {2, 20}}));
}

// MariaDB REPEATABLE READ with innodb_snapshot_isolation=ON: writing a row changed since the snapshot is 1020.
TEST(RunnerMariadb, SnapshotIsolationOnGivesSnapshotConflict) {
  TXPROP_USE_ENGINE(target, "mariadb", true);
  TestCase c;
  c.schema = two_rows();
  const auto rr = IsolationLevel::RepeatableRead;
  c.transactions = {txn(rr, {Statement::select("t"), add_v(1, 1)}), txn(rr, {set_v(1, 100)})};
  c.order = {0, 0, 1, 1, 1, 0, 0};  // T0 reads (snapshot), T1 updates row 1 and commits, T0 updates row 1
  const History h = target->run(c);
  SCOPED_TRACE(describe(h));
  ASSERT_FALSE(h.finding);
  EXPECT_EQ(h.transactions[1].fate, TxnFate::Committed);
  EXPECT_EQ(h.transactions[0].fate, TxnFate::Aborted);
  EXPECT_EQ(h.transactions[0].abort_reason.cls, ErrorClass::SnapshotConflict);
  EXPECT_EQ(h.transactions[0].abort_reason.code, "1020");
  EXPECT_EQ(h.final_state.at("t"), (std::vector<Row>{{1, 100}, {2, 20}}));
}

// Same case with snapshot isolation off: the lost update InnoDB documents for REPEATABLE READ.
TEST(RunnerMariadb, SnapshotIsolationOffLosesTheUpdate) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  TestCase c;
  c.schema = two_rows();
  const auto rr = IsolationLevel::RepeatableRead;
  c.transactions = {txn(rr, {Statement::select("t"), add_v(1, 1)}), txn(rr, {set_v(1, 100)})};
  c.order = {0, 0, 1, 1, 1, 0, 0};
  const History h = target->run(c);
  SCOPED_TRACE(describe(h));
  ASSERT_FALSE(h.finding);
  EXPECT_EQ(h.transactions[0].fate, TxnFate::Committed);
  EXPECT_EQ(h.transactions[1].fate, TxnFate::Committed);
  EXPECT_EQ(h.final_state.at("t"), (std::vector<Row>{{1, 101}, {2, 20}}));
}

// InnoDB's semi-consistent read (READ COMMITTED, UPDATE without an index): on each row another transaction holds,
// the UPDATE enqueues a waiting lock, reads the row's last committed version instead, and withdraws the request when
// that version does not match. One look at SHOW ENGINE INNODB STATUS can catch such a request (it did in CI: the
// runner then submitted T0's COMMIT while T1 still scanned, and T1 updated rows it must skip). Here no row's committed
// version matches, so T1 never waits: it must complete unblocked, before T0's COMMIT, having changed nothing.
TEST(RunnerMariadb, SemiConsistentSkipIsNotAWait) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  Table t;
  t.name = "t";
  t.columns = {{"k", ColumnType::Integer, true}, {"a", ColumnType::Integer, false}, {"b", ColumnType::Integer, false}};
  t.primary_key = {"k"};
  constexpr int kRows = 5000;  // a scan long enough for several probes to look while it runs
  for (int k = 1; k <= kRows; ++k) t.rows.push_back({k, Value(), k});
  TestCase c;
  c.schema = Schema{{t}};
  const auto rc = IsolationLevel::ReadCommitted;
  c.transactions = {txn(rc, {Statement::update("t", {{"a", Expr::lit(10)}})}),
                    txn(rc, {Statement::update("t", {{"b", Expr::lit(20)}},
                                               Expr::binary(BinaryOp::Eq, Expr::col("a"), Expr::lit(10)))})};
  c.order = {0, 1, 0, 1, 0, 1};  // T0 BEGIN, T1 BEGIN, T0 UPDATE (locks every row), T1 UPDATE, T0 COMMIT, T1 COMMIT
  for (int attempt = 0; attempt < 3; ++attempt) {
    const History h = target->run(c);
    ASSERT_FALSE(h.finding) << describe(h);
    EXPECT_FALSE(h.was_blocked[1][1]) << "attempt " << attempt;
    EXPECT_EQ(h.outcomes[1][1].affected, 0) << "attempt " << attempt;
    EXPECT_EQ(h.completed_at(StepRef{1, 1}) < h.completed_at(StepRef{0, 2}), true) << "attempt " << attempt;
  }
}

// SQLite: a second writer gets SQLITE_BUSY (reported blocked) and resumes when the first commits.
TEST(RunnerSqlite, SecondWriterIsBlockedAndResumes) {
  TXPROP_USE_ENGINE(target, "sqlite", false);
  TestCase c;
  c.schema = two_rows();
  const auto ser = IsolationLevel::Serializable;
  c.transactions = {txn(ser, {set_v(1, 11)}), txn(ser, {set_v(2, 22)})};
  c.order = {0, 1, 0, 1, 0, 1};
  const History h = target->run(c);
  SCOPED_TRACE(describe(h));
  ASSERT_FALSE(h.finding);
  const std::vector<Event> expected = {done(0, 0), done(1, 0), done(0, 1), blocked(1, 1),
                                       done(0, 2), done(1, 1), done(1, 2)};
  EXPECT_EQ(h.events, expected);
  EXPECT_EQ(h.final_state.at("t"), (std::vector<Row>{{1, 11}, {2, 22}}));
}

// SQLite WAL: a transaction that read before another committed cannot write afterwards.
TEST(RunnerSqlite, StaleReaderCannotWrite) {
  TXPROP_USE_ENGINE(target, "sqlite", false);
  TestCase c;
  c.schema = two_rows();
  const auto ser = IsolationLevel::Serializable;
  c.transactions = {txn(ser, {Statement::select("t"), add_v(1, 1)}), txn(ser, {set_v(1, 100)})};
  c.order = {0, 0, 1, 1, 1, 0, 0};
  const History h = target->run(c);
  SCOPED_TRACE(describe(h));
  ASSERT_FALSE(h.finding);
  EXPECT_EQ(h.transactions[0].fate, TxnFate::Aborted);
  EXPECT_EQ(h.transactions[0].abort_reason.cls, ErrorClass::SerializationFailure);
  EXPECT_EQ(h.final_state.at("t"), (std::vector<Row>{{1, 100}, {2, 20}}));
}

// Sessions outlive test cases; after a reset to a different schema they must see the new table, not the one
// they had cached (SQLite re-prepares a statement inside sqlite3_step when the schema changed).
TEST(RunnerSqlite, SessionsSeeTheNewSchemaAfterReset) {
  TXPROP_USE_ENGINE(target, "sqlite", false);
  auto case_with_columns = [](int n) {
    Table t;
    t.name = "t";
    Row row;
    for (int i = 0; i < n; ++i) {
      t.columns.push_back({"c" + std::to_string(i), ColumnType::Integer, i == 0});
      row.emplace_back(i + 1);
    }
    t.primary_key = {"c0"};
    t.rows = {row};
    TestCase c;
    c.schema.tables = {t};
    c.transactions = {txn(IsolationLevel::Serializable, {Statement::select("t")})};
    c.order = {0, 0, 0};
    return c;
  };
  target->run(case_with_columns(4));
  const History h = target->run(case_with_columns(3));
  EXPECT_EQ(h.outcomes[0][1].rows, (std::vector<Row>{{1, 2, 3}}));
  EXPECT_EQ(h.outcomes[0][1].columns.size(), 3u);
}

// SQLite in rollback-journal mode: T1 reads (SHARED), T0's COMMIT waits for T1 to finish reading, and T1's write
// waits for T0's RESERVED lock. SQLite breaks no such cycle itself; txprop rolls back the transaction that tried
// to write (as sqlite3_busy_handler's documentation asks), and the committer goes on.
TEST(RunnerSqliteJournal, BusyCycleRollsBackTheWriterNotTheCommitter) {
  auto target = Target::open(parse_target_uri("sqlite:?journal_mode=delete"));
  TestCase c;
  c.schema = two_rows();
  const auto ser = IsolationLevel::Serializable;
  c.transactions = {txn(ser, {set_v(1, 11)}), txn(ser, {Statement::select("t"), set_v(2, 22)})};
  c.order = {0, 0, 1, 1, 1, 0, 1};  // T0 writes; T1 reads and tries to write; T0 commits; T1 commits
  const History h = target->run(c);
  SCOPED_TRACE(describe(h));
  ASSERT_FALSE(h.finding);
  EXPECT_EQ(h.transactions[0].fate, TxnFate::Committed);
  EXPECT_EQ(h.transactions[1].fate, TxnFate::Aborted);
  EXPECT_EQ(h.transactions[1].abort_reason.cls, ErrorClass::Deadlock);
  EXPECT_EQ(h.final_state.at("t"), (std::vector<Row>{{1, 11}, {2, 20}}));
}
