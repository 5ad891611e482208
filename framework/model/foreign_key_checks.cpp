#include "txprop/foreign_key_checks.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace txprop {

std::string first_writing_foreign_key(const Schema& schema) {
  const auto writes = [](ReferentialAction a) { return a == ReferentialAction::Cascade || a == ReferentialAction::SetNull; };
  for (const Table& t : schema.tables)
    for (const ForeignKey& fk : t.foreign_keys)
      if (writes(fk.on_delete) || writes(fk.on_update))
        return fmt::format("table {} has a foreign key to {} ON {} {}", t.name, fk.table,
                           writes(fk.on_delete) ? "DELETE" : "UPDATE",
                           to_string(writes(fk.on_delete) ? fk.on_delete : fk.on_update));
  return {};
}

// PostgreSQL checks a key when a referencing row is inserted or its key columns change, and when a referenced row is
// deleted or its referenced columns change (manual 5.4.5; ri_triggers.c skips an UPDATE that leaves the key as it
// was, which this over-approximates by the columns the UPDATE sets); SQLite and InnoDB check on the same writes
// (foreignkeys.html section 4; MariaDB KB "Foreign Keys").
std::vector<std::string> foreign_key_checked_tables(const Schema& schema, const Statement& s) {
  std::vector<std::string> out;
  if (!s.is_write() || !schema.has_foreign_keys()) return out;
  const auto add = [&](const std::string& t) {
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  };
  const auto sets_any = [&](const std::string& table, const std::vector<std::string>& columns) {
    if (s.kind == StatementKind::Insert) return true;
    if (s.kind != StatementKind::Update) return false;
    return std::any_of(s.assignments.begin(), s.assignments.end(), [&](const Assignment& a) {
      return (a.table.empty() ? s.table : a.table) == table &&
             std::find(columns.begin(), columns.end(), a.column) != columns.end();
    });
  };
  for (const std::string& w : s.written_tables()) {
    if (const Table* t = schema.find_table(w))
      for (const ForeignKey& fk : t->foreign_keys)
        if (sets_any(w, fk.columns)) add(fk.table);
    if (s.kind == StatementKind::Insert) continue;
    for (const Table& child : schema.tables)
      for (const ForeignKey& fk : child.foreign_keys)
        if (fk.table == w && (s.kind == StatementKind::Delete || sets_any(w, fk.referenced))) add(child.name);
  }
  return out;
}

std::optional<std::vector<std::vector<Value>>> inserted_keys(const Statement& insert, const ForeignKey& fk) {
  if (insert.kind != StatementKind::Insert || insert.upsert != Upsert::None) return std::nullopt;
  std::vector<std::vector<Value>> out;
  for (const std::vector<Expr>& row : insert.values) {
    std::vector<Value> key;
    for (const std::string& column : fk.columns) {
      const auto at = std::find(insert.columns.begin(), insert.columns.end(), column);
      if (at == insert.columns.end()) break;  // NULL
      const std::size_t k = static_cast<std::size_t>(at - insert.columns.begin());
      if (k >= row.size() || row[k].kind != Expr::Kind::Literal) return std::nullopt;
      if (row[k].literal.is_null()) break;
      key.push_back(row[k].literal);
    }
    if (key.size() == fk.columns.size() && std::find(out.begin(), out.end(), key) == out.end()) out.push_back(key);
  }
  return out;
}

std::optional<Expr> key_lookup(const std::vector<std::string>& columns, const std::vector<std::vector<Value>>& keys) {
  std::optional<Expr> any;
  for (const std::vector<Value>& key : keys) {
    std::optional<Expr> all;
    for (std::size_t c = 0; c < key.size() && c < columns.size(); ++c) {
      Expr eq = Expr::binary(BinaryOp::Eq, Expr::col(columns[c]), Expr::lit(key[c]));
      all = all ? Expr::binary(BinaryOp::And, std::move(*all), std::move(eq)) : std::move(eq);
    }
    if (all) any = any ? Expr::binary(BinaryOp::Or, std::move(*any), std::move(*all)) : std::move(*all);
  }
  return any;
}

namespace {

bool writes_through(ReferentialAction a) { return a == ReferentialAction::Cascade || a == ReferentialAction::SetNull; }

void add_cascaded(const Schema& schema, const std::string& table, StatementKind kind, std::vector<std::string>& out) {
  for (const Table& t : schema.tables)
    for (const ForeignKey& fk : t.foreign_keys) {
      if (fk.table != table) continue;
      const ReferentialAction a = kind == StatementKind::Delete ? fk.on_delete : fk.on_update;
      if (!writes_through(a) || std::find(out.begin(), out.end(), t.name) != out.end()) continue;
      out.push_back(t.name);
      const bool deletes = kind == StatementKind::Delete && a == ReferentialAction::Cascade;
      add_cascaded(schema, t.name, deletes ? StatementKind::Delete : StatementKind::Update, out);
      if (deletes) add_cascaded(schema, t.name, StatementKind::Update, out);  // (a cycle of keys cannot be declared)
    }
}

}  // namespace

std::vector<std::string> cascaded_tables(const Schema& schema, const std::string& table, StatementKind kind) {
  std::vector<std::string> out;
  if (kind == StatementKind::Delete || kind == StatementKind::Update) add_cascaded(schema, table, kind, out);
  return out;
}

std::vector<std::string> cascading_tables(const Schema& schema) {
  std::vector<std::string> out;
  for (const Table& t : schema.tables)
    for (const StatementKind kind : {StatementKind::Delete, StatementKind::Update})
      for (const std::string& w : cascaded_tables(schema, t.name, kind))
        if (std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
  return out;
}

}  // namespace txprop
