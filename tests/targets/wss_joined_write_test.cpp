// WSS on a joined write that writes two tables (MariaDB's multi-table UPDATE), end to end on the engine: the final
// state of the joined table is compared, and the any-order search does not skip an order because it missed the
// joined table's write (commute_in_serial_replay counts every written table; tests/unit/wss_joined_writes_test.cpp).
#include <gtest/gtest.h>

#include "support/engine_targets.hpp"
#include "txprop/sql_parser.hpp"
#include "txprop/wss.hpp"

using namespace txprop;

namespace {

// T1's UPDATE copies u's maximum into v, reading u before T0's joined UPDATE writes u (at READ COMMITTED, InnoDB
// reads an UPDATE's subquery without waiting); T0 commits first. Replayed in commit order (T0, T1) v gets u's new
// maximum, which the run did not: only the order T1, T0 explains the final state, and only u connects them.
TestCase reader_before_joined_write() {
  TestCase c;
  c.schema.tables = {
      Table{"t", {Column{"k", ColumnType::Integer, true}, Column{"a"}, Column{"x"}}, {"k"}, {}, {{1, 1, 1}, {2, 2, 1}}},
      Table{"u", {Column{"k", ColumnType::Integer, true}, Column{"b"}, Column{"y"}}, {"k"}, {}, {{1, 1, 10}, {2, 3, 20}}},
      Table{"v", {Column{"k", ColumnType::Integer, true}, Column{"z"}}, {"k"}, {}, {{1, 0}}}};
  Transaction joined, reader;
  joined.isolation = reader.isolation = IsolationLevel::ReadCommitted;
  joined.statements = {parse_statement("UPDATE t INNER JOIN u ON t.a = u.b SET t.x = 5, u.y = u.y + 100 WHERE t.x > 0")};
  reader.statements = {parse_statement("UPDATE v SET z = (SELECT MAX(y) FROM u)")};
  c.transactions = {joined, reader};
  c.order = {1, 1, 0, 0, 0, 1};  // T1 BEGIN, T1 UPDATE v, T0 BEGIN, T0 UPDATE t JOIN u, T0 COMMIT, T1 COMMIT
  return c;
}

WssBehaviour any_serial_order() {
  WssBehaviour p;
  p.write_serializable = true;
  p.any_serial_order = true;
  p.source = "test: some serial order must explain the final state";
  return p;
}

}  // namespace

TEST(WssJoinedWrite, ALostWriteToTheJoinedTableIsCaughtAndTheRightOrderIsFound) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  const TestCase c = reader_before_joined_write();
  ASSERT_EQ(c.validate(), "");
  History h = target->run(c);
  ASSERT_FALSE(h.finding) << h.finding->detail;
  ASSERT_TRUE(h.outcomes[0][1].ok()) << summary(h.outcomes[0][1]);
  ASSERT_EQ(h.outcomes[0][1].affected, 2);  // t row 1 and u row 1 (t row 2 has no partner)
  ASSERT_EQ(h.final_state.at("v"), (std::vector<Row>{{1, 20}})) << "T1 read u before T0 wrote it";

  // Correct: the order T1, T0 explains the final state; the search must try it although T1 does not write a table
  // T0 names first (only the joined table u connects them).
  const Verdict ok = check_wss(*target, h, WssOptions{any_serial_order()});
  EXPECT_FALSE(ok.inconclusive) << ok.note;
  EXPECT_TRUE(ok.findings.empty()) << ok.explain();

  // Planted: T0's write to its second table lost (u as it was). No serial order gives it: caught.
  History lost = h;
  lost.final_state["u"] = {{1, 1, 10}, {2, 3, 20}};
  const Verdict caught = check_wss(*target, lost, WssOptions{any_serial_order()});
  ASSERT_FALSE(caught.findings.empty()) << caught.explain();
  EXPECT_EQ(caught.findings.front().kind, "final-state-mismatch");
  EXPECT_FALSE(caught.findings.front().documented());
}
