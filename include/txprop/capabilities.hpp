// What an engine can do, as plain model data: the forms it has (RETURNING, locking reads and their options, joined
// writes, upserts, MERGE, chained transactions) and how its reads and writes meet locks. An engine profile
// (EngineProfile::capabilities) fills it in; the generator (gen::Options::engine) and the instrumentations take it as
// it is, so no layer keeps a copy of these fields.
#pragma once

#include <string>
#include <vector>

#include "txprop/isolation.hpp"
#include "txprop/statement.hpp"

namespace txprop {

struct EngineCapabilities {
  bool insert_returning = false;  // INSERT ... RETURNING
  bool update_returning = false;  // UPDATE ... RETURNING
  bool delete_returning = false;  // DELETE ... RETURNING
  bool locking_reads = false;     // SELECT ... FOR UPDATE / FOR SHARE (LOCK IN SHARE MODE)
  // The locking clauses it has beyond FOR UPDATE / FOR SHARE (PostgreSQL's FOR KEY SHARE, FOR NO KEY UPDATE) and
  // what its locking reads may do instead of waiting (NOWAIT, SKIP LOCKED). The generator makes only these.
  std::vector<LockMode> lock_strengths;
  std::vector<LockWait> lock_waits;
  bool lock_table = false;  // LOCK TABLE t IN <mode> MODE [NOWAIT] inside a transaction (PostgreSQL)
  // Isolation levels at which a plain SELECT takes locks (InnoDB SERIALIZABLE turns it into LOCK IN SHARE MODE): an
  // extra read added by instrumentation would change the schedule there, so none is added.
  std::vector<IsolationLevel> locking_plain_reads;
  // Isolation levels at which every read takes predicate locks that never block but make the engine abort a
  // transaction in a cycle of read-write conflicts (PostgreSQL SERIALIZABLE: SSI's SIREAD locks, a whole-table scan a
  // relation lock): an extra read adds conflicts the plain case does not have.
  std::vector<IsolationLevel> predicate_lock_levels;
  // UPDATE and DELETE evaluate their WHERE on the row versions a plain SELECT just before them would read (the
  // statement's snapshot: PostgreSQL, SQLite). False for InnoDB, whose writes read the latest committed versions.
  bool writes_read_snapshot = true;
  // Where writes_read_snapshot is false: the isolation levels at which a plain SELECT sent right before an UPDATE,
  // DELETE or locking read sees the versions that statement's current read reads, as long as it does not wait (InnoDB
  // READ UNCOMMITTED and READ COMMITTED: each consistent read reads afresh, the latest committed versions at READ
  // COMMITTED and the latest at READ UNCOMMITTED, and a row another transaction holds locked is one the write either
  // waits for or, UPDATE's semi-consistent read, reads in the version that plain read sees; nothing commits between
  // the two without the write waiting). A plain read opens no lasting read view there and takes no lock.
  std::vector<IsolationLevel> current_reads_as_plain_read;
  // Where writes_read_snapshot is false: the levels at which an UPDATE or DELETE that scans its whole table takes the
  // locks a SELECT ... FOR UPDATE of the whole table takes, and holds them to the transaction's end (InnoDB REPEATABLE
  // READ: exclusive next-key locks on every record), so that read, sent right before, reads what the write reads.
  std::vector<IsolationLevel> whole_table_locking_read;
  // Where writes_read_snapshot is false: the levels at which a locking scan locks the gaps between the index records it
  // reads, except the lookup of one key of a unique index, which locks only the record found (InnoDB REPEATABLE READ
  // and SERIALIZABLE; READ COMMITTED and below take no gap locks for searches: MySQL 8.0 manual 15.7.1, "Gap Locks",
  // and 15.7.3, https://dev.mysql.com/doc/refman/8.0/en/innodb-locks-set.html). A non-unique index read where the
  // plain case read a unique one locks gaps the plain case does not there (HiddenColumns::covering_twin).
  std::vector<IsolationLevel> gap_lock_levels;
  // Where writes_read_snapshot is false: the levels at which an UPDATE, DELETE or locking read keeps a lock on every
  // index record it reads and on the gap before it to its transaction's end (InnoDB REPEATABLE READ and SERIALIZABLE:
  // next-key locks, or a record lock where one key of a unique index is looked up and found; none is released for a
  // row that does not match, and there is no semi-consistent read: MySQL 8.0 manual 17.7.1 "Record Locks", "Next-Key
  // Locks", 17.7.3 "Locks Set by Different SQL Statements in InnoDB"). No other transaction then changes, deletes or
  // inserts a row where the statement has read until that end, and a change the statement met uncommitted it waited
  // for: of every row it read the version latest committed (or its own transaction's) when it completed, so what it
  // read follows from the commit order even where it waited (properties/adya/current_read_versions.hpp).
  std::vector<IsolationLevel> current_reads_hold_what_they_read;
  // Where writes_read_snapshot is false: the levels at which a single-table UPDATE reads the other tables its
  // subqueries name with a consistent read, locking nothing there (InnoDB READ UNCOMMITTED and READ COMMITTED:
  // ha_innobase::store_lock takes LOCK_NONE for TL_READ of SQLCOM_UPDATE, INSERT ... SELECT and CREATE ... SELECT below
  // REPEATABLE READ; a DELETE and a multi-table UPDATE still read them with shared locks). Checked on MariaDB 10.11.19:
  // `UPDATE t1 SET c2 = (SELECT MIN(c1) FROM t0)` beside another transaction's uncommitted UPDATE of a t0 row does not
  // wait at READ UNCOMMITTED and READ COMMITTED, and waits at REPEATABLE READ; the same subquery in a DELETE waits at
  // all three.
  std::vector<IsolationLevel> update_reads_other_tables_consistently;
  // A matched row that an UPDATE sets to the values it already has is not written: no new version (InnoDB: not
  // counted as changed, and the transaction's later consistent reads do not see it as its own, MDEV-26642; SQLite: no
  // page written, so a transaction that changed nothing commits nothing). An instrumentation column that every UPDATE
  // changes would turn it into a write (issue 21, the differential check).
  bool update_skips_unchanged_rows = false;
  // A transaction's first statement that waits takes the snapshot when it finally runs (SQLite: a write that got
  // SQLITE_BUSY holds no read transaction and is retried); a read added before it would take the snapshot earlier and
  // turn the retried write into SQLITE_BUSY_SNAPSHOT.
  bool first_write_snapshot_after_wait = false;
  // The isolation levels at which `SELECT 1` (a SELECT of a literal, without FROM), sent as a transaction's first
  // statement, takes the transaction's snapshot while it reads no table, takes no lock (no SIREAD lock either) and
  // waits for none (PostgreSQL REPEATABLE READ and SERIALIZABLE). An oracle whose scheduling sends the transaction's
  // first statement later than the case plans it sends this first, at the planned position, so that the snapshot is
  // the one the plain case takes. Empty where no table-free statement takes it (InnoDB opens its read view on its
  // first read of an InnoDB table: after `START TRANSACTION; SELECT 1;` another's commit is still seen, checked by
  // hand on MariaDB 10.11.19; SQLite starts no read transaction for it either, checked by hand on SQLite 3.40.1, WAL
  // and rollback journal).
  std::vector<IsolationLevel> table_free_snapshot_levels;
  // UPDATE and DELETE joined to another table, rendered in the engine's dialect: MariaDB's multi-table
  // `UPDATE t JOIN u ON ... SET ...` and `DELETE t FROM t JOIN u ON ...`; PostgreSQL's `UPDATE t SET ... FROM u WHERE
  // ...` and `DELETE FROM t USING u WHERE ...`; SQLite has UPDATE ... FROM (3.33) but no DELETE ... USING.
  bool update_join = false;
  bool delete_join = false;
  // A joined UPDATE may set columns of both tables (MariaDB's multi-table UPDATE; PostgreSQL's FROM form sets only
  // the target table).
  bool update_joined_table = false;
  // RETURNING on a joined UPDATE / DELETE: of the written table's columns (PostgreSQL; SQLite's UPDATE ... FROM), and
  // also of the joined table's (PostgreSQL: "any column names of the table named by table_name or table(s) listed in
  // FROM"; SQLite: "the auxiliary tables named in the FROM clause may not participate in the RETURNING clause").
  // MariaDB's multi-table UPDATE and DELETE take no RETURNING.
  bool joined_write_returning = false;
  bool joined_write_returning_joined_table = false;
  // A joined DELETE may delete the joined table's matching rows too (MariaDB's `DELETE t, u FROM t JOIN u ON ...`;
  // PostgreSQL's USING form deletes from its target table only).
  bool delete_joined_table = false;
  // The upsert forms the engine has (statement.hpp), and whether its DO UPDATE takes a WHERE (PostgreSQL, SQLite;
  // MariaDB's ON DUPLICATE KEY UPDATE has none). The generator makes only these.
  std::vector<Upsert> upserts;
  bool upsert_update_where = false;
  // Forms a server has from some version on (EngineProfile::capabilities(config)): MERGE (statement.hpp), and unique
  // indexes whose NULLs are not distinct (CREATE UNIQUE INDEX ... NULLS NOT DISTINCT; the SQL model does not make
  // them yet).
  bool merge = false;
  bool unique_nulls_not_distinct = false;
  // COMMIT AND CHAIN / ROLLBACK AND CHAIN (PostgreSQL 12+, MariaDB; not SQLite).
  bool chain = false;
  // Why the Adya instrumentation cannot record the writes a foreign key's action makes (ON DELETE / ON UPDATE CASCADE
  // or SET NULL) as writes of the transaction whose statement caused them; empty where it can (PostgreSQL, SQLite: the
  // referencing table's row triggers fire for them, CascadeLog in schema.hpp). An engine that does not say refuses.
  std::string cascaded_writes_unrecorded = "its profile does not say that row triggers fire for a foreign key's writes";
  std::string wait_detection;     // how the runner learns that a statement waits on a lock, in words
  std::string aborting_errors;    // which errors end the whole transaction, in words (the driver decides)
};

}  // namespace txprop
