#include "txprop/test_case.hpp"

#include <algorithm>
#include <functional>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace txprop {

Statement Transaction::step(std::size_t index) const {
  if (index == 0) return Statement::begin();
  if (index <= statements.size()) return statements[index - 1];
  Statement s = end == TxnEnd::Commit ? Statement::commit() : Statement::rollback();
  s.chain = chain;
  return s;
}

std::vector<StepRef> TestCase::submitted_steps() const {
  std::vector<int> next(transactions.size(), 0);
  std::vector<StepRef> out;
  out.reserve(order.size());
  for (int t : order) out.push_back(StepRef{t, next[static_cast<std::size_t>(t)]++});
  return out;
}

std::vector<std::vector<int>> TestCase::sessions() const {
  std::vector<std::vector<int>> out;
  std::vector<std::pair<int, std::size_t>> shared;  // session id -> index in out
  for (std::size_t i = 0; i < transactions.size(); ++i) {
    const int id = transactions[i].session;
    if (id < 0) {
      out.push_back({static_cast<int>(i)});
      continue;
    }
    auto it = std::find_if(shared.begin(), shared.end(), [&](const auto& p) { return p.first == id; });
    if (it == shared.end()) {
      shared.emplace_back(id, out.size());
      out.push_back({static_cast<int>(i)});
    } else {
      out[it->second].push_back(static_cast<int>(i));
    }
  }
  return out;
}

std::vector<int> TestCase::connection_of() const {
  std::vector<int> out(transactions.size(), -1);
  const auto all = sessions();
  for (std::size_t k = 0; k < all.size(); ++k)
    for (int t : all[k]) out[static_cast<std::size_t>(t)] = static_cast<int>(k);
  return out;
}

std::vector<int> TestCase::placement(int nodes) const {
  const auto all = sessions();
  std::vector<int> out;
  for (std::size_t k = 0; k < all.size(); ++k) {
    int node = -1;
    for (int t : all[k])
      if (node < 0) node = transactions[static_cast<std::size_t>(t)].node;
    out.push_back(nodes <= 1 ? 0 : (node < 0 ? static_cast<int>(k) : node) % nodes);
  }
  return out;
}

bool TestCase::has_placement() const {
  return std::any_of(transactions.begin(), transactions.end(), [](const Transaction& t) { return t.node >= 0; });
}

bool TestCase::has_shared_sessions() const {
  for (const auto& s : sessions())
    if (s.size() > 1) return true;
  return false;
}

std::vector<bool> Transaction::undone_by_savepoints() const {
  std::vector<bool> undone(statements.size(), false);
  std::vector<std::size_t> active;  // indexes of the SAVEPOINT statements in effect, oldest first
  auto latest = [&](const std::string& name) {
    for (std::size_t k = active.size(); k-- > 0;)
      if (statements[active[k]].savepoint == name) return static_cast<std::ptrdiff_t>(k);
    return std::ptrdiff_t{-1};
  };
  for (std::size_t i = 0; i < statements.size(); ++i) {
    const Statement& s = statements[i];
    if (s.kind == StatementKind::Savepoint) active.push_back(i);
    if (s.kind != StatementKind::RollbackToSavepoint && s.kind != StatementKind::ReleaseSavepoint) continue;
    const std::ptrdiff_t k = latest(s.savepoint);
    if (k < 0) continue;  // an error on the engine; check_savepoints rejects it
    // ROLLBACK TO s undoes what came after s and keeps s; RELEASE s forgets s and every later savepoint.
    if (s.kind == StatementKind::RollbackToSavepoint) {
      for (std::size_t j = active[static_cast<std::size_t>(k)] + 1; j < i; ++j) undone[j] = true;
      active.resize(static_cast<std::size_t>(k) + 1);
    } else {
      active.resize(static_cast<std::size_t>(k));
    }
  }
  return undone;
}

std::string Transaction::check_savepoints() const {
  std::vector<std::string> active;
  for (std::size_t i = 0; i < statements.size(); ++i) {
    const Statement& s = statements[i];
    // PostgreSQL: "LOCK TABLE can only be used in transaction blocks" (manual, LOCK).
    if (s.kind == StatementKind::LockTable && autocommit) return fmt::format("{} outside BEGIN ... COMMIT", lock_clause(s));
    if (!s.is_savepoint()) continue;
    if (autocommit) return fmt::format("{} {} outside BEGIN ... COMMIT", to_string(s.kind), s.savepoint);
    if (s.savepoint.empty()) return fmt::format("{} without a name", to_string(s.kind));
    if (s.kind == StatementKind::Savepoint) {
      active.push_back(s.savepoint);
      continue;
    }
    const auto it = std::find(active.rbegin(), active.rend(), s.savepoint);
    if (it == active.rend())
      return fmt::format("statement {}: {} {} names no savepoint set before it in this transaction (or one released)",
                         i + 1, to_string(s.kind), s.savepoint);
    const std::size_t k = static_cast<std::size_t>(active.rend() - it) - 1;
    active.resize(s.kind == StatementKind::RollbackToSavepoint ? k + 1 : k);
  }
  return {};
}

std::string TestCase::first_savepoint() const {
  for (std::size_t t = 0; t < transactions.size(); ++t)
    for (std::size_t i = 0; i < transactions[t].statements.size(); ++i)
      if (const Statement& s = transactions[t].statements[i]; s.is_savepoint())
        return fmt::format("T{}.{} is {} {}", t, i + 1, to_string(s.kind), s.savepoint);
  return {};
}

std::string TestCase::first_lock_option(bool nowait_or_skip) const {
  for (std::size_t t = 0; t < transactions.size(); ++t)
    for (std::size_t i = 0; i < transactions[t].statements.size(); ++i)
      if (const Statement& s = transactions[t].statements[i];
          s.kind != StatementKind::LockTable && (nowait_or_skip ? s.depends_on_locks() : s.has_lock_option()))
        return fmt::format("T{}.{} is SELECT ... {}", t, i + 1, lock_clause(s));
  return {};
}

std::string TestCase::first_lock_table() const {
  for (std::size_t t = 0; t < transactions.size(); ++t)
    for (std::size_t i = 0; i < transactions[t].statements.size(); ++i)
      if (const Statement& s = transactions[t].statements[i]; s.kind == StatementKind::LockTable)
        return fmt::format("T{}.{} is {}", t, i + 1, lock_clause(s));
  return {};
}

std::string TestCase::first_upsert() const {
  for (std::size_t t = 0; t < transactions.size(); ++t)
    for (std::size_t i = 0; i < transactions[t].statements.size(); ++i)
      if (transactions[t].statements[i].is_upsert())
        return fmt::format("T{}.{} is an upsert ({})", t, i + 1, upsert_form(transactions[t].statements[i]));
  return {};
}

namespace {
bool statement_has_truth_form(const Statement& s) {
  auto any = [](const std::optional<Expr>& e) { return e && e->has_truth_form(); };
  if (any(s.where) || any(s.having) || any(s.merge_on)) return true;
  for (const auto& a : s.assignments) if (a.value.has_truth_form()) return true;
  for (const auto& row : s.values) for (const auto& v : row) if (v.has_truth_form()) return true;
  for (const auto& j : s.joins) if (j.on.has_truth_form()) return true;
  for (const auto& e : s.select_exprs) if (e.has_truth_form()) return true;
  for (const auto& w : s.merge_whens) {
    if (any(w.condition)) return true;
    for (const auto& a : w.assignments) if (a.value.has_truth_form()) return true;
    for (const auto& v : w.values) if (v.has_truth_form()) return true;
  }
  return std::any_of(s.derived.begin(), s.derived.end(), statement_has_truth_form);
}
}  // namespace

std::string TestCase::first_truth_form() const {
  for (std::size_t t = 0; t < transactions.size(); ++t)
    for (std::size_t i = 0; i < transactions[t].statements.size(); ++i)
      if (statement_has_truth_form(transactions[t].statements[i]))
        return fmt::format("T{}.{} uses TRUE / FALSE, IS [NOT] TRUE, CAST or IS [NOT] DISTINCT FROM", t, i + 1);
  return {};
}

std::string TestCase::first_merge() const {
  for (std::size_t t = 0; t < transactions.size(); ++t)
    for (std::size_t i = 0; i < transactions[t].statements.size(); ++i)
      if (transactions[t].statements[i].is_merge())
        return fmt::format("T{}.{} is {}", t, i + 1, merge_form(transactions[t].statements[i]));
  return {};
}

std::string TestCase::first_chain() const {
  for (std::size_t t = 0; t < transactions.size(); ++t)
    if (transactions[t].chain && !transactions[t].autocommit)
      return fmt::format("T{} ends {} AND CHAIN", t, to_string(transactions[t].end));
  return {};
}

bool TestCase::has_autocommit_statements() const {
  return std::any_of(transactions.begin(), transactions.end(),
                     [](const Transaction& t) { return t.is_autocommit_statement(); });
}

namespace {

std::string check_expr(const Schema& schema, const Table& table, const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::Column:
      if (!e.table.empty()) {
        const Table* qualifier = schema.find_table(e.table);
        if (!qualifier) return fmt::format("column {}.{} names unknown table {}", e.table, e.column, e.table);
        if (!qualifier->find_column(e.column)) return fmt::format("column {} is not in table {}", e.column, e.table);
        return {};
      }
      if (!table.find_column(e.column))
        return fmt::format("column {} is not in table {}", e.column, table.name);
      return {};
    case Expr::Kind::Subquery:
    case Expr::Kind::InSubquery: {
      const Table* inner = schema.find_table(e.table);
      if (!inner) return fmt::format("subquery reads unknown table {}", e.table);
      if (!inner->find_column(e.column))
        return fmt::format("column {} is not in table {}", e.column, inner->name);
      for (std::size_t i = 0; i < e.args.size(); ++i) {
        // The IN operand refers to the outer table; the WHERE refers to the inner one.
        const bool operand = e.kind == Expr::Kind::InSubquery && i == 0;
        if (auto err = check_expr(schema, operand ? table : *inner, e.args[i]); !err.empty()) return err;
      }
      return {};
    }
    case Expr::Kind::Excluded:
      if (!table.find_column(e.column)) return fmt::format("EXCLUDED.{}: column {} is not in table {}", e.column, e.column, table.name);
      return {};
    case Expr::Kind::Aggregate:
      if (!table.find_column(e.column)) return fmt::format("column {} is not in table {}", e.column, table.name);
      return {};
    case Expr::Kind::Exists: {
      const Table* inner = schema.find_table(e.table);
      if (!inner) return fmt::format("subquery reads unknown table {}", e.table);
      for (const auto& a : e.args)
        if (auto err = check_expr(schema, *inner, a); !err.empty()) return err;
      return {};
    }
    default:
      for (const auto& a : e.args)
        if (auto err = check_expr(schema, table, a); !err.empty()) return err;
      return {};
  }
}

// Whether `columns` are, as a set, the primary key or a unique index of `t` (what ON CONFLICT (k) may name:
// PostgreSQL 15 manual, INSERT: "conflict_target ... infers a unique index").
bool is_unique_key(const Table& t, std::vector<std::string> columns) {
  std::sort(columns.begin(), columns.end());
  auto same = [&](std::vector<std::string> key) {
    std::sort(key.begin(), key.end());
    return !key.empty() && key == columns;
  };
  if (same(t.primary_key)) return true;
  return std::any_of(t.indexes.begin(), t.indexes.end(), [&](const Index& i) { return i.unique && same(i.columns); });
}

// The upsert's own rules; EXCLUDED.c anywhere else is an error.
std::string check_upsert(const Table& table, const Statement& s) {
  const bool do_update = s.is_upsert() && s.upsert == Upsert::DoUpdate;
  bool excluded_outside = false;
  for (const auto& row : s.values)
    for (const auto& v : row) excluded_outside = excluded_outside || v.mentions_excluded();
  for (const auto& j : s.joins) excluded_outside = excluded_outside || j.on.mentions_excluded();
  for (const auto& e : s.select_exprs) excluded_outside = excluded_outside || e.mentions_excluded();
  if (s.having) excluded_outside = excluded_outside || s.having->mentions_excluded();
  if (!do_update) {
    for (const auto& a : s.assignments) excluded_outside = excluded_outside || a.value.mentions_excluded();
    if (s.where) excluded_outside = excluded_outside || s.where->mentions_excluded();
  }
  if (excluded_outside) return "EXCLUDED.c (VALUES(c)) is only for the SET and WHERE of an upsert's DO UPDATE";
  if (s.upsert == Upsert::None && s.conflict_target.empty()) return {};
  if (s.kind != StatementKind::Insert) return fmt::format("a {} cannot be an upsert", to_string(s.kind));
  if (s.kind == StatementKind::Insert && !do_update && (!s.assignments.empty() || s.where))
    return fmt::format("{} into {} has no SET or WHERE (only DO UPDATE has)", upsert_form(s), s.table);
  if (do_update && s.assignments.empty()) return fmt::format("ON CONFLICT DO UPDATE into {} without SET", s.table);
  for (const auto& a : s.assignments)
    if (!a.table.empty()) return fmt::format("an upsert sets columns of its own table {} only", s.table);
  if (!s.conflict_target.empty()) {
    if (s.upsert != Upsert::DoNothing && s.upsert != Upsert::DoUpdate)
      return fmt::format("{} into {} has no conflict target (only ON CONFLICT (k) has)", upsert_form(s), s.table);
    if (!is_unique_key(table, s.conflict_target))
      return fmt::format("ON CONFLICT ({}): not the primary key or a unique index of {}",
                         fmt::join(s.conflict_target, ", "), s.table);
  } else if (do_update && s.where) {
    return fmt::format("ON CONFLICT DO UPDATE ... WHERE into {} names its conflict target", s.table);
  }
  return {};
}

// A MERGE's own rules (PostgreSQL 15 manual, MERGE): a source and an ON condition, at least one WHEN clause; UPDATE
// and DELETE only WHEN MATCHED, INSERT only WHEN NOT MATCHED; an INSERT's values name the source's columns only.
std::string check_merge(const Schema& schema, const Table& table, const Statement& s) {
  const std::string& source = s.merge_source_name();
  if (s.merge_source.empty() && (s.values.empty() || s.alias.empty() || s.columns.empty()))
    return fmt::format("MERGE INTO {} needs a source: a table, or (VALUES ...) AS alias(columns)", s.table);
  if (!s.merge_on) return fmt::format("MERGE INTO {} has no ON condition", s.table);
  if (s.merge_whens.empty()) return fmt::format("MERGE INTO {} has no WHEN clause", s.table);
  if (source == s.table) return fmt::format("MERGE INTO {} needs a source named apart from its target (USING ... AS s)", s.table);
  if (!s.assignments.empty() || s.where || !s.joins.empty() || s.upsert != Upsert::None || !s.returning.empty())
    return "MERGE has no SET, WHERE, JOIN, ON CONFLICT or RETURNING outside its WHEN clauses";
  // The source as a table of the scope: its columns are what the source rows carry.
  Schema scope = schema;
  Table src;
  src.name = source;
  if (!s.merge_source.empty()) {
    const Table* from = schema.find_table(s.merge_source);
    if (!from) return fmt::format("MERGE INTO {} USING unknown table {}", s.table, s.merge_source);
    src.columns = from->columns;
  } else {
    for (const auto& c : s.columns) src.columns.push_back(Column{c, ColumnType::Integer, false});
    for (const auto& row : s.values) {
      if (row.size() != s.columns.size())
        return fmt::format("MERGE source {} has {} columns but a row of {} values", source, s.columns.size(), row.size());
      for (const auto& v : row)
        if (v.kind != Expr::Kind::Literal && v.kind != Expr::Kind::Neg)
          return fmt::format("MERGE source {}: VALUES rows hold literals", source);
    }
  }
  if (!s.alias.empty() && scope.find_table(s.alias)) return fmt::format("MERGE source alias {} names a table", s.alias);
  scope.tables.push_back(src);
  if (auto err = check_expr(scope, table, *s.merge_on); !err.empty()) return "MERGE ... ON: " + err;
  for (const MergeWhen& w : s.merge_whens) {
    const bool insert = w.action == MergeAction::Insert, update = w.action == MergeAction::Update;
    if ((w.matched && insert) || (!w.matched && (update || w.action == MergeAction::Delete)))
      return fmt::format("MERGE: WHEN {}MATCHED cannot {}", w.matched ? "" : "NOT ", insert ? "INSERT" : update ? "UPDATE" : "DELETE");
    // WHEN NOT MATCHED sees no target row: its condition and values name the source only.
    const Table& visible = w.matched ? table : scope.tables.back();
    if (w.condition)
      if (auto err = check_expr(scope, visible, *w.condition); !err.empty()) return "MERGE ... WHEN: " + err;
    if (update && w.assignments.empty()) return "MERGE: WHEN MATCHED THEN UPDATE without SET";
    if (!update && !w.assignments.empty()) return "MERGE: SET belongs to WHEN MATCHED THEN UPDATE";
    for (const Assignment& a : w.assignments) {
      if (!a.table.empty() || !table.find_column(a.column))
        return fmt::format("MERGE ... UPDATE SET {}: not a column of {}", a.column, s.table);
      if (auto err = check_expr(scope, table, a.value); !err.empty()) return "MERGE ... UPDATE SET: " + err;
    }
    if (insert && (w.values.size() != w.columns.size() || w.values.empty()))
      return fmt::format("MERGE ... INSERT into {} has {} columns but {} values", s.table, w.columns.size(), w.values.size());
    if (!insert && (!w.columns.empty() || !w.values.empty())) return "MERGE: a column list and VALUES belong to INSERT";
    for (const auto& c : w.columns)
      if (!table.find_column(c)) return fmt::format("MERGE ... INSERT: column {} is not in table {}", c, s.table);
    for (const auto& v : w.values)
      if (auto err = check_expr(scope, scope.tables.back(), v); !err.empty()) return "MERGE ... INSERT VALUES: " + err;
  }
  return {};
}

std::string check_statement(const Schema& schema, const Statement& s);

// A locking clause and NOWAIT / SKIP LOCKED where they belong; a LOCK TABLE's mode.
std::string check_lock_clause(const Statement& s) {
  if (s.lock != LockMode::None && s.kind != StatementKind::Select)
    return fmt::format("a {} has no locking clause (only a SELECT has)", to_string(s.kind));
  if (s.kind == StatementKind::LockTable) {
    const auto& modes = table_lock_modes();
    if (std::find(modes.begin(), modes.end(), s.table_lock_mode) == modes.end())
      return fmt::format("LOCK TABLE {} IN {} MODE: no such lock mode", s.table, s.table_lock_mode);
    if (s.lock_wait == LockWait::SkipLocked) return "LOCK TABLE has NOWAIT, not SKIP LOCKED";
  } else if (s.lock == LockMode::None && s.lock_wait != LockWait::Wait) {
    return "NOWAIT and SKIP LOCKED follow a locking clause (FOR UPDATE, FOR SHARE, ...)";
  }
  return {};
}

// A multi-table write's join, and every SET: its table written by this statement, its column, its value.
std::string check_writes(const Schema& schema, const Table& table, const Statement& s) {
  if (!s.joins.empty() && s.kind != StatementKind::Select) {
    if (!s.is_multi_table_write()) return fmt::format("{} cannot have a JOIN", to_string(s.kind));
    if (s.joins.size() != 1 || s.joins[0].left)
      return fmt::format("a multi-table {} joins exactly one other table, with INNER JOIN", to_string(s.kind));
    if (s.joins[0].table == s.table) return fmt::format("a multi-table {} joins {} to itself", to_string(s.kind), s.table);
    if (s.kind == StatementKind::Update &&
        std::none_of(s.assignments.begin(), s.assignments.end(), [&](const Assignment& a) { return a.table.empty() || a.table == s.table; }))
      return fmt::format("a multi-table UPDATE sets at least one column of its first table ({})", s.table);
  }
  for (const auto& a : s.assignments) {
    const Table* written = &table;
    if (!a.table.empty() && a.table != s.table) {
      if (std::none_of(s.joins.begin(), s.joins.end(), [&](const Join& j) { return j.table == a.table; }))
        return fmt::format("SET {}.{}: table {} is not joined by this UPDATE", a.table, a.column, a.table);
      written = schema.find_table(a.table);
      if (!written) return fmt::format("SET names unknown table {}", a.table);
    }
    if (!written->find_column(a.column)) return fmt::format("column {} is not in table {}", a.column, written->name);
    if (auto err = check_expr(schema, *written, a.value); !err.empty()) return err;
  }
  return {};
}

// A SELECT from a derived table: one of its three shapes (statement.hpp), and the outer SELECT over it; `grouped`
// says it is the GROUP BY shape, whose outer SELECT is checked here whole.
std::string check_derived(const Schema& schema, const Table& table, const Statement& s, bool& grouped) {
  const Statement& d = s.derived.front();
  if (s.derived.size() > 1 || s.kind != StatementKind::Select || s.alias.empty())
    return "a derived table is one SELECT in the FROM of a SELECT, with an alias";
  // Three shapes (statement.hpp): SELECT * [WHERE] [ORDER BY LIMIT]; SELECT c, COUNT(*) AS n ... GROUP BY c;
  // SELECT t.* FROM t INNER JOIN u ON ... [WHERE].
  const bool common = d.kind == StatementKind::Select && d.table == s.table && d.columns.empty() &&
                      d.derived.empty() && d.select_exprs.empty() && d.lock == LockMode::None && !d.having;
  const bool plain = common && d.items.empty() && d.joins.empty() && !d.own_columns;
  grouped = common && d.joins.empty() && !d.own_columns && d.group_by.size() == 1 && d.items.size() == 2 &&
            d.items[0] == SelectItem{Aggregate::None, d.group_by[0], {}} &&
            d.items[1].aggregate == Aggregate::Count && d.items[1].column == "*" &&
            !d.items[1].alias.empty() && d.items[1].alias != d.group_by[0] && d.order_by.empty() && !d.limit;
  const bool joined = common && d.items.empty() && d.own_columns && d.joins.size() == 1 && !d.joins[0].left &&
                      d.order_by.empty() && !d.limit;
  if (!plain && !grouped && !joined)
    return fmt::format("the derived table {0} must be SELECT * FROM {1} [WHERE ...] [ORDER BY ... LIMIT n], SELECT c, "
                       "COUNT(*) AS n FROM {1} [WHERE ...] GROUP BY c, or SELECT {1}.* FROM {1} INNER JOIN u ON ... "
                       "[WHERE ...]", s.alias, s.table);
  if (!s.joins.empty() || s.lock != LockMode::None) return "a SELECT from a derived table has no JOIN and no locking clause";
  if (auto err = check_statement(schema, d); !err.empty()) return fmt::format("derived table {}: {}", s.alias, err);
  if (grouped) {
    // The outer SELECT reads the derived table's two columns: SELECT * [WHERE over c and n].
    if (!s.columns.empty() || !s.items.empty() || !s.group_by.empty() || s.having || !s.order_by.empty() || s.limit ||
        !s.select_exprs.empty())
      return fmt::format("a SELECT from the grouped derived table {} is SELECT * [WHERE ...]", s.alias);
    Table scope;
    scope.name = s.alias;
    const Column* c = table.find_column(d.group_by[0]);
    if (!c) return fmt::format("column {} is not in table {}", d.group_by[0], s.table);
    scope.columns = {*c, Column{d.items[1].alias, ColumnType::Integer, false}};
    if (s.where)
      if (auto err = check_expr(schema, scope, *s.where); !err.empty()) return fmt::format("derived table {}: {}", s.alias, err);
  }
  return {};
}

std::string check_statement(const Schema& schema, const Statement& s) {
  if (s.is_transaction_control() || s.is_savepoint()) return {};
  // A SELECT without FROM (SELECT 1: EngineCapabilities::table_free_snapshot_levels): literals only.
  if (s.kind == StatementKind::Select && s.table.empty() && s.derived.empty()) {
    const bool literals = !s.select_exprs.empty() && std::all_of(s.select_exprs.begin(), s.select_exprs.end(),
                                                                  [](const Expr& e) { return e.kind == Expr::Kind::Literal; });
    if (!literals || s.where || !s.joins.empty() || !s.columns.empty() || !s.items.empty())
      return "a SELECT without FROM selects literals only";
    return {};
  }
  const Table* table = schema.find_table(s.table);
  if (!table) return fmt::format("unknown table {}", s.table);
  if (s.is_merge()) return check_merge(schema, *table, s);
  if (!s.merge_source.empty() || s.merge_on || !s.merge_whens.empty())
    return fmt::format("a {} has no USING ... ON ... WHEN (only a MERGE has)", to_string(s.kind));
  if (auto err = check_upsert(*table, s); !err.empty()) return err;
  if (auto err = check_lock_clause(s); !err.empty()) return err;
  for (const auto& c : s.columns)
    if (!table->find_column(c)) return fmt::format("column {} is not in table {}", c, s.table);
  for (const auto& c : s.returning)
    if (!table->find_column(c)) return fmt::format("column {} is not in table {}", c, s.table);
  if (!s.returning_joined.empty()) {
    const Table* joined = s.joins.empty() ? nullptr : schema.find_table(s.joins.front().table);
    if (!joined) return "RETURNING names a joined table's columns without a join";
    for (const auto& c : s.returning_joined)
      if (!joined->find_column(c)) return fmt::format("column {} is not in table {}", c, joined->name);
  }
  if (auto err = check_writes(schema, *table, s); !err.empty()) return err;
  // A string literal there names nothing the statement reads (the Adya instrumentation marks its join reads so).
  for (const auto& e : s.select_exprs) {
    if (s.kind != StatementKind::Select ||
        !(e.kind == Expr::Kind::Subquery || (e.kind == Expr::Kind::Literal && e.literal.type() == ValueType::Text)))
      return "only a SELECT list holds scalar subqueries or string literals after its columns";
    if (auto err = check_expr(schema, *table, e); !err.empty()) return err;
  }
  if (!s.derived.empty()) {
    bool grouped = false;
    if (auto err = check_derived(schema, *table, s, grouped); !err.empty()) return err;
    if (grouped) return {};
  }
  if (s.kind == StatementKind::Insert) {
    if (s.values.empty()) return "INSERT without values";
    for (const auto& row : s.values) {
      if (row.size() != s.columns.size())
        return fmt::format("INSERT into {} has {} columns but a row of {} values", s.table, s.columns.size(),
                           row.size());
      for (const auto& v : row)
        if (auto err = check_expr(schema, *table, v); !err.empty()) return err;
    }
  }
  for (const auto& j : s.joins) {
    const Table* other = schema.find_table(j.table);
    if (!other) return fmt::format("JOIN of unknown table {}", j.table);
    if (auto err = check_expr(schema, *table, j.on); !err.empty()) return err;
  }
  if (s.own_columns && (s.kind != StatementKind::Select || s.joins.empty()))
    return fmt::format("SELECT {}.* is for a SELECT over a join", s.table);
  for (const auto& i : s.items)
    if (!(i.column == "*" && i.aggregate == Aggregate::Count) && !table->find_column(i.column))
      return fmt::format("column {} is not in table {}", i.column, s.table);
  for (const auto& g : s.group_by)
    if (!table->find_column(g)) return fmt::format("column {} is not in table {}", g, s.table);
  for (const auto& o : s.order_by)
    if (!table->find_column(o.column)) return fmt::format("column {} is not in table {}", o.column, s.table);
  if (s.having)
    if (auto err = check_expr(schema, *table, *s.having); !err.empty()) return err;
  if (s.kind == StatementKind::Update && s.assignments.empty()) return "UPDATE without SET";
  if (s.where)
    if (auto err = check_expr(schema, *table, *s.where); !err.empty()) return err;
  return {};
}

}  // namespace

std::string TestCase::validate() const {
  for (const auto& t : schema.tables)
    for (const auto& row : t.rows)
      if (row.size() != t.columns.size())
        return fmt::format("table {} has {} columns but an initial row of {} values", t.name, t.columns.size(),
                           row.size());
  if (auto err = schema.check_foreign_keys(); !err.empty()) return err;
  for (std::size_t i = 0; i < transactions.size(); ++i)
    if (transactions[i].node < -1 || transactions[i].node >= 64)
      return fmt::format("T{} is placed on node {} (nodes are numbered from 0, below 64; -1: spread)", i,
                         transactions[i].node);
  std::vector<std::size_t> count(transactions.size(), 0);
  for (int t : order) {
    if (t < 0 || static_cast<std::size_t>(t) >= transactions.size())
      return fmt::format("submitted order names transaction {} but there are {}", t, transactions.size());
    ++count[static_cast<std::size_t>(t)];
  }
  for (std::size_t i = 0; i < transactions.size(); ++i) {
    if (count[i] != transactions[i].step_count())
      return fmt::format("submitted order has {} steps of T{} but it has {}", count[i], i,
                         transactions[i].step_count());
    for (const auto& s : transactions[i].statements) {
      if (s.is_transaction_control())
        return fmt::format("T{} has {} among its statements; BEGIN and the end are implied", i, to_string(s.kind));
      if (auto err = check_statement(schema, s); !err.empty()) return fmt::format("T{}: {}", i, err);
    }
    if (auto err = transactions[i].check_savepoints(); !err.empty()) return fmt::format("T{}: {}", i, err);
    if (transactions[i].session < -1)
      return fmt::format("T{} has session {}; a session is -1 (its own) or a connection number >= 0", i,
                         transactions[i].session);
  }
  // A connection runs one transaction at a time: each one's steps all come after the previous one's.
  std::vector<int> first(transactions.size(), -1), last(transactions.size(), -1);
  for (std::size_t k = 0; k < order.size(); ++k) {
    const auto t = static_cast<std::size_t>(order[k]);
    if (first[t] < 0) first[t] = static_cast<int>(k);
    last[t] = static_cast<int>(k);
  }
  for (const auto& session : sessions())
    for (std::size_t j = 1; j < session.size(); ++j) {
      const auto before = static_cast<std::size_t>(session[j - 1]), after = static_cast<std::size_t>(session[j]);
      if (const Transaction& a = transactions[before], &b = transactions[after]; a.chain && !a.autocommit) {
        if (b.autocommit) return fmt::format("T{} ends AND CHAIN, but T{} after it on its connection is autocommit", before, after);
        if (b.isolation != a.isolation)
          return fmt::format("T{} ends AND CHAIN, so T{} after it runs at its level ({}), not at {}", before, after,
                             sql_name(a.isolation), sql_name(b.isolation));
      }
      if (first[after] < last[before])
        return fmt::format("T{} starts on the connection of T{} before T{} ended (step {} of the order is before its "
                           "step {})",
                           after, before, before, first[after], last[before]);
    }
  return {};
}

std::vector<int> TestCase::serial_order(const std::vector<Transaction>& transactions) {
  std::vector<int> out;
  for (std::size_t i = 0; i < transactions.size(); ++i)
    out.insert(out.end(), transactions[i].step_count(), static_cast<int>(i));
  return out;
}

std::string to_string(StepRef ref) { return fmt::format("T{}.{}", ref.txn, ref.index); }

std::string to_string(TxnEnd end) { return end == TxnEnd::Commit ? "COMMIT" : "ROLLBACK"; }

std::set<std::string> rich_forms(const TestCase& c) {
  std::set<std::string> forms;
  std::function<void(const Expr&)> visit = [&](const Expr& e) {
    if (e.kind == Expr::Kind::Exists) forms.insert(e.negated ? "form: NOT EXISTS" : "form: EXISTS");
    if (e.kind == Expr::Kind::InSubquery) forms.insert("form: IN subquery");
    if (e.kind == Expr::Kind::Not && !e.args.empty() && e.args[0].kind == Expr::Kind::InSubquery)
      forms.insert("form: NOT IN subquery");
    if (e.kind == Expr::Kind::Case) forms.insert("form: CASE");
    if (e.kind == Expr::Kind::IsTruth || e.kind == Expr::Kind::Boolean) forms.insert("form: truth value");
    if (e.kind == Expr::Kind::Cast) forms.insert("form: CAST");
    if (e.kind == Expr::Kind::IsDistinct) forms.insert("form: IS [NOT] DISTINCT FROM");
    if (e.kind == Expr::Kind::Subquery) forms.insert("form: scalar subquery in WHERE or SET");
    if (e.kind == Expr::Kind::Exists || e.kind == Expr::Kind::InSubquery || e.kind == Expr::Kind::Subquery) {
      // Correlated: the subquery names a column of a table other than its own.
      bool correlated = false;
      std::function<void(const Expr&)> outer = [&](const Expr& x) {
        if (x.kind == Expr::Kind::Column && !x.table.empty() && x.table != e.table) correlated = true;
        for (const Expr& a : x.args) outer(a);
      };
      for (const Expr& a : e.args) outer(a);
      if (correlated) forms.insert("form: correlated subquery");
    }
    for (const Expr& a : e.args) visit(a);
  };
  for (const Transaction& t : c.transactions)
    for (const Statement& s : t.statements)
      if (s.kind == StatementKind::RollbackToSavepoint) forms.insert("form: SAVEPOINT ... ROLLBACK TO");
      else if (s.kind == StatementKind::ReleaseSavepoint) forms.insert("form: SAVEPOINT ... RELEASE");
  for (const Table& t : c.schema.tables) {
    for (const ForeignKey& fk : t.foreign_keys) {
      forms.insert("form: FOREIGN KEY ON DELETE " + to_string(fk.on_delete));
      if (fk.on_update != ReferentialAction::NoAction)
        forms.insert("form: FOREIGN KEY ON UPDATE " + to_string(fk.on_update));
    }
    for (const Column& col : t.columns)
      if (col.type == ColumnType::Boolean) forms.insert("form: BOOLEAN column");
  }
  for (const Transaction& t : c.transactions)
    if (t.chain && !t.autocommit) forms.insert(t.end == TxnEnd::Commit ? "form: COMMIT AND CHAIN" : "form: ROLLBACK AND CHAIN");
  for (const Transaction& t : c.transactions)
    for (const Statement& s : t.statements) {
      if (s.where) visit(*s.where);
      if (s.having) visit(*s.having);
      for (const Assignment& a : s.assignments) visit(a.value);
      for (const Expr& e : s.select_exprs) {
        forms.insert("form: scalar subquery in SELECT list");
        visit(e);
      }
      if (!s.items.empty()) forms.insert("form: aggregate");
      if (!s.group_by.empty()) forms.insert("form: GROUP BY");
      if (s.having) forms.insert("form: HAVING");
      if (s.limit) forms.insert("form: ORDER BY ... LIMIT");
      if (!s.derived.empty()) {
        forms.insert("form: derived table");
        if (s.derived_groups()) forms.insert("form: derived table with GROUP BY");
        if (s.derived_joins()) forms.insert("form: derived table with a join");
        if (s.derived.front().where) visit(*s.derived.front().where);
        if (s.derived.front().limit) forms.insert("form: ORDER BY ... LIMIT");
      }
      if (s.kind == StatementKind::Select)
        for (const Join& j : s.joins) forms.insert(j.left ? "form: LEFT JOIN" : "form: INNER JOIN");
      if (s.is_multi_table_write())
        forms.insert(s.kind == StatementKind::Delete ? "form: DELETE with a join" : "form: UPDATE with a join");
      if (s.written_tables().size() > 1)
        forms.insert(s.kind == StatementKind::Delete ? "form: DELETE of two tables" : "form: UPDATE of two tables");
      if (s.is_upsert()) forms.insert("form: " + upsert_form(s));
      if (s.is_merge()) {
        forms.insert("form: MERGE");
        for (const MergeWhen& w : s.merge_whens)
          if (w.condition) forms.insert("form: MERGE WHEN ... AND condition");
      }
      // LOCK TABLE by its mode, not its table: one tag per form across cases.
      if (s.kind == StatementKind::LockTable)
        forms.insert(fmt::format("form: LOCK TABLE IN {} MODE{}", s.table_lock_mode, s.lock_wait == LockWait::NoWait ? " NOWAIT" : ""));
      else if (s.has_lock_option())
        forms.insert("form: " + lock_clause(s));
    }
  return forms;
}

}  // namespace txprop
