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
  // from 1 in table order (a case-wide row number).
  void add_to(Schema& schema, const std::function<Row(std::int64_t n)>& values) const;
  // Removes them from every table and its rows.
  void strip_from(Schema& schema) const;
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

// Empty unless adding hidden columns to `c`'s tables may change which index the engine scans, and with it what the
// plain statements show: where writes and locking reads are current reads of the latest committed rows
// (`writes_read_snapshot` false: InnoDB), which rows such a read sees after it waited and which index records it locks
// depend on the index it scans. A table whose secondary index holds, with the primary key, every column is read through
// that index alone (a covering index: InnoDB's secondary records carry the primary key); with the hidden columns no
// index covers it and the optimizer may scan the primary key instead. Seen on MariaDB 10.11.19 at READ COMMITTED
// (t2 (c0 PRIMARY KEY, c1 UNIQUE)): `SELECT * FROM t2 WHERE c0 IN (1, 100) FOR UPDATE` waits on row 1, which another
// transaction deletes before inserting (100, NULL) and committing; through the covering index on c1 the resumed scan
// is past the NULL, sorted first, and returns nothing; with one more column in t2 it scans the primary key and returns
// (100, NULL) (tests/scenarios/mariadb_covering_index_locking_read_after_wait.txn). Otherwise "index t2_u (c1) covers
// t2 and T1.1 reads it with a current read while T0 writes it": a current read (UPDATE, DELETE, a locking read, a plain
// read at a level in `locking_plain_reads`) of such a table while another transaction writes it.
std::string hidden_columns_uncover_an_index(const TestCase& c, const EngineCapabilities& engine);

}  // namespace txprop
