// BOOLEAN columns (issue 17 item 2) judged by WSS and atomicity on every engine: t(k, b BOOLEAN) with rows (1, TRUE),
// (2, FALSE). T0 flips row 1 (SET b = NOT b) and T1 flips it again, then a reader selects the rows WHERE b IS TRUE.
// Every engine reads a boolean back as 1 / 0, so the history and its replays compare alike. The real history passes;
// planted violations through the boolean are caught: a lost flip in the final state (WSS final-state-mismatch), a
// reader that saw the value before the flips (WSS), and a rolled-back flip surviving or read (atomicity aborted-effect).
#include <gtest/gtest.h>

#include "support/engine_targets.hpp"
#include "support/planted.hpp"
#include "txprop/atomicity.hpp"
#include "txprop/wss.hpp"

using namespace txprop;

namespace {

Row row(std::int64_t k, std::int64_t b) { return Row{Value(k), Value(b)}; }

TestCase flips(IsolationLevel level, TxnEnd second) {
  TestCase c;
  c.schema.tables = {Table{"t", {Column{"k", ColumnType::Integer, true}, Column{"b", ColumnType::Boolean, false}}, {"k"}, {},
                           {row(1, 1), row(2, 0)}}};
  c.transactions = {test::txn(level, {"UPDATE t SET b = NOT b WHERE k = 1"}),
                    test::txn(level, {"UPDATE t SET b = NOT b WHERE k = 1 AND b = FALSE"}),
                    test::txn(level, {"SELECT * FROM t WHERE b IS TRUE"})};
  c.transactions[1].end = second;
  c.order = TestCase::serial_order(c.transactions);
  EXPECT_EQ(c.validate(), "");
  return c;
}

void check(Target& target, IsolationLevel level) {
  const WssOptions strict{test::strict_wss()};
  const History h = target.run(flips(level, TxnEnd::Commit));
  ASSERT_FALSE(h.finding) << h.finding->detail;
  ASSERT_EQ(h.final_state.at("t"), (std::vector<Row>{row(1, 1), row(2, 0)})) << describe(h);  // flipped twice
  ASSERT_EQ(h.outcomes[2][1].rows, std::vector<Row>{row(1, 1)}) << describe(h);
  const Verdict real = check_wss(target, h, strict);
  EXPECT_TRUE(real.ok()) << real.explain();
  History lost = h;
  lost.final_state["t"] = {row(1, 0), row(2, 0)};  // planted: T1's flip lost
  const Verdict caught = check_wss(target, lost, strict);
  EXPECT_TRUE(caught.fails() && caught.has("final-state-mismatch")) << caught.explain();
  History stale = h;
  stale.outcomes[2][1].rows = {};  // planted: the reader saw row 1 as T0 left it (FALSE)
  EXPECT_TRUE(check_wss(target, stale, strict).fails());

  const History rolled = target.run(flips(level, TxnEnd::Rollback));
  ASSERT_FALSE(rolled.finding) << rolled.finding->detail;
  ASSERT_EQ(rolled.final_state.at("t"), (std::vector<Row>{row(1, 0), row(2, 0)})) << describe(rolled);
  const Verdict atomic = check_atomicity(target, rolled);
  EXPECT_TRUE(atomic.ok()) << atomic.explain();
  History survived = rolled;
  survived.final_state["t"] = {row(1, 1), row(2, 0)};  // planted: T1's rolled-back flip survived
  EXPECT_TRUE(check_atomicity(target, survived).has("aborted-effect"));
  History dirty = rolled;
  dirty.outcomes[2][1].rows = {row(1, 1)};  // planted: the reader saw T1's rolled-back flip
  EXPECT_TRUE(check_atomicity(target, dirty, AtomicityOptions{true}).has("aborted-effect"));
}

}  // namespace

TEST(BooleanPlanted, Sqlite) {
  TXPROP_USE_ENGINE(target, "sqlite", false);
  check(*target, IsolationLevel::Serializable);
}

TEST(BooleanPlanted, Postgresql) {
  TXPROP_USE_ENGINE(target, "postgresql", false);
  check(*target, IsolationLevel::ReadCommitted);
  check(*target, IsolationLevel::Serializable);
}

TEST(BooleanPlanted, Mariadb) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  check(*target, IsolationLevel::RepeatableRead);
}
