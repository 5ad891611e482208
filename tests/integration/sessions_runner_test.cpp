// The runner with the shapes of hand-written isolation tests, on real engines: several transactions on one connection
// (a statement after COMMIT), autocommit statements (outside BEGIN ... COMMIT), written as scenario steps.
#include <gtest/gtest.h>

#include "support/engine_targets.hpp"
#include "txprop/scenario.hpp"
#include "txprop/sql.hpp"
#include "txprop/target.hpp"

using namespace txprop;

namespace {

TestCase case_of(const std::string& steps, IsolationLevel level) {
  return parse_scenario("setup:\nCREATE TABLE t (k INTEGER NOT NULL, v INTEGER, PRIMARY KEY (k));\n"
                        "INSERT INTO t (k, v) VALUES (1, 10), (2, 20);\nsteps:\n" +
                            steps,
                        "sessions.txn")
      .test_case(level);
}

Event done(int t, int i) { return Event{Event::Kind::Completed, StepRef{t, i}}; }
Event blocked(int t, int i) { return Event{Event::Kind::Blocked, StepRef{t, i}}; }

// s1 commits a write, then reads on the same connection after COMMIT (autocommit) and in a new transaction.
void statement_after_commit_sees_the_committed_data(Target& target, IsolationLevel level) {
  const TestCase c = case_of(
      "s1: BEGIN;\ns1: UPDATE t SET v = 11 WHERE k = 1;\ns1: COMMIT;\ns1: SELECT v FROM t WHERE k = 1;\n"
      "s1: BEGIN;\ns1: SELECT v FROM t WHERE k = 1;\ns1: COMMIT;\n",
      level);
  ASSERT_EQ(c.sessions(), (std::vector<std::vector<int>>{{0, 1, 2}}));
  const History h = target.run(c);
  SCOPED_TRACE(describe(h));
  ASSERT_FALSE(h.finding);
  for (const TxnResult& r : h.transactions) EXPECT_EQ(r.fate, TxnFate::Committed);
  EXPECT_EQ(h.outcomes[1][1].rows, (std::vector<Row>{{11}}));
  EXPECT_EQ(h.outcomes[2][1].rows, (std::vector<Row>{{11}}));
  EXPECT_EQ(h.end_order(), (std::vector<int>{0, 1, 2}));
}

// s2's autocommit UPDATE commits by itself: s1's transaction, begun before it, reads it at READ COMMITTED.
void autocommit_write_is_visible_to_a_later_transaction(Target& target) {
  const TestCase c = case_of(
      "s1: BEGIN;\ns2: UPDATE t SET v = 12 WHERE k = 1;\ns1: SELECT v FROM t WHERE k = 1;\ns1: COMMIT;\n",
      IsolationLevel::ReadCommitted);
  ASSERT_TRUE(c.transactions[1].is_autocommit_statement());
  const History h = target.run(c);
  SCOPED_TRACE(describe(h));
  ASSERT_FALSE(h.finding);
  EXPECT_EQ(h.transactions[1].fate, TxnFate::Committed);
  EXPECT_EQ(h.outcomes[0][1].rows, (std::vector<Row>{{12}}));
  EXPECT_EQ(h.final_state.at("t"), (std::vector<Row>{{1, 12}, {2, 20}}));
}

// s2's autocommit UPDATE waits for s1's row lock, is found blocked, and resumes when s1 commits.
void autocommit_statement_blocks_and_resumes(Target& target, IsolationLevel level) {
  const TestCase c = case_of(
      "s1: BEGIN;\ns1: UPDATE t SET v = 11 WHERE k = 1;\ns2: UPDATE t SET v = v + 100 WHERE k = 1;\ns1: COMMIT;\n",
      level);
  const History h = target.run(c);
  SCOPED_TRACE(describe(h));
  ASSERT_FALSE(h.finding);
  // BEGIN and the end of the autocommit statement send nothing: they complete around it.
  const std::vector<Event> expected = {done(0, 0), done(0, 1), done(1, 0), blocked(1, 1),
                                       done(0, 2), done(1, 1), done(1, 2)};
  EXPECT_EQ(h.events, expected);
  EXPECT_TRUE(h.was_blocked[1][1]);
  EXPECT_EQ(h.transactions[0].fate, TxnFate::Committed);
  EXPECT_EQ(h.transactions[1].fate, TxnFate::Committed);
  EXPECT_EQ(h.final_state.at("t"), (std::vector<Row>{{1, 111}, {2, 20}}));
}

// s1's UPDATE waits for s2's lock; s1's COMMIT and its next statement (autocommit) are submitted meanwhile and queue
// behind it on the connection: they run only after s2 commits and s1's UPDATE resumed, and the SELECT sees s1's write.
void next_transaction_waits_for_the_previous_on_its_connection(Target& target) {
  const TestCase c = case_of(
      "s2: BEGIN;\ns2: UPDATE t SET v = 22 WHERE k = 1;\ns1: BEGIN;\ns1: UPDATE t SET v = 11 WHERE k = 1;\n"
      "s1: COMMIT;\ns1: SELECT v FROM t WHERE k = 1;\ns2: COMMIT;\n",
      IsolationLevel::ReadCommitted);
  // Transactions: s2's (T0), s1's (T1), s1's autocommit SELECT (T2).
  const History h = target.run(c);
  SCOPED_TRACE(describe(h));
  ASSERT_FALSE(h.finding);
  EXPECT_TRUE(h.was_blocked[1][1]);
  for (const TxnResult& r : h.transactions) EXPECT_EQ(r.fate, TxnFate::Committed);
  EXPECT_EQ(h.end_order(), (std::vector<int>{0, 1, 2}));
  EXPECT_GT(h.completed_at(StepRef{2, 1}), h.transactions[1].end_event);
  EXPECT_EQ(h.outcomes[2][1].rows, (std::vector<Row>{{11}}));
  EXPECT_EQ(h.final_state.at("t"), (std::vector<Row>{{1, 11}, {2, 20}}));
}

// A failing autocommit statement is an aborted transaction of its own; the connection goes on.
void failing_autocommit_statement_aborts_only_itself(Target& target) {
  const TestCase c = case_of(
      "s1: INSERT INTO t (k, v) VALUES (1, 0);\ns1: UPDATE t SET v = 21 WHERE k = 2;\n", IsolationLevel::ReadCommitted);
  const History h = target.run(c);
  SCOPED_TRACE(describe(h));
  ASSERT_FALSE(h.finding);
  EXPECT_EQ(h.transactions[0].fate, TxnFate::Aborted);
  EXPECT_EQ(h.transactions[0].abort_reason.cls, ErrorClass::ConstraintViolation) << h.transactions[0].abort_reason.message;
  EXPECT_EQ(h.transactions[0].failed_step, (StepRef{0, 1}));
  EXPECT_EQ(h.transactions[1].fate, TxnFate::Committed);
  EXPECT_EQ(h.final_state.at("t"), (std::vector<Row>{{1, 10}, {2, 21}}));
}

}  // namespace

TEST(SessionsSqlite, StatementAfterCommitSeesTheCommittedData) {
  TXPROP_USE_ENGINE(target, "sqlite", false);
  statement_after_commit_sees_the_committed_data(*target, IsolationLevel::Serializable);
}
TEST(SessionsPostgresql, StatementAfterCommitSeesTheCommittedData) {
  TXPROP_USE_ENGINE(target, "postgresql", false);
  for (auto level : {IsolationLevel::ReadCommitted, IsolationLevel::RepeatableRead, IsolationLevel::Serializable})
    statement_after_commit_sees_the_committed_data(*target, level);
}
TEST(SessionsMariadb, StatementAfterCommitSeesTheCommittedData) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  for (auto level : {IsolationLevel::ReadCommitted, IsolationLevel::RepeatableRead, IsolationLevel::Serializable})
    statement_after_commit_sees_the_committed_data(*target, level);
}

TEST(SessionsSqlite, AutocommitWriteIsVisibleToALaterTransaction) {
  TXPROP_USE_ENGINE(target, "sqlite", false);
  // SQLite (WAL) takes its read snapshot at the first read, after the autocommit write.
  autocommit_write_is_visible_to_a_later_transaction(*target);
}
TEST(SessionsPostgresql, AutocommitWriteIsVisibleToALaterTransaction) {
  TXPROP_USE_ENGINE(target, "postgresql", false);
  autocommit_write_is_visible_to_a_later_transaction(*target);
}
TEST(SessionsMariadb, AutocommitWriteIsVisibleToALaterTransaction) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  autocommit_write_is_visible_to_a_later_transaction(*target);
}

TEST(SessionsSqlite, AutocommitStatementBlocksBehindALockAndResumes) {
  TXPROP_USE_ENGINE(target, "sqlite", false);
  autocommit_statement_blocks_and_resumes(*target, IsolationLevel::Serializable);
}
TEST(SessionsPostgresql, AutocommitStatementBlocksBehindALockAndResumes) {
  TXPROP_USE_ENGINE(target, "postgresql", false);
  autocommit_statement_blocks_and_resumes(*target, IsolationLevel::ReadCommitted);
}
TEST(SessionsMariadb, AutocommitStatementBlocksBehindALockAndResumes) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  autocommit_statement_blocks_and_resumes(*target, IsolationLevel::RepeatableRead);
}

TEST(SessionsSqlite, NextTransactionWaitsForThePreviousOnItsConnection) {
  TXPROP_USE_ENGINE(target, "sqlite", false);
  next_transaction_waits_for_the_previous_on_its_connection(*target);
}
TEST(SessionsPostgresql, NextTransactionWaitsForThePreviousOnItsConnection) {
  TXPROP_USE_ENGINE(target, "postgresql", false);
  next_transaction_waits_for_the_previous_on_its_connection(*target);
}
TEST(SessionsMariadb, NextTransactionWaitsForThePreviousOnItsConnection) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  next_transaction_waits_for_the_previous_on_its_connection(*target);
}

TEST(SessionsSqlite, FailingAutocommitStatementAbortsOnlyItself) {
  TXPROP_USE_ENGINE(target, "sqlite", false);
  failing_autocommit_statement_aborts_only_itself(*target);
}
TEST(SessionsPostgresql, FailingAutocommitStatementAbortsOnlyItself) {
  TXPROP_USE_ENGINE(target, "postgresql", false);
  failing_autocommit_statement_aborts_only_itself(*target);
}
TEST(SessionsMariadb, FailingAutocommitStatementAbortsOnlyItself) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  failing_autocommit_statement_aborts_only_itself(*target);
}

// Why Troc refuses an autocommit SELECT at MariaDB SERIALIZABLE: InnoDB turns plain SELECTs into locking reads only
// when autocommit is off (MariaDB's SET TRANSACTION documentation), so the same SELECT waits for a writer's lock inside
// a transaction and does not wait in autocommit mode.
TEST(SessionsMariadb, AutocommitSelectAtSerializableTakesNoLock) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  const auto ser = IsolationLevel::Serializable;
  const History in_autocommit = target->run(case_of(
      "s1: BEGIN;\ns1: UPDATE t SET v = 11 WHERE k = 1;\ns2: SELECT v FROM t WHERE k = 1;\ns1: COMMIT;\n", ser));
  SCOPED_TRACE(describe(in_autocommit));
  ASSERT_FALSE(in_autocommit.finding);
  EXPECT_FALSE(in_autocommit.any_blocked());
  EXPECT_EQ(in_autocommit.outcomes[1][1].rows, (std::vector<Row>{{10}}));
  const History in_transaction = target->run(case_of(
      "s1: BEGIN;\ns1: UPDATE t SET v = 11 WHERE k = 1;\ns2: BEGIN;\ns2: SELECT v FROM t WHERE k = 1;\ns1: COMMIT;\n"
      "s2: COMMIT;\n",
      ser));
  SCOPED_TRACE(describe(in_transaction));
  ASSERT_FALSE(in_transaction.finding);
  EXPECT_TRUE(in_transaction.was_blocked[1][1]);
  EXPECT_EQ(in_transaction.outcomes[1][1].rows, (std::vector<Row>{{11}}));
}
