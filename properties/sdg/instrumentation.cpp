#include "instrumentation.hpp"

#include <algorithm>

#include "txprop/foreign_key_checks.hpp"
#include "txprop/hidden_columns.hpp"

namespace txprop::sdg {

namespace {

// SDG's hidden columns: a row key no statement changes and the version key every write sets.
const HiddenColumns& keys() {
  static const HiddenColumns k(
      {Column{kRowKey, ColumnType::Integer, false}, Column{kVersionKey, ColumnType::Integer, false}});
  return k;
}

bool is_instrumentation_read(const Statement& s) {
  return s.kind == StatementKind::Select && !s.columns.empty() && s.columns.front() == kRowKey;
}

// UPDATE t SET txp_pk = txp_pk WHERE 1 = 0: writes nothing, but SQLite takes the write lock for any UPDATE when it
// starts (sqlite3BeginWriteOperation, before its WHERE is evaluated), getting SQLITE_BUSY where the write after it
// would; checked on SQLite 3.40.1, WAL and rollback journal, tests/targets/sdg_first_write_lock_test.cpp. No statement
// of a case sets txp_pk, so it is told apart by that.
Statement write_lock(const std::string& table) {
  Expr never = Expr::binary(BinaryOp::Eq, Expr::lit(Value(std::int64_t{1})), Expr::lit(Value(std::int64_t{0})));
  return Statement::update(table, {Assignment{kRowKey, Expr::col(kRowKey), std::string()}}, std::move(never));
}

bool is_write_lock(const Statement& s) {
  return s.kind == StatementKind::Update && s.assignments.size() == 1 && s.assignments.front().column == kRowKey;
}

}  // namespace

std::optional<Expr> write_predicate(const Statement& s, const std::string& written) {
  if (s.joins.empty()) return s.where;
  // An inner join writes the rows of `written` that have a partner in the other table satisfying the join condition
  // and the WHERE: the same rows as a correlated EXISTS over the other table (each row once, however many partners
  // it has). Every column of a multi-table write is qualified, so the condition reads the same inside EXISTS.
  const Join& j = s.joins.front();
  const std::string& other = written == s.table ? j.table : s.table;
  Expr condition = s.where ? Expr::binary(BinaryOp::And, j.on, *s.where) : j.on;
  return Expr::exists(other, std::move(condition));
}

bool is_instrumented(const TestCase& c) {
  return keys().in(c.schema);
}

TestCase instrument(const TestCase& c, bool first_write_lock) {
  TestCase out = c;
  keys().add_to(out.schema, [](std::int64_t n) { return Row{Value(n), Value(std::int64_t{0})}; });
  std::int64_t next_version = 1, next_inserted = kInsertedRowKeys;
  std::vector<std::vector<int>> sizes(c.transactions.size());  // [txn][step] -> steps in the prepared case
  for (std::size_t ti = 0; ti < c.transactions.size(); ++ti) {
    const Transaction& tx = c.transactions[ti];
    std::vector<Statement> statements;
    sizes[ti].push_back(1);  // BEGIN
    for (const Statement& original : tx.statements) {
      const std::size_t before = statements.size();
      Statement s = original;
      const Table* own = c.schema.find_table(s.table);
      auto instrumentation_read = [&](const std::string& table, std::optional<Expr> where) {
        const Table* t = out.schema.find_table(table);
        return Statement::select(table, std::move(where), LockMode::None, keys().leading(t));
      };
      // Version-set reads of every referenced table (an INSERT's own table too: whether it fails on a unique key
      // depends on the rows there).
      std::vector<std::string> tables = s.tables();
      // A foreign key's check reads the referenced row (an INSERT or key-setting UPDATE of the referencing table) or the
      // referencing rows (a DELETE or key-setting UPDATE of the referenced one) without the statement naming them:
      // version-set reads of those tables stand for it, and place the statement after the writes the check saw and
      // before those that overwrote it (over-approximately: every row of the table, as for a join's tables).
      for (const std::string& checked : foreign_key_checked_tables(c.schema, s)) tables.push_back(checked);
      tables.erase(std::unique(tables.begin(), tables.end()), tables.end());
      if (first_write_lock && before == 0 && s.is_write()) statements.push_back(write_lock(s.table));
      std::vector<std::string> seen;
      // A LOCK TABLE reads no row: no version-set read of its table (its step is still a Statement group, so that
      // groups stay the original statements' indexes; extract_nodes leaves it out of the graph).
      if (s.kind == StatementKind::LockTable) tables.clear();
      for (const std::string& t : tables)
        if (std::find(seen.begin(), seen.end(), t) == seen.end() && out.schema.find_table(t)) {
          seen.push_back(t);
          statements.push_back(instrumentation_read(t, std::nullopt));
        }
      const std::int64_t version = next_version;
      switch (s.kind) {
        case StatementKind::Select:
          if (!s.columns.empty() && s.items.empty()) {  // an aggregating SELECT returns no row versions
            s.columns.push_back(kRowKey);
            s.columns.push_back(kVersionKey);
          }
          // Rows equal in every column of the case differ in their row key: ORDER BY it last, so that LIMIT picks
          // the same rows in the run and in the replay.
          if (!s.order_by.empty() && s.items.empty()) s.order_by.push_back(OrderItem{kRowKey, false});
          // A derived table is SELECT * of the table: it carries both keys to the outer SELECT; its own LIMIT needs
          // the same tie-break.
          for (Statement& d : s.derived)
            if (!d.order_by.empty()) d.order_by.push_back(OrderItem{kRowKey, false});
          statements.push_back(s);
          break;
        case StatementKind::Insert:
          ++next_version;
          s.columns.push_back(kRowKey);
          s.columns.push_back(kVersionKey);
          for (auto& row : s.values) {
            row.push_back(Expr::lit(Value(next_inserted++)));
            row.push_back(Expr::lit(Value(version)));
          }
          statements.push_back(s);
          statements.push_back(instrumentation_read(s.table, Expr::binary(BinaryOp::Eq, Expr::col(kVersionKey), Expr::lit(Value(version)))));
          break;
        case StatementKind::Update: {
          ++next_version;
          // A multi-table UPDATE writes every table its SET names: one before-write read, one version key and one
          // after-write read per written table, in written_tables() order (layout() counts them the same way).
          const std::vector<std::string> written = s.written_tables();
          for (const std::string& w : written) statements.push_back(instrumentation_read(w, write_predicate(s, w)));
          for (const std::string& w : written)
            s.assignments.push_back(Assignment{kVersionKey, Expr::lit(Value(version)), w == s.table ? std::string() : w});
          statements.push_back(s);
          for (const std::string& w : written)
            statements.push_back(instrumentation_read(w, Expr::binary(BinaryOp::Eq, Expr::col(kVersionKey), Expr::lit(Value(version)))));
          break;
        }
        case StatementKind::Delete:
          ++next_version;
          // One before-write read per table it deletes from (MariaDB's DELETE t, u FROM t JOIN u deletes from both);
          // a deleted row leaves nothing for an after-write read.
          for (const std::string& w : s.written_tables()) statements.push_back(instrumentation_read(w, write_predicate(s, w)));
          statements.push_back(s);
          break;
        default: statements.push_back(s); break;
      }
      (void)own;
      sizes[ti].push_back(static_cast<int>(statements.size() - before));
    }
    sizes[ti].push_back(1);  // the end
    out.transactions[ti].statements = std::move(statements);
  }
  out.order.clear();
  std::vector<std::size_t> at(c.transactions.size(), 0);
  for (int t : c.order) {
    const std::size_t ti = static_cast<std::size_t>(t);
    const int n = at[ti] < sizes[ti].size() ? sizes[ti][at[ti]] : 1;
    ++at[ti];
    out.order.insert(out.order.end(), static_cast<std::size_t>(n), t);
  }
  return out;
}

Layout layout(const TestCase& prepared) {
  Layout out;
  for (const Transaction& tx : prepared.transactions) {
    std::vector<StepRole> roles(tx.step_count());
    roles.front() = {Role::Control, -1};
    roles.back() = {Role::Control, -1};
    int group = 0;
    std::vector<std::size_t> pending;  // instrumentation reads waiting for their statement
    std::size_t expect_after = 0;  // after-write reads still to come for the last statement
    for (std::size_t i = 0; i < tx.statements.size(); ++i) {
      const Statement& s = tx.statements[i];
      const std::size_t step = i + 1;
      if (is_write_lock(s)) {
        roles[step] = {Role::WriteLock, -1};
        continue;
      }
      if (is_instrumentation_read(s)) {
        if (expect_after > 0) {
          roles[step] = {Role::AfterWriteRead, group - 1};
          --expect_after;
        } else {
          pending.push_back(step);
        }
        continue;
      }
      expect_after = 0;
      // One before-write read (UPDATE, DELETE) and one after-write read (UPDATE, INSERT) per written table.
      const std::size_t written = s.written_tables().size();
      const std::size_t befores =
          (s.kind == StatementKind::Update || s.kind == StatementKind::Delete) ? std::min(written, pending.size()) : 0;
      for (std::size_t k = 0; k < pending.size(); ++k)
        roles[pending[k]] = {k + befores >= pending.size() ? Role::BeforeWriteRead : Role::VersionSetRead, group};
      pending.clear();
      roles[step] = {Role::Statement, group};
      expect_after = (s.kind == StatementKind::Update || s.kind == StatementKind::Insert) ? written : 0;
      ++group;
    }
    for (std::size_t step : pending) roles[step] = {Role::VersionSetRead, group};  // malformed: reads without statement
    out.push_back(std::move(roles));
  }
  return out;
}

Statement strip_statement(const Statement& statement) {
  Statement s = statement;
  keys().strip_from(s);
  return s;
}

TestCase strip(const TestCase& prepared) {
  if (!is_instrumented(prepared)) return prepared;
  const Layout roles = layout(prepared);
  TestCase out = prepared;
  keys().strip_from(out.schema);
  for (std::size_t ti = 0; ti < out.transactions.size(); ++ti) {
    std::vector<Statement> kept;
    const auto& statements = prepared.transactions[ti].statements;
    for (std::size_t i = 0; i < statements.size(); ++i)
      if (roles[ti][i + 1].role == Role::Statement) kept.push_back(strip_statement(statements[i]));
    out.transactions[ti].statements = std::move(kept);
  }
  out.order.clear();
  std::vector<std::size_t> at(prepared.transactions.size(), 0);
  for (int t : prepared.order) {
    const std::size_t ti = static_cast<std::size_t>(t);
    const std::size_t step = at[ti]++;
    if (step < roles[ti].size() && (roles[ti][step].role == Role::Control || roles[ti][step].role == Role::Statement))
      out.order.push_back(t);
  }
  return out;
}

TestCase remove_statement(const TestCase& original, int txn, int stmt) {
  TestCase out = original;
  auto& statements = out.transactions[static_cast<std::size_t>(txn)].statements;
  statements.erase(statements.begin() + stmt);
  int occurrence = 0;
  for (std::size_t i = 0; i < out.order.size(); ++i)
    if (out.order[i] == txn && occurrence++ == stmt + 1) {
      out.order.erase(out.order.begin() + static_cast<std::ptrdiff_t>(i));
      break;
    }
  return out;
}

}  // namespace txprop::sdg
