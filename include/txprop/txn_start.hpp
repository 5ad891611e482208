// When a transaction started, as its engine documents it: the step whose reads every later read of a snapshot level
// sees the database as of (the engine profile's VisibilityRules::snapshot_point, with its source). Every oracle that
// asks "had Ti ended when Tj started" (Adya's G-SIa/G-SIb, SDG's graph, WSS's snapshot order) asks this, so a write
// that waited for a lock and then overwrote is not taken for a transaction that read before the overwritten commit.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "txprop/engine.hpp"
#include "txprop/history.hpp"

namespace txprop {

struct TxnStart {
  // A position in the actual order on the scale of History::submitted_at (events recorded before it): a transaction
  // that ended at event e had ended when this one started iff e < position. -1: unknown (it ran nothing).
  int position = -1;
  int step = -1;       // the step whose read starts it (index into the transaction's steps), -1 if none
  std::string rule;    // what the start is and why, for findings: "T2.3, its first consistent read (source)"
};

// The start of transaction `t` of `h` under `rules` (its level's visibility rules on its engine):
// - the step that takes the snapshot (rules.snapshot_point: BEGIN, the first statement, or the first consistent read
//   -- a plain SELECT whose view is the snapshot; a locking read or a write does not take InnoDB's read view);
// - where no step takes one (InnoDB below REPEATABLE READ or at SERIALIZABLE, or a transaction without a consistent
//   read), the first statement: each statement reads the latest committed versions as it runs; statements `added`
//   says an oracle added (a version-set read) do not count there, as the plain case has none and they take no
//   snapshot for the statements after them (where one takes the transaction's snapshot, it counts: the engine took it);
// - at that step's submission, or at its completion when it waited and read after the wait (a statement that reads
//   the latest committed or its own statement snapshot re-checks after the wait; snapshot_after_wait: SQLite retries);
// - never before the previous transaction on its connection ended.
// Whether step `step` of transaction `txn` is one an oracle added to the case.
using StatementFilter = std::function<bool(int txn, int step)>;
TxnStart transaction_start(const History& h, int t, const VisibilityRules& rules, const StatementFilter& added = {});
// Every transaction's, each under its own level's rules on `engine` as configured.
std::vector<TxnStart> transaction_starts(const History& h, const EngineProfile& engine, const TargetConfig& config,
                                         const StatementFilter& added = {});

}  // namespace txprop
