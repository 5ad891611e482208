// Generation of schemas, transactions and submitted orders.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "draw.hpp"
#include "txprop/generators.hpp"

namespace txprop::gen {

namespace {

// Small value domains make transactions touch the same rows and values.
const std::vector<std::int64_t> kIntegers = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
const std::vector<double> kReals = {0.5, 1.0, 1.5, 2.5, 3.25, -0.5};
const std::vector<std::string> kTexts = {"a", "b", "c", "x", "y"};

Value random_value(Draw& d, ColumnType type) {
  switch (type) {
    case ColumnType::Integer: return Value(d.pick(kIntegers));
    case ColumnType::Real: return Value(d.pick(kReals));
    case ColumnType::Text: return Value(d.pick(kTexts));
    case ColumnType::Boolean: return Value(d.in_range(0, 1));
  }
  return Value();
}

// Scales a maximum with RapidCheck's size (0..100), keeping at least `floor`.
int scaled(int max, int size, int floor) { return std::max(floor, (max * std::min(size, 100) + 99) / 100); }

Table random_table(Draw& d, const Options& o, int index, int size) {
  Table t;
  t.name = fmt::format("t{}", index);
  const int ncol = d.in_range(o.min_columns, std::max(o.min_columns, o.max_columns));
  const bool has_pk = d.chance(0.75);
  for (int i = 0; i < ncol; ++i) {
    Column c;
    c.name = fmt::format("c{}", i);
    if (i == 0 && has_pk) {
      c.type = ColumnType::Integer;
      c.not_null = true;
    } else {
      const int r = d.in_range(0, 99);
      c.type = r < 60 ? ColumnType::Integer : (r < 80 ? ColumnType::Text : ColumnType::Real);
      c.not_null = d.chance(0.2);
      // BOOLEAN (issue 17 item 2): never the first column, so that a table keeps one the statement maker draws from;
      // nullable, so that the statements that leave it out (MERGE's INSERT) insert NULL there.
      if (i > 0 && o.booleans && d.chance(o.boolean_column_probability)) {
        c.type = ColumnType::Boolean;
        c.not_null = false;
      }
    }
    t.columns.push_back(c);
  }
  if (has_pk) t.primary_key = {"c0"};
  if (ncol > 1 && d.chance(0.2)) t.indexes.push_back(Index{fmt::format("{}_u", t.name), {"c1"}, true});
  if (ncol > 2 && d.chance(0.3)) t.indexes.push_back(Index{fmt::format("{}_i", t.name), {"c2"}, false});

  // Contention mode: at least one row, so that every case has a row to conflict on (see Anchor below).
  const int nrows = d.in_range(o.contention ? 1 : 0, std::max(o.contention ? 1 : 0, scaled(o.max_rows, size, 2)));
  std::set<Row> keys;  // values of every unique key seen, to keep initial rows valid
  for (int r = 0; r < nrows; ++r) {
    Row row;
    for (const Column& c : t.columns) {
      if (has_pk && c.name == "c0") row.emplace_back(static_cast<std::int64_t>(r + 1));
      else if (!c.not_null && d.chance(0.1)) row.emplace_back();
      else row.push_back(random_value(d, c.type));
    }
    bool clash = false;
    for (const Index& idx : t.indexes) {
      if (!idx.unique) continue;
      Row key{Value(idx.name)};
      for (const auto& col : idx.columns) key.push_back(row[*t.column_index(col)]);
      if (std::any_of(key.begin() + 1, key.end(), [](const Value& v) { return v.is_null(); })) continue;
      clash = clash || !keys.insert(key).second;
    }
    if (!clash) t.rows.push_back(std::move(row));
  }
  return t;
}

// Values of `column` in the table's initial rows (for predicates that hit existing rows).
std::vector<Value> existing_values(const Table& t, const std::string& column) {
  std::vector<Value> out;
  const auto idx = t.column_index(column);
  for (const Row& r : t.rows)
    if (!r[*idx].is_null()) out.push_back(r[*idx]);
  return out;
}

// Contention mode: one row of the initial state, named by a column's value in it, that every transaction touches with
// one statement (its anchored statement), the first transaction with a write. Measured on the engines
// (txprop_contention_bench), drawing tables and values from earlier statements alone left a third of the cases
// without a conflict: writes that matched nothing (empty tables, INSERTs of a key the initial rows already hold),
// writes to rows the other transactions did not touch, and (SQLite, MariaDB SERIALIZABLE) conflicts the engine ended
// before a row was touched.
struct Anchor {
  const Table* table = nullptr;
  const Column* column = nullptr;
  Value value;  // the row's value in `column` (never NULL)
  Row row;      // the whole row
};

std::optional<Anchor> pick_anchor(Draw& d, const Schema& s) {
  std::vector<const Table*> with_rows;
  for (const Table& t : s.tables)
    if (!t.rows.empty()) with_rows.push_back(&t);
  if (with_rows.empty()) return std::nullopt;
  const Table& t = *d.pick(with_rows);
  const Row& row = d.pick(t.rows);
  // The primary key names exactly that row; another column may name several rows, which is a conflict too.
  std::vector<std::size_t> named;
  for (std::size_t i = 0; i < t.columns.size(); ++i)
    if (!row[i].is_null()) named.push_back(i);
  if (named.empty()) return std::nullopt;
  std::size_t i = d.pick(named);
  if (!t.primary_key.empty() && d.chance(0.6)) i = *t.column_index(t.primary_key.front());
  return Anchor{&t, &t.columns[i], row[i], row};
}

class StatementMaker {
 public:
  StatementMaker(Draw& d, const Schema& s, const Options& o) : d_(d), schema_(s), o_(o) {}

  // A statement that touches the anchor's row, drawn with the usual weights (a write when `write`): a SELECT (plain
  // or locking), UPDATE or DELETE whose WHERE holds for the row in one of the usual forms (=, IN, BETWEEN, a bound, OR
  // with another comparison), or an INSERT of a row that has the anchor's value too (a phantom for the others'
  // predicates; not where the anchor's column is a key, whose value the row already holds). The first transaction's
  // anchored statement is an UPDATE or DELETE of the row itself.
  Statement anchored(const Anchor& a, bool write) {
    const Table& t = *a.table;
    const bool keyed = std::find(t.primary_key.begin(), t.primary_key.end(), a.column->name) != t.primary_key.end() ||
                       std::any_of(t.indexes.begin(), t.indexes.end(), [&](const Index& i) {
                         return i.unique && std::find(i.columns.begin(), i.columns.end(), a.column->name) != i.columns.end();
                       });
    std::vector<int> weights = {o_.weight_select, o_.weight_select_for_update, o_.weight_select_for_share,
                                write ? 0 : o_.weight_insert, o_.weight_update, o_.weight_delete};
    if (!o_.engine.locking_reads) weights[1] = weights[2] = 0;
    if (write) weights[0] = weights[1] = weights[2] = 0;
    Statement s;
    switch (d_.weighted(weights)) {
      case 0: s = Statement::select(t.name, anchor_predicate(a)); break;
      case 1: s = locking_select(t.name, anchor_predicate(a), LockMode::Update); break;
      case 2: s = locking_select(t.name, anchor_predicate(a), LockMode::Share); break;
      case 3: {
        // A row with the anchor's value, or, where that value is a key the row already holds, the anchor row's twin:
        // its other values under a key of its own.
        s = insert(t);
        auto set = [&](const std::string& column, const Value& v) {
          const auto at = std::find(s.columns.begin(), s.columns.end(), column);
          if (at == s.columns.end()) {
            s.columns.push_back(column);
            s.values.front().push_back(Expr::lit(v));
          } else {
            s.values.front()[static_cast<std::size_t>(at - s.columns.begin())] = Expr::lit(v);
          }
        };
        if (!keyed) {
          set(a.column->name, a.value);
        } else {
          for (std::size_t i = 0; i < t.columns.size(); ++i) {
            const std::string& c = t.columns[i].name;
            const bool unique = std::find(t.primary_key.begin(), t.primary_key.end(), c) != t.primary_key.end() ||
                                std::any_of(t.indexes.begin(), t.indexes.end(), [&](const Index& x) {
                                  return x.unique && std::find(x.columns.begin(), x.columns.end(), c) != x.columns.end();
                                });
            if (!unique && !a.row[i].is_null()) set(c, a.row[i]);
          }
        }
        break;
      }
      case 4: s = update(t); s.where = anchor_predicate(a); break;
      default: s = Statement::delete_(t.name, anchor_predicate(a)); break;
    }
    remember(s);
    return s;
  }

  Statement make() {
    std::vector<int> weights = {o_.weight_select, o_.weight_select_for_update, o_.weight_select_for_share,
                                o_.weight_insert, o_.weight_update, o_.weight_delete};
    if (!o_.engine.locking_reads) weights[1] = weights[2] = 0;
    const Table* t = &d_.pick(schema_.tables);
    if (o_.contention && !hot_tables_.empty() && d_.chance(o_.hot_table_probability))
      if (const Table* hot = schema_.find_table(d_.pick(hot_tables_))) t = hot;
    Statement s;
    switch (d_.weighted(weights)) {
      case 0:
        if (o_.rich_statements && d_.chance(o_.join_probability)) {
          if (auto j = join_select(*t)) {
            s = std::move(*j);
            break;
          }
        }
        if (o_.rich_statements && d_.chance(o_.derived_table_probability)) s = derived_select(*t);
        else if (o_.rich_statements && d_.chance(o_.aggregate_probability)) s = aggregate_select(*t);
        else if (o_.rich_statements && d_.chance(o_.order_limit_probability)) s = order_limit_select(*t);
        else s = Statement::select(t->name, maybe_predicate(*t));
        if (o_.rich_statements && s.items.empty() && s.derived.empty() && d_.chance(o_.select_subquery_probability))
          if (auto sub = select_subquery(*t)) s.select_exprs.push_back(std::move(*sub));
        break;
      case 1: s = locking_select(t->name, maybe_predicate(*t), LockMode::Update); break;
      case 2: s = locking_select(t->name, maybe_predicate(*t), LockMode::Share); break;
      case 3: s = merge_instead(*t) ? merge(*t) : insert(*t); break;
      case 4:
        if (merge_instead(*t)) {
          s = merge(*t);
          break;
        }
        if (o_.rich_statements && o_.joined_writes && o_.engine.update_join && d_.chance(o_.write_join_probability))
          if (auto j = joined_write(*t, StatementKind::Update)) {
            s = std::move(*j);
            break;
          }
        s = update(*t);
        break;
      default:
        if (o_.rich_statements && o_.joined_writes && o_.engine.delete_join && d_.chance(o_.write_join_probability))
          if (auto j = joined_write(*t, StatementKind::Delete)) {
            s = std::move(*j);
            break;
          }
        s = Statement::delete_(t->name, maybe_predicate(*t));
        break;
    }
    // Reads are remembered too: a later write to what an earlier transaction read is a conflict as well.
    if (o_.contention) remember(s);
    return s;
  }

  // LOCK TABLE t IN <mode> MODE [NOWAIT] of a table `statements` name (of any table when they name none).
  Statement lock_table(const std::vector<Statement>& statements) {
    std::vector<std::string> named;
    for (const Statement& s : statements)
      for (const std::string& t : s.tables())
        if (schema_.find_table(t)) named.push_back(t);
    Statement s;
    s.kind = StatementKind::LockTable;
    s.table = named.empty() ? d_.pick(schema_.tables).name : d_.pick(named);
    s.table_lock_mode = d_.pick(table_lock_modes());
    const auto& waits = o_.engine.lock_waits;
    if (std::find(waits.begin(), waits.end(), LockWait::NoWait) != waits.end() && d_.chance(o_.lock_table_nowait_probability))
      s.lock_wait = LockWait::NoWait;
    return s;
  }

 private:
  // SELECT ... FOR UPDATE / FOR SHARE, and where the suite turned lock options on, sometimes the engine's weaker
  // strength of the same kind (FOR NO KEY UPDATE, FOR KEY SHARE) and sometimes NOWAIT or SKIP LOCKED. Drawn only with
  // lock options on, so that generation without them is what it was.
  Statement locking_select(const std::string& table, std::optional<Expr> where, LockMode lock) {
    Statement s = Statement::select(table, std::move(where), lock);
    if (!o_.lock_options) return s;
    const LockMode weaker = lock == LockMode::Update ? LockMode::NoKeyUpdate : LockMode::KeyShare;
    if (std::find(o_.engine.lock_strengths.begin(), o_.engine.lock_strengths.end(), weaker) != o_.engine.lock_strengths.end() &&
        d_.chance(o_.lock_strength_probability))
      s.lock = weaker;
    if (!o_.engine.lock_waits.empty() && d_.chance(o_.lock_wait_probability)) s.lock_wait = d_.pick(o_.engine.lock_waits);
    return s;
  }

  // Contention mode: the tables and (column, value) pairs a statement named, for later statements to draw from. Each
  // value is kept under the table its column belongs to: a qualified column's, a joined table's SET's, never the
  // statement's table for what a subquery compares (its columns are another table's, maybe of another type: that
  // gave `c3 IN (0)` on a TEXT column, which PostgreSQL rejects; issue 23).
  void remember(const Statement& s) {
    if (std::find(hot_tables_.begin(), hot_tables_.end(), s.table) == hot_tables_.end()) hot_tables_.push_back(s.table);
    auto note = [&](const std::string& table, const std::string& column, const Expr& e) {
      if (e.kind == Expr::Kind::Literal && !e.literal.is_null())
        hot_values_[table.empty() ? s.table : table][column].push_back(e.literal);
    };
    std::function<void(const Expr&)> walk = [&](const Expr& e) {
      if (e.kind == Expr::Kind::Subquery || e.kind == Expr::Kind::Exists) return;  // another table's scope
      if (e.kind == Expr::Kind::InSubquery) return walk(e.args[0]);
      if (e.args.size() >= 2 && e.args[0].kind == Expr::Kind::Column)
        for (std::size_t i = 1; i < e.args.size(); ++i) note(e.args[0].table, e.args[0].column, e.args[i]);
      for (const Expr& a : e.args) walk(a);
    };
    if (s.where) walk(*s.where);
    for (const Assignment& a : s.assignments) note(a.table, a.column, a.value);
    for (const auto& row : s.values)
      for (std::size_t i = 0; i < row.size() && i < s.columns.size(); ++i) note("", s.columns[i], row[i]);
  }

  // Whether `v` is a value of `c`'s type (numbers for INTEGER and REAL columns, text for TEXT): what a predicate on the
  // column may compare it with, short of a cast no engine does alike.
  static bool of_type(const Value& v, const Column& c) {
    return c.type == ColumnType::Text ? v.type() == ValueType::Text : v.is_number();
  }

  Value value_for(const Table& t, const Column& c) {
    if (o_.contention) {
      const auto tv = hot_values_.find(t.name);
      if (tv != hot_values_.end())
        if (const auto cv = tv->second.find(c.name); cv != tv->second.end() && !cv->second.empty() &&
                                                        d_.chance(o_.hot_value_probability)) {
          std::vector<Value> typed;
          for (const Value& v : cv->second)
            if (of_type(v, c)) typed.push_back(v);
          if (!typed.empty()) return d_.pick(typed);
        }
    }
    if (d_.chance(o_.existing_value_probability)) {
      auto existing = existing_values(t, c.name);
      if (!existing.empty()) return d_.pick(existing);
    }
    return random_value(d_, c.type);
  }

  Expr anchor_predicate(const Anchor& a) {
    const Expr col = Expr::col(a.column->name);
    const Expr v = Expr::lit(a.value);
    const int r = d_.in_range(0, 99);
    if (r < 45) return Expr::binary(BinaryOp::Eq, col, v);
    if (r < 60) return Expr::in_list(col, {v, Expr::lit(value_for(*a.table, *a.column))});
    if (r < 70) {
      Value other = value_for(*a.table, *a.column);
      return other < a.value ? Expr::between(col, Expr::lit(other), v) : Expr::between(col, v, Expr::lit(other));
    }
    if (r < 80) return Expr::binary(d_.chance(0.5) ? BinaryOp::Le : BinaryOp::Ge, col, v);
    return Expr::binary(BinaryOp::Eq, col, v) || comparison(*a.table);
  }

  std::optional<Expr> maybe_predicate(const Table& t) {
    if (d_.chance(0.12)) return std::nullopt;  // whole table
    if (d_.chance(0.25)) {
      Expr a = comparison(t), b = comparison(t);
      return d_.chance(0.6) ? (std::move(a) && std::move(b)) : (std::move(a) || std::move(b));
    }
    if (d_.chance(0.05)) return Expr::not_(comparison(t));
    return comparison(t);
  }

  Expr comparison(const Table& t) {
    if (o_.truth_forms && d_.chance(o_.truth_form_probability)) return truth_form(t);
    if (o_.rich_statements && !plain_terms_ && d_.chance(o_.exists_probability))
      if (auto e = exists(t)) return std::move(*e);
    const Column& c = d_.pick(t.columns);
    Expr col = Expr::col(c.name);
    if (!plain_terms_ && d_.chance(o_.subquery_probability))
      if (auto sub = subquery(t, c)) return Expr::binary(d_.chance(0.5) ? BinaryOp::Eq : BinaryOp::Le, col, *sub);
    if (o_.rich_statements && !plain_terms_ && d_.chance(o_.in_subquery_probability))
      if (auto sub = subquery(t, c)) {  // the same candidates: another table's column of this type
        Expr in = Expr::in_subquery(col, sub->table, sub->column, sub->has_where ? std::optional<Expr>(sub->args.back()) : std::nullopt);
        return d_.chance(0.5) ? Expr::not_(std::move(in)) : in;
      }
    const int r = d_.in_range(0, 99);
    if (r < 45) return Expr::binary(BinaryOp::Eq, col, Expr::lit(value_for(t, c)));
    if (r < 70) {
      static const std::vector<BinaryOp> ops = {BinaryOp::Lt, BinaryOp::Le, BinaryOp::Gt, BinaryOp::Ge, BinaryOp::Ne};
      return Expr::binary(d_.pick(ops), col, Expr::lit(value_for(t, c)));
    }
    if (r < 80) {
      Value a = value_for(t, c), b = value_for(t, c);
      if (b < a) std::swap(a, b);
      return Expr::between(col, Expr::lit(a), Expr::lit(b));
    }
    if (r < 90) return Expr::in_list(col, {Expr::lit(value_for(t, c)), Expr::lit(value_for(t, c))});
    return Expr::is_null(col, d_.chance(0.5));
  }

  // SELECT [g,] agg(c), ... FROM t [WHERE p] [GROUP BY g [HAVING agg(c) op v] ORDER BY g [LIMIT n]]. SUM only over
  // integers (a float sum depends on the order rows are added in).
  Statement aggregate_select(const Table& t) {
    Statement s = Statement::select(t.name, maybe_predicate(t));
    const bool grouped = d_.chance(0.5);
    const Column& g = d_.pick(t.columns);
    if (grouped) {
      s.items.push_back(SelectItem{Aggregate::None, g.name, {}});
      s.group_by = {g.name};
    }
    auto aggregate = [&]() {
      const Column& c = d_.pick(t.columns);
      std::vector<Aggregate> choices = {Aggregate::Count, Aggregate::Min, Aggregate::Max};
      if (c.type == ColumnType::Integer) choices.push_back(Aggregate::Sum);
      return SelectItem{d_.pick(choices), c.name, {}};
    };
    s.items.push_back(aggregate());
    if (d_.chance(0.4)) s.items.push_back(aggregate());
    if (grouped) {
      if (d_.chance(0.4)) {
        const Column& c = d_.pick(t.columns);
        s.having = d_.chance(0.5) || c.type == ColumnType::Text
                       ? Expr::binary(BinaryOp::Gt, Expr::aggregate_of(Aggregate::Count, c.name), Expr::lit(Value(std::int64_t{d_.in_range(0, 1)})))
                       : Expr::binary(BinaryOp::Le, Expr::aggregate_of(Aggregate::Min, c.name), Expr::lit(value_for(t, c)));
      }
      s.order_by = {OrderItem{g.name, d_.chance(0.5)}};
      if (d_.chance(0.3)) s.limit = d_.in_range(1, 3);
    }
    return s;
  }

  // SELECT * FROM t [INNER | LEFT] JOIN u ON t.a = u.b [WHERE <predicate on t, qualified>]: every column qualified,
  // since both tables may have a column of that name.
  std::optional<Statement> join_select(const Table& t) {
    const auto pairs = join_pairs(t);
    if (pairs.empty()) return std::nullopt;
    const JoinPair& pair = d_.pick(pairs);
    Statement s = Statement::select(t.name);
    s.joins.push_back(Join{d_.chance(0.4), pair.other->name, join_condition(t, pair)});
    if (auto p = maybe_predicate(t)) s.where = qualify(std::move(*p), t.name);
    return s;
  }

  // While set, predicates and SET values have no subqueries: inside a joined write (MariaDB rejects a subquery on a
  // table the statement updates, error 1093, and which table an unqualified name in it means differs per engine) and
  // around a derived table (whose alias, not the table's name, is what a correlated subquery would have to name).
  struct PlainTerms {
    StatementMaker& m;
    bool was;
    explicit PlainTerms(StatementMaker& maker) : m(maker), was(maker.plain_terms_) { m.plain_terms_ = true; }
    ~PlainTerms() { m.plain_terms_ = was; }
  };

  // A join condition t.column = other.other_column between columns of one type.
  struct JoinPair {
    const Column* column;
    const Table* other;
    const Column* other_column;
  };
  std::vector<JoinPair> join_pairs(const Table& t) const {
    std::vector<JoinPair> pairs;
    for (const Table& u : schema_.tables)
      if (u.name != t.name)
        for (const Column& a : t.columns)
          for (const Column& b : u.columns)
            if (a.type == b.type) pairs.push_back({&a, &u, &b});
    return pairs;
  }
  static Expr join_condition(const Table& t, const JoinPair& p) {
    return Expr::binary(BinaryOp::Eq, Expr::qcol(t.name, p.column->name), Expr::qcol(p.other->name, p.other_column->name));
  }

  // UPDATE t JOIN u ON t.a = u.b SET t.x = ... [, u.y = ...] [WHERE <predicate on t>] and DELETE t FROM t JOIN u ON
  // ... (rendered as UPDATE ... FROM / DELETE ... USING for PostgreSQL): every column qualified, SET values only from
  // the written table's own columns and literals (a value taken from the joined row would depend on which of several
  // partners the engine picks), no subqueries.
  //
  // Neither table's join column is SET: MariaDB's multi-table UPDATE applies its changes to the first table of its
  // join order while it scans the join, so changing a join column changes which rows still join (observed on 10.11:
  // `UPDATE t1 JOIN t0 ON t1.c2 = t0.c1 SET t1.c1 = 0.0, t0.c1 = 0` changed 2 rows of t1 where the same join read just
  // before it returned 3). The rows such a statement writes then depend on the optimizer's join order, not on the
  // rows its predicate selects: non-deterministic by the statement's own semantics (MySQL manual, UPDATE: no order is
  // guaranteed for multiple-table updates; MySQL Bug #7590), outside what TxCheck's Assumption A3 (and every oracle's
  // model of a write) describes. Kept as tests/scenarios/mariadb_multi_table_update_sets_join_column.txn and documented
  // in the MariaDB profile (behaviour::kMultiTableUpdateSetsJoinColumn, Statement::sets_a_join_column).
  std::optional<Statement> joined_write(const Table& t, StatementKind kind) {
    PlainTerms plain(*this);
    Statement s = kind == StatementKind::Update ? update(t) : Statement::delete_(t.name, maybe_predicate(t));
    auto pairs = join_pairs(t);
    std::erase_if(pairs, [&](const auto& p) {
      return std::any_of(s.assignments.begin(), s.assignments.end(),
                         [&](const Assignment& x) { return x.column == p.column->name; });
    });
    if (pairs.empty()) return std::nullopt;
    const JoinPair& pair = d_.pick(pairs);
    const Table& u = *pair.other;
    s.joins.push_back(Join{false, u.name, join_condition(t, pair)});
    if (s.where) s.where = qualify(std::move(*s.where), t.name);
    for (Assignment& x : s.assignments) x.value = qualify(std::move(x.value), t.name);
    if (kind == StatementKind::Update && o_.engine.update_joined_table && d_.chance(o_.joined_table_update_probability)) {
      std::vector<const Column*> choices;
      for (const Column& c : u.columns)
        if (std::find(u.primary_key.begin(), u.primary_key.end(), c.name) == u.primary_key.end() &&
            c.name != pair.other_column->name)
          choices.push_back(&c);
      if (!choices.empty()) {
        const Column& c = *d_.pick(choices);
        // A unique column gets a literal (see update()).
        Expr value = c.type != ColumnType::Text && !unique_column(u, c) && d_.chance(0.4)
                         ? Expr::binary(BinaryOp::Add, Expr::qcol(u.name, c.name),
                                        Expr::lit(c.type == ColumnType::Integer ? Value(1) : Value(0.5)))
                         : Expr::lit(value_for(u, c));
        s.assignments.push_back(Assignment{c.name, std::move(value), u.name});
      }
    }
    // DELETE t, u FROM t JOIN u ON ...: each joined row of either table deleted once (the condition is read before
    // anything is deleted, so no scan-order effect as with a SET join column). Not where foreign keys link t and u:
    // InnoDB then deletes from them in the optimizer's join order, not the keys' parent/child order, so the same rows
    // give another affected-row count (a CASCADE or SET NULL already applied) or an error (RESTRICT, NO ACTION) with
    // another plan (MySQL 8.0 manual, DELETE: "the MySQL optimizer might process tables in an order that differs from
    // that of their parent/child relationship"; checked by hand on MariaDB 10.11.19: with t0 referenced by t1 ON
    // DELETE CASCADE, 3 rows affected joined from t0, 7 with STRAIGHT_JOIN from t1; ON DELETE RESTRICT: error 1451
    // from t0, 7 rows from t1). A replay on a fresh database may plan otherwise, so no oracle could compare it.
    if (kind == StatementKind::Delete && o_.engine.delete_joined_table && !schema_.linked_by_keys(t.name, u.name) &&
        d_.chance(o_.joined_table_delete_probability))
      s.joins.back().deleted = true;
    return s;
  }

  // SELECT * | aggregates FROM (SELECT * FROM t [WHERE p] [ORDER BY <every column> LIMIT n]) AS d [WHERE q]: the outer
  // statement names the derived table's columns unqualified. With Options::derived_inner_forms, also
  //   SELECT * FROM (SELECT c, COUNT(*) AS n FROM t [WHERE p] GROUP BY c) AS d [WHERE n > k | c op v]
  //   SELECT * | aggregates FROM (SELECT t.* FROM t INNER JOIN u ON t.a = u.b [WHERE p, qualified]) AS d [WHERE q]
  Statement derived_select(const Table& t) {
    PlainTerms plain(*this);
    // Half of the derived tables take a new inner form: a join where t has a join partner (three times in four: only
    // schemas of two or more tables have one), GROUP BY otherwise.
    if (o_.derived_inner_forms && d_.chance(0.5)) {
      const auto pairs = join_pairs(t);
      if (!pairs.empty() && d_.chance(0.75)) {
        const JoinPair& pair = d_.pick(pairs);
        Statement inner = Statement::select(t.name);
        inner.own_columns = true;
        inner.joins.push_back(Join{false, pair.other->name, join_condition(t, pair)});
        if (auto p = maybe_predicate(t)) inner.where = qualify(std::move(*p), t.name);
        Statement s = d_.chance(0.35) ? aggregate_select(t) : Statement::select(t.name, maybe_predicate(t));
        s.derived.push_back(std::move(inner));
        s.alias = "d";
        return s;
      }
      const Column& c = d_.pick(t.columns);
      Statement inner = Statement::select(t.name, maybe_predicate(t));
      inner.items = {SelectItem{Aggregate::None, c.name, {}}, SelectItem{Aggregate::Count, "*", "n"}};
      inner.group_by = {c.name};
      std::optional<Expr> where;
      const int r = d_.in_range(0, 99);
      if (r < 35) where = Expr::binary(BinaryOp::Gt, Expr::col("n"), Expr::lit(Value(std::int64_t{d_.in_range(0, 2)})));
      else if (r < 70) where = Expr::binary(d_.chance(0.5) ? BinaryOp::Eq : BinaryOp::Le, Expr::col(c.name), Expr::lit(value_for(t, c)));
      Statement s = Statement::select(t.name, std::move(where));
      s.derived.push_back(std::move(inner));
      s.alias = "d";
      return s;
    }
    Statement inner = d_.chance(0.3) ? order_limit_select(t) : Statement::select(t.name, maybe_predicate(t));
    Statement s = d_.chance(0.35) ? aggregate_select(t) : Statement::select(t.name, maybe_predicate(t));
    s.derived.push_back(std::move(inner));
    s.alias = "d";
    return s;
  }

  // (SELECT MIN|MAX|COUNT(u.c) FROM u [WHERE u.c = t.x | u.c op literal]) for a SELECT list: one value per row of t,
  // correlated half the time.
  std::optional<Expr> select_subquery(const Table& t) {
    const auto pairs = join_pairs(t);
    if (pairs.empty()) return std::nullopt;
    const JoinPair& pair = d_.pick(pairs);
    const Table& u = *pair.other;
    const Column& c = *pair.other_column;
    std::optional<Expr> where;
    const int r = d_.in_range(0, 99);
    if (r < 50) where = Expr::binary(BinaryOp::Eq, Expr::qcol(u.name, c.name), Expr::qcol(t.name, pair.column->name));
    else if (r < 80) where = Expr::binary(d_.chance(0.5) ? BinaryOp::Gt : BinaryOp::Le, Expr::qcol(u.name, c.name), Expr::lit(value_for(u, c)));
    static const std::vector<Aggregate> aggregates = {Aggregate::Min, Aggregate::Max, Aggregate::Count};
    return Expr::subquery(d_.pick(aggregates), u.name, c.name, std::move(where));
  }

  // Qualifies the statement-level column references of `e` (not those inside subqueries) with `table`.
  static Expr qualify(Expr e, const std::string& table) {
    if (e.kind == Expr::Kind::Column && e.table.empty()) e.table = table;
    if (e.kind == Expr::Kind::Subquery || e.kind == Expr::Kind::Exists) return e;
    for (std::size_t i = 0; i < e.args.size(); ++i) {
      if (e.kind == Expr::Kind::InSubquery && i > 0) break;  // the subquery's own WHERE
      e.args[i] = qualify(std::move(e.args[i]), table);
    }
    return e;
  }

  // SELECT * FROM t [WHERE p] ORDER BY c [DESC], <every other column> LIMIT n: ties are broken by whole rows, so
  // which rows are returned does not depend on the engine's physical order.
  Statement order_limit_select(const Table& t) {
    Statement s = Statement::select(t.name, maybe_predicate(t));
    const Column& first = d_.pick(t.columns);
    s.order_by.push_back(OrderItem{first.name, d_.chance(0.5)});
    for (const Column& c : t.columns)
      if (c.name != first.name) s.order_by.push_back(OrderItem{c.name, false});
    s.limit = d_.in_range(1, 3);
    return s;
  }

  // [NOT] EXISTS (SELECT 1 FROM other [WHERE other.x = own.y | other.x op literal]): another table only (MariaDB
  // rejects an UPDATE/DELETE reading its own table in a subquery, error 1093); every column qualified, so that no name
  // resolves to the wrong scope.
  std::optional<Expr> exists(const Table& own) {
    std::vector<const Table*> others;
    for (const Table& t : schema_.tables)
      if (t.name != own.name) others.push_back(&t);
    if (others.empty()) return std::nullopt;
    const Table& inner = *d_.pick(others);
    const Column& ic = d_.pick(inner.columns);
    std::optional<Expr> where;
    const int r = d_.in_range(0, 99);
    if (r < 50) {
      std::vector<const Column*> same;
      for (const Column& c : own.columns)
        if (c.type == ic.type) same.push_back(&c);
      if (!same.empty()) {
        static const std::vector<BinaryOp> ops = {BinaryOp::Eq, BinaryOp::Eq, BinaryOp::Lt, BinaryOp::Ne};
        where = Expr::binary(d_.pick(ops), Expr::qcol(inner.name, ic.name), Expr::qcol(own.name, d_.pick(same)->name));
      }
    } else if (r < 85) {
      static const std::vector<BinaryOp> ops = {BinaryOp::Eq, BinaryOp::Gt, BinaryOp::Le};
      where = Expr::binary(d_.pick(ops), Expr::qcol(inner.name, ic.name), Expr::lit(value_for(inner, ic)));
    }
    return Expr::exists(inner.name, std::move(where), d_.chance(0.4));
  }

  // (SELECT MIN|MAX(col) FROM other) over another table's column of the same type. Never the statement's own
  // table: MySQL rejects an UPDATE/DELETE that reads its target table in a subquery (error 1093).
  std::optional<Expr> subquery(const Table& own, const Column& like) {
    std::vector<std::pair<const Table*, const Column*>> candidates;
    for (const Table& t : schema_.tables)
      if (t.name != own.name)
        for (const Column& c : t.columns)
          if (c.type == like.type) candidates.emplace_back(&t, &c);
    if (candidates.empty()) return std::nullopt;
    const auto& [t, c] = d_.pick(candidates);
    std::optional<Expr> where;
    if (d_.chance(0.5)) where = Expr::binary(BinaryOp::Gt, Expr::col(c->name), Expr::lit(random_value(d_, c->type)));
    return Expr::subquery(d_.chance(0.5) ? Aggregate::Min : Aggregate::Max, t->name, c->name, std::move(where));
  }

  Statement insert(const Table& t) {
    // Drawn first, and only where upserts are on, so that generation without them is what it was.
    const Upsert upsert = upsert_form(t);
    std::vector<std::string> columns;
    std::vector<Expr> values;
    for (const Column& c : t.columns) {
      const bool key = std::find(t.primary_key.begin(), t.primary_key.end(), c.name) != t.primary_key.end();
      if (!key && !c.not_null && d_.chance(0.15)) continue;  // left out: NULL
      columns.push_back(c.name);
      if (key) {
        // Mostly a fresh key; sometimes an existing one (a unique violation, or a wait on its lock). An upsert mostly
        // names an existing key: its conflict is what it is about.
        if (d_.chance(upsert == Upsert::None ? 0.7 : 0.3)) values.push_back(Expr::lit(static_cast<std::int64_t>(100 + next_key_++)));
        else values.push_back(Expr::lit(value_for(t, c)));
      } else if (!c.not_null && d_.chance(0.05)) {
        values.push_back(Expr::lit(Value()));
      } else {
        values.push_back(Expr::lit(value_for(t, c)));
      }
    }
    if (columns.empty()) {  // every column was optional and left out; an INSERT needs at least one
      columns.push_back(t.columns.front().name);
      values.push_back(Expr::lit(value_for(t, t.columns.front())));
    }
    Statement s = Statement::insert(t.name, std::move(columns), std::move(values));
    if (upsert != Upsert::None) make_upsert(t, upsert, s);
    return s;
  }

  // A predicate term in one of the truth forms (Options::truth_forms), over one column and values of its type, except
  // where the cast makes the type: CAST(integer AS TEXT) compares with the text of a value, CAST(c AS REAL) with a
  // number (text columns are cast to TEXT only: CAST('a' AS REAL) is an error on PostgreSQL and 0 on MariaDB).
  Expr truth_form(const Table& t) {
    const Column& c = d_.pick(t.columns);
    const Value v = value_for(t, c);
    static const std::vector<BinaryOp> ops = {BinaryOp::Eq, BinaryOp::Gt, BinaryOp::Le, BinaryOp::Ne};
    Expr cmp = Expr::binary(d_.pick(ops), Expr::col(c.name), Expr::lit(v));
    switch (d_.in_range(0, 3)) {
      case 0: return Expr::binary(BinaryOp::Eq, std::move(cmp), Expr::boolean(d_.chance(0.7)));
      case 1: return Expr::is_truth(std::move(cmp), d_.chance(0.6), d_.chance(0.4));
      case 2: return Expr::is_distinct(Expr::col(c.name), Expr::lit(d_.chance(0.2) ? Value() : v), d_.chance(0.6));
      default:
        if (c.type == ColumnType::Integer && d_.chance(0.5))
          return Expr::binary(BinaryOp::Eq, Expr::cast(Expr::col(c.name), ValueType::Text),
                              Expr::lit(Value(v.is_null() ? std::string("0") : v.to_string())));
        if (c.type == ColumnType::Text) return Expr::binary(BinaryOp::Eq, Expr::cast(Expr::col(c.name), ValueType::Text), Expr::lit(v));
        return Expr::binary(d_.pick(ops), Expr::cast(Expr::col(c.name), ValueType::Real), Expr::lit(v));
    }
  }

  // Whether this INSERT or UPDATE of `t` is a MERGE instead: drawn only where the suite and the server have MERGE, so
  // that generation without them is what it was.
  bool merge_instead(const Table& t) {
    return o_.merge && o_.engine.merge && !t.primary_key.empty() && d_.chance(o_.merge_probability);
  }

  // MERGE INTO t USING (VALUES ...) AS src(src_c0, ...) ON t.k = src.src_k WHEN ...: the source's columns are named
  // apart from the target's, so that a bare column in a WHEN condition or SET is the target's (PostgreSQL rejects an
  // ambiguous one). Source rows have distinct keys (a target row matched twice fails with 21000, "MERGE command cannot
  // affect row a second time") and no NULLs (VALUES would type a column of NULLs as text).
  Statement merge(const Table& t) {
    Statement s;
    s.kind = StatementKind::Merge;
    s.table = t.name;
    s.alias = "src";
    for (const Column& c : t.columns) s.columns.push_back("src_" + c.name);
    const std::string& key = t.primary_key.front();
    std::set<Value> keys;
    for (int r = d_.chance(0.7) ? 1 : 2; r > 0; --r) {
      std::vector<Expr> row;
      for (const Column& c : t.columns) {
        Value v = c.name == key && d_.chance(0.4) ? Value(static_cast<std::int64_t>(100 + next_key_++)) : value_for(t, c);
        if (v.is_null()) v = random_value(d_, c.type);
        if (c.name == key && !keys.insert(v).second) v = Value(static_cast<std::int64_t>(100 + next_key_++));
        row.push_back(Expr::lit(v));
      }
      s.values.push_back(std::move(row));
    }
    s.merge_on = Expr::binary(BinaryOp::Eq, Expr::qcol(t.name, key), Expr::qcol("src", "src_" + key));
    s.merge_whens.push_back(merge_matched(t, d_.chance(0.35)));
    if (s.merge_whens.back().condition && d_.chance(0.5)) s.merge_whens.push_back(merge_matched(t, false));
    if (d_.chance(0.85)) {
      MergeWhen insert;
      insert.matched = false;
      insert.action = MergeAction::Insert;
      for (const Column& c : t.columns) {
        insert.columns.push_back(c.name);
        insert.values.push_back(Expr::qcol("src", "src_" + c.name));
      }
      s.merge_whens.push_back(std::move(insert));
    }
    return s;
  }

  // WHEN MATCHED [AND <predicate over the target's columns>] THEN UPDATE SET ... | DELETE | DO NOTHING. The SET names
  // no unique column: two source rows setting unique values could then fail or not by the order MERGE visits them.
  MergeWhen merge_matched(const Table& t, bool with_condition) {
    MergeWhen w;
    if (with_condition) {
      PlainTerms plain(*this);
      w.condition = comparison(t);
    }
    std::vector<const Column*> settable;
    for (const Column& c : t.columns)
      if (!unique_column(t, c)) settable.push_back(&c);
    const int r = d_.in_range(0, 99);
    if (r < 60 && !settable.empty()) {
      w.action = MergeAction::Update;
      const Column& c = *d_.pick(settable);
      Expr value = Expr::lit(value_for(t, c));
      if (d_.chance(0.5)) value = Expr::qcol("src", "src_" + c.name);
      else if (c.type != ColumnType::Text && d_.chance(0.5))
        value = Expr::binary(BinaryOp::Add, Expr::col(c.name), Expr::lit(c.type == ColumnType::Integer ? Value(1) : Value(0.5)));
      if (value.kind == Expr::Kind::Literal && value.literal.is_null() && c.not_null) value = Expr::lit(random_value(d_, c.type));
      w.assignments.push_back(Assignment{c.name, std::move(value), {}});
    } else {
      w.action = r < 85 ? MergeAction::Delete : MergeAction::DoNothing;
    }
    return w;
  }

  // The upsert form of an INSERT into `t`, or None: only where the suite turned upserts on, the engine has a form,
  // and the primary key is the table's only unique key (so that ON CONFLICT (k), which arbitrates that key only, and
  // MariaDB's ON DUPLICATE KEY UPDATE, which takes any unique key, mean the same).
  Upsert upsert_form(const Table& t) {
    if (!o_.upserts || o_.engine.upserts.empty() || t.primary_key.empty() ||
        std::any_of(t.indexes.begin(), t.indexes.end(), [](const Index& i) { return i.unique; }))
      return Upsert::None;
    if (!d_.chance(o_.upsert_probability)) return Upsert::None;
    return d_.pick(o_.engine.upserts);
  }

  void make_upsert(const Table& t, Upsert form, Statement& s) {
    std::vector<const Column*> settable;
    for (const Column& c : t.columns)
      if (std::find(t.primary_key.begin(), t.primary_key.end(), c.name) == t.primary_key.end()) settable.push_back(&c);
    if (form == Upsert::DoUpdate && settable.empty()) return;  // nothing to update: a plain INSERT
    s.upsert = form;
    if (form == Upsert::DoNothing || form == Upsert::DoUpdate) s.conflict_target = t.primary_key;
    if (form != Upsert::DoUpdate) return;
    const int n = d_.in_range(1, std::min<int>(2, static_cast<int>(settable.size())));
    const std::size_t first = static_cast<std::size_t>(d_.in_range(0, static_cast<int>(settable.size()) - 1));
    for (int i = 0; i < n; ++i) {
      const Column& c = *settable[(first + static_cast<std::size_t>(i)) % settable.size()];
      s.assignments.push_back(Assignment{c.name, upsert_value(t, c), {}});
    }
    if (o_.engine.upsert_update_where && d_.chance(o_.upsert_where_probability)) {
      // The existing row's column (qualified: PostgreSQL finds a bare one ambiguous) against the proposed value or
      // a literal: e.g. WHERE t.v < EXCLUDED.v, the "keep the newest" idiom.
      const Column& c = *d_.pick(settable);
      const BinaryOp op = d_.pick(std::vector<BinaryOp>{BinaryOp::Lt, BinaryOp::Ne, BinaryOp::Ge});
      s.where = Expr::binary(op, Expr::qcol(t.name, c.name),
                             d_.chance(0.6) ? Expr::excluded(c.name) : Expr::lit(value_for(t, c)));
    }
  }

  // A DO UPDATE value: the proposed value, the existing one combined with it (a counter: v = t.v + EXCLUDED.v), the
  // existing one incremented, or a literal.
  Expr upsert_value(const Table& t, const Column& c) {
    const int r = d_.in_range(0, 99);
    if (r < 40) return Expr::excluded(c.name);
    if (r < 65) return Expr::binary(c.type == ColumnType::Text ? BinaryOp::Concat : BinaryOp::Add,
                                    Expr::qcol(t.name, c.name), Expr::excluded(c.name));
    if (r < 80 && c.type != ColumnType::Text)
      return Expr::binary(BinaryOp::Add, Expr::qcol(t.name, c.name), Expr::lit(static_cast<std::int64_t>(1)));
    return Expr::lit(value_for(t, c));
  }

  static bool unique_column(const Table& t, const Column& c) {
    if (std::find(t.primary_key.begin(), t.primary_key.end(), c.name) != t.primary_key.end()) return true;
    return std::any_of(t.indexes.begin(), t.indexes.end(), [&](const Index& i) {
      return i.unique && std::find(i.columns.begin(), i.columns.end(), c.name) != i.columns.end();
    });
  }

  Statement update(const Table& t) {
    std::vector<Assignment> sets;
    const int n = d_.chance(0.7) ? 1 : 2;
    std::vector<const Column*> choices;
    for (const Column& c : t.columns) {
      const bool key = std::find(t.primary_key.begin(), t.primary_key.end(), c.name) != t.primary_key.end();
      if (!key || d_.chance(o_.primary_key_update_probability)) choices.push_back(&c);
    }
    if (choices.empty()) choices.push_back(&t.columns.front());
    for (int i = 0; i < n && !choices.empty(); ++i) {
      const std::size_t k = static_cast<std::size_t>(d_.in_range(0, static_cast<int>(choices.size()) - 1));
      const Column& c = *choices[k];
      choices.erase(choices.begin() + static_cast<std::ptrdiff_t>(k));
      Expr value = Expr::lit(value_for(t, c));
      // A column of the primary key or of a unique index gets a literal: a value computed from the row (c = c + 1,
      // CASE ... ELSE c, a correlated subquery) makes whether the UPDATE fails on a duplicate key depend on the order
      // it visits the rows in, since engines check uniqueness row by row (MySQL 8.0 manual, UPDATE: "UPDATE t SET id =
      // id + 1" "could fail with a duplicate-key error, depending on the order in which rows are updated"; PostgreSQL
      // checks a non-deferrable unique constraint after every row too). On MariaDB the order is the plan's: found by
      // the Wss suite, tests/scenarios/mariadb_update_unique_column_outcome_depends_on_plan.txn. With a literal the
      // rows' new keys do not depend on the order, so neither does a duplicate.
      if (unique_column(t, c)) {
        sets.push_back(Assignment{c.name, std::move(value), {}});
        continue;
      }
      if (c.type != ColumnType::Text && d_.chance(0.35))
        value = Expr::binary(BinaryOp::Add, Expr::col(c.name),
                             Expr::lit(c.type == ColumnType::Integer ? Value(1) : Value(0.5)));
      else if (!plain_terms_ && d_.chance(o_.subquery_probability))
        if (auto sub = subquery(t, c)) value = std::move(*sub);
      if (c.not_null && value.kind == Expr::Kind::Subquery)  // MIN over an empty table is NULL
        value = Expr::lit(value_for(t, c));
      if (o_.rich_statements && d_.chance(o_.case_probability))
        value = Expr::case_(comparison(t), std::move(value), Expr::col(c.name));
      sets.push_back(Assignment{c.name, std::move(value), {}});
    }
    return Statement::update(t.name, std::move(sets), maybe_predicate(t));
  }

  Draw& d_;
  const Schema& schema_;
  const Options& o_;
  int next_key_ = 0;
  bool plain_terms_ = false;
  std::vector<std::string> hot_tables_;
  std::map<std::string, std::map<std::string, std::vector<Value>>> hot_values_;
};

std::vector<int> random_interleaving(Draw& d, const std::vector<Transaction>& transactions) {
  std::vector<int> remaining;
  int total = 0;
  for (const auto& t : transactions) {
    remaining.push_back(static_cast<int>(t.step_count()));
    total += remaining.back();
  }
  // Picking a transaction with probability proportional to its remaining steps is uniform over interleavings.
  std::vector<int> order;
  order.reserve(static_cast<std::size_t>(total));
  while (total > 0) {
    int r = d.in_range(0, total - 1);
    std::size_t t = 0;
    while (r >= remaining[t]) r -= remaining[t++];
    order.push_back(static_cast<int>(t));
    --remaining[t];
    --total;
  }
  return order;
}

// Contention mode: every transaction begins and runs its first statement before any transaction runs its second
// statement or ends, so that all of them overlap in time; the rest is a uniformly random interleaving.
std::vector<int> overlapping_interleaving(Draw& d, const std::vector<Transaction>& transactions) {
  if (std::any_of(transactions.begin(), transactions.end(), [](const Transaction& t) { return t.statements.empty(); }))
    return random_interleaving(d, transactions);
  std::vector<int> order;
  std::vector<Transaction> rest = transactions;
  for (std::size_t t = 0; t < transactions.size(); ++t) order.push_back(static_cast<int>(t));  // BEGIN
  for (std::size_t t = 0; t < transactions.size(); ++t) {
    order.push_back(static_cast<int>(t));  // the first statement (every generated transaction has one)
    rest[t].statements.erase(rest[t].statements.begin());
  }
  std::vector<int> tail = random_interleaving(d, rest);
  // random_interleaving counts step_count() = statements + 2 per transaction; one of those (BEGIN) was taken above.
  std::vector<int> seen(transactions.size(), 0);
  for (int t : tail) {
    if (seen[static_cast<std::size_t>(t)]++ == 0) continue;  // drop one step per transaction: its BEGIN came first
    order.push_back(t);
  }
  return order;
}

// Makes the initial rows of `t` satisfy `fk` (one column, referencing `parent`): a value no parent row has becomes one
// a parent row has, or NULL where the parent has no rows; a NOT NULL row with nothing to reference is dropped.
void fit_rows_to_foreign_key(Draw& d, Table& t, const Table& parent, const ForeignKey& fk) {
  const std::size_t col = *t.column_index(fk.columns.front());
  const std::vector<Value> keys = existing_values(parent, fk.referenced.front());
  std::vector<Row> kept;
  for (Row& row : t.rows) {
    if (!row[col].is_null() && std::find(keys.begin(), keys.end(), row[col]) == keys.end()) {
      if (!keys.empty()) row[col] = d.pick(keys);
      else if (t.columns[col].not_null) continue;
      else row[col] = Value();
    }
    kept.push_back(std::move(row));
  }
  t.rows = std::move(kept);
}

// Foreign keys (issue 17): table i > 0 references, with foreign_key_probability, an earlier table's primary key from
// one of its INTEGER columns outside its keys and unique indexes (changing a row's value there to fit the parent's
// keys cannot make two rows clash), with an ON DELETE and an ON UPDATE action drawn; SET NULL only on a nullable
// column. Every engine here has each action on update as on delete (PostgreSQL 15 manual 5.4.5, SQLite
// foreignkeys.html section 4.3, MariaDB KB "Foreign Keys"); they fire when an UPDATE changes the parent's key
// (Options::primary_key_update_probability).
ReferentialAction draw_action(Draw& d, const Column& column, const std::vector<int>& weights) {
  static const std::vector<ReferentialAction> kActions = {ReferentialAction::Cascade, ReferentialAction::Restrict,
                                                          ReferentialAction::NoAction, ReferentialAction::SetNull};
  const ReferentialAction action = kActions[d.weighted(weights)];
  return action == ReferentialAction::SetNull && column.not_null ? ReferentialAction::Cascade : action;
}

void add_foreign_keys(Draw& d, const Options& o, Schema& s) {
  for (std::size_t i = 1; i < s.tables.size(); ++i) {
    if (!d.chance(o.foreign_key_probability)) continue;
    std::vector<const Table*> parents;
    for (std::size_t p = 0; p < i; ++p)
      if (!s.tables[p].primary_key.empty()) parents.push_back(&s.tables[p]);
    Table& t = s.tables[i];
    std::vector<const Column*> columns;
    for (const Column& c : t.columns) {
      const bool keyed = std::find(t.primary_key.begin(), t.primary_key.end(), c.name) != t.primary_key.end() ||
                         std::any_of(t.indexes.begin(), t.indexes.end(), [&](const Index& x) {
                           return x.unique && std::find(x.columns.begin(), x.columns.end(), c.name) != x.columns.end();
                         });
      if (c.type == ColumnType::Integer && !keyed) columns.push_back(&c);
    }
    if (parents.empty() || columns.empty()) continue;
    const Table& parent = *d.pick(parents);
    const Column& column = *d.pick(columns);
    ReferentialAction on_delete = draw_action(d, column, {40, 20, 15, 25});
    ReferentialAction on_update = draw_action(d, column, {25, 15, 45, 15});
    if (o.foreign_key_no_writes || (o.foreign_key_writes_recorded_only && !o.engine.cascaded_writes_unrecorded.empty()))
      for (ReferentialAction* a : {&on_delete, &on_update})
        *a = *a == ReferentialAction::Cascade ? ReferentialAction::Restrict
             : *a == ReferentialAction::SetNull ? ReferentialAction::NoAction
                                                : *a;
    ForeignKey fk{{column.name}, parent.name, parent.primary_key, on_delete, on_update};
    fit_rows_to_foreign_key(d, t, parent, fk);
    t.foreign_keys.push_back(std::move(fk));
  }
}

// Booleans (issue 17 item 2): the statement maker draws from each table without its BOOLEAN columns (every form it
// draws compares, computes or aggregates numbers and text, which PostgreSQL refuses on a boolean), and BooleanParts
// then gives a statement on a table with such columns their parts, comparing them only with TRUE / FALSE:
// a value for each in an INSERT, sometimes SET b = TRUE | FALSE | NOT b, and sometimes a WHERE term b = TRUE | FALSE,
// b IS [NOT] TRUE | FALSE or b IS NULL. Without BOOLEAN columns the schema is the same and nothing is drawn.
Schema without_booleans(const Schema& s) {
  Schema out = s;
  for (Table& t : out.tables) {
    std::vector<std::size_t> keep;
    for (std::size_t i = 0; i < t.columns.size(); ++i)
      if (t.columns[i].type != ColumnType::Boolean) keep.push_back(i);
    if (keep.size() == t.columns.size()) continue;
    std::vector<Column> columns;
    for (std::size_t i : keep) columns.push_back(t.columns[i]);
    for (Row& row : t.rows) {
      Row kept;
      for (std::size_t i : keep) kept.push_back(row[i]);
      row = std::move(kept);
    }
    t.columns = std::move(columns);
    std::erase_if(t.indexes, [&](const Index& x) {
      return std::any_of(x.columns.begin(), x.columns.end(), [&](const std::string& c) { return !t.find_column(c); });
    });
  }
  return out;
}

class BooleanParts {
 public:
  BooleanParts(Draw& d, const Schema& full, const Options& o) : d_(d), full_(full), o_(o) {}

  void add_to(Statement& s) {
    const Table* t = full_.find_table(s.table);
    if (!t || s.is_merge()) return;
    std::vector<std::string> booleans;
    for (const Column& c : t->columns)
      if (c.type == ColumnType::Boolean) booleans.push_back(c.name);
    if (booleans.empty()) return;
    if (s.kind == StatementKind::Insert) {
      for (const std::string& b : booleans) {
        if (std::find(s.columns.begin(), s.columns.end(), b) != s.columns.end()) continue;
        s.columns.push_back(b);
        for (auto& row : s.values) row.push_back(d_.chance(0.1) ? Expr::lit(Value()) : Expr::boolean(d_.chance(0.5)));
      }
      return;
    }
    // Single-table statements only: with a join or a derived table an unqualified name could be another table's.
    if (!s.joins.empty() || !s.derived.empty()) return;
    const std::string& b = d_.pick(booleans);
    if (s.kind == StatementKind::Update && d_.chance(o_.boolean_term_probability)) {
      const int r = d_.in_range(0, 2);
      s.assignments.push_back(Assignment{b, r == 2 ? Expr::not_(Expr::col(b)) : Expr::boolean(r == 1), ""});
    }
    if (s.kind != StatementKind::Insert && d_.chance(o_.boolean_term_probability)) {
      Expr term = term_on(b);
      if (!s.where) s.where = std::move(term);
      else s.where = d_.chance(0.7) ? (std::move(*s.where) && std::move(term)) : (std::move(*s.where) || std::move(term));
    }
  }

 private:
  Expr term_on(const std::string& b) {
    const int r = d_.in_range(0, 99);
    if (r < 50) return Expr::binary(d_.chance(0.8) ? BinaryOp::Eq : BinaryOp::Ne, Expr::col(b), Expr::boolean(d_.chance(0.5)));
    if (r < 85) return Expr::is_truth(Expr::col(b), d_.chance(0.5), d_.chance(0.3));
    return Expr::is_null(Expr::col(b), d_.chance(0.3));
  }

  Draw& d_;
  const Schema& full_;
  const Options& o_;
};

Schema make_schema(Draw& d, const Options& o, int size) {
  Schema s;
  // Mostly one or two tables: the studied bugs need at most two in 97% of cases (WriteCheck).
  const int n = std::clamp(d.in_range(0, 99) < 55 ? 1 : (d.in_range(0, 99) < 75 ? 2 : 3), o.min_tables, o.max_tables);
  for (int i = 0; i < n; ++i) s.tables.push_back(random_table(d, o, i, size));
  if (o.foreign_keys) add_foreign_keys(d, o, s);
  return s;
}

int transaction_count(Draw& d, const Options& o) {
  // Mostly 2-3 transactions, as in WriteCheck's generator.
  static const std::vector<int> weights = {0, 0, 45, 30, 15, 10};
  std::vector<int> w;
  for (int k = 0; k <= o.max_transactions; ++k)
    w.push_back(k < o.min_transactions ? 0 : (k < static_cast<int>(weights.size()) ? weights[static_cast<std::size_t>(k)] : 5));
  if (std::all_of(w.begin(), w.end(), [](int x) { return x == 0; })) return o.min_transactions;
  return static_cast<int>(d.weighted(w));
}

Transaction make_transaction(Draw& d, StatementMaker& maker, const Options& o, int size,
                             const std::optional<Anchor>& anchor = std::nullopt, bool anchor_write = false) {
  Transaction t;
  t.isolation = o.isolation;
  const int n = d.in_range(o.min_statements, std::max(o.min_statements, scaled(o.max_statements, size, o.min_statements)));
  // The anchored statement comes in addition to the drawn ones (in place of one when the transaction is already at
  // its size limit), so that the mix of the others stays what the weights say; mostly first, which the overlapping
  // interleaving runs while every transaction is open.
  const int max = std::max(o.min_statements, o.max_statements);
  const int total = !anchor ? n : std::min(n + 1, max);
  const int anchored_at = !anchor ? -1 : d.chance(0.7) ? 0 : d.in_range(0, total - 1);
  for (int i = 0; i < total; ++i)
    t.statements.push_back(i == anchored_at ? maker.anchored(*anchor, anchor_write) : maker.make());
  if (o.lock_tables && o.engine.lock_table && d.chance(o.lock_table_probability)) {
    const int at = d.chance(0.7) ? 0 : d.in_range(0, total);
    t.statements.insert(t.statements.begin() + at, maker.lock_table(t.statements));
  }
  if (o.savepoints && d.chance(o.savepoint_probability)) {
    // SAVEPOINT sp at position i (0..n-1: before a statement), its ROLLBACK TO / RELEASE after statement j >= i.
    const int i = d.in_range(0, total - 1);
    const int j = d.in_range(i + 1, total);
    const auto at = [&](int k) { return t.statements.begin() + k; };
    t.statements.insert(at(j), Statement::savepoint_statement(d.chance(o.rollback_to_probability)
                                                                   ? StatementKind::RollbackToSavepoint
                                                                   : StatementKind::ReleaseSavepoint,
                                                               "sp"));
    t.statements.insert(at(i), Statement::savepoint_statement(StatementKind::Savepoint, "sp"));
  }
  t.end = d.chance(o.rollback_probability) ? TxnEnd::Rollback : TxnEnd::Commit;
  return t;
}

}  // namespace

rc::Gen<Schema> schema(const Options& options) {
  return rc::Gen<Schema>([options](const rc::Random& random, int size) {
    Draw d(random);
    return rc::shrinkable::just(make_schema(d, options, size));
  });
}

rc::Gen<Transaction> transaction(const Schema& s, const Options& options) {
  return rc::Gen<Transaction>([s, options](const rc::Random& random, int size) {
    Draw d(random);
    const Schema drawn_from = without_booleans(s);
    StatementMaker maker(d, drawn_from, options);
    Transaction t = make_transaction(d, maker, options, size);
    BooleanParts booleans(d, s, options);
    for (Statement& st : t.statements) booleans.add_to(st);
    return rc::shrinkable::just(std::move(t));
  });
}

rc::Gen<std::vector<int>> submitted_order(const std::vector<Transaction>& transactions) {
  return rc::Gen<std::vector<int>>([transactions](const rc::Random& random, int) {
    Draw d(random);
    return rc::shrinkable::just(random_interleaving(d, transactions));
  });
}

// Transaction i ends AND CHAIN into i + 1: both on one connection, i + 1 at i's level, and i + 1's steps that were
// submitted before i's end moved right after it (the others' order stays).
void chain_pair(TestCase& c, std::size_t i) {
  const int a = static_cast<int>(i), b = a + 1;
  c.transactions[i].chain = true;
  c.transactions[i].session = c.transactions[i + 1].session = 0;
  c.transactions[i + 1].isolation = c.transactions[i].isolation;
  std::size_t left = c.transactions[i].step_count();
  std::vector<int> order, held;
  for (int t : c.order) {
    if (t == b && left > 0) {
      held.push_back(t);
      continue;
    }
    order.push_back(t);
    if (t == a && --left == 0) order.insert(order.end(), held.begin(), held.end());
  }
  c.order = std::move(order);
}

rc::Gen<TestCase> test_case(const Options& options) {
  return rc::Gen<TestCase>([options](const rc::Random& random, int size) {
    Draw d(random);
    TestCase c;
    c.schema = make_schema(d, options, size);
    const Schema drawn_from = without_booleans(c.schema);
    StatementMaker maker(d, drawn_from, options);
    BooleanParts booleans(d, c.schema, options);
    const int n = transaction_count(d, options);
    const std::optional<Anchor> anchor = options.contention ? pick_anchor(d, drawn_from) : std::nullopt;
    for (int i = 0; i < n; ++i) {
      c.transactions.push_back(make_transaction(d, maker, options, size, anchor, i == 0));
      for (Statement& s : c.transactions.back().statements) booleans.add_to(s);
      // Mixed levels: the first transaction keeps the suite's level, the others draw theirs.
      if (i > 0 && !options.mixed_levels.empty())
        c.transactions.back().isolation = d.pick(options.mixed_levels);
    }
    c.order = options.contention ? overlapping_interleaving(d, c.transactions) : random_interleaving(d, c.transactions);
    if (options.chains && options.engine.chain && n > 1 && d.chance(options.chain_probability))
      chain_pair(c, static_cast<std::size_t>(d.in_range(0, n - 2)));
    if (options.nodes > 1)
      for (std::size_t i = 0; i < c.transactions.size(); ++i)
        c.transactions[i].node = static_cast<int>(i % static_cast<std::size_t>(options.nodes));
    return rc::shrinkable::shrinkRecur(std::move(c), [](const TestCase& v) {
      return rc::seq::fromContainer(shrink_test_case(v));
    });
  });
}

int context_switches(const std::vector<int>& order) {
  int n = 0;
  for (std::size_t i = 1; i < order.size(); ++i) n += order[i] != order[i - 1];
  return n;
}

}  // namespace txprop::gen
