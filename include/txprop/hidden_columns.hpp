// Hidden columns: columns an oracle's preparation adds to every table of a case (Adya's and Troc's row id and writer
// list, SDG's row key and version key) and strips again for reports and scenario files. One scheme per oracle, one
// implementation of adding and stripping them (issue 20 item 4): the oracles only say which columns, and what an
// initial row holds in them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "txprop/capabilities.hpp"
#include "txprop/outcome.hpp"
#include "txprop/schema.hpp"
#include "txprop/statement.hpp"
#include "txprop/test_case.hpp"

namespace txprop {

class HiddenColumns {
 public:
  explicit HiddenColumns(std::vector<Column> columns) : columns_(std::move(columns)) {}

  const std::vector<Column>& columns() const { return columns_; }
  bool is_hidden(std::string_view column) const;
  // Whether `schema` has them (its first table does).
  bool in(const Schema& schema) const;

  // Appends the hidden columns to every table; each initial row gets `values(n)`, n counting the rows of all tables
  // from 1 in table order (a case-wide row number). With `keep_covering` (an engine whose current reads depend on the
  // index scanned: EngineCapabilities::writes_read_snapshot false), a table that a secondary index covers also gets
  // that index's covering twin (covering_twin), so that an index still covers it.
  void add_to(Schema& schema, const std::function<Row(std::int64_t n)>& values, bool keep_covering = false) const;
  // Removes them from every table and its rows, and every index that holds one of them (the covering twins).
  void strip_from(Schema& schema) const;
  // `index`'s covering twin in `table` (the table as it is before the hidden columns are added): a non-unique index
  // `txp_<index>` on the index's columns, then the primary key's columns it lacks, then the hidden columns. InnoDB
  // orders a secondary index's records by its columns and then the primary key's (it appends the primary key's columns
  // a secondary index lacks, MariaDB KB "InnoDB Primary Key and Secondary Indexes" / MySQL 8.0 manual 15.6.2.1
  // "Clustered and Secondary Indexes"), so the twin holds one record per row in the order of the index's and gaps
  // between the same rows: the hidden columns, behind the unique primary key, order nothing. It holds every column
  // of the widened table, so the optimizer reads it alone where it read `index` alone. `index` stays: it keeps its
  // uniqueness (a UNIQUE index on the widened columns would not), and a lookup of one key of a UNIQUE index stays on
  // it (EXPLAIN: type const, key <index>). Seen on MariaDB 10.11.19 with t2 (c0 PRIMARY KEY, c1 UNIQUE t2_u) and the
  // twin: `SELECT * FROM t2 WHERE c0 IN (1, 100) FOR UPDATE` scans the twin ("Using index") where the plain table
  // scans t2_u, `... WHERE c1 = 5 FOR UPDATE` is a const lookup of t2_u in both.
  Index covering_twin(const Table& table, const Index& index) const;
  // Removes them from a statement: assignments to them, ORDER BY items on them, and columns of an INSERT's list (with
  // their values) or of a SELECT's list.
  void strip_from(Statement& s) const;

  // The hidden columns first, then `table`'s visible ones: a read that returns a row's version with its values.
  std::vector<std::string> leading(const Table* table) const;
  // A row of `table` (one value per column) without the hidden columns' values.
  Row visible(const Table& table, const Row& row) const;
  // A result without the hidden columns.
  Outcome visible(Outcome o) const;

 private:
  std::vector<Column> columns_;
};

// `column = CASE WHEN <a column single-table UPDATE `s` assigns changes> THEN value ELSE column END`, for the front of
// `s`'s assignments: where the engine leaves a row that an UPDATE sets to its own values unwritten
// (EngineCapabilities::update_skips_unchanged_rows: InnoDB, MDEV-26642; SQLite writes no page for it), a hidden column
// set on every matched row would make such a row a real write. As the first assignment it compares the old values
// (MariaDB evaluates a single-table UPDATE's assignments left to right, each seeing those set before it, KB "UPDATE";
// SQLite evaluates every one on the old row). `s` must assign something.
Assignment set_where_a_value_changes(const Statement& s, const std::string& column, Expr value);

// Where writes and locking reads are current reads of the latest committed rows (`writes_read_snapshot` false:
// InnoDB), which rows such a read sees after it waited and which index records it locks depend on the index it scans.
// A table whose secondary index holds, with the primary key, every column is read through that index alone (a covering
// index: InnoDB's secondary records carry the primary key); with hidden columns added and nothing else, no index
// covers it and the optimizer may scan the primary key instead. Seen on MariaDB 10.11.19 at READ COMMITTED
// (t2 (c0 PRIMARY KEY, c1 UNIQUE)): `SELECT * FROM t2 WHERE c0 IN (1, 100) FOR UPDATE` waits on row 1, which another
// transaction deletes before inserting (100, NULL) and committing; through the covering index on c1 the resumed scan
// is past the NULL, sorted first, and returns nothing; with one more column in t2 it scans the primary key and returns
// (100, NULL) (tests/scenarios/mariadb_covering_index_locking_read_after_wait.txn). Such a case, described ("index
// t2_u (c1) covers t2 and T1.1 reads it with a current read while T0 writes it": a current read (UPDATE, DELETE, a
// locking read, a plain read at a level in `locking_plain_reads`) of such a table while another transaction writes
// it), or empty.
std::string covering_index_read_concurrently(const TestCase& c, const EngineCapabilities& engine);
// Such a case where the hidden columns, with the covering twin (HiddenColumns::add_to with keep_covering), may still
// change what the plain statements show, described with why; empty otherwise: where the table has no primary key (no
// twin); where the current read takes shared locks on the table (it reads the twin, or the clustered record too,
// where the plain one locked the index's records alone) and another transaction does more to the table than insert
// rows (an UPDATE, DELETE, upsert or exclusive locking read may lock the index's records of a row it leaves unchanged);
// where it is a locking SELECT (or another statement's shared-locking read) at a level of `gap_lock_levels` whose
// conditions name a unique index's columns (the plain read may look up keys of the unique index, which locks no gap;
// the prepared one may scan the twin, which is not unique and locks the gaps next to what it reads). The evidence,
// differential cases and hand checks included: hidden_columns.cpp, twin_changes.
std::string hidden_columns_uncover_an_index(const TestCase& c, const EngineCapabilities& engine);

}  // namespace txprop
