// Troc's part of an engine profile (EngineProfile::visibility): the visibility and lock rules of one isolation level
// under one configuration, as data. The Troc oracle (properties/troc/) rebuilds every statement's view from them, and
// transaction_start (txprop/txn_start.hpp) takes a transaction's start from snapshot_point. Only model types: a
// profile fills them in, nothing here asks an engine.
#pragma once

#include <optional>
#include <string>

#include "txprop/outcome.hpp"
#include "txprop/statement.hpp"

namespace txprop {

// Troc's visibility and lock tables (shared/notes/seed-troc-writecheck.md A5, A6) as data: for one isolation level
// under one configuration, which row versions each kind of statement sees, which locks it takes, and when a
// transaction's snapshot is taken. The Troc oracle (properties/troc/) rebuilds every statement's view from these rows;
// every row carries the passage it comes from.
enum class ViewRule {
  Latest,             // V1+V2: the latest version of every row, committed or not (dirty reads)
  LatestCommitted,    // V1+V3: own writes, and the latest committed version of the others ("current read")
  Snapshot,           // V1+V4: own writes, and versions committed before the transaction's snapshot
  StatementSnapshot,  // own writes, and versions committed before the statement started; a row found locked is
                      // re-checked on its latest committed version once the lock is released (PostgreSQL READ
                      // COMMITTED); without a wait this is LatestCommitted
};
enum class LockStrength { None, Shared, Exclusive };
enum class SnapshotPoint {
  Begin,           // BEGIN takes it
  FirstStatement,  // the first statement of any kind after BEGIN (PostgreSQL, SQLite WAL)
  FirstRead,       // the first plain (consistent) SELECT (InnoDB's read view)
};

struct StatementRule {
  ViewRule view = ViewRule::LatestCommitted;
  LockStrength lock = LockStrength::None;
  bool predicate = false;  // also locks its predicate (next-key / gap locks): a row another transaction inserts or
                           // updates into its WHERE must wait
  // A statement that does not wait reads or writes (and locks) only rows that match on start_view too (InnoDB's
  // semi-consistent UPDATE at READ UNCOMMITTED: a row whose uncommitted version does not match is skipped without
  // waiting). After a wait the statement sees `view` as it is when it completes (Troc's rule).
  std::string source;
  bool recheck_from_start = false;
  ViewRule start_view = ViewRule::LatestCommitted;
  // Which versions a subquery inside this statement reads, where that differs from `view` (InnoDB: the subquery of a
  // SELECT ... FOR UPDATE is a consistent read; that of an UPDATE at REPEATABLE READ is a locking read), with where
  // that is documented or observed. nullopt: the statement's own `view`.
  std::optional<ViewRule> subquery_view = std::nullopt;
  std::string subquery_source = {};

  // The view a subquery of this statement reads.
  ViewRule subquery() const { return subquery_view.value_or(view); }
};

struct VisibilityRules {
  bool modelled = false;  // false: no rules for this engine or level; the Troc oracle cannot judge it
  StatementRule select, select_share, select_update, update, insert, delete_;
  SnapshotPoint snapshot_point = SnapshotPoint::FirstStatement;
  std::string snapshot_source;
  // A first statement that waits takes its snapshot when it finally runs, not when it was sent (SQLite: a statement
  // that got SQLITE_BUSY holds no read transaction and is retried).
  bool snapshot_after_wait = false;
  // The first consistent read takes the snapshot only if the engine reads a table for it (InnoDB opens its read view
  // in the row search: a SELECT the optimizer answers without asking the storage engine for a row, e.g. "Impossible
  // WHERE", takes none). The profile's statement_reads_tables() says which; the source is in snapshot_source.
  bool snapshot_needs_table_read = false;
  // A locking read that waits partway through its scan has read the rows before the wait earlier, and the locks of
  // those it did not return are released at once, so others may change them meanwhile: each row of its result is a
  // version the row had at some point between its start and its completion (InnoDB READ COMMITTED and below).
  bool rows_read_during_wait = false;
  std::string rows_read_during_wait_source = {};
  // A statement that waited ran again from its start once it could (SQLite: SQLITE_BUSY, retried): every part of it,
  // subqueries included, reads as at its completion.
  bool waits_by_retry = false;
  // Locks cover the whole database (SQLite: one writer at a time); otherwise rows and unique-index values.
  bool database_locks = false;
  // An INSERT, or an UPDATE setting a unique value, waits while another active transaction has written that value
  // (inserted, deleted, or updated from or to it).
  bool unique_value_waits = true;
  std::string lock_source;
  // First-updater-wins: a write (or locking read, with conflict_on_locking_reads) that finds a row whose latest
  // committed version is not in its transaction's snapshot fails with conflict_error; with
  // conflict_on_any_commit, any commit after the snapshot that changed rows makes the next write fail (SQLite WAL).
  bool snapshot_write_conflict = false;
  bool conflict_on_locking_reads = false;
  bool conflict_on_any_commit = false;
  ErrorClass conflict_error = ErrorClass::SerializationFailure;
  std::string conflict_source;

  // A joined UPDATE (UPDATE t JOIN u / UPDATE ... FROM), where its rule differs from a single-table UPDATE's (InnoDB
  // READ UNCOMMITTED: no semi-consistent read); nullopt: `update`.
  std::optional<StatementRule> joined_update;

  const StatementRule& rule(StatementKind kind, LockMode lock) const;
  // The rule of a statement, a joined write's included.
  const StatementRule& rule(StatementKind kind, LockMode lock, bool joined) const {
    return joined && kind == StatementKind::Update && joined_update ? *joined_update : rule(kind, lock);
  }
};

}  // namespace txprop
