// One-step simplifications of a test case, in the order a person would try them: fewer transactions, fewer
// tables, fewer statements, a more serial order, fewer rows, simpler predicates and values, fewer columns and
// indexes, COMMIT instead of ROLLBACK. Each candidate is checked with TestCase::validate().
#include <algorithm>
#include <functional>
#include <set>

#include "txprop/generators.hpp"

namespace txprop::gen {

namespace {

// Removes the step `step` (0 = BEGIN) of transaction `t` from the order: its (step)-th occurrence.
void erase_step(std::vector<int>& order, int t, int step) {
  int seen = 0;
  for (auto it = order.begin(); it != order.end(); ++it)
    if (*it == t && seen++ == step) {
      order.erase(it);
      return;
    }
}

TestCase drop_transaction(const TestCase& c, int t) {
  TestCase out = c;
  out.transactions.erase(out.transactions.begin() + t);
  out.order.clear();
  for (int x : c.order)
    if (x != t) out.order.push_back(x > t ? x - 1 : x);
  return out;
}

TestCase drop_statement(const TestCase& c, int t, int s) {
  TestCase out = c;
  auto& stmts = out.transactions[static_cast<std::size_t>(t)].statements;
  stmts.erase(stmts.begin() + s);
  erase_step(out.order, t, s + 1);
  return out;
}

void collect_columns(const Expr& e, const std::string& table, const std::string& scope,
                     std::set<std::pair<std::string, std::string>>& out) {
  switch (e.kind) {
    case Expr::Kind::Column: out.emplace(e.table.empty() ? scope : e.table, e.column); return;
    case Expr::Kind::Excluded: out.emplace(table, e.column); return;
    case Expr::Kind::Exists:
      for (const auto& a : e.args) collect_columns(a, table, e.table, out);
      return;
    case Expr::Kind::Subquery:
    case Expr::Kind::InSubquery:
      out.emplace(e.table, e.column);
      for (std::size_t i = 0; i < e.args.size(); ++i) {
        const bool operand = e.kind == Expr::Kind::InSubquery && i == 0;
        collect_columns(e.args[i], table, operand ? scope : e.table, out);
      }
      return;
    default:
      for (const auto& a : e.args) collect_columns(a, table, scope, out);
  }
}

// (table, column) pairs any statement refers to.
std::set<std::pair<std::string, std::string>> referenced_columns(const TestCase& c) {
  std::set<std::pair<std::string, std::string>> out;
  for (const auto& t : c.transactions)
    for (const auto& s : t.statements) {
      for (const auto& col : s.columns) out.emplace(s.table, col);
      for (const auto& col : s.returning) out.emplace(s.table, col);
      for (const auto& col : s.conflict_target) out.emplace(s.table, col);
      for (const auto& i : s.items) out.emplace(s.table, i.column);
      for (const auto& j : s.joins) collect_columns(j.on, s.table, s.table, out);
      for (const auto& g : s.group_by) out.emplace(s.table, g);
      for (const auto& o : s.order_by) out.emplace(s.table, o.column);
      if (s.having) collect_columns(*s.having, s.table, s.table, out);
      for (const auto& a : s.assignments) {
        const std::string& written = a.table.empty() ? s.table : a.table;
        out.emplace(written, a.column);
        collect_columns(a.value, written, written, out);
      }
      for (const auto& e : s.select_exprs) collect_columns(e, s.table, s.table, out);
      for (const auto& d : s.derived) {
        if (d.where) collect_columns(*d.where, s.table, s.table, out);
        for (const auto& o : d.order_by) out.emplace(s.table, o.column);
      }
      for (const auto& row : s.values)
        for (const auto& v : row) collect_columns(v, s.table, s.table, out);
      if (s.where) collect_columns(*s.where, s.table, s.table, out);
    }
  return out;
}

std::set<std::string> referenced_tables(const TestCase& c) {
  std::set<std::string> out;
  for (const auto& t : c.transactions)
    for (const auto& s : t.statements)
      for (auto& name : s.tables()) out.insert(name);
  return out;
}

// Simpler versions of an expression: an operand in place of a connective, a literal nearer to zero.
std::vector<Expr> simpler_exprs(const Expr& e) {
  std::vector<Expr> out;
  switch (e.kind) {
    case Expr::Kind::Binary:
      if (e.op == BinaryOp::And || e.op == BinaryOp::Or) {
        out.push_back(e.args[0]);
        out.push_back(e.args[1]);
      }
      break;
    case Expr::Kind::Not: out.push_back(e.args[0]); break;
    case Expr::Kind::Exists:
      // Toward a simple form: an uncorrelated (then unfiltered) EXISTS, then the plain condition on the own table.
      if (e.has_where) {
        out.push_back(Expr::exists(e.table, std::nullopt, e.negated));
      }
      break;
    case Expr::Kind::Subquery:
      // Toward a constant-like subquery: uncorrelated and unfiltered.
      if (e.has_where) {
        Expr plain = e;
        plain.args.pop_back();
        plain.has_where = false;
        out.push_back(std::move(plain));
      }
      break;
    case Expr::Kind::Case:
      out.push_back(e.args[1]);  // the THEN branch alone
      out.push_back(e.args[2]);  // the ELSE branch alone
      break;
    case Expr::Kind::InList:
      if (e.args.size() > 2) {
        Expr fewer = e;
        fewer.args.pop_back();
        out.push_back(std::move(fewer));
      }
      break;
    case Expr::Kind::Literal: {
      const Value& v = e.literal;
      // An integer toward 0 with the big cut first: 0 itself, then half, then one less (one step at a time alone
      // took a step, and a new pass over every candidate, per unit: most of the steps of a shrink).
      if (v.type() == ValueType::Integer && v.as_int() != 0) {
        const std::int64_t n = v.as_int();
        out.push_back(Expr::lit(std::int64_t{0}));
        if (n > 2) out.push_back(Expr::lit(n / 2));
        if (n > 1 && n - 1 != n / 2) out.push_back(Expr::lit(n - 1));
      }
      if (v.type() == ValueType::Real && v.as_real() != 0.0) out.push_back(Expr::lit(0.0));
      if (v.type() == ValueType::Text && v.as_text() != "a") out.push_back(Expr::lit("a"));
      break;
    }
    default: break;
  }
  // Simplify inside: each argument replaced by each of its simpler forms.
  for (std::size_t i = 0; i < e.args.size(); ++i)
    for (auto& inner : simpler_exprs(e.args[i])) {
      Expr copy = e;
      copy.args[i] = std::move(inner);
      out.push_back(std::move(copy));
    }
  return out;
}

// `e` with the MERGE source's columns (source.c) replaced by one source row's values.
Expr with_source_row(const Expr& e, const Statement& merge, const std::vector<Expr>& row) {
  if (e.kind == Expr::Kind::Column && e.table == merge.merge_source_name() && merge.merge_source.empty()) {
    const auto it = std::find(merge.columns.begin(), merge.columns.end(), e.column);
    if (it != merge.columns.end()) return row[static_cast<std::size_t>(it - merge.columns.begin())];
  }
  Expr copy = e;
  for (Expr& a : copy.args) a = with_source_row(a, merge, row);
  return copy;
}

// The plain statements a MERGE of VALUES rows does for its first row, the simpler forms it shrinks toward: the INSERT of
// its WHEN NOT MATCHED clause, and the UPDATE or DELETE of a WHEN MATCHED clause with the ON condition (and the
// clause's own) as its WHERE.
std::vector<Statement> merge_plain_forms(const Statement& m) {
  std::vector<Statement> out;
  if (m.merge_source.empty() && !m.values.empty()) {
    const std::vector<Expr>& row = m.values.front();
    for (const MergeWhen& w : m.merge_whens) {
      std::optional<Expr> where = with_source_row(*m.merge_on, m, row);
      if (w.condition) where = *where && with_source_row(*w.condition, m, row);
      if (w.action == MergeAction::Insert) {
        std::vector<Expr> values;
        for (const Expr& v : w.values) values.push_back(with_source_row(v, m, row));
        out.push_back(Statement::insert(m.table, w.columns, std::move(values)));
      } else if (w.action == MergeAction::Update) {
        std::vector<Assignment> sets = w.assignments;
        for (Assignment& a : sets) a.value = with_source_row(a.value, m, row);
        out.push_back(Statement::update(m.table, std::move(sets), std::move(where)));
      } else if (w.action == MergeAction::Delete) {
        out.push_back(Statement::delete_(m.table, std::move(where)));
      }
    }
  }
  return out;
}

// A MERGE's one-step simplifications: toward a plain INSERT / UPDATE / DELETE, one WHEN clause or source row fewer, a
// WHEN clause without its AND condition.
std::vector<Statement> simpler_merges(const Statement& m) {
  std::vector<Statement> out = merge_plain_forms(m);
  for (std::size_t i = 0; i < m.merge_whens.size(); ++i) {
    if (m.merge_whens.size() > 1) {
      Statement fewer = m;
      fewer.merge_whens.erase(fewer.merge_whens.begin() + static_cast<std::ptrdiff_t>(i));
      out.push_back(std::move(fewer));
    }
    if (m.merge_whens[i].condition) {
      Statement plain = m;
      plain.merge_whens[i].condition.reset();
      out.push_back(std::move(plain));
    }
  }
  for (std::size_t r = 0; m.values.size() > 1 && r < m.values.size(); ++r) {
    Statement fewer = m;
    fewer.values.erase(fewer.values.begin() + static_cast<std::ptrdiff_t>(r));
    out.push_back(std::move(fewer));
  }
  return out;
}

// Without its WHERE or with a simpler one; a MERGE or an upsert toward a simpler statement.
void simpler_where_and_forms(const Statement& st, const std::function<void(Statement)>& with) {
  if (st.where) {
    Statement none = st;
    none.where.reset();
    with(none);
    for (auto& e : simpler_exprs(*st.where)) {
      Statement copy = st;
      copy.where = std::move(e);
      with(copy);
    }
  }
  if (st.is_merge())
    for (Statement& simpler : simpler_merges(st)) with(std::move(simpler));
  // An upsert toward the plain INSERT of its row (a DO UPDATE's WHERE and SET items shrink with the UPDATE's).
  if (st.is_upsert()) {
    Statement plain = st;
    plain.upsert = Upsert::None;
    plain.conflict_target.clear();
    plain.assignments.clear();
    plain.where.reset();
    with(plain);
  }
}

// Toward a read without a locking clause, one that waits, and FOR UPDATE / FOR SHARE.
void simpler_locks(const Statement& st, const std::function<void(Statement)>& with) {
  if (st.lock != LockMode::None) {
    Statement copy = st;
    copy.lock = LockMode::None;
    copy.lock_wait = LockWait::Wait;
    with(copy);
  }
  // NOWAIT / SKIP LOCKED toward a locking read that waits, a weaker strength toward FOR UPDATE / FOR SHARE.
  if (st.lock_wait != LockWait::Wait) {
    Statement copy = st;
    copy.lock_wait = LockWait::Wait;
    with(copy);
  }
  if (st.lock == LockMode::NoKeyUpdate || st.lock == LockMode::KeyShare) {
    Statement copy = st;
    copy.lock = st.lock == LockMode::NoKeyUpdate ? LockMode::Update : LockMode::Share;
    with(copy);
  }
}

// Toward one table: without a join, one written table, a plainer derived table or none.
void simpler_joins_and_derived_tables(const Statement& st, const std::function<void(Statement)>& with) {
  // A join toward one table (a WHERE naming the joined table's columns then fails validation and is dropped too);
  // a joined write loses the joined table's SET items with it.
  if (!st.joins.empty()) {
    Statement copy = st;
    copy.joins.clear();
    std::erase_if(copy.assignments, [&](const Assignment& a) { return !a.table.empty() && a.table != st.table; });
    with(copy);
    if (copy.where) {
      copy.where.reset();
      with(copy);
    }
  }
  // A joined UPDATE or DELETE toward one written table (the DELETE of two tables toward the one-table DELETE).
  if (st.written_tables().size() > 1) {
    Statement copy = st;
    std::erase_if(copy.assignments, [&](const Assignment& a) { return !a.table.empty() && a.table != st.table; });
    for (Join& j : copy.joins) j.deleted = false;
    with(copy);
  }
  // A derived table with GROUP BY or a join inside toward the plain derived table (SELECT * FROM t [WHERE]); the
  // outer WHERE goes with it where it names the grouped table's count, and so does a WHERE naming the joined table.
  if (st.derived_groups() || st.derived_joins()) {
    Statement copy = st;
    Statement& inner = copy.derived.front();
    inner.items.clear();
    inner.group_by.clear();
    inner.joins.clear();
    inner.own_columns = false;
    with(copy);
    inner.where.reset();
    with(copy);
    copy.where.reset();
    with(copy);
  }
  // A derived table toward the table itself: with the outer WHERE, or with the derived table's.
  if (!st.derived.empty()) {
    Statement copy = st;
    copy.derived.clear();
    copy.alias.clear();
    with(copy);
    copy.where = st.derived.front().where;
    with(copy);
  }
}

// Toward a plain SELECT: no scalar subqueries, aggregation, HAVING, ORDER BY ... LIMIT.
void simpler_select_lists(const Statement& st, const std::function<void(Statement)>& with) {
  // Scalar subqueries of the SELECT list: dropped, or each without its WHERE (uncorrelated).
  if (!st.select_exprs.empty()) {
    Statement copy = st;
    copy.select_exprs.clear();
    with(copy);
    for (std::size_t i = 0; i < st.select_exprs.size(); ++i)
      if (st.select_exprs[i].has_where) {
        Statement one = st;
        one.select_exprs[i].args.pop_back();
        one.select_exprs[i].has_where = false;
        with(one);
      }
  }
  // Toward a plain SELECT: no aggregation, no HAVING, no ORDER BY ... LIMIT.
  if (!st.items.empty()) {
    Statement copy = st;
    copy.items.clear();
    copy.group_by.clear();
    copy.having.reset();
    with(copy);
  }
  if (st.having) {
    Statement copy = st;
    copy.having.reset();
    with(copy);
  }
  if (!st.order_by.empty() || st.limit) {
    Statement copy = st;
    copy.order_by.clear();
    copy.limit.reset();
    with(copy);
  }
}

// Fewer SET items, and simpler SET and VALUES expressions.
void simpler_values(const Statement& st, const std::function<void(Statement)>& with) {
  if (st.assignments.size() > 1)
    for (std::size_t a = 0; a < st.assignments.size(); ++a) {
      Statement copy = st;
      copy.assignments.erase(copy.assignments.begin() + static_cast<std::ptrdiff_t>(a));
      with(copy);
    }
  for (std::size_t a = 0; a < st.assignments.size(); ++a)
    for (auto& e : simpler_exprs(st.assignments[a].value)) {
      Statement copy = st;
      copy.assignments[a].value = std::move(e);
      with(copy);
    }
  for (std::size_t r = 0; r < st.values.size(); ++r)
    for (std::size_t v = 0; v < st.values[r].size(); ++v)
      for (auto& e : simpler_exprs(st.values[r][v])) {
        Statement copy = st;
        copy.values[r][v] = std::move(e);
        with(copy);
      }
}

// Each statement toward a simpler one, one change at a time, in the order the candidates are tried.
void statement_simplifications(const TestCase& c, std::vector<TestCase>& out) {
  for (std::size_t t = 0; t < c.transactions.size(); ++t)
    for (std::size_t s = 0; s < c.transactions[t].statements.size(); ++s) {
      const Statement& st = c.transactions[t].statements[s];
      const std::function<void(Statement)> with = [&](Statement replacement) {
        TestCase copy = c;
        copy.transactions[t].statements[s] = std::move(replacement);
        out.push_back(std::move(copy));
      };
      simpler_where_and_forms(st, with);
      simpler_locks(st, with);
      simpler_joins_and_derived_tables(st, with);
      simpler_select_lists(st, with);
      simpler_values(st, with);
    }
}

void order_simplifications(const TestCase& c, std::vector<TestCase>& out) {
  const int switches = context_switches(c.order);
  if (switches <= static_cast<int>(c.transactions.size()) - 1) return;  // already serial
  // The serial order in which transactions end, and the one in which they start.
  std::vector<int> by_end, by_start;
  for (auto it = c.order.rbegin(); it != c.order.rend(); ++it)
    if (std::find(by_end.begin(), by_end.end(), *it) == by_end.end()) by_end.insert(by_end.begin(), *it);
  for (int t : c.order)
    if (std::find(by_start.begin(), by_start.end(), t) == by_start.end()) by_start.push_back(t);
  for (const auto& seq : {by_end, by_start}) {
    TestCase copy = c;
    copy.order.clear();
    for (int t : seq) copy.order.insert(copy.order.end(), c.transactions[static_cast<std::size_t>(t)].step_count(), t);
    if (copy.order != c.order) out.push_back(std::move(copy));
  }
  // One step moved next to its transaction's neighbouring step, where that removes context switches.
  for (std::size_t i = 1; i < c.order.size(); ++i) {
    if (c.order[i] == c.order[i - 1]) continue;
    // Move step i backwards past the run of other transactions' steps, right after the previous step of its own.
    std::size_t j = i;
    while (j > 0 && c.order[j - 1] != c.order[i]) --j;
    if (j == 0) continue;
    std::vector<int> order = c.order;
    const int t = order[i];
    order.erase(order.begin() + static_cast<std::ptrdiff_t>(i));
    order.insert(order.begin() + static_cast<std::ptrdiff_t>(j), t);
    if (context_switches(order) < switches) {
      TestCase copy = c;
      copy.order = std::move(order);
      out.push_back(std::move(copy));
    }
  }
}

void schema_simplifications(const TestCase& c, std::vector<TestCase>& out) {
  const auto tables = referenced_tables(c);
  const auto columns = referenced_columns(c);
  // A foreign key toward none (issue 17): its table and column stay; a parent's rows and the parent itself can go only
  // once nothing references them (validate() refuses the candidates that would leave a reference dangling).
  for (std::size_t i = 0; i < c.schema.tables.size(); ++i)
    for (std::size_t k = 0; k < c.schema.tables[i].foreign_keys.size(); ++k) {
      TestCase copy = c;
      auto& fks = copy.schema.tables[i].foreign_keys;
      fks.erase(fks.begin() + static_cast<std::ptrdiff_t>(k));
      out.push_back(std::move(copy));
      // Its actions toward none (NO ACTION), the ON UPDATE action first: the key stays, and no longer writes.
      for (const bool update : {true, false}) {
        TestCase plain = c;
        ForeignKey& fk = plain.schema.tables[i].foreign_keys[k];
        ReferentialAction& action = update ? fk.on_update : fk.on_delete;
        if (action == ReferentialAction::NoAction) continue;
        action = ReferentialAction::NoAction;
        out.push_back(std::move(plain));
      }
    }
  for (std::size_t i = 0; i < c.schema.tables.size(); ++i) {
    const Table& t = c.schema.tables[i];
    if (!tables.count(t.name) && c.schema.tables.size() > 1) {
      TestCase copy = c;
      copy.schema.tables.erase(copy.schema.tables.begin() + static_cast<std::ptrdiff_t>(i));
      out.push_back(std::move(copy));
    }
  }
  for (std::size_t i = 0; i < c.schema.tables.size(); ++i) {
    const Table& t = c.schema.tables[i];
    // Rows: all of them, then each one.
    if (t.rows.size() > 1) {
      TestCase copy = c;
      copy.schema.tables[i].rows.clear();
      out.push_back(std::move(copy));
    }
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
      TestCase copy = c;
      auto& rows = copy.schema.tables[i].rows;
      rows.erase(rows.begin() + static_cast<std::ptrdiff_t>(r));
      out.push_back(std::move(copy));
    }
  }
  for (std::size_t i = 0; i < c.schema.tables.size(); ++i) {
    const Table& t = c.schema.tables[i];
    for (std::size_t x = 0; x < t.indexes.size(); ++x) {
      TestCase copy = c;
      auto& idx = copy.schema.tables[i].indexes;
      idx.erase(idx.begin() + static_cast<std::ptrdiff_t>(x));
      out.push_back(std::move(copy));
    }
    if (!t.primary_key.empty()) {
      TestCase copy = c;
      copy.schema.tables[i].primary_key.clear();
      out.push_back(std::move(copy));
    }
    // A column nobody refers to, outside keys and indexes.
    for (std::size_t col = 0; col < t.columns.size() && t.columns.size() > 1; ++col) {
      const std::string& name = t.columns[col].name;
      if (columns.count({t.name, name})) continue;
      if (std::find(t.primary_key.begin(), t.primary_key.end(), name) != t.primary_key.end()) continue;
      if (std::any_of(t.indexes.begin(), t.indexes.end(), [&](const Index& x) {
            return std::find(x.columns.begin(), x.columns.end(), name) != x.columns.end();
          }))
        continue;
      TestCase copy = c;
      Table& ct = copy.schema.tables[i];
      ct.columns.erase(ct.columns.begin() + static_cast<std::ptrdiff_t>(col));
      for (Row& row : ct.rows) row.erase(row.begin() + static_cast<std::ptrdiff_t>(col));
      out.push_back(std::move(copy));
    }
  }
}

}  // namespace

// A SAVEPOINT with every later ROLLBACK TO / RELEASE of its name dropped together (dropped one at a time, the others
// would name no savepoint): toward the transaction without it.
void savepoint_simplifications(const TestCase& c, std::vector<TestCase>& out) {
  for (std::size_t t = 0; t < c.transactions.size(); ++t) {
    const auto& statements = c.transactions[t].statements;
    for (std::size_t s = 0; s < statements.size(); ++s) {
      if (statements[s].kind != StatementKind::Savepoint) continue;
      std::vector<std::size_t> drop = {s};
      const std::string& name = statements[s].savepoint;
      for (std::size_t j = s + 1; j < statements.size(); ++j) {
        if (statements[j].kind == StatementKind::Savepoint && statements[j].savepoint == name) break;  // set again
        if (statements[j].is_savepoint() && statements[j].savepoint == name) drop.push_back(j);
      }
      TestCase copy = c;
      for (auto it = drop.rbegin(); it != drop.rend(); ++it)
        copy = drop_statement(copy, static_cast<int>(t), static_cast<int>(*it));
      out.push_back(std::move(copy));
    }
  }
}

// The big cuts, tried before anything smaller (RapidCheck accepts the first candidate that still fails and starts
// over from the smaller case, so a cut that removes much at once saves the attempts of the steps it replaces):
// every pair of transactions alone, when there are three or more (an isolation anomaly usually needs two), and
// each transaction of three or more statements without the later half of them.
namespace {
void big_cuts(const TestCase& c, std::vector<TestCase>& out) {
  const std::size_t n = c.transactions.size();
  for (std::size_t i = 0; i < n && n > 2; ++i)
    for (std::size_t j = i + 1; j < n; ++j) {
      TestCase copy = c;
      for (std::size_t t = n; t-- > 0;)
        if (t != i && t != j) copy = drop_transaction(copy, static_cast<int>(t));
      out.push_back(std::move(copy));
    }
  for (std::size_t t = 0; t < n; ++t) {
    const std::size_t m = c.transactions[t].statements.size();
    if (m < 3) continue;
    TestCase copy = c;
    for (std::size_t s = m; s-- > (m + 1) / 2;) copy = drop_statement(copy, static_cast<int>(t), static_cast<int>(s));
    out.push_back(std::move(copy));
  }
}
}  // namespace

std::vector<TestCase> shrink_test_case(const TestCase& c) {
  std::vector<TestCase> out;
  big_cuts(c, out);
  for (std::size_t t = 0; t < c.transactions.size() && c.transactions.size() > 1; ++t)
    out.push_back(drop_transaction(c, static_cast<int>(t)));
  schema_simplifications(c, out);
  for (std::size_t t = 0; t < c.transactions.size(); ++t)
    for (std::size_t s = 0; s < c.transactions[t].statements.size(); ++s)
      out.push_back(drop_statement(c, static_cast<int>(t), static_cast<int>(s)));
  savepoint_simplifications(c, out);
  order_simplifications(c, out);
  statement_simplifications(c, out);
  for (std::size_t t = 0; t < c.transactions.size(); ++t)
    if (c.transactions[t].end == TxnEnd::Rollback) {
      TestCase copy = c;
      copy.transactions[t].end = TxnEnd::Commit;
      out.push_back(std::move(copy));
    }
  // A chained end toward a plain one, the two transactions each on a connection of its own again.
  for (std::size_t t = 0; t < c.transactions.size(); ++t)
    if (c.transactions[t].chain) {
      TestCase copy = c;
      copy.transactions[t].chain = false;
      for (Transaction& x : copy.transactions)
        if (x.session == c.transactions[t].session) x.session = -1;
      out.push_back(std::move(copy));
    }
  // Mixed levels: toward every transaction at the first one's level (the suite's).
  for (std::size_t t = 1; t < c.transactions.size(); ++t)
    if (c.transactions[t].isolation != c.transactions[0].isolation) {
      TestCase copy = c;
      copy.transactions[t].isolation = c.transactions[0].isolation;
      out.push_back(std::move(copy));
    }
  // A cluster's placement: toward fewer nodes, every transaction of a node moved to a lower node in use.
  std::set<int> used;
  for (const Transaction& t : c.transactions)
    if (t.node >= 0) used.insert(t.node);
  for (int from : used)
    for (int to : used) {
      if (to >= from) break;
      TestCase copy = c;
      for (Transaction& t : copy.transactions)
        if (t.node == from) t.node = to;
      out.push_back(std::move(copy));
    }
  // Removing a table's rows may leave an INSERT's key colliding with nothing, which is fine; removing a column or
  // table is only offered when nothing refers to it, so every candidate stays valid. Check anyway.
  std::erase_if(out, [](const TestCase& x) { return !x.validate().empty(); });
  return out;
}

}  // namespace txprop::gen
