#include "txprop/schema.hpp"

namespace txprop {

const Column* Table::find_column(const std::string& column) const {
  for (const auto& c : columns)
    if (c.name == column) return &c;
  return nullptr;
}

std::optional<std::size_t> Table::column_index(const std::string& column) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i].name == column) return i;
  return std::nullopt;
}

std::vector<std::string> Table::column_names() const {
  std::vector<std::string> out;
  for (const auto& c : columns) out.push_back(c.name);
  return out;
}

const Table* Schema::find_table(const std::string& table) const {
  for (const auto& t : tables)
    if (t.name == table) return &t;
  return nullptr;
}

Table* Schema::find_table(const std::string& table) {
  for (auto& t : tables)
    if (t.name == table) return &t;
  return nullptr;
}

std::string to_string(ColumnType type) {
  switch (type) {
    case ColumnType::Integer: return "INTEGER";
    case ColumnType::Real: return "REAL";
    case ColumnType::Text: return "TEXT";
  }
  return "?";
}

}  // namespace txprop
