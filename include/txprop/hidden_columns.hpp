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

#include "txprop/outcome.hpp"
#include "txprop/schema.hpp"
#include "txprop/statement.hpp"

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

}  // namespace txprop
