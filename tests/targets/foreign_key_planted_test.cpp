// Foreign keys (issue 17 items 2 and 3) judged by WSS and atomicity on every engine. child.pid references parent.k ON
// DELETE CASCADE or SET NULL, or ON UPDATE CASCADE or SET NULL. T0 deletes parent row 1, or changes its key to 5,
// which writes child row 1 through the key (no statement names it); T1 then reads child.
// The real history passes both oracles, their replays on the engine cascading again. Planted violations through the
// cascaded write are caught:
//   - WSS: the cascaded write missing from the final state (final-state-mismatch), and T1 reading child row 1 as it was
//     before T0's committed delete (a read the serial replay does not give);
//   - atomicity: T0 rolled back, and its cascaded write surviving in the final state or read by T1 (aborted-effect).
#include <gtest/gtest.h>

#include "support/engine_targets.hpp"
#include "support/planted.hpp"
#include "txprop/atomicity.hpp"
#include "txprop/wss.hpp"

using namespace txprop;

namespace {

Row pair(std::int64_t a, Value b) { return Row{Value(a), std::move(b)}; }

// What T0 does to parent row 1, and the action of child's key that it sets off.
struct Through {
  bool update;  // UPDATE parent SET k = 5 (ON UPDATE action); else DELETE (ON DELETE action)
  ReferentialAction action;
};

TestCase delete_parent(IsolationLevel level, Through through, TxnEnd end) {
  TestCase c;
  Table parent{"parent", {Column{"k", ColumnType::Integer, true}, Column{"v"}}, {"k"}, {}, {pair(1, Value(10)), pair(2, Value(20))}};
  Table child{"child", {Column{"id", ColumnType::Integer, true}, Column{"pid"}}, {"id"}, {}, {pair(1, Value(1)), pair(2, Value(2))}};
  ForeignKey key{{"pid"}, "parent", {"k"}, through.action, ReferentialAction::NoAction};
  if (through.update) std::swap(key.on_delete, key.on_update);
  child.foreign_keys = {key};
  c.schema.tables = {parent, child};
  const char* write = through.update ? "UPDATE parent SET k = 5 WHERE k = 1" : "DELETE FROM parent WHERE k = 1";
  c.transactions = {test::txn(level, {write}),
                    test::txn(level, {"SELECT * FROM child"})};
  c.transactions[0].end = end;
  c.order = TestCase::serial_order(c.transactions);
  EXPECT_EQ(c.validate(), "");
  return c;
}

// child's rows after T0's write of parent 1 committed.
std::vector<Row> cascaded(Through through) {
  if (through.action == ReferentialAction::Cascade)
    return through.update ? std::vector<Row>{pair(1, Value(5)), pair(2, Value(2))}
                          : std::vector<Row>{pair(2, Value(2))};
  return {pair(1, Value()), pair(2, Value(2))};
}
const std::vector<Row> kUntouched = {pair(1, Value(1)), pair(2, Value(2))};

void check_wss_through(Target& target, IsolationLevel level, Through action) {
  const WssOptions strict{test::strict_wss()};
  const History h = target.run(delete_parent(level, action, TxnEnd::Commit));
  ASSERT_FALSE(h.finding) << h.finding->detail;
  ASSERT_EQ(h.final_state.at("child"), cascaded(action)) << describe(h);  // the engine wrote through the key
  ASSERT_EQ(sorted_rows(h.outcomes[1][1].rows), cascaded(action)) << describe(h);
  const Verdict real = check_wss(target, h, strict);
  EXPECT_TRUE(real.ok()) << real.explain();

  History lost = h;
  lost.final_state["child"] = kUntouched;  // planted: the cascaded write is not in the final state
  const Verdict caught = check_wss(target, lost, strict);
  EXPECT_TRUE(caught.fails() && caught.has("final-state-mismatch")) << caught.explain();

  History stale = h;
  stale.outcomes[1][1].rows = kUntouched;  // planted: T1, after T0 committed, reads child as it was before
  const Verdict stale_caught = check_wss(target, stale, strict);
  EXPECT_TRUE(stale_caught.fails()) << stale_caught.explain();
}

void check_atomicity_through(Target& target, IsolationLevel level, Through action) {
  const History h = target.run(delete_parent(level, action, TxnEnd::Rollback));
  ASSERT_FALSE(h.finding) << h.finding->detail;
  ASSERT_EQ(h.final_state.at("child"), kUntouched) << describe(h);
  const Verdict real = check_atomicity(target, h);
  EXPECT_TRUE(real.ok()) << real.explain();

  History survived = h;
  survived.final_state["child"] = cascaded(action);  // planted: the rolled-back cascaded write survived
  EXPECT_TRUE(check_atomicity(target, survived).has("aborted-effect"));

  History dirty = h;
  dirty.outcomes[1][1].rows = cascaded(action);  // planted: T1 read the cascaded write of a transaction that rolled back
  const Verdict caught = check_atomicity(target, dirty, AtomicityOptions{true});
  ASSERT_TRUE(caught.has("aborted-effect")) << caught.explain();
  EXPECT_NE(caught.findings[0].explanation.find("T1.1"), std::string::npos) << caught.explain();
}

void check(Target& target, IsolationLevel level) {
  for (const bool update : {false, true})
    for (ReferentialAction action : {ReferentialAction::Cascade, ReferentialAction::SetNull}) {
      SCOPED_TRACE(std::string(update ? "ON UPDATE " : "ON DELETE ") + to_string(action));
      check_wss_through(target, level, Through{update, action});
      check_atomicity_through(target, level, Through{update, action});
    }
}

}  // namespace

TEST(ForeignKeyPlanted, Sqlite) {
  TXPROP_USE_ENGINE(target, "sqlite", false);
  check(*target, IsolationLevel::Serializable);
}

TEST(ForeignKeyPlanted, Postgresql) {
  TXPROP_USE_ENGINE(target, "postgresql", false);
  check(*target, IsolationLevel::ReadCommitted);
  check(*target, IsolationLevel::Serializable);
}

TEST(ForeignKeyPlanted, Mariadb) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  check(*target, IsolationLevel::RepeatableRead);
}
