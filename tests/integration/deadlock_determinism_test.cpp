// Deadlock rings, repeated (issues 10 and 21): the victim is the same on every run and its error is recorded before
// the statement its abort released, with nothing of another session dispatched in between.
// - PostgreSQL: the runner sees the cycle in pg_blocking_pids and ends the youngest transaction of it (the one whose
//   first step was submitted last: in a ring, the last one), before PostgreSQL's own deadlock_timeout check;
// - MariaDB: InnoDB breaks the cycle itself the moment a lock request closes it, with its documented victim (a small
//   transaction, by rows inserted, updated or deleted: MySQL 8.0 manual 15.7.5.2, "Deadlock Detection"; in these
//   rings, where all are equal, the one whose request closed the cycle); the runner only orders the victim's error first.
// TXPROP_DEADLOCK_REPEATS (default 100) schedules per shape.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "support/engine_targets.hpp"
#include "txprop/sql.hpp"
#include "txprop/target.hpp"

using namespace txprop;

namespace {

Schema rows(int n) {
  Table t;
  t.name = "t";
  t.columns = {{"k", ColumnType::Integer, true}, {"v", ColumnType::Integer, false}};
  t.primary_key = {"k"};
  for (int k = 1; k <= n; ++k) t.rows.push_back({k, 10 * k});
  return Schema{{t}};
}

Statement set_v(int k, int v) {
  return Statement::update("t", {{"v", Expr::lit(v)}}, Expr::binary(BinaryOp::Eq, Expr::col("k"), Expr::lit(k)));
}

int repeats() {
  const char* v = std::getenv("TXPROP_DEADLOCK_REPEATS");
  return v && *v ? std::max(1, std::atoi(v)) : 100;
}

// n transactions in a ring: Ti updates row i, then row i+1 (mod n); each then commits. Submitted: every first
// update, then every second update (the last one closes the cycle), then the commits in `commit_order`.
TestCase ring(int n, IsolationLevel level, const std::vector<int>& commit_order) {
  TestCase c;
  c.schema = rows(n);
  for (int i = 0; i < n; ++i)
    c.transactions.push_back(Transaction{level, {set_v(i + 1, 100 + i), set_v((i + 1) % n + 1, 200 + i)}, TxnEnd::Commit});
  for (int i = 0; i < n; ++i) c.order.push_back(i);  // BEGIN
  for (int i = 0; i < n; ++i) c.order.push_back(i);  // first update
  for (int i = 0; i < n; ++i) c.order.push_back(i);  // second update
  for (int i : commit_order) c.order.push_back(i);   // COMMIT
  return c;
}

int event_index(const History& h, Event::Kind kind, StepRef ref) {
  for (std::size_t i = 0; i < h.events.size(); ++i)
    if (h.events[i].kind == kind && h.events[i].step == ref) return static_cast<int>(i);
  return -1;
}

// `expected`: the victim the rule names, or -1 where the engine's own choice is only required to be the same each run.
void repeat_ring(Target& target, int n, IsolationLevel level, const std::vector<int>& commit_order, int expected) {
  std::map<int, int> victims;
  int misordered = 0, runs = repeats();
  for (int r = 0; r < runs; ++r) {
    const History h = target.run(ring(n, level, commit_order));
    ASSERT_FALSE(h.finding) << describe(h);
    int victim = -1;
    for (int t = 0; t < n; ++t)
      if (h.transactions[static_cast<std::size_t>(t)].fate == TxnFate::Aborted &&
          h.transactions[static_cast<std::size_t>(t)].abort_reason.cls == ErrorClass::Deadlock)
        victim = t;
    ++victims[victim];
    if (victim < 0) continue;
    // The victim's error comes before everything after it in the ring resumed or committed.
    const int abort_at = event_index(h, Event::Kind::Completed, StepRef{victim, 2});
    for (int t = 0; t < n; ++t) {
      if (t == victim) continue;
      const int resumed = event_index(h, Event::Kind::Completed, StepRef{t, 2});
      const int committed = event_index(h, Event::Kind::Completed, StepRef{t, 3});
      if (t == (victim + n - 1) % n && resumed >= 0 && resumed < abort_at) {
        ++misordered;
        ADD_FAILURE() << "the released statement was recorded before the victim's error:\n" << describe(h);
      }
      if (committed >= 0 && committed < abort_at) {
        ++misordered;
        ADD_FAILURE() << "a COMMIT was recorded before the victim's error:\n" << describe(h);
      }
    }
  }
  std::string counts;
  for (auto [v, k] : victims) counts += fmt::format(" {}:{}", v < 0 ? std::string("none") : "T" + std::to_string(v), k);
  std::cout << fmt::format("[deadlock] {} transactions at {}, {} runs: victims{}; {} misordered\n", n,
                           sql_name(level), runs, counts, misordered);
  EXPECT_EQ(victims.size(), 1u) << "the victim differs between runs:" << counts;
  EXPECT_NE(victims.begin()->first, -1) << "no deadlock victim";
  if (expected >= 0)
    EXPECT_EQ(victims.begin()->first, expected) << "the victim should be T" << expected << ", the youngest of the cycle";
}

}  // namespace

TEST(DeadlockPostgresql, TwoTransactionsSameVictimEveryTime) {
  TXPROP_USE_ENGINE(target, "postgresql", false);
  repeat_ring(*target, 2, IsolationLevel::ReadCommitted, {1, 0}, 1);
}

TEST(DeadlockPostgresql, ThreeTransactionsSameVictimEveryTime) {
  TXPROP_USE_ENGINE(target, "postgresql", false);
  repeat_ring(*target, 3, IsolationLevel::RepeatableRead, {1, 2, 0}, 2);
}

TEST(DeadlockMariadb, TwoTransactionRingSameVictimErrorFirst) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  repeat_ring(*target, 2, IsolationLevel::ReadCommitted, {1, 0}, -1);
}

TEST(DeadlockMariadb, ThreeTransactionRingSameVictimErrorFirst) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  repeat_ring(*target, 3, IsolationLevel::RepeatableRead, {1, 2, 0}, -1);
}
