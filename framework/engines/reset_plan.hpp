// How a driver's reset restores a case's schema: either recreate the tables (drop what the previous reset created,
// create the schema, insert its rows), or, when the tables the database holds already have the schema's shape (same
// tables, columns, keys and indexes: the shrinker's attempts, an oracle's replays and most of a campaign's cases
// share it), keep them, empty them the engine's cheapest way that leaves them as a fresh CREATE would, and insert
// the rows; either way one script, sent in one round trip. Measured in tests/bench/runner_bench.cpp (reset share of
// a case with TXPROP_KEEP_TABLES=0 and =1 in one run); the restored state is checked equal to a fresh one in
// tests/targets/reset_equivalence_test.cpp.
#pragma once

#include <string>
#include <vector>

#include "txprop/schema.hpp"
#include "txprop/sql.hpp"

namespace txprop::drivers {

// How an engine empties a kept table so that a case cannot tell it from a freshly created one.
enum class EmptyTable {
  // PostgreSQL: TRUNCATE gives the table a new, empty file and resets its planner statistics, so rows land where a
  // fresh table puts them (same ctids, same pages for SSI's page-level predicate locks); DELETE would leave dead
  // tuples until VACUUM (https://www.postgresql.org/docs/15/sql-truncate.html). MariaDB/InnoDB: TRUNCATE recreates
  // the table (https://mariadb.com/kb/en/truncate-table/); DELETE leaves delete-marked index records until purge
  // runs, and InnoDB's next-key locks cover them, so a locking read would lock different gaps than on a fresh table
  // (https://dev.mysql.com/doc/refman/8.0/en/innodb-locks-set.html). On Galera TRUNCATE replicates in total order
  // (TOI) like the CREATE and DROP it replaces.
  Truncate,
  // SQLite: DELETE without WHERE takes the truncate optimization (drops every page of the table), and a rowid
  // table hands out rowids from max(rowid)+1, so an emptied table numbers its rows as a fresh one
  // (https://www.sqlite.org/lang_delete.html#the_truncate_optimization, https://www.sqlite.org/autoinc.html).
  Delete,
};

// Where a script that recreates the tables runs.
enum class Recreate {
  // In the database the case ran in: the tables the previous resets created are dropped first.
  InPlace,
  // In a new, empty database, which the driver then puts in place of the case's (SQLite: built in memory and copied
  // over the file with the backup API, sqlite_driver.cpp): nothing to drop.
  InEmptyDatabase,
};

class ResetPlan {
 public:
  ResetPlan(Dialect dialect, EmptyTable empty, Recreate recreate = Recreate::InPlace);

  // The tables named hold what the last reset made them (Driver::unchanged_since_reset): the next script leaves
  // those it keeps and gives the same rows as they are.
  void unchanged(std::vector<std::string> tables) { unchanged_ = std::move(tables); }
  // The script that brings the database to `schema`, one statement per line. Until done() is called the tables of
  // `schema` count as created and the shape as unknown, so a reset that fails half-way is followed by a full one.
  std::string script(const Schema& schema);
  // The script for `schema` (the last script() call's) ran without error.
  void done(const Schema& schema);
  // Whether the last script kept the tables (for tests and benchmarks).
  bool kept_tables() const { return kept_; }
  // How many kept tables the last script left as they were, neither emptied nor filled (for tests and benchmarks).
  std::size_t left_as_they_were() const { return left_; }

 private:
  std::string recreate_script(const Schema& schema) const;
  std::string restore_script(const Schema& schema, const std::vector<const Table*>& restored) const;
  std::vector<const Table*> to_restore(const Schema& schema) const;

  Dialect dialect_;
  EmptyTable empty_;
  Recreate recreate_;
  bool allowed_;                        // TXPROP_KEEP_TABLES (1 unless set to 0)
  std::vector<std::string> created_;    // tables the database may hold
  std::string shape_;                   // the DDL of the tables it holds; empty when unknown
  std::string pending_shape_;           // the DDL of the last script's schema, the shape once done() confirms it
  Schema last_;                         // the schema of the last reset that ran (done()), rows included
  std::vector<std::string> unchanged_;  // unchanged(), for the next script only
  bool kept_ = false;
  std::size_t left_ = 0;
};

// The DDL of `schema` without its rows: two schemas with equal shapes create identical tables.
std::string schema_shape(const Schema& schema, Dialect d);

}  // namespace txprop::drivers
