#include "txprop/statement.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace txprop {

Statement Statement::begin() {
  Statement s;
  s.kind = StatementKind::Begin;
  return s;
}

Statement Statement::commit() {
  Statement s;
  s.kind = StatementKind::Commit;
  return s;
}

Statement Statement::rollback() {
  Statement s;
  s.kind = StatementKind::Rollback;
  return s;
}

Statement Statement::select(std::string table, std::optional<Expr> where, LockMode lock,
                            std::vector<std::string> columns) {
  Statement s;
  s.kind = StatementKind::Select;
  s.table = std::move(table);
  s.where = std::move(where);
  s.lock = lock;
  s.columns = std::move(columns);
  return s;
}

Statement Statement::insert(std::string table, std::vector<std::string> columns, std::vector<Expr> values) {
  Statement s;
  s.kind = StatementKind::Insert;
  s.table = std::move(table);
  s.columns = std::move(columns);
  s.values.push_back(std::move(values));
  return s;
}

Statement Statement::update(std::string table, std::vector<Assignment> assignments, std::optional<Expr> where) {
  Statement s;
  s.kind = StatementKind::Update;
  s.table = std::move(table);
  s.assignments = std::move(assignments);
  s.where = std::move(where);
  return s;
}

Statement Statement::delete_(std::string table, std::optional<Expr> where) {
  Statement s;
  s.kind = StatementKind::Delete;
  s.table = std::move(table);
  s.where = std::move(where);
  return s;
}

Statement Statement::savepoint_statement(StatementKind kind, std::string name) {
  Statement s;
  s.kind = kind;
  s.savepoint = std::move(name);
  return s;
}

bool Statement::is_transaction_control() const {
  return kind == StatementKind::Begin || kind == StatementKind::Commit || kind == StatementKind::Rollback;
}

bool Statement::is_write() const {
  return kind == StatementKind::Insert || kind == StatementKind::Update || kind == StatementKind::Delete ||
         kind == StatementKind::Merge;
}

std::vector<std::string> Statement::tables() const {
  std::vector<std::string> out;
  if (is_transaction_control() || is_savepoint()) return out;
  out.push_back(table);
  std::vector<std::string> sub;
  if (!merge_source.empty()) sub.push_back(merge_source);
  if (merge_on) merge_on->collect_subquery_tables(sub);
  for (const MergeWhen& w : merge_whens) {
    if (w.condition) w.condition->collect_subquery_tables(sub);
    for (const auto& a : w.assignments) a.value.collect_subquery_tables(sub);
    for (const auto& v : w.values) v.collect_subquery_tables(sub);
  }
  for (const auto& j : joins) {
    sub.push_back(j.table);
    j.on.collect_subquery_tables(sub);
  }
  if (where) where->collect_subquery_tables(sub);
  if (having) having->collect_subquery_tables(sub);
  for (const auto& a : assignments) a.value.collect_subquery_tables(sub);
  for (const auto& row : values)
    for (const auto& v : row) v.collect_subquery_tables(sub);
  for (const auto& e : select_exprs) e.collect_subquery_tables(sub);
  for (const auto& d : derived)
    for (auto& t : d.tables()) sub.push_back(std::move(t));
  for (auto& t : sub)
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(std::move(t));
  return out;
}

std::vector<std::string> Statement::written_tables() const {
  std::vector<std::string> out;
  if (!is_write()) return out;
  out.push_back(table);
  for (const auto& a : assignments)
    if (!a.table.empty() && std::find(out.begin(), out.end(), a.table) == out.end()) out.push_back(a.table);
  if (kind == StatementKind::Delete)
    for (const Join& j : joins)
      if (j.deleted && std::find(out.begin(), out.end(), j.table) == out.end()) out.push_back(j.table);
  return out;
}

namespace {
void collect_columns(const Expr& e, std::vector<std::pair<std::string, std::string>>& out) {
  if (e.kind == Expr::Kind::Column) out.emplace_back(e.table, e.column);
  for (const Expr& a : e.args) collect_columns(a, out);
}
}  // namespace

bool Statement::sets_a_join_column() const {
  if (kind != StatementKind::Update) return false;
  for (const Join& j : joins) {
    std::vector<std::pair<std::string, std::string>> read;  // (table, column) the join condition names
    collect_columns(j.on, read);
    for (const Assignment& a : assignments) {
      const std::string& written = a.table.empty() ? table : a.table;
      for (const auto& [t, c] : read)
        if (c == a.column && (t == written || t.empty())) return true;
    }
  }
  return false;
}

std::string to_string(StatementKind kind) {
  switch (kind) {
    case StatementKind::Begin: return "BEGIN";
    case StatementKind::Commit: return "COMMIT";
    case StatementKind::Rollback: return "ROLLBACK";
    case StatementKind::Select: return "SELECT";
    case StatementKind::Insert: return "INSERT";
    case StatementKind::Update: return "UPDATE";
    case StatementKind::Delete: return "DELETE";
    case StatementKind::Savepoint: return "SAVEPOINT";
    case StatementKind::RollbackToSavepoint: return "ROLLBACK TO SAVEPOINT";
    case StatementKind::ReleaseSavepoint: return "RELEASE SAVEPOINT";
    case StatementKind::LockTable: return "LOCK TABLE";
    case StatementKind::Merge: return "MERGE";
  }
  return "?";
}

std::string merge_form(const Statement& s) {
  if (!s.is_merge()) return {};
  std::string out;
  for (const MergeWhen& w : s.merge_whens) {
    out += out.empty() ? "" : ", ";
    out += w.matched ? "MATCHED" : "NOT MATCHED";
    if (w.condition) out += " AND ...";
    switch (w.action) {
      case MergeAction::Update: out += " UPDATE"; break;
      case MergeAction::Delete: out += " DELETE"; break;
      case MergeAction::DoNothing: out += " DO NOTHING"; break;
      case MergeAction::Insert: out += " INSERT"; break;
    }
  }
  return "MERGE (" + out + ")";
}

std::string upsert_form(const Statement& s) {
  if (!s.is_upsert()) return {};
  switch (s.upsert) {
    case Upsert::None: return {};
    case Upsert::DoNothing: return "ON CONFLICT DO NOTHING";
    case Upsert::DoUpdate: return s.where ? "ON CONFLICT DO UPDATE ... WHERE" : "ON CONFLICT DO UPDATE";
    case Upsert::Ignore: return "INSERT IGNORE";
    case Upsert::Replace: return "REPLACE";
  }
  return {};
}

const std::vector<std::string>& table_lock_modes() {
  static const std::vector<std::string> modes = {"ACCESS SHARE", "ROW SHARE", "ROW EXCLUSIVE", "SHARE UPDATE EXCLUSIVE",
                                                 "SHARE", "SHARE ROW EXCLUSIVE", "EXCLUSIVE", "ACCESS EXCLUSIVE"};
  return modes;
}

std::string lock_clause(const Statement& s) {
  std::string out;
  if (s.kind == StatementKind::LockTable)
    return fmt::format("LOCK TABLE {} IN {} MODE{}", s.table, s.table_lock_mode, s.lock_wait == LockWait::NoWait ? " NOWAIT" : "");
  switch (s.lock) {
    case LockMode::None: return {};
    case LockMode::Share: out = "FOR SHARE"; break;
    case LockMode::Update: out = "FOR UPDATE"; break;
    case LockMode::KeyShare: out = "FOR KEY SHARE"; break;
    case LockMode::NoKeyUpdate: out = "FOR NO KEY UPDATE"; break;
  }
  if (s.lock_wait == LockWait::NoWait) out += " NOWAIT";
  if (s.lock_wait == LockWait::SkipLocked) out += " SKIP LOCKED";
  return out;
}

}  // namespace txprop
