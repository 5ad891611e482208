// What running a test case on an engine produced: the actual order, every step's outcome, how each transaction
// ended, and the final state. Properties judge histories.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "txprop/database_state.hpp"
#include "txprop/outcome.hpp"
#include "txprop/test_case.hpp"
#include "txprop/verdict.hpp"

namespace txprop {

enum class Dialect;

// One entry of the actual order.
struct Event {
  enum class Kind {
    Completed,  // the step returned (ok or error)
    Blocked,    // the server reported the step waiting on a lock (SQLite: SQLITE_BUSY); it completes later
    Skipped,    // the step was not sent: its transaction had already ended
  };
  Kind kind = Kind::Completed;
  StepRef step;
  friend bool operator==(const Event&, const Event&) = default;
};

enum class TxnFate {
  Committed,   // its COMMIT succeeded
  RolledBack,  // its own ROLLBACK ended it
  Aborted,     // the engine ended it with an error (deadlock, serialization failure, ...)
  Unfinished,  // the run stopped before it ended (crash or hang)
};

std::string to_string(TxnFate f);

struct TxnResult {
  TxnFate fate = TxnFate::Unfinished;
  std::optional<StepRef> failed_step;  // Aborted: the step whose error ended it
  Error abort_reason;                  // Aborted: that error
  int end_event = -1;                  // index in History::events of the event that ended it; -1 if Unfinished
};

// A run that could not finish is itself a finding. Divergence: the run finished, but the nodes of a cluster answered
// the final-state read with different states (drivers::NodesDiverge), so there is no one final state to judge: an
// engine bug, shrunk like an isolation finding (the nodes still answer), not re-run as a crash.
struct RunFinding {
  enum class Kind { Crash, Hang, Divergence };
  Kind kind = Kind::Crash;
  StepRef step;
  std::string detail;
  // The target's own failure, as its driver typed it: Lost, Stalled (the control connection did not answer), ...;
  // None for what the engine itself did while still answering (a statement that hung, a deadlock it never broke).
  Fault fault = Fault::None;
};
std::string to_string(RunFinding::Kind k);  // "crash", "hang", "divergence": the run finding's kind in verdicts

struct History {
  TestCase test_case;
  std::string target;          // the target's display name
  std::string server_version;  // SELECT version() or equivalent
  std::vector<std::vector<Outcome>> outcomes;  // [transaction][step]
  std::vector<std::vector<bool>> was_blocked;  // [transaction][step]: waited on a lock before completing
  std::vector<Event> events;                   // the actual order
  // [transaction][step]: how many events had been recorded when the step was submitted (sent or queued), so
  // the events between a step's submission and its completion are those it waited through.
  std::vector<std::vector<int>> submitted_at;
  std::vector<TxnResult> transactions;
  DatabaseState final_state;                   // empty if the run could not finish
  std::optional<RunFinding> finding;

  const Outcome& outcome(StepRef ref) const {
    return outcomes[static_cast<std::size_t>(ref.txn)][static_cast<std::size_t>(ref.index)];
  }
  // Steps in the order they completed (blocked steps where they finally completed; skipped steps left out).
  std::vector<StepRef> actual_order() const;
  // Transactions that ended (committed, rolled back or aborted) in the order they ended.
  std::vector<int> end_order() const;
  std::vector<int> committed() const;
  bool any_blocked() const;
  // Empty unless, when some transaction ended, statements of two or more other transactions were waiting: they
  // resume together and the engine (and the machine's timing) decides which runs first, so another run of the same
  // case may order them differently. Otherwise "when T1 ended, 2 transactions were waiting and resumed together".
  std::string concurrent_resumption() const;
  // Every such release: the transaction whose end it was and the steps then waiting (two or more transactions').
  struct Resumption {
    int releaser = 0;
    std::vector<StepRef> waiting;
  };
  std::vector<Resumption> resumptions_together() const;
  // Index in `events` of the step's Completed event, or -1.
  int completed_at(StepRef ref) const;

  // The history of a case none of whose steps ran (the reset or a connect failed, or the property ran nothing on the
  // target): every step skipped, no transaction ended, no final state.
  static History never_ran(const TestCase& c, std::string target, std::string server_version);
};

// The tables of the case's schema whose rows, or whose rows' places, the run may have changed: every table a write
// statement that was sent names (failed and rolled-back writes too: they leave dead tuples, delete-marked records or
// undone pages), except an UPDATE or DELETE that succeeded and affected no row; with every table whose foreign key
// references a changed table (its actions write the referencing rows) and the log table of a changed table's cascade
// triggers. Schema order. A row lock a finished transaction left (a locking read; PostgreSQL keeps it in the tuple's
// xmax) changes nothing a later statement sees. Used to leave unchanged tables as they are at the next reset.
std::vector<std::string> changed_tables(const History& h);

// The run's own findings, whatever the oracle (run_finding_kinds()): it crashed or hung, or the engine rejected a
// statement as invalid (a generator or scenario defect). Property "run"; ok when the run finished cleanly.
// Statements are shown in `dialect`.
Verdict run_verdict(const History& h, Dialect dialect);

// The history as a person reads it: the actual order with blocked steps marked, outcomes, fates, final state.
std::string describe(const History& h);
// The same with the transactions labelled by `names` (e.g. a scenario's transaction_names) instead of T0, T1, ...
// (transaction_labels: a transaction an oracle added past them is the observer).
std::string describe(const History& h, const std::vector<std::string>& names);

// The one naming scheme of reports: the labels of a case's `count` transactions when its own are `names` (a scenario's
// transaction_names; empty: positional T0, T1, ...). A transaction past `names` is one an oracle added (the final
// observer read of Adya's and Troc's instrumentation): "observer" ("observer2", ... for more), never one of `names`,
// so it cannot be taken for a scenario's transaction.
std::vector<std::string> transaction_labels(const std::vector<std::string>& names, std::size_t count);
// `text` (a verdict's explanation, which names transactions by position: T0, T1.2, ...) with every positional name
// below `count` replaced by its transaction_labels(names, count) label; unchanged when `names` is empty.
std::string relabel(const std::string& text, const std::vector<std::string>& names, std::size_t count);

}  // namespace txprop
