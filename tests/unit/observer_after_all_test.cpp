// An oracle's observer (Transaction::after_all, Adya's final read of every table) runs only once every other
// transaction ended, wherever the planned order puts its steps: a waiting observer would take part in the others'
// waits (SQLite's busy rule rolls back one of the waiting transactions, and an observer waiting beside them changed
// which one: the instrumentation differential at 2,000 cases, SQLite journal_mode=delete, 143 Adya cases).
// Runs on embedded SQLite: no server needed.
#include <gtest/gtest.h>

#include "txprop/sql_parser.hpp"
#include "txprop/target.hpp"
#include "txprop/target_config.hpp"

using namespace txprop;

namespace {

TestCase writers_and_observer(bool after_all) {
  TestCase c;
  c.schema.tables = {Table{"t", {Column{"k", ColumnType::Integer, true}, Column{"v"}}, {"k"}, {}, {{1, 10}}}};
  Transaction w0, w1, observer;
  w0.statements = {parse_statement("UPDATE t SET v = 11 WHERE k = 1")};
  w1.statements = {parse_statement("UPDATE t SET v = 12 WHERE k = 1")};
  observer.statements = {parse_statement("SELECT * FROM t")};
  observer.after_all = after_all;
  c.transactions = {w0, w1, observer};
  // T1's UPDATE waits for T0's write lock; the observer's steps are planned before T0's COMMIT.
  c.order = {0, 0, 1, 1, 2, 2, 2, 0, 1};
  EXPECT_EQ(c.validate(), "");
  return c;
}

// Index of the first event of transaction `t`.
int first_event(const History& h, int t) {
  for (std::size_t i = 0; i < h.events.size(); ++i)
    if (h.events[i].step.txn == t) return static_cast<int>(i);
  return -1;
}

}  // namespace

TEST(ObserverAfterAll, RunsOnlyOnceEveryOtherTransactionEnded) {
  auto target = Target::open(parse_target_uri("sqlite:"));
  const History held = target->run(writers_and_observer(true));
  ASSERT_FALSE(held.finding) << held.finding->detail;
  ASSERT_TRUE(held.was_blocked[1][1]) << describe(held);
  for (int t : {0, 1}) EXPECT_GT(first_event(held, 2), held.transactions[static_cast<std::size_t>(t)].end_event)
                           << describe(held);
  EXPECT_EQ(held.outcomes[2][1].rows, (std::vector<Row>{Row{Value(std::int64_t{1}), Value(std::int64_t{12})}}))
      << describe(held);
  // Without the flag the planned order sends the observer while T1 waits.
  const History planned = target->run(writers_and_observer(false));
  ASSERT_FALSE(planned.finding) << planned.finding->detail;
  EXPECT_LT(first_event(planned, 2), planned.transactions[0].end_event) << describe(planned);
}
