// WSS counts every table a joined write writes (issue 11). The any-order search tries one serial order of two
// transactions that commute, so a write to the second table of a joined UPDATE (or of a DELETE t, u FROM t JOIN u)
// that were not counted would let the search skip the order that explains a history: a reader of that table placed
// before the write and after it give different replays. No server: the commute relation the search uses, on the
// statements the generator makes for MariaDB.
#include <gtest/gtest.h>

#include "txprop/sql_parser.hpp"
#include "tests/support/planted.hpp"
#include "txprop/target.hpp"
#include "txprop/wss.hpp"

using namespace txprop;

namespace {

using test::txn;

}  // namespace

TEST(WssJoinedWrites, AWriteToTheSecondTableOfAJoinedUpdateOrdersItsReaders) {
  // Planted: T0's joined UPDATE writes u (its second table) and T1 copies u's maximum into v. Replayed T0 then T1,
  // v gets u's new value; T1 then T0, the old one. Only u connects them: if u were not counted as written, the pair
  // would commute, the search would try one order, and a history whose T1 read u before T0 wrote it (the other
  // order) would be reported as a final-state mismatch although a serial order explains it, or the converse.
  const Transaction joined = txn({"UPDATE t INNER JOIN u ON t.a = u.b SET t.x = 1, u.y = u.y + 1 WHERE t.x > 0"});
  const Transaction reader = txn({"UPDATE v SET z = (SELECT MAX(y) FROM u)"});
  EXPECT_FALSE(commute_in_serial_replay(joined, reader, Schema{}));
  EXPECT_FALSE(commute_in_serial_replay(reader, joined, Schema{}));
  const Transaction deleting = txn({"DELETE t, u FROM t INNER JOIN u ON t.a = u.b WHERE t.x > 0"});
  EXPECT_FALSE(commute_in_serial_replay(deleting, reader, Schema{}));
  // Correct: the joined write only reads u (it sets t alone, or deletes from t alone): T1's reads of u give the same
  // value in either order, so the pair commutes and one order is enough.
  const Transaction joined_one = txn({"UPDATE t INNER JOIN u ON t.a = u.b SET t.x = 1 WHERE t.x > 0"});
  EXPECT_TRUE(commute_in_serial_replay(joined_one, reader, Schema{}));
  const Transaction deleting_one = txn({"DELETE t FROM t INNER JOIN u ON t.a = u.b WHERE t.x > 0"});
  EXPECT_TRUE(commute_in_serial_replay(deleting_one, reader, Schema{}));
  // And the plain rules: two writers of one table never commute, transactions on disjoint tables always do.
  EXPECT_FALSE(commute_in_serial_replay(txn({"UPDATE u SET y = 2"}), txn({"UPDATE u SET y = 3"}), Schema{}));
  EXPECT_TRUE(commute_in_serial_replay(txn({"UPDATE t SET x = 2"}), txn({"UPDATE v SET z = 3"}), Schema{}));
}

TEST(WssJoinedWrites, TablesJoinedByAForeignKeyOrderTheirReadersAsOneTable) {
  // Planted (a WSS campaign on SQLite, tests/scenarios/wss_reader_of_a_child_before_its_parents_delete.txn): T0
  // deletes from t0, whose ON DELETE SET NULL rewrites t1's rows; T1 reads t1. With the foreign key the pair does not
  // commute (the replays T0, T1 and T1, T0 give T1 different rows), so the search must try both orders.
  Schema schema;
  schema.tables.push_back(Table{"t0", {}, {}, {}, {}, {}});
  schema.tables.push_back(Table{"t1", {}, {}, {}, {}, {ForeignKey{{"c4"}, "t0", {"c0"}, ReferentialAction::SetNull,
                                                                  ReferentialAction::NoAction}}});
  const Transaction parent_delete = txn({"DELETE FROM t0"});
  const Transaction child_reader = txn({"SELECT * FROM t1"});
  EXPECT_FALSE(commute_in_serial_replay(parent_delete, child_reader, schema));
  EXPECT_FALSE(commute_in_serial_replay(child_reader, parent_delete, schema));
  // A child's writer reads its parent (the key check): it does not commute with the parent's writer either.
  EXPECT_FALSE(commute_in_serial_replay(txn({"INSERT INTO t1 (c4) VALUES (1)"}), parent_delete, schema));
  // Correct: without the foreign key the two touch no common table and commute.
  EXPECT_TRUE(commute_in_serial_replay(parent_delete, child_reader, Schema{}));
}

// A write outcome is judged at its own transaction's level too. Planted on the embedded SQLite target: a rolled-back
// transaction's UPDATE reported as failed in the concurrent run although its serial replay succeeds (no transaction
// committed). Where its level promises WSS the mismatch fails; where the level does not (MariaDB READ UNCOMMITTED: an
// UPDATE's semi-consistent read sees another's uncommitted version; found by the Wss suite, where it failed only
// because no transaction committed, so no committed level was there to document it) it is that level's documented
// behaviour with its source.
TEST(WssJoinedWrites, AWriteOutcomeOfAnUncommittedTransactionIsJudgedAtItsLevel) {
  auto target = Target::open(parse_target_uri("sqlite:"));
  TestCase c;
  c.schema.tables = {Table{"t", {Column{"k", ColumnType::Integer, true}, Column{"v"}}, {"k"}, {}, {{1, 0}}}};
  Transaction t0 = txn({"UPDATE t SET v = 1 WHERE k = 1"});
  t0.end = TxnEnd::Rollback;
  c.transactions = {t0};
  c.order = TestCase::serial_order(c.transactions);
  History h = target->run(c);
  ASSERT_FALSE(h.finding);
  ASSERT_TRUE(h.outcomes[0][1].ok());
  EXPECT_TRUE(check_wss(*target, h).findings.empty());  // correct: the replay agrees
  h.outcomes[0][1].status = Outcome::Status::Error;      // planted: the UPDATE failed in the concurrent run
  h.outcomes[0][1].error.cls = ErrorClass::ConstraintViolation;
  WssBehaviour strict;
  strict.source = "test: WSS holds";
  const Verdict caught = check_wss(*target, h, WssOptions{strict});
  ASSERT_EQ(caught.findings.size(), 1u) << caught.explain();
  EXPECT_EQ(caught.findings[0].kind, "write-outcome-mismatch");
  EXPECT_FALSE(caught.findings[0].documented());
  EXPECT_EQ(caught.findings[0].transactions, (std::vector<int>{0}));
  WssBehaviour without;
  without.write_serializable = false;
  without.source = "test: this level does not promise WSS";
  const Verdict documented = check_wss(*target, h, WssOptions{without});
  ASSERT_EQ(documented.findings.size(), 1u) << documented.explain();
  EXPECT_TRUE(documented.findings[0].documented());
  EXPECT_EQ(documented.findings[0].source, without.source);
}
