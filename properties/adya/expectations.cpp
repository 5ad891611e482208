// What each engine, level and configuration claims and promises, in Adya's terms, with sources. Checked against
// MariaDB 10.11.19, PostgreSQL 15.18 and SQLite 3.40.1 (shared/notes/seed-isorel.md 9.2,
// shared/notes/seed-txcheck-thesis.md 7.1); MySQL's profile follows its manual and is untested here.
#include "levels.hpp"
#include "txprop/adya.hpp"

namespace txprop {

namespace {

adya::AdyaLevel claimed_level(IsolationLevel level) {
  switch (level) {
    case IsolationLevel::ReadUncommitted: return adya::AdyaLevel::PL1;
    case IsolationLevel::ReadCommitted: return adya::AdyaLevel::PL2;
    case IsolationLevel::RepeatableRead: return adya::AdyaLevel::PL2_99;
    case IsolationLevel::Serializable: return adya::AdyaLevel::PL3;
  }
  return adya::AdyaLevel::PL3;
}

void promise(AdyaExpectation& e, adya::AdyaLevel level, std::string source) {
  e.promised_level = std::string(adya::to_string(level));
  e.promised = adya::proscribed(level);
  e.source = std::move(source);
}

}  // namespace

AdyaExpectation adya_expectation(const TargetConfig& target, IsolationLevel level) {
  const Engine engine = target.engine;
  AdyaExpectation e;
  e.claimed_level = std::string(adya::to_string(claimed_level(level)));
  e.claimed = adya::proscribed(claimed_level(level));
  switch (engine) {
    case Engine::Sqlite:
      promise(e, adya::AdyaLevel::PL3,
              "SQLite isolation: \"SQLite implements serializable transactions\", https://www.sqlite.org/isolation.html");
      return e;
    case Engine::PostgreSql:
      switch (level) {
        case IsolationLevel::ReadUncommitted:
        case IsolationLevel::ReadCommitted:
          promise(e, adya::AdyaLevel::PL2,
                  "PostgreSQL 15 manual 13.2.1: Read Committed sees only data committed before each statement "
                  "began, https://www.postgresql.org/docs/15/transaction-iso.html#XACT-READ-COMMITTED");
          return e;
        case IsolationLevel::RepeatableRead:
          promise(e, adya::AdyaLevel::SI,
                  "PostgreSQL 15 manual 13.2.2: Repeatable Read is snapshot isolation; a concurrent update of a row "
                  "it updates aborts it, but serialization anomalies such as write skew are possible, "
                  "https://www.postgresql.org/docs/15/transaction-iso.html#XACT-REPEATABLE-READ");
          return e;
        case IsolationLevel::Serializable:
          promise(e, adya::AdyaLevel::PL3,
                  "PostgreSQL 15 manual 13.2.3: Serializable, "
                  "https://www.postgresql.org/docs/15/transaction-iso.html#XACT-SERIALIZABLE");
          return e;
      }
      return e;
    case Engine::MariaDb:
    case Engine::MySql: {
      e.tested = engine == Engine::MariaDb;
      const bool snapshot_isolation = target.snapshot_isolation.value_or(false);
      switch (level) {
        case IsolationLevel::ReadUncommitted:
          promise(e, adya::AdyaLevel::PL1,
                  "MariaDB SET TRANSACTION, READ UNCOMMITTED: dirty reads are possible, "
                  "https://mariadb.com/kb/en/set-transaction/#read-uncommitted");
          return e;
        case IsolationLevel::ReadCommitted:
          promise(e, adya::AdyaLevel::PL2,
                  "MariaDB SET TRANSACTION, READ COMMITTED: each consistent read sees its own fresh snapshot, "
                  "https://mariadb.com/kb/en/set-transaction/#read-committed");
          return e;
        case IsolationLevel::RepeatableRead:
          if (snapshot_isolation) {
            // Not PL-SI as such: InnoDB's read view starts at the first consistent read, and locking reads and
            // writes before it read the latest version, so Adya's start points (G-SIa, G-SIb) do not apply. What
            // the variable promises is that no anti-dependency is overwritten: no G-single.
            promise(e, adya::AdyaLevel::PL2,
                    "MariaDB innodb_snapshot_isolation=ON: a write to a record changed after the transaction's read "
                    "view fails with ER_CHECKREAD (1020), so lost updates and read skew cannot commit; write skew "
                    "remains possible, https://mariadb.com/kb/en/innodb-system-variables/#innodb_snapshot_isolation");
            e.promised_level = "PL-2 + no G-single";
            e.promised.insert("G-single");
          } else {
            promise(e, adya::AdyaLevel::PL2,
                    "MariaDB innodb_snapshot_isolation=OFF (the 10.11 default): REPEATABLE READ reads from a "
                    "snapshot but UPDATE and DELETE read and overwrite the latest committed version, so lost "
                    "updates are possible (MDEV-26642, \"won't fix\"; the variable exists to prevent them), "
                    "https://mariadb.com/kb/en/innodb-system-variables/#innodb_snapshot_isolation");
          }
          return e;
        case IsolationLevel::Serializable:
          promise(e, adya::AdyaLevel::PL3,
                  "MariaDB SET TRANSACTION, SERIALIZABLE: plain SELECTs are locking reads (two-phase locking), "
                  "https://mariadb.com/kb/en/set-transaction/#serializable");
          return e;
      }
      return e;
    }
  }
  return e;
}

}  // namespace txprop
