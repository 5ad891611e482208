// Tables with columns, constraints, indexes and initial rows: the database a test case starts from.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "txprop/value.hpp"

namespace txprop {

enum class ColumnType { Integer, Real, Text };

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

struct Table {
  std::string name;
  std::vector<Column> columns;
  std::vector<std::string> primary_key;  // empty: no primary key
  std::vector<Index> indexes;            // UNIQUE constraints and secondary indexes
  std::vector<Row> rows;                 // initial rows, one value per column

  const Column* find_column(const std::string& name) const;
  std::optional<std::size_t> column_index(const std::string& name) const;
  std::vector<std::string> column_names() const;
  friend bool operator==(const Table&, const Table&) = default;
};

struct Schema {
  std::vector<Table> tables;

  const Table* find_table(const std::string& name) const;
  Table* find_table(const std::string& name);
  friend bool operator==(const Schema&, const Schema&) = default;
};

std::string to_string(ColumnType type);

}  // namespace txprop
