#include "txprop/schema.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

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

namespace {

std::string describe(const ForeignKey& fk) {
  std::string out = fmt::format("FOREIGN KEY ({}) REFERENCES {} ({})", fmt::join(fk.columns, ", "), fk.table,
                                fmt::join(fk.referenced, ", "));
  if (fk.on_delete != ReferentialAction::NoAction) out += " ON DELETE " + to_string(fk.on_delete);
  if (fk.on_update != ReferentialAction::NoAction) out += " ON UPDATE " + to_string(fk.on_update);
  return out;
}

bool is_unique_key(const Table& t, const std::vector<std::string>& columns) {
  if (!columns.empty() && t.primary_key == columns) return true;
  return std::any_of(t.indexes.begin(), t.indexes.end(), [&](const Index& i) { return i.unique && i.columns == columns; });
}

// Why foreign key `fk` of table `t` (the schema's table number `at`) is not valid, "" if it is.
std::string check_foreign_key(const Schema& s, std::size_t at, const Table& t, const ForeignKey& fk) {
  const std::string what = fmt::format("table {} has {}", t.name, describe(fk));
  const Table* parent = s.find_table(fk.table);
  if (!parent) return what + ", but there is no table " + fk.table;
  // Parents first: the setup fills them before their children, and a reset empties them together.
  if (parent - s.tables.data() >= static_cast<std::ptrdiff_t>(at))
    return what + fmt::format(", but {} is not declared before {}", fk.table, t.name);
  if (fk.columns.empty() || fk.columns.size() != fk.referenced.size())
    return what + ": it must name as many referenced columns as referencing ones";
  for (std::size_t i = 0; i < fk.columns.size(); ++i) {
    const Column* c = t.find_column(fk.columns[i]);
    const Column* p = parent->find_column(fk.referenced[i]);
    if (!c) return what + ", but " + t.name + " has no column " + fk.columns[i];
    if (!p) return what + ", but " + fk.table + " has no column " + fk.referenced[i];
    if (c->type != p->type) return what + fmt::format(": {} and {}.{} differ in type", c->name, fk.table, p->name);
    if (c->not_null && (fk.on_delete == ReferentialAction::SetNull || fk.on_update == ReferentialAction::SetNull))
      return what + ", but SET NULL cannot set NOT NULL column " + c->name;
  }
  // PostgreSQL and InnoDB need a unique key there (PostgreSQL: "there is no unique constraint matching given keys").
  if (!is_unique_key(*parent, fk.referenced))
    return what + fmt::format(", but ({}) is not the primary key or a UNIQUE key of {}", fmt::join(fk.referenced, ", "),
                              fk.table);
  std::set<Row> keys;
  for (const Row& row : parent->rows) {
    Row key;
    for (const auto& c : fk.referenced) key.push_back(row[*parent->column_index(c)]);
    keys.insert(std::move(key));
  }
  for (const Row& row : t.rows) {
    Row key;
    for (const auto& c : fk.columns) key.push_back(row[*t.column_index(c)]);
    // A key with a NULL part references nothing and is always accepted (MATCH SIMPLE, every engine's default).
    if (std::any_of(key.begin(), key.end(), [](const Value& v) { return v.is_null(); })) continue;
    if (!keys.count(key)) return what + ", but an initial row of " + t.name + " references no row of " + fk.table;
  }
  return {};
}

}  // namespace

bool Schema::has_foreign_keys() const {
  return std::any_of(tables.begin(), tables.end(), [](const Table& t) { return !t.foreign_keys.empty(); });
}

bool Schema::linked_by_keys(const std::string& a, const std::string& b) const {
  std::set<std::string> reached{a};
  for (bool grew = true; grew;) {
    grew = false;
    for (const Table& t : tables)
      for (const ForeignKey& fk : t.foreign_keys)
        if (reached.count(t.name) != reached.count(fk.table)) {
          reached.insert(t.name);
          reached.insert(fk.table);
          grew = true;
        }
  }
  return reached.count(b) != 0;
}

std::string Schema::first_foreign_key() const {
  for (const auto& t : tables)
    for (const auto& fk : t.foreign_keys) return "table " + t.name + " has " + describe(fk);
  return {};
}

std::string Schema::check_foreign_keys() const {
  for (std::size_t i = 0; i < tables.size(); ++i)
    for (const auto& fk : tables[i].foreign_keys)
      if (auto err = check_foreign_key(*this, i, tables[i], fk); !err.empty()) return err;
  return {};
}

std::string to_string(ReferentialAction action) {
  switch (action) {
    case ReferentialAction::NoAction: return "NO ACTION";
    case ReferentialAction::Restrict: return "RESTRICT";
    case ReferentialAction::Cascade: return "CASCADE";
    case ReferentialAction::SetNull: return "SET NULL";
  }
  return "?";
}

std::string to_string(ColumnType type) {
  switch (type) {
    case ColumnType::Integer: return "INTEGER";
    case ColumnType::Real: return "REAL";
    case ColumnType::Text: return "TEXT";
    case ColumnType::Boolean: return "BOOLEAN";
  }
  return "?";
}

}  // namespace txprop
