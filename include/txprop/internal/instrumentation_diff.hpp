// The differential check of an oracle's instrumentation (issue 21 item 1): a case run plainly and as the oracle
// prepares it must show the same in everything the plain SQL can show — which steps waited on a lock, each
// statement's outcome (status, error class, affected-row count, and its rows without the columns the preparation
// added; a RETURNING list the plain statement does not have is not compared), each transaction's fate, the run's own
// finding, and the final state without the added columns. A preparation that changes any of these makes its oracle
// judge a history the plain case does not produce.
//
// Statements the preparation added (Adya's version-set reads and join reads, TxCheck's instrumentation reads) and
// transactions it appended (the observer) have no plain counterpart and are left out; every other step is compared
// with the plain step it came from.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "txprop/history.hpp"
#include "txprop/oracle.hpp"
#include "txprop/target.hpp"
#include "txprop/test_case.hpp"

namespace txprop::differential {

// [transaction][plain step] -> the step of the prepared case it became; nullopt when `prepared` does not hold the plain
// case's transactions and statements in place (a preparation this check does not know how to map).
using StepMap = std::vector<std::vector<std::size_t>>;
std::optional<StepMap> map_steps(const TestCase& plain, const TestCase& prepared);
// The map of a case to itself (the plain run's steps).
StepMap identity_map(const TestCase& c);

// One difference between the runs and where it lies: a step of the plain case (its blocking or its outcome), a
// transaction's fate, a table of the final state, or the run itself (a finding in one run only).
struct Difference {
  enum class Kind { Run, Blocking, Outcome, Fate, FinalState };
  Kind kind = Kind::Run;
  StepRef step;       // Blocking, Outcome: the plain step; Fate: its transaction (index 0)
  std::string table;  // FinalState
  std::string text;   // one line, as compare_runs prints it
};
// Every difference, in plain step order (empty when the prepared case's steps cannot be mapped: compare_runs says so).
std::vector<Difference> differences(const History& plain, const History& prepared);

// Empty when `prepared` (the run of the prepared case) shows what `plain` shows; otherwise one line per kind of
// difference, naming the first step that differs.
std::string compare_runs(const History& plain, const History& prepared);

// Whether every difference lies in what the order of waiters released together can change, and not in the
// preparation: when one transaction's end releases statements of two or more others at once
// (History::resumptions_together, in either run), which of them the engine runs first, and whether a released
// statement completes before the next step is sent, is the engine's and the machine's timing (a prepared statement
// is slower). That order can change the released transactions' steps from the one that waited on (blocking, rows,
// errors), their fates, and the final state of the tables they write; it cannot change a step that completed before
// the release, nor another transaction's step. A line naming the released transactions when every difference lies
// there; empty when one lies elsewhere (an effect of the preparation, or none was released together).
std::string waiter_order(const History& plain, const History& prepared);

// Whether every difference is whether a step waited, at a step submitted while another transaction's statement was
// waiting that then failed with a deadlock, in both runs: the step closed the cycle. InnoDB looks for a cycle when a
// lock request starts to wait and rolls the victim back then (lock0lock.cc, Deadlock::check_and_resolve), so the
// closing statement waits only while the victim's rollback releases its locks, and whether the probe sees that wait
// is the machine's timing (seen at load 9: a prepared UPDATE's wait seen in 3 pairs of runs, in none of 13 more).
// A line naming the steps when so; empty otherwise.
std::string deadlock_closing_wait(const History& plain, const History& prepared);

// Whether every difference lies in a deadlock both runs had: which transaction the engine ends depends on weights the
// preparation changes (InnoDB ends the transaction of least weight, its locks plus its undo records, lock0lock.cc
// Deadlock::report and trx_weight_ge; the added reads lock rows and the added columns are written), and the victim's
// abort decides which locks the others hold from then on. A difference counts as that only where it lies in the steps
// of the deadlocked transactions from the deadlock on (each run's victim, the transactions then waiting, and the one
// whose request closed the cycle) or in a step sent after the first deadlock error, in the fates of those
// transactions, or in the tables they write; a deadlock in one run only, or a difference in a step that was sent
// before the deadlock and is not in it, is the preparation's. A line naming the transactions when so; empty otherwise.
std::string deadlock_victim(const History& plain, const History& prepared);

struct Result {
  std::string refused;     // the oracle's cannot_judge line: nothing ran
  bool prepared_same = false;  // prepare() returned the case itself: nothing to compare
  std::string difference;  // compare_runs of the first pair of runs (empty: the same)
  // A difference seen again in each of two more pairs of runs, whose plain runs were the same as the first: not one
  // of timing (which transaction a deadlock ends, which waiter InnoDB grants a lock first, a wait the probe saw in
  // one run only).
  bool reproduced = false;
  History plain, prepared;
};
// Runs `c` plainly and prepared by `oracle` on `target` (each on a freshly reset database) and compares them; a
// difference is checked with two more pairs of runs.
Result run(Target& target, const Oracle& oracle, const TestCase& c);

}  // namespace txprop::differential
