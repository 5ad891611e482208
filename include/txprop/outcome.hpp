// What executing one statement gave: rows, an affected-row count, or a classified error.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "txprop/fault.hpp"
#include "txprop/value.hpp"

namespace txprop {

// Errors are classified by code (SQLSTATE or native), never by message text.
enum class ErrorClass {
  None,
  SerializationFailure,  // PostgreSQL 40001, SQLite SQLITE_BUSY_SNAPSHOT
  Deadlock,              // PostgreSQL 40P01, MySQL 1213
  LockTimeout,           // PostgreSQL 55P03, MySQL 1205
  SnapshotConflict,      // MariaDB 1020 with innodb_snapshot_isolation=ON
  ConstraintViolation,   // unique, not-null, check, foreign key
  InvalidStatement,      // syntax, unknown table/column, type mismatch: a generator or scenario defect
  DataError,             // overflow, bad cast, subquery returned more than one row
  LostConnection,        // the server went away: a crash finding
  Busy,                  // SQLite SQLITE_BUSY with busy timeout 0: the statement would wait (the runner retries)
  TransactionAborted,    // PostgreSQL 25P02: a statement sent to an already aborted transaction
  Canceled,              // cancelled by txprop (hang limit)
  // Galera: a COMMIT that failed certification against a write set another node committed first, or a transaction
  // a replicated write set aborted (brute-force abort); MariaDB reports both as 1213, and the transaction is rolled back.
  CertificationFailure,
  // A COMMIT whose outcome the client cannot know: it may have committed or not. Set by the driver: a COMMIT whose
  // connection was lost (MySQL 2006/2013, libpq broken_connection), PostgreSQL 40003 statement_completion_unknown,
  // a Galera node that left the primary component (1047). Never guessed: the run ends with it as a finding, and an
  // oracle that needs the transaction's fate says it cannot judge (TxnFate::Unknown).
  CommitOutcomeUnknown,
  Other,
};

std::string to_string(ErrorClass c);

struct Error {
  ErrorClass cls = ErrorClass::None;
  std::string code;     // SQLSTATE (PostgreSQL), native code (MySQL, SQLite)
  std::string message;  // the engine's text, for people
  Fault fault = Fault::None;  // the target's own failure behind the error (Lost, Stalled), set by the driver
  friend bool operator==(const Error&, const Error&) = default;
};

// What an error did to the transaction it happened in; engine knowledge held by each driver.
enum class ErrorEffect {
  StatementOnly,        // the statement failed, the transaction goes on (MySQL 1205, constraint errors)
  TransactionAborted,   // the transaction is over (PostgreSQL: any error; MySQL 1213/1020)
  Blocked,              // nothing happened yet; retry when another transaction ends (SQLITE_BUSY)
  Fatal,                // the connection is gone
};

struct Outcome {
  enum class Status {
    Ok,
    Error,
    Skipped,  // not executed: its transaction had already ended (aborted by an earlier error)
    Hang,     // neither completed nor waited on a lock within the hang limit; cancelled
  };
  Status status = Status::Ok;
  std::vector<std::string> columns;  // result column names (queries)
  std::vector<Row> rows;             // result rows (queries), in the order the engine returned them
  std::int64_t affected = -1;        // rows affected (DML); -1 where not applicable
  Error error;

  bool ok() const { return status == Status::Ok; }
  bool failed() const { return status == Status::Error; }
  static Outcome failure(ErrorClass cls, std::string code, std::string message);
  friend bool operator==(const Outcome&, const Outcome&) = default;
};

// "ok, 2 rows", "error deadlock (40P01): ...", "skipped".
std::string summary(const Outcome& o);
std::ostream& operator<<(std::ostream& os, const Outcome& o);

}  // namespace txprop
