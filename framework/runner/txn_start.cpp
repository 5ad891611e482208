#include "txprop/txn_start.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace txprop {
namespace {

// Whether statement `s` takes the transaction's snapshot under `rules`. A LOCK TABLE never does, and reads no row:
// "the transaction's view of data will be frozen when its first SELECT or data modification statement begins"
// (PostgreSQL 15 manual, LOCK; PlannedStmtRequiresSnapshot leaves LockStmt out).
bool takes_snapshot(const Statement& s, const VisibilityRules& rules) {
  if (s.kind == StatementKind::LockTable) return false;
  switch (rules.snapshot_point) {
    case SnapshotPoint::Begin: return false;  // BEGIN took it
    case SnapshotPoint::FirstStatement: return true;
    case SnapshotPoint::FirstRead:
      // A consistent read: a plain SELECT reading the transaction's snapshot (InnoDB SERIALIZABLE turns plain
      // SELECTs into locking reads, which take no read view; READ COMMITTED takes one per statement).
      return s.kind == StatementKind::Select && s.lock == LockMode::None &&
             rules.rule(s.kind, s.lock).view == ViewRule::Snapshot;
  }
  return false;
}

// The step of the previous transaction on `t`'s connection's end event, or -1.
int previous_end(const History& h, int t) {
  for (const auto& session : h.test_case.sessions())
    for (std::size_t j = 1; j < session.size(); ++j)
      if (session[j] == t) return h.transactions[static_cast<std::size_t>(session[j - 1])].end_event;
  return -1;
}

}  // namespace

TxnStart transaction_start(const History& h, int t, const VisibilityRules& rules, const StatementFilter& added) {
  TxnStart out;
  const auto ti = static_cast<std::size_t>(t);
  const Transaction& tx = h.test_case.transactions[ti];
  const std::vector<int>& submitted = h.submitted_at[ti];
  auto ran = [&](std::size_t step) { return step < submitted.size() && submitted[step] >= 0; };
  std::size_t step = 0;  // BEGIN
  // A level whose plain reads see a statement's own snapshot or the latest committed versions (READ COMMITTED, InnoDB
  // SERIALIZABLE) has no transaction snapshot: it starts where it first read.
  const bool has_snapshot = rules.modelled && rules.select.view == ViewRule::Snapshot;
  bool snapshot = has_snapshot && rules.snapshot_point == SnapshotPoint::Begin;
  if (!snapshot && has_snapshot)
    for (std::size_t i = 1; i <= tx.statements.size() && ran(i); ++i)
      if (takes_snapshot(tx.statements[i - 1], rules)) {
        step = i;
        snapshot = true;
        break;
      }
  if (!snapshot)
    for (std::size_t i = 1; i <= tx.statements.size() && ran(i); ++i)
      if ((!added || !added(t, static_cast<int>(i))) && tx.statements[i - 1].kind != StatementKind::LockTable) {
        step = i;
        break;
      }
  if (!ran(step)) return out;
  const Statement* s = step == 0 ? nullptr : &tx.statements[step - 1];
  const bool waited = step < h.was_blocked[ti].size() && h.was_blocked[ti][step];
  // A statement that waited read after the wait where no transaction snapshot was taken (each statement reads as it
  // runs) or the engine takes it after the wait (SQLite retries the statement). A statement that takes the snapshot
  // takes it when it starts, whatever it then waits for: PostgreSQL REPEATABLE READ takes it at "the start of the first
  // non-transaction-control statement" (manual 13.2.2), also for an INSERT whose unique check then waits for a
  // DELETE of the key and succeeds once that commits, after which the transaction still sees the deleted row
  // (tests/scenarios/pg_rr_insert_waits_for_a_delete_of_its_key.txn); InnoDB's read view is opened by a consistent
  // read, which waits for no lock.
  const bool reads_after_wait = waited && s != nullptr && (rules.snapshot_after_wait || !snapshot);
  int position = submitted[step];
  // A step submitted while an earlier step of its transaction still ran was queued behind it and sent only once that
  // step completed (a statement after a LOCK TABLE that waits takes the snapshot once the lock is granted).
  for (std::size_t k = 0; k < step; ++k)
    position = std::max(position, h.completed_at(StepRef{t, static_cast<int>(k)}) + 1);
  if (reads_after_wait) {
    const int done = h.completed_at(StepRef{t, static_cast<int>(step)});
    if (done >= 0) position = done;
  }
  if (const int prev = previous_end(h, t); prev >= 0) position = std::max(position, prev + 1);
  out.position = position;
  out.step = static_cast<int>(step);
  const std::string what =
      !snapshot ? "its first statement (no step took a transaction snapshot: each statement read as it ran)"
      : step == 0 ? "its BEGIN, which takes the snapshot"
      : rules.snapshot_point == SnapshotPoint::FirstRead ? "its first consistent read, which takes the snapshot"
                                                        : "its first statement, which takes the snapshot";
  out.rule = fmt::format("T{} step {}, {}{}{}", t, step, what, reads_after_wait ? ", once its wait ended" : "",
                         snapshot && !rules.snapshot_source.empty() ? " (" + rules.snapshot_source + ")" : "");
  return out;
}

std::vector<TxnStart> transaction_starts(const History& h, const EngineProfile& engine, const TargetConfig& config,
                                         const StatementFilter& added) {
  std::vector<TxnStart> out;
  for (std::size_t t = 0; t < h.test_case.transactions.size(); ++t)
    out.push_back(transaction_start(h, static_cast<int>(t), engine.visibility(h.test_case.transactions[t].isolation, config), added));
  return out;
}

}  // namespace txprop
