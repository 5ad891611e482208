// Savepoints (issue 17 part B) without a server: SAVEPOINT s, ROLLBACK TO [SAVEPOINT] s and RELEASE [SAVEPOINT] s
// read from scenario text, printed the same on every engine, validated (inside a transaction, naming a savepoint set
// before and not released), what a ROLLBACK TO undoes, shrinking a savepoint with its ROLLBACK TO / RELEASE to
// nothing, and the oracles that cannot model them refusing with a reason.
#include <gtest/gtest.h>

#include "txprop/atomicity.hpp"
#include "txprop/engine.hpp"
#include "txprop/generators.hpp"
#include "txprop/oracle.hpp"
#include "txprop/sql.hpp"
#include "txprop/sql_parser.hpp"
#include "txprop/target.hpp"
#include "tests/support/planted.hpp"

using namespace txprop;

namespace {

using test::txn;

TestCase one(const Transaction& t) {
  TestCase c;
  c.schema.tables = {Table{"t", {Column{"k", ColumnType::Integer, true}, Column{"v"}}, {"k"}, {}, {{1, 10}}}};
  c.transactions = {t};
  c.order = TestCase::serial_order(c.transactions);
  return c;
}

}  // namespace

TEST(Savepoint, ReadAndPrintedOnEveryEngine) {
  const Statement set = parse_statement("SAVEPOINT a");
  EXPECT_EQ(set.kind, StatementKind::Savepoint);
  EXPECT_EQ(set.savepoint, "a");
  EXPECT_EQ(render(set, Dialect::PostgreSql), "SAVEPOINT \"a\"");
  EXPECT_EQ(render(set, Dialect::MySql), "SAVEPOINT `a`");
  const Statement back = parse_statement("ROLLBACK TO a");  // SAVEPOINT is optional in every engine's grammar
  EXPECT_EQ(back.kind, StatementKind::RollbackToSavepoint);
  EXPECT_EQ(render(back, Dialect::Portable), "ROLLBACK TO SAVEPOINT a");
  EXPECT_EQ(render(back, Dialect::Sqlite), "ROLLBACK TO SAVEPOINT \"a\"");
  EXPECT_EQ(parse_statement("rollback work to savepoint a"), back);
  const Statement release = parse_statement("RELEASE SAVEPOINT a");
  EXPECT_EQ(release.kind, StatementKind::ReleaseSavepoint);
  EXPECT_EQ(parse_statement("RELEASE a"), release);
  EXPECT_EQ(render(release, Dialect::MySql), "RELEASE SAVEPOINT `a`");
  for (const Statement& s : {set, back, release}) {
    EXPECT_EQ(parse_statement(render(s, Dialect::Portable)), s);
    EXPECT_TRUE(s.tables().empty());
    EXPECT_FALSE(s.is_write() || s.is_read() || s.is_transaction_control());
  }
  EXPECT_EQ(parse_statement("ROLLBACK").kind, StatementKind::Rollback);
  EXPECT_THROW(parse_statement("ROLLBACK TO"), SyntaxError);
  EXPECT_THROW(parse_statement("SAVEPOINT"), SyntaxError);
}

TEST(Savepoint, Validated) {
  EXPECT_EQ(one(txn({"SAVEPOINT a", "UPDATE t SET v = 1", "ROLLBACK TO SAVEPOINT a", "RELEASE SAVEPOINT a"})).validate(), "");
  EXPECT_NE(one(txn({"ROLLBACK TO SAVEPOINT a"})).validate().find("names no savepoint set before it"), std::string::npos);
  EXPECT_NE(one(txn({"SAVEPOINT a", "RELEASE SAVEPOINT a", "ROLLBACK TO SAVEPOINT a"})).validate().find("names no savepoint"),
            std::string::npos);
  // RELEASE a also forgets the savepoints set after a.
  EXPECT_NE(one(txn({"SAVEPOINT a", "SAVEPOINT b", "RELEASE SAVEPOINT a", "ROLLBACK TO b"})).validate().find("ROLLBACK TO SAVEPOINT b"),
            std::string::npos);
  Transaction autocommit = txn({"SAVEPOINT a"});
  autocommit.autocommit = true;
  EXPECT_NE(one(autocommit).validate().find("outside BEGIN ... COMMIT"), std::string::npos);
}

TEST(Savepoint, WhatRollbackToUndoes) {
  // 0 UPDATE, 1 SAVEPOINT a, 2 UPDATE, 3 SAVEPOINT b, 4 INSERT, 5 ROLLBACK TO b, 6 UPDATE, 7 ROLLBACK TO a, 8 UPDATE
  const Transaction t = txn({"UPDATE t SET v = 1", "SAVEPOINT a", "UPDATE t SET v = 2", "SAVEPOINT b",
                             "INSERT INTO t (k, v) VALUES (2, 2)", "ROLLBACK TO SAVEPOINT b", "UPDATE t SET v = 3",
                             "ROLLBACK TO SAVEPOINT a", "UPDATE t SET v = 4"});
  EXPECT_EQ(t.undone_by_savepoints(),
            (std::vector<bool>{false, false, true, true, true, true, true, false, false}));
  // ROLLBACK TO keeps the savepoint: a second ROLLBACK TO a undoes everything since a again, the first ROLLBACK TO
  // included (a no-op by then); a itself stays.
  const Transaction twice = txn({"SAVEPOINT a", "UPDATE t SET v = 1", "ROLLBACK TO a", "UPDATE t SET v = 2", "ROLLBACK TO a"});
  EXPECT_EQ(twice.undone_by_savepoints(), (std::vector<bool>{false, true, true, true, false}));
  EXPECT_EQ(one(twice).validate(), "");
  // RELEASE undoes nothing.
  EXPECT_EQ(txn({"SAVEPOINT a", "UPDATE t SET v = 1", "RELEASE a"}).undone_by_savepoints(), (std::vector<bool>(3, false)));
}

TEST(Savepoint, ShrinksAPairToNothing) {
  const TestCase c = one(txn({"UPDATE t SET v = 1", "SAVEPOINT a", "UPDATE t SET v = 2", "ROLLBACK TO SAVEPOINT a"}));
  ASSERT_EQ(c.validate(), "");
  bool without = false;
  for (const TestCase& s : gen::shrink_test_case(c)) {
    const auto& st = s.transactions[0].statements;
    without = without || (st.size() == 2 && !st[0].is_savepoint() && !st[1].is_savepoint());
    EXPECT_EQ(s.validate(), "");
  }
  EXPECT_TRUE(without);
}

TEST(Savepoint, OraclesThatCannotModelThemRefuse) {
  const TestCase c = one(txn({"SAVEPOINT a", "UPDATE t SET v = 2", "ROLLBACK TO SAVEPOINT a"}));
  for (const char* name : {"adya", "adyaclaimed", "troc", "sdg"}) {
    const std::string why = oracle(name).cannot_judge(c, *find_engine("postgresql"));
    EXPECT_EQ(why.rfind("T0.1 is SAVEPOINT a, and ", 0), 0u) << name << ": " << why;
  }
  for (const char* name : {"wss", "atomicity"}) EXPECT_EQ(oracle(name).cannot_judge(c, *find_engine("postgresql")), "") << name;
}

// Atomicity on embedded SQLite: T0 writes and reads behind a savepoint, rolls back to it and commits; T1 then reads.
// What ROLLBACK TO undid is left out of the replay like an aborted transaction, and its statements' outcomes are not
// compared with the placeholders that replace them (tests/mutation: savepoint-placeholder-compared): the history the
// engine gives passes. The same history with T1 reading the undone write (a dirty read through a savepoint rolled
// back, planted) is caught: without the undone statements, T1 reads the row as it was.
TEST(Savepoint, AtomicityLeavesOutWhatRollbackToUndid) {
  TestCase c = one(txn({"SAVEPOINT a", "UPDATE t SET v = 2", "SELECT k, v FROM t", "ROLLBACK TO SAVEPOINT a"}));
  c.transactions.push_back(txn({"SELECT k, v FROM t"}));
  c.order = TestCase::serial_order(c.transactions);
  ASSERT_EQ(c.validate(), "");
  auto target = Target::open(parse_target_uri("sqlite:"));
  const History h = target->run(c);
  ASSERT_FALSE(h.finding) << h.finding->detail;
  ASSERT_EQ(h.outcomes[0][3].rows, (std::vector<Row>{{1, 2}}));  // the undone write, read behind the savepoint
  const Verdict correct = check_atomicity(*target, h);
  EXPECT_TRUE(correct.ok()) << correct.explain();
  EXPECT_NE(correct.note.find("T0.2 (undone by ROLLBACK TO SAVEPOINT)"), std::string::npos) << correct.note;

  History dirty = h;
  ASSERT_EQ(dirty.outcomes[1][1].rows, (std::vector<Row>{{1, 10}}));
  dirty.outcomes[1][1].rows = {{1, 2}};
  const Verdict caught = check_atomicity(*target, dirty);
  EXPECT_FALSE(caught.ok()) << caught.note;
}
