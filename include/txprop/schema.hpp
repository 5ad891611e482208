// Tables with columns, constraints, indexes and initial rows: the database a test case starts from.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "txprop/value.hpp"

namespace txprop {

// BOOLEAN holds TRUE / FALSE, which every engine here reads back as 1 / 0 (MariaDB's BOOLEAN is TINYINT(1); SQLite's
// TRUE and FALSE are 1 and 0; the PostgreSQL driver maps bool to 1 / 0): a Value of a BOOLEAN column is an integer 0 or
// 1, written as TRUE / FALSE in SQL, since PostgreSQL accepts no integer for a boolean.
enum class ColumnType { Integer, Real, Text, Boolean };

struct Column {
  std::string name;
  ColumnType type = ColumnType::Integer;
  bool not_null = false;
  friend bool operator==(const Column&, const Column&) = default;
};

struct Index {
  std::string name;
  std::vector<std::string> columns;
  bool unique = false;
  friend bool operator==(const Index&, const Index&) = default;
};

// What a foreign key does to the referencing rows when the referenced row is deleted (issue 17). NoAction and
// Restrict both refuse the delete; they differ only in when the check runs (PostgreSQL and SQLite: RESTRICT at once,
// NO ACTION at the end of the statement; InnoDB treats both as RESTRICT:
// https://www.postgresql.org/docs/15/ddl-constraints.html#DDL-CONSTRAINTS-FK, https://www.sqlite.org/foreignkeys.html
// section 4.3, https://mariadb.com/kb/en/foreign-keys/).
enum class ReferentialAction { NoAction, Restrict, Cascade, SetNull };

// FOREIGN KEY (columns) REFERENCES table (referenced) [ON DELETE action] [ON UPDATE action]. The referenced table is
// declared before the referencing one (TestCase::validate), so a schema is created, filled and emptied parent first.
struct ForeignKey {
  std::vector<std::string> columns;
  std::string table;
  std::vector<std::string> referenced;
  ReferentialAction on_delete = ReferentialAction::NoAction;
  ReferentialAction on_update = ReferentialAction::NoAction;
  friend bool operator==(const ForeignKey&, const ForeignKey&) = default;
};

// The writes a foreign key's action makes to a table's rows (ON DELETE / ON UPDATE CASCADE or SET NULL), which no
// statement names, recorded by triggers on that table (issue 17 item 3). Set only by the Adya instrumentation, on
// engines whose row triggers fire for those writes (EngineCapabilities::cascaded_writes_unrecorded empty), and
// rendered after the table by render_setup: an UPDATE that leaves `writer_list` as it was (a cascaded SET NULL or
// CASCADE; every instrumented UPDATE appends to it) appends the session's writer (render_set_writer), and every
// DELETE inserts (writer, table, row id, writer list) into `log_table`, a table of the schema. SDG's instrumentation
// sets it too, in its own form (no `log_table`; `writer_list` names its integer version key): render_setup's triggers
// then move the version key on (foreign_key_checks.hpp, kCascadedVersionStep) where an UPDATE changed a row and left it.
struct CascadeLog {
  std::string log_table;
  std::string row_id;
  std::string writer_list;
  friend bool operator==(const CascadeLog&, const CascadeLog&) = default;
};

struct Table {
  std::string name;
  std::vector<Column> columns;
  std::vector<std::string> primary_key;  // empty: no primary key
  std::vector<Index> indexes;            // UNIQUE constraints and secondary indexes
  std::vector<Row> rows;                 // initial rows, one value per column
  std::vector<ForeignKey> foreign_keys;
  std::optional<CascadeLog> cascade_log;

  const Column* find_column(const std::string& name) const;
  std::optional<std::size_t> column_index(const std::string& name) const;
  std::vector<std::string> column_names() const;
  friend bool operator==(const Table&, const Table&) = default;
};

struct Schema {
  std::vector<Table> tables;

  const Table* find_table(const std::string& name) const;
  Table* find_table(const std::string& name);
  bool has_foreign_keys() const;
  // Whether a chain of foreign keys, each followed either way, leads from table `a` to table `b`.
  bool linked_by_keys(const std::string& a, const std::string& b) const;
  // "t1 has FOREIGN KEY (c1) REFERENCES t0 (c0) ON DELETE CASCADE" for the first foreign key, "" if none (refusals of
  // the oracles that do not see the reads and writes a foreign key makes, as TestCase::first_upsert).
  std::string first_foreign_key() const;
  // Why the schema's foreign keys are not valid (an unknown or later table or column, a referenced key that is not
  // unique, SET NULL on a NOT NULL column, an initial row referencing no row), "" if they are.
  std::string check_foreign_keys() const;
  friend bool operator==(const Schema&, const Schema&) = default;
};

std::string to_string(ColumnType type);
std::string to_string(ReferentialAction action);  // "NO ACTION", "RESTRICT", "CASCADE", "SET NULL"

}  // namespace txprop
