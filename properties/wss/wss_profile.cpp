// Per-engine expectations for WSS, each with its source. The classification follows WriteCheck's study
// (shared/notes/seed-troc-writecheck.md B2) and was checked on MariaDB 10.11.19, PostgreSQL 15.18, SQLite 3.40.1.
#include "txprop/wss.hpp"

namespace txprop {

WssProfile wss_profile(const TargetConfig& target, IsolationLevel level) {
  WssProfile p;
  switch (target.engine) {
    case Engine::Sqlite:
      // One writer at a time: every write-write conflict waits (SQLITE_BUSY) or aborts (BUSY_SNAPSHOT). In WAL
      // mode a reader keeps the snapshot of its first read, so a read-only transaction is serialized where it
      // started, not where it ended.
      p.compare_reads = true;
      p.any_serial_order = !target.journal_mode_delete;
      p.source = "SQLite isolation: https://www.sqlite.org/isolation.html (\"SQLite implements serializable "
                 "transactions\"; WAL readers see a snapshot from the start of their read transaction)";
      return p;
    case Engine::PostgreSql:
      switch (level) {
        case IsolationLevel::ReadUncommitted:
        case IsolationLevel::ReadCommitted:
          p.must_hold = false;
          p.source = "PostgreSQL 15 manual 13.2.1: in Read Committed an UPDATE/DELETE re-checks its WHERE only on "
                     "the rows of its snapshot that were concurrently updated (\"it is possible for an updating "
                     "command to see an inconsistent snapshot\"), "
                     "https://www.postgresql.org/docs/15/transaction-iso.html#XACT-READ-COMMITTED";
          return p;
        case IsolationLevel::RepeatableRead:
          p.must_hold = false;
          p.source = "PostgreSQL 15 manual 13.2.2: Repeatable Read is snapshot isolation; only row-level write "
                     "conflicts abort (40001), predicate-based conflicts (write skew) are allowed, "
                     "https://www.postgresql.org/docs/15/transaction-iso.html#XACT-REPEATABLE-READ";
          return p;
        case IsolationLevel::Serializable:
          p.any_serial_order = true;
          p.compare_reads = true;
          p.source = "PostgreSQL 15 manual 13.2.3: Serializable guarantees the effect of running the committed "
                     "transactions one at a time in some order, not necessarily the commit order, "
                     "https://www.postgresql.org/docs/15/transaction-iso.html#XACT-SERIALIZABLE";
          return p;
      }
      return p;
    case Engine::MariaDb:
    case Engine::MySql:
      p.tested = target.engine == Engine::MariaDb;
      switch (level) {
        case IsolationLevel::ReadUncommitted:
        case IsolationLevel::ReadCommitted:
          // Semi-consistent read: an UPDATE skips a locked row whose last committed version does not match its
          // WHERE, without waiting; and no gap locks, so an INSERT into another's predicate does not wait.
          p.must_hold = false;
          p.source = "MariaDB SET TRANSACTION, READ COMMITTED: only index records are locked, not the gaps, and "
                     "UPDATE uses a \"semi-consistent\" read, https://mariadb.com/kb/en/set-transaction/"
                     "#read-committed (MySQL 8.0 manual 15.7.2.1 says the same; WriteCheck section 6.4)";
          return p;
        case IsolationLevel::RepeatableRead:
          // Writes take next-key locks and read the latest committed version: writes serialize in commit order.
          // Plain SELECTs read the snapshot, so reads are not compared.
          p.source = "MySQL 8.0 manual 15.7.2.1 REPEATABLE READ: locking reads, UPDATE and DELETE use next-key "
                     "locks, https://dev.mysql.com/doc/refman/8.0/en/innodb-transaction-isolation-levels.html";
          return p;
        case IsolationLevel::Serializable:
          // Plain SELECTs take shared locks: two-phase locking, so commit order is the serialization order.
          p.compare_reads = true;
          p.source = "MariaDB SET TRANSACTION, SERIALIZABLE: like REPEATABLE READ but plain SELECTs are "
                     "SELECT ... LOCK IN SHARE MODE, https://mariadb.com/kb/en/set-transaction/#serializable";
          return p;
      }
      return p;
  }
  return p;
}

}  // namespace txprop
