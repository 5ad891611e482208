// The instrumentation differential's waiter-order rule (include/txprop/internal/instrumentation_diff.hpp,
// differential::waiter_order) on planted pairs of runs, no server: when one transaction's end releases two waiting
// transactions at once, a difference in their steps from the wait on (which of them got the row first) is the
// engine's order, not the preparation's; a difference anywhere else in the same case is the preparation's. The rule
// before it (any difference in a case with waiters released together is waiter order) took both as explained.
#include <gtest/gtest.h>

#include "tests/support/planted.hpp"
#include "txprop/internal/instrumentation_diff.hpp"

using namespace txprop;

namespace {

// `waiter` waited on a lock and completed right after `releaser` (instead of where the case submitted it).
void waits(History& h, StepRef waiter, StepRef releaser) {
  std::vector<Event> events;
  for (const Event& e : h.events) {
    events.push_back(e);
    if (e.step == waiter) events.back().kind = Event::Kind::Blocked;
  }
  const auto at = std::find(events.begin(), events.end(), Event{Event::Kind::Completed, releaser});
  events.insert(at + 1, Event{Event::Kind::Completed, waiter});
  h.events = events;
  for (std::size_t i = 0; i < h.events.size(); ++i) {
    const StepRef& s = h.events[i].step;
    const auto t = static_cast<std::size_t>(s.txn);
    if (h.events[i].kind == Event::Kind::Completed &&
        s.index + 1 == static_cast<int>(h.test_case.transactions[t].step_count()))
      h.transactions[t].end_event = static_cast<int>(i);
  }
  h.was_blocked[static_cast<std::size_t>(waiter.txn)][static_cast<std::size_t>(waiter.index)] = true;
}

Outcome rows(std::vector<Row> r) { return test::rows_outcome({"a", "b"}, std::move(r)); }
using test::affected;

// T0 updates row 1 of t; T1 reads it, then updates it and waits for T0; T2 updates it and waits for T0; T3 reads u.
// T0's COMMIT releases T1's and T2's UPDATEs together. `released_together` false: T2 does not write (no wait).
History run(bool released_together) {
  TestCase c;
  Table u = test::table_ab({{Value(1), Value(0)}});
  u.name = "u";
  c.schema.tables = {test::table_ab({{Value(1), Value(0)}}), u};
  c.transactions = {test::txn({"UPDATE t SET b = 1 WHERE a = 1"}),
                    test::txn({"SELECT * FROM t WHERE a = 1", "UPDATE t SET b = 2 WHERE a = 1"}),
                    test::txn({released_together ? "UPDATE t SET b = 3 WHERE a = 1" : "SELECT * FROM u"}),
                    test::txn({"SELECT * FROM u"})};
  c.order = {0, 0, 1, 1, 3, 3, 1, 2, 2, 0, 3, 1, 2};  // T3 reads u before the waits and commits after them
  History h = test::completed_in_order(c);
  h.outcomes[0][1] = h.outcomes[1][2] = affected(1);
  h.outcomes[1][1] = rows({{Value(1), Value(0)}});
  h.outcomes[2][1] = released_together ? affected(1) : rows({{Value(1), Value(0)}});
  h.outcomes[3][1] = rows({{Value(1), Value(0)}});
  waits(h, StepRef{1, 2}, StepRef{0, 2});
  if (released_together) waits(h, StepRef{2, 1}, StepRef{0, 2});
  h.final_state = {{"t", {{Value(1), Value(released_together ? 3 : 2)}}}, {"u", {{Value(1), Value(0)}}}};
  return h;
}

}  // namespace

TEST(WaiterOrder, APlantedRunHasTwoWaitersReleasedTogether) {
  ASSERT_EQ(run(true).concurrent_resumption(), "when T0 ended, 2 transactions were waiting and resumed together");
  EXPECT_EQ(run(false).concurrent_resumption(), "");
  EXPECT_EQ(differential::compare_runs(run(true), run(true)), "");
}

TEST(WaiterOrder, ADifferenceOnlyInTheReleasedTransactionsStepsIsWaiterOrder) {
  // Prepared, T2's UPDATE got the row first and T1's overwrote it: T2's step and t's final row differ.
  History prepared = run(true);
  prepared.final_state["t"] = {{Value(1), Value(2)}};
  prepared.outcomes[2][1] = affected(0);
  ASSERT_NE(differential::compare_runs(run(true), prepared), "");
  EXPECT_NE(differential::waiter_order(run(true), prepared), "") << differential::compare_runs(run(true), prepared);
}

TEST(WaiterOrder, ADifferenceElsewhereInTheSameCaseIsUnexplained) {
  // T3, never waiting, reads another row of u prepared: no order of T1 and T2 changes that.
  History prepared = run(true);
  prepared.outcomes[3][1] = rows({{Value(1), Value(5)}});
  ASSERT_EQ(differential::differences(run(true), prepared).size(), 1u);
  EXPECT_EQ(differential::differences(run(true), prepared)[0].step, (StepRef{3, 1}));
  EXPECT_EQ(differential::waiter_order(run(true), prepared), "");
  // Nor a step of a released transaction that completed before its wait: T1's SELECT.
  prepared = run(true);
  prepared.outcomes[1][1] = rows({});
  EXPECT_EQ(differential::waiter_order(run(true), prepared), "");
  // Nor a table the released transactions do not write.
  prepared = run(true);
  prepared.final_state["u"] = {};
  EXPECT_EQ(differential::waiter_order(run(true), prepared), "");
}

TEST(WaiterOrder, OneWaiterAloneIsNoWaiterOrder) {
  History prepared = run(false);
  prepared.outcomes[1][2] = affected(0);
  ASSERT_NE(differential::compare_runs(run(false), prepared), "");
  EXPECT_EQ(differential::waiter_order(run(false), prepared), "");
}

namespace {

// T0 and T1 each update one row, then the other's: T1's second UPDATE waits for T0, and T0's second UPDATE, sent while
// it waits, closes the cycle; InnoDB ends T1 (`victim` = Deadlock; another class for a wait that was no deadlock).
// `closing_waited`: the probe saw T0's second UPDATE waiting while T1 was rolled back.
History deadlock(bool closing_waited, ErrorClass victim = ErrorClass::Deadlock) {
  TestCase c;
  c.schema.tables = {test::table_ab({{Value(1), Value(0)}, {Value(2), Value(0)}})};
  c.transactions = {test::txn({"UPDATE t SET b = 1 WHERE a = 1", "UPDATE t SET b = 1 WHERE a = 2"}),
                    test::txn({"UPDATE t SET b = 2 WHERE a = 2", "UPDATE t SET b = 2 WHERE a = 1"})};
  c.order = {0, 0, 1, 1, 1, 0, 0, 1};
  History h = test::completed_in_order(c);
  using K = Event::Kind;
  h.events = {{K::Completed, {0, 0}}, {K::Completed, {0, 1}}, {K::Completed, {1, 0}}, {K::Completed, {1, 1}},
              {K::Blocked, {1, 2}}};
  if (closing_waited) h.events.push_back({K::Blocked, {0, 2}});
  h.events.insert(h.events.end(), {{K::Completed, {1, 2}}, {K::Completed, {0, 2}}, {K::Completed, {0, 3}},
                                   {K::Skipped, {1, 3}}});
  h.submitted_at = {{0, 1, 5, static_cast<int>(h.events.size()) - 2}, {2, 3, 4, static_cast<int>(h.events.size()) - 1}};
  h.was_blocked[1][2] = true;
  h.was_blocked[0][2] = closing_waited;
  h.outcomes[0][1] = h.outcomes[0][2] = h.outcomes[1][1] = affected(1);
  h.outcomes[1][2] = Outcome::failure(victim, "1213", "Deadlock found when trying to get lock");
  h.outcomes[1][3].status = Outcome::Status::Skipped;
  h.transactions[1] = TxnResult{TxnFate::Aborted, StepRef{1, 2}, h.outcomes[1][2].error,
                                closing_waited ? 6 : 5};
  h.transactions[0].end_event = closing_waited ? 8 : 7;
  h.final_state = {{"t", {{Value(1), Value(1)}, {Value(2), Value(1)}}}};
  return h;
}

}  // namespace

TEST(DeadlockClosingWait, WhetherTheStepThatClosedADeadlockWasSeenWaitingIsTiming) {
  ASSERT_EQ(differential::compare_runs(deadlock(false), deadlock(true)),
            "blocking: T0.2 did not wait plainly, waited prepared");
  EXPECT_EQ(differential::deadlock_closing_wait(deadlock(false), deadlock(true)),
            "T0.2 closed a deadlock in both runs; only whether it was seen waiting differs");
}

TEST(DeadlockClosingWait, AWaitBesideNoDeadlockOrAnotherDifferenceIsNot) {
  // The waiting statement failed otherwise: T0's wait closed no cycle.
  EXPECT_EQ(differential::deadlock_closing_wait(deadlock(false, ErrorClass::LockTimeout),
                                                deadlock(true, ErrorClass::LockTimeout)),
            "");
  // The same wait, and T0's first UPDATE wrote nothing prepared: that is no timing.
  History prepared = deadlock(true);
  prepared.outcomes[0][1] = affected(0);
  EXPECT_EQ(differential::deadlock_closing_wait(deadlock(false), prepared), "");
}

namespace {

// The deadlock above, with InnoDB ending T0 instead of T1 (its weight lower in this run): T1's second UPDATE
// completes once T0 is rolled back, and T1 commits.
History other_victim() {
  History h = deadlock(false);
  h.outcomes[0][2] = Outcome::failure(ErrorClass::Deadlock, "1213", "Deadlock found when trying to get lock");
  h.outcomes[0][3].status = Outcome::Status::Skipped;
  h.outcomes[1][2] = affected(1);
  h.outcomes[1][3] = Outcome{};
  h.transactions[0] = TxnResult{TxnFate::Aborted, StepRef{0, 2}, h.outcomes[0][2].error, 6};
  h.transactions[1] = TxnResult{TxnFate::Committed, StepRef{}, {}, 7};
  h.final_state = {{"t", {{Value(1), Value(2)}, {Value(2), Value(2)}}}};
  return h;
}

}  // namespace

TEST(DeadlockVictim, AnotherVictimOfTheSameDeadlockIsTheEnginesWeighing) {
  ASSERT_NE(differential::compare_runs(deadlock(false), other_victim()), "");
  EXPECT_EQ(differential::deadlock_victim(deadlock(false), other_victim()),
            "a deadlock in both runs: every difference is in what the victim's abort may change (the steps from "
            "T0.2, T1.2 on), those transactions' fates or the tables they write");
}

TEST(DeadlockVictim, ADifferenceBeforeTheDeadlockOrADeadlockInOneRunOnlyIsNot) {
  // T0's first UPDATE, which completed before any wait, wrote nothing prepared: the preparation's.
  History prepared = other_victim();
  prepared.outcomes[0][1] = affected(0);
  EXPECT_EQ(differential::deadlock_victim(deadlock(false), prepared), "");
  // Plainly no deadlock (T1's wait ended in a lock timeout), prepared one: the preparation made the cycle.
  EXPECT_EQ(differential::deadlock_victim(deadlock(false, ErrorClass::LockTimeout), other_victim()), "");
  ASSERT_NE(differential::compare_runs(deadlock(false, ErrorClass::LockTimeout), deadlock(false)), "");
  EXPECT_EQ(differential::deadlock_victim(deadlock(false, ErrorClass::LockTimeout), deadlock(false)), "");
  // The rule before (any difference whose text names a deadlock) took both as explained.
}
