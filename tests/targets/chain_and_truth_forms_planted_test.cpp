// Chained transactions and truth forms (issue 17 items 4 and 5) judged by the oracles that judge them (WSS and
// Atomicity, which replay the SQL), on the engines that have them; planted violations through each form are caught and
// the correct histories pass:
//   - COMMIT AND CHAIN (PostgreSQL 12+, MariaDB): T0 adds 1 to row 1 and ends COMMIT AND CHAIN; the chained T1 (no BEGIN
//     sent: the chain began it) sets row 2 and rolls back. Had the chain not opened a transaction, T1's UPDATE would
//     have committed by itself and row 2 would change: the final state shows it did not. A planted final state with
//     T1's write is an aborted-effect for atomicity;
//   - a chained pair and a third transaction adding to one counter: a planted lost increment is a final-state-mismatch
//     for WSS;
//   - truth forms (every engine): increments selected by (k = 1) IS TRUE and k IS NOT DISTINCT FROM 1 (MariaDB <=>),
//     a planted lost increment caught by WSS; a rolled-back UPDATE selected by CAST(k AS TEXT) = '1' beside a committed
//     read WHERE (v > 3) = TRUE, a planted aborted effect caught by atomicity.
#include <gtest/gtest.h>

#include "support/engine_targets.hpp"
#include "support/planted.hpp"
#include "txprop/atomicity.hpp"
#include "txprop/sql_parser.hpp"
#include "txprop/wss.hpp"

using namespace txprop;

namespace {

Table counter_table() {
  return Table{"t", {Column{"k", ColumnType::Integer, true}, Column{"v"}}, {"k"}, {}, {{1, 10}, {2, 20}}};
}

using test::txn;

DatabaseState state(std::int64_t v1, std::int64_t v2) {
  return DatabaseState{{"t", {Row{Value(std::int64_t{1}), Value(v1)}, Row{Value(std::int64_t{2}), Value(v2)}}}};
}


void chained_rollback_has_no_effect(Target& target, IsolationLevel level) {
  TestCase c;
  c.schema.tables = {counter_table()};
  c.transactions = {txn(level, {"UPDATE t SET v = v + 1 WHERE k = 1"}), txn(level, {"UPDATE t SET v = 99 WHERE k = 2"})};
  c.transactions[0].chain = true;
  c.transactions[0].session = c.transactions[1].session = 0;
  c.transactions[1].end = TxnEnd::Rollback;
  c.order = TestCase::serial_order(c.transactions);
  ASSERT_EQ(c.validate(), "");
  History h = target.run(c);
  ASSERT_FALSE(h.finding) << h.finding->detail;
  ASSERT_EQ(h.transactions[0].fate, TxnFate::Committed) << describe(h);
  ASSERT_EQ(h.transactions[1].fate, TxnFate::RolledBack) << describe(h);
  ASSERT_EQ(h.final_state, state(11, 20)) << "the chained transaction's ROLLBACK undid its UPDATE: " << describe(h);
  const Verdict correct = check_atomicity(target, h);
  EXPECT_TRUE(correct.ok()) << correct.explain();
  h.final_state = state(11, 99);  // planted: the chained transaction's rolled-back write is there
  const Verdict caught = check_atomicity(target, h);
  ASSERT_TRUE(caught.fails()) << caught.explain();
  EXPECT_TRUE(caught.has("aborted-effect")) << caught.explain();
}

// T0 ends ROLLBACK AND CHAIN, the chained T1 commits: atomicity leaves T0 out, and its replay of T1 alone sends the
// BEGIN the chain made in the run (which sent nothing): that BEGIN's outcome is no evidence (no verdict of aborted
// effect), while a planted final state with T0's write still is.
void chained_after_rollback(Target& target, IsolationLevel level) {
  TestCase c;
  c.schema.tables = {counter_table()};
  c.transactions = {txn(level, {"UPDATE t SET v = 99 WHERE k = 1"}), txn(level, {"UPDATE t SET v = v + 1 WHERE k = 2"})};
  c.transactions[0].chain = true;
  c.transactions[0].end = TxnEnd::Rollback;
  c.transactions[0].session = c.transactions[1].session = 0;
  c.order = TestCase::serial_order(c.transactions);
  ASSERT_EQ(c.validate(), "");
  History h = target.run(c);
  ASSERT_FALSE(h.finding) << h.finding->detail;
  ASSERT_EQ(h.final_state, state(10, 21)) << describe(h);
  const Verdict correct = check_atomicity(target, h);
  EXPECT_TRUE(correct.ok()) << correct.explain();
  h.final_state = state(99, 21);  // planted: the rolled-back T0's write is there
  EXPECT_TRUE(check_atomicity(target, h).has("aborted-effect"));
}

void chained_increments(Target& target, IsolationLevel level) {
  TestCase c;
  c.schema.tables = {counter_table()};
  const char* add = "UPDATE t SET v = v + 1 WHERE k = 1";
  c.transactions = {txn(level, {add}), txn(level, {add}), txn(level, {add})};
  c.transactions[0].chain = true;
  c.transactions[0].session = c.transactions[1].session = 0;
  c.order = {0, 0, 0, 1, 2, 2, 2, 1, 1};  // T0 whole, the chained T1 begins; T2 whole; T1's UPDATE and COMMIT
  ASSERT_EQ(c.validate(), "");
  History h = target.run(c);
  ASSERT_FALSE(h.finding) << h.finding->detail;
  for (const auto& t : h.transactions) ASSERT_EQ(t.fate, TxnFate::Committed) << describe(h);
  ASSERT_EQ(h.final_state, state(13, 20)) << describe(h);
  const Verdict correct = check_wss(target, h, WssOptions{test::strict_wss()});
  EXPECT_TRUE(correct.ok()) << correct.explain();
  h.final_state = state(12, 20);  // planted: an increment lost
  const Verdict caught = check_wss(target, h, WssOptions{test::strict_wss()});
  ASSERT_TRUE(caught.fails()) << caught.explain();
  EXPECT_TRUE(caught.has("final-state-mismatch")) << caught.explain();
}

void truth_forms_judged(Target& target, IsolationLevel level) {
  {
    TestCase c;
    c.schema.tables = {counter_table()};
    c.transactions = {txn(level, {"UPDATE t SET v = v + 1 WHERE (k = 1) IS TRUE"}),
                      txn(level, {"UPDATE t SET v = v + 1 WHERE k IS NOT DISTINCT FROM 1"})};
    c.order = TestCase::serial_order(c.transactions);
    History h = target.run(c);
    ASSERT_FALSE(h.finding) << h.finding->detail;
    ASSERT_EQ(h.final_state, state(12, 20)) << describe(h);
    EXPECT_TRUE(check_wss(target, h, WssOptions{test::strict_wss()}).ok()) << check_wss(target, h, WssOptions{test::strict_wss()}).explain();
    h.final_state = state(11, 20);  // planted: an increment lost
    EXPECT_TRUE(check_wss(target, h, WssOptions{test::strict_wss()}).has("final-state-mismatch"));
  }
  TestCase c;
  c.schema.tables = {counter_table()};
  c.transactions = {txn(level, {"UPDATE t SET v = 5 WHERE CAST(k AS TEXT) = '1'"}),
                    txn(level, {"SELECT * FROM t WHERE (v > 3) = TRUE AND k IS DISTINCT FROM 2"})};
  c.transactions[0].end = TxnEnd::Rollback;
  c.order = TestCase::serial_order(c.transactions);
  History h = target.run(c);
  ASSERT_FALSE(h.finding) << h.finding->detail;
  ASSERT_EQ(h.final_state, state(10, 20)) << describe(h);
  ASSERT_EQ(h.outcomes[1][1].rows.size(), 1u) << describe(h);
  EXPECT_TRUE(check_atomicity(target, h).ok()) << check_atomicity(target, h).explain();
  h.final_state = state(5, 20);  // planted: the rolled-back UPDATE took effect
  const Verdict caught = check_atomicity(target, h);
  ASSERT_TRUE(caught.fails()) << caught.explain();
  EXPECT_TRUE(caught.has("aborted-effect")) << caught.explain();
}

}  // namespace

TEST(ChainPlanted, Postgresql) {
  TXPROP_USE_ENGINE(target, "postgresql", false);
  for (IsolationLevel level : {IsolationLevel::ReadCommitted, IsolationLevel::RepeatableRead, IsolationLevel::Serializable}) {
    chained_rollback_has_no_effect(*target, level);
    chained_after_rollback(*target, level);
    if (level == IsolationLevel::ReadCommitted) chained_increments(*target, level);
  }
}

TEST(ChainPlanted, Mariadb) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  for (IsolationLevel level : {IsolationLevel::ReadCommitted, IsolationLevel::RepeatableRead, IsolationLevel::Serializable}) {
    chained_rollback_has_no_effect(*target, level);
    chained_after_rollback(*target, level);
    chained_increments(*target, level);
  }
}

TEST(TruthFormsPlanted, EveryEngine) {
  TXPROP_USE_ENGINE(pg, "postgresql", false);
  truth_forms_judged(*pg, IsolationLevel::Serializable);
  TXPROP_USE_ENGINE(maria, "mariadb", false);
  truth_forms_judged(*maria, IsolationLevel::RepeatableRead);
  TXPROP_USE_ENGINE(lite, "sqlite", false);
  truth_forms_judged(*lite, IsolationLevel::Serializable);
}
