// Troc's oracle: walk the actual order, build each statement's view from the version history by its transaction's
// rules, run it alone on the view in the same engine, and compare (Troc section III-F, digest A7-A9).
#include <algorithm>
#include <functional>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "txprop/adya_instrumentation.hpp"
#include "txprop/comparison.hpp"
#include "txprop/driver.hpp"
#include "txprop/foreign_key_checks.hpp"
#include "txprop/sql.hpp"
#include "troc.hpp"

namespace txprop::troc {

namespace {

std::int64_t as_rid(const Value& v) {
  return v.type() == ValueType::Integer ? v.as_int() : static_cast<std::int64_t>(v.as_number());
}

bool has_subquery(const std::optional<Expr>& e) {
  if (!e) return false;
  std::vector<std::string> tables;
  e->collect_subquery_tables(tables);
  return !tables.empty();
}


// The tables read by subqueries of `s` (in WHERE, HAVING, SET, VALUES, join conditions, the SELECT list and a derived
// table's own WHERE), each once. A derived table's base table is read by the statement itself (s.table).
std::vector<std::string> subquery_tables(const Statement& s) {
  std::vector<std::string> out;
  if (s.where) s.where->collect_subquery_tables(out);
  if (s.having) s.having->collect_subquery_tables(out);
  for (const Assignment& a : s.assignments) a.value.collect_subquery_tables(out);
  for (const auto& row : s.values)
    for (const Expr& e : row) e.collect_subquery_tables(out);
  for (const auto& j : s.joins) j.on.collect_subquery_tables(out);
  for (const Expr& e : s.select_exprs) e.collect_subquery_tables(out);
  for (const Statement& d : s.derived)
    for (std::string& t : subquery_tables(d)) out.push_back(std::move(t));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// The tables the statement itself reads or writes (not through a subquery).
std::vector<std::string> outer_tables(const Statement& s) {
  std::vector<std::string> out{s.table};
  for (const auto& j : s.joins) out.push_back(j.table);
  return out;
}

// The rows of each table a SELECT returned (by row id): a join's rows of every table (a LEFT JOIN's missing side
// none), otherwise the rows of its table (a derived table's rows are its base table's); none for aggregates, whose
// result carries no row ids.
std::map<std::string, std::set<std::int64_t>> returned_rows(const Schema& schema, const Statement& s,
                                                            const Outcome& o) {
  std::map<std::string, std::set<std::int64_t>> out;
  if (!o.ok() || !s.items.empty()) return out;
  if (!s.joins.empty()) {
    // Told apart by column position (adya::joined_table_columns); none when not laid out as SELECT * over the join.
    if (const auto parts = adya::joined_table_columns(schema, s, o))
      for (const adya::JoinedTableColumns& p : *parts)
        for (const Row& r : o.rows)
          if (p.rid < r.size() && !r[p.rid].is_null()) out[p.table->name].insert(as_rid(r[p.rid]));
    return out;
  }
  const auto c = std::find(o.columns.begin(), o.columns.end(), adya::kRowIdColumn);
  if (c == o.columns.end()) return out;
  const auto i = static_cast<std::size_t>(c - o.columns.begin());
  for (const Row& r : o.rows)
    if (i < r.size() && !r[i].is_null()) out[s.table].insert(as_rid(r[i]));
  return out;
}

// A LIMIT (of the statement or of its derived table) over rows whose ORDER BY columns tie: the generated ORDER BY names
// every column of the table, but not the hidden row id, so rows equal in every visible column tie, and which of them
// the engine returns is its choice.
bool limit_over_equal_rows(const Schema& schema, const Statement& s, const View& view) {
  const bool limited = s.limit || (!s.derived.empty() && s.derived.front().limit);
  const Table* t = schema.find_table(s.table);
  auto it = view.find(s.table);
  if (!limited || !t || it == view.end()) return false;
  std::set<Row> visible;
  for (const Row& r : it->second)
    if (!visible.insert(adya::hidden_columns().visible(*t, r)).second) return true;
  return false;
}

// The outcome without its hidden columns (txp_rid, txp_wl).
Outcome without_hidden(Outcome o) { return adya::hidden_columns().visible(std::move(o)); }

// The columns of `table` a join condition names.
void columns_of(const Expr& e, const std::string& table, std::set<std::string>& out) {
  if (e.kind == Expr::Kind::Column && e.table == table) out.insert(e.column);
  for (const Expr& a : e.args) columns_of(a, table, out);
}

// The columns of the written table `outer` that the [NOT] EXISTS and IN subqueries of `e` compare with their rows: an
// EXISTS's references to `outer`, an IN's left-hand side (whose unqualified columns are `outer`'s) and its subquery's
// references to `outer`. These are the sublinks PostgreSQL's planner may pull up into a semi- or anti-join (a scalar
// subquery stays a sub-plan); an uncorrelated EXISTS has none (it stays an InitPlan, whose value the re-check reuses).
std::set<std::string> join_like_sublink_columns(const Expr& e, const std::string& outer) {
  std::set<std::string> out;
  if (e.kind == Expr::Kind::Exists) {
    for (const Expr& a : e.args) columns_of(a, outer, out);
  } else if (e.kind == Expr::Kind::InSubquery) {
    columns_of(e.args[0], outer, out);
    columns_of(e.args[0], "", out);
    for (std::size_t i = 1; i < e.args.size(); ++i) columns_of(e.args[i], outer, out);
  } else {
    for (const Expr& a : e.args) out.merge(join_like_sublink_columns(a, outer));
  }
  return out;
}

// SELECT txp_rid FROM t WHERE <its WHERE> [AND EXISTS (SELECT 1 FROM u WHERE <join condition>)]: the rows of its own
// table an UPDATE or DELETE (joined or not) writes on a view.
// A WHERE that names every column with its table may name the joined table's too: it goes inside the EXISTS (where
// the joined table is in scope); one with an unqualified column stays outside (where the name means s.table's).
bool every_column_qualified(const Expr& e) {
  if (e.kind == Expr::Kind::Column && e.table.empty()) return false;
  return std::all_of(e.args.begin(), e.args.end(), every_column_qualified);
}

Statement target_probe(const Statement& s) {
  std::optional<Expr> where = s.where;
  for (const Join& j : s.joins) {
    const bool inside = where && every_column_qualified(*where);
    Expr joined = Expr::exists(j.table, inside ? Expr::binary(BinaryOp::And, j.on, *where) : j.on);
    where = where && !inside ? Expr::binary(BinaryOp::And, *where, std::move(joined)) : std::move(joined);
  }
  return Statement::select(s.table, std::move(where), LockMode::None, {adya::kRowIdColumn});
}

// `s` with its WHERE narrowed to the rows of its own table whose row ids are in `rows` (or, with `excluded`, not in
// them): a joined statement names its own table's row id qualified, since both tables have one.
Statement restricted_to_rows(const Statement& s, const std::vector<std::int64_t>& rows, bool excluded = false) {
  std::vector<Expr> ids;
  for (std::int64_t r : rows) ids.push_back(Expr::lit(Value(r)));
  Expr rid = s.joins.empty() ? Expr::col(adya::kRowIdColumn) : Expr::qcol(s.table, adya::kRowIdColumn);
  Expr in = !ids.empty() ? Expr::in_list(std::move(rid), ids, excluded)
                         : Expr::binary(BinaryOp::Eq, Expr::lit(Value(1)), Expr::lit(Value(excluded ? 1 : 0)));
  Statement out = s;
  out.where = s.where ? Expr::binary(BinaryOp::And, *s.where, std::move(in)) : std::move(in);
  return out;
}

// Two runs of one statement that did the same: same outcome, same rows changed to the same values.
bool same_execution(const Execution& a, const Execution& b) {
  if (!compare_outcomes(a.outcome, b.outcome).empty() || a.changes.size() != b.changes.size()) return false;
  for (std::size_t i = 0; i < a.changes.size(); ++i)
    if (a.changes[i].rid != b.changes[i].rid || a.changes[i].data != b.changes[i].data ||
        a.changes[i].deleted != b.changes[i].deleted || a.changes[i].table != b.changes[i].table)
      return false;
  return true;
}

class EngineEvaluator final : public Evaluator {
 public:
  EngineEvaluator(std::unique_ptr<drivers::Session> session, Dialect dialect, const EngineProfile& profile)
      : session_(std::move(session)), dialect_(dialect), profile_(profile) {}

  std::optional<bool> reads_tables(const Schema& schema, const View& view, const Statement& s) override {
    for (const auto& [table, rows] : view) materialise(schema, table, rows);
    return profile_.statement_reads_tables(*session_, render(s, dialect_));
  }

  View canonical(const Schema& schema, const View& view) override {
    View out;
    for (const auto& [table, rows] : view) {
      materialise(schema, table, rows);
      out[table] = read(table).rows;
    }
    return out;
  }

  Execution execute(const Schema& schema, const View& view, const Statement& s,
                    const std::vector<Expr>& predicates) override {
    Execution ex;
    for (const auto& [table, rows] : view) materialise(schema, table, rows);
    const Table* table = schema.find_table(s.table);
    const auto rid = table ? table->column_index(adya::kRowIdColumn) : std::nullopt;
    std::vector<std::set<std::int64_t>> matching_before;
    for (const Expr& p : predicates) matching_before.push_back(matching(s.table, p));
    // Alone on its view a locking clause changes nothing (nobody else holds a lock); without it the statement also
    // runs on an engine that has no locking reads (embedded SQLite as the scratch engine of unit tests).
    Statement alone = s;
    if (alone.kind == StatementKind::Select) alone.lock = LockMode::None;
    // A write whose foreign keys the engine checks (or whose actions write) runs with them enforced where the view
    // holds every table (the judge's views of such writes: add_key_tables), so that the engine's own check reads the
    // key tables' rows and its own actions write them; the rows were materialised without them (a view mixes rules).
    const bool keys = !foreign_key_checked_tables(schema, s).empty() && holds_every_table(schema, view);
    ex.outcome = run_with_keys(render(alone, dialect_), schema, keys);
    if (keys && !ex.outcome.ok()) {
      // Refused with the keys enforced: if it succeeds without them, their check refused it (Execution::key_check).
      for (const auto& [t, rows] : view) materialise(schema, t, rows);
      Outcome without = run(render(alone, dialect_));
      if (without.ok()) {
        ex.key_check = std::move(ex.outcome);
        ex.outcome = std::move(without);
      }
    }
    if (!ex.outcome.ok() || !rid) return ex;
    if (s.kind == StatementKind::Select) {
      const auto c = std::find(ex.outcome.columns.begin(), ex.outcome.columns.end(), adya::kRowIdColumn);
      if (c != ex.outcome.columns.end()) {
        const auto i = static_cast<std::size_t>(c - ex.outcome.columns.begin());
        for (const Row& r : ex.outcome.rows) ex.matched.push_back(as_rid(r.at(i)));
      }
      return ex;
    }
    // Writes: what changed in every table written, by row id; with the keys enforced also in the tables their actions
    // wrote (Execution::changes; not `matched`, the rows the statement itself names).
    const std::vector<std::string> written = s.written_tables();
    for (const auto& [name, rows] : view) {
      const bool own = std::find(written.begin(), written.end(), name) != written.end();
      if (own || keys) diff(schema, name, rows, own, ex);
    }
    for (const std::string& w : written)
      if (!view.count(w)) diff(schema, w, {}, true, ex);
    for (std::size_t i = 0; i < predicates.size(); ++i)
      ex.predicate_changed.push_back(matching(s.table, predicates[i]) != matching_before[i]);
    return ex;
  }

 private:
  // The rows of `table` that differ from `rows` (its contents on the view), as changes of the statement.
  void diff(const Schema& schema, const std::string& table, const std::vector<Row>& rows, bool own, Execution& ex) {
    const Table* w = schema.find_table(table);
    const auto w_rid = w ? w->column_index(adya::kRowIdColumn) : std::nullopt;
    if (!w_rid) return;
    std::map<std::int64_t, Row> before;
    for (const Row& r : rows) before[as_rid(r.at(*w_rid))] = r;
    std::map<std::int64_t, Row> after;
    for (const Row& r : read(table).rows) after[as_rid(r.at(*w_rid))] = r;
    for (const auto& [id, row] : after) {
      auto b = before.find(id);
      if (b != before.end() && b->second == row) continue;
      if (b != before.end()) ex.before.emplace_back(table, b->second);
      if (own) ex.matched.push_back(id);
      ex.changes.push_back(Execution::Change{id, row, false, table});
    }
    for (const auto& [id, row] : before)
      if (!after.count(id)) {
        if (own) ex.matched.push_back(id);
        ex.before.emplace_back(table, row);
        ex.changes.push_back(Execution::Change{id, row, true, table});
      }
  }

  static bool holds_every_table(const Schema& schema, const View& view) {
    return std::all_of(schema.tables.begin(), schema.tables.end(), [&](const Table& t) { return view.count(t.name); });
  }

  // The scratch session enforces foreign keys only while it runs a write that `keys` says to (rows are materialised
  // as views, which no transaction could write with the keys enforced).
  void enforce_keys(const Schema& schema, bool on) {
    if (!schema.has_foreign_keys() || keys_enforced_ == on) return;
    check(run(render_foreign_key_enforcement(on, dialect_)), on ? "enforce foreign keys" : "stop enforcing foreign keys");
    keys_enforced_ = on;
  }
  Outcome run_with_keys(const std::string& sql, const Schema& schema, bool keys) {
    if (!keys) return run(sql);
    enforce_keys(schema, true);
    Outcome o = run(sql);
    enforce_keys(schema, false);
    return o;
  }

  // Every answer of the scratch session is part of an expectation: one lost on the way (a server restart, a
  // terminated backend) must not become an expected error or an empty match set.
  Outcome run(const std::string& sql) {
    Outcome o = session_->execute(sql);
    if (o.failed() && (o.error.cls == ErrorClass::LostConnection || o.error.cls == ErrorClass::Canceled))
      throw std::runtime_error("the scratch session was lost: " + o.error.message);
    return o;
  }
  Outcome read(const std::string& table) { return run(render(Statement::select(table), dialect_)); }

  std::set<std::int64_t> matching(const std::string& table, const Expr& where) {
    std::set<std::int64_t> out;
    const Outcome o = run(render(Statement::select(table, where, LockMode::None, {adya::kRowIdColumn}), dialect_));
    for (const Row& r : o.rows)
      if (!r.empty()) out.insert(as_rid(r[0]));
    return out;
  }

  void materialise(const Schema& schema, const std::string& table, const std::vector<Row>& rows) {
    const Table* t = schema.find_table(table);
    if (!t) return;
    enforce_keys(schema, false);
    check(run(render(Statement::delete_(table), dialect_)), "empty " + table);
    if (rows.empty()) return;
    // The view's rows as the setup writes rows: a BOOLEAN column's 1 / 0 as TRUE / FALSE (PostgreSQL has no
    // assignment cast from an integer to boolean).
    Table view_rows = *t;
    view_rows.rows = rows;
    check(run(render_insert_rows(view_rows, dialect_)), "materialise " + table);
  }

  static void check(const Outcome& o, const std::string& what) {
    if (!o.ok()) throw std::runtime_error(fmt::format("troc: cannot {} on the scratch session: {}", what, summary(o)));
  }

  std::unique_ptr<drivers::Session> session_;
  Dialect dialect_;
  const EngineProfile& profile_;
  std::optional<bool> keys_enforced_;  // unknown until set: a session starts with the engine's default
};

struct Judge {
  const History& h;
  const EngineProfile& profile;
  const TargetConfig& config;
  Evaluator& evaluator;
  const TrocOptions& options;
  Model model;
  Verdict v = Verdict::pass("troc");
  std::vector<std::string> undecided;
  int seq_ = -1;  // the event being judged
  std::string ambiguous_order;  // a waiting COMMIT raced a statement: findings are undecided
  // The first transaction whose UPDATE/DELETE waited at a level where the engine's profile lists the semi-consistent
  // update after a wait (InnoDB READ COMMITTED and below: MDEV-26643, a known bug of that mechanism): a final state
  // that differs is reported with that entry and its tracker link, at that transaction's level.
  int semi_consistent_waiter = -1;
  // Transactions whose snapshot the model took at a first read that returned no rows: an engine that takes its
  // snapshot at the first read that reads the table (InnoDB) takes none where the optimizer resolves the query without
  // reading it (e.g. IS NULL on a NOT NULL column: "Impossible WHERE"), so the snapshot point is ambiguous.
  std::set<int> snapshot_point_ambiguous;

  Judge(const History& h_, const EngineProfile& p, const TargetConfig& c, Evaluator& e, const TrocOptions& o)
      : h(h_), profile(p), config(c), evaluator(e), options(o), model(h_.test_case.schema, txns(h_, p, c)) {}

  static std::vector<TxnModel> txns(const History& h, const EngineProfile& p, const TargetConfig& c) {
    std::vector<TxnModel> out;
    for (const Transaction& t : h.test_case.transactions) {
      TxnModel m;
      m.level = t.isolation;
      m.rules = p.visibility(t.isolation, c);
      out.push_back(std::move(m));
    }
    return out;
  }

  std::string quote(StepRef ref) const {
    const Transaction& tx = h.test_case.transactions[static_cast<std::size_t>(ref.txn)];
    return fmt::format("T{}.{} {} ({})", ref.txn, ref.index,
                       render(adya::strip_instrumentation_of(tx.step(static_cast<std::size_t>(ref.index))),
                              Dialect::Portable),
                       sql_name(tx.isolation));
  }

  void tag(const std::string& t) { v.tags.push_back(t); }

  void finding(const std::string& kind, const std::string& text, std::vector<int> involved, int deciding,
               std::string allowed = {}) {
    // Once an UPDATE/DELETE waited where the profile lists the semi-consistent update after a wait (MDEV-26643), the
    // rows it skipped make the model's history and the engine's differ from then on: later results and the final
    // state are reported with that entry, at the waiting transaction's level.
    if (allowed.empty() && semi_consistent_waiter >= 0 &&
        (kind == "incorrect-result" || kind == "incorrect-final-state")) {
      allowed = behaviour::kSemiConsistentUpdateAfterWait;
      deciding = semi_consistent_waiter;
    }
    Finding f;
    f.kind = kind;
    f.explanation = text;
    f.transactions = std::move(involved);
    f.deciding = {deciding};
    if (!allowed.empty() && !options.ignore_documentation) {
      // Judged at the deciding transaction's level alone: the profile's entry `allowed` documents it there.
      auto source = [&](int t) {
        return profile.documented(h.test_case.transactions[static_cast<std::size_t>(t)].isolation, config).allows(allowed);
      };
      const StandingDecision d = decide_standing(f.deciding, {}, h.test_case.transactions.size(),
                                                 [&](int t) { return LevelStance{source(t).empty()}; });
      if (d.standing != Standing::Fails && d.by >= 0) {
        f.standing = d.standing;
        f.source = source(d.by);
        f.explanation += fmt::format("\n  documented ({}): {}", allowed, f.source);
      }
    }
    v.findings.push_back(std::move(f));
  }

  // Where a blocked step actually started: when it was submitted, or when its transaction's previous step completed.
  int start_of(StepRef ref) const {
    int start = h.submitted_at[static_cast<std::size_t>(ref.txn)][static_cast<std::size_t>(ref.index)];
    if (ref.index > 0) start = std::max(start, h.completed_at(StepRef{ref.txn, ref.index - 1}) + 1);
    return start;
  }

  // The locks a statement takes, one per table, the statement's own table first. They are a lower bound of what the
  // engine locks (a missing lock can only hide an inconsistent-blocking finding; an extra one would invent one):
  //   - a write: the rows it wrote in each table it writes (a joined write's reads of the joined table take shared
  //     locks on InnoDB, which rows depends on the join order: not modelled);
  //   - a SELECT that locks: the rows it returned, of each table of a join (told apart by column position); an
  //     aggregate's none (which rows it reads depends on the access path: MIN/MAX over an index reads one entry);
  //   - a predicate (next-key) lock only for a single-table statement without LIMIT, aggregates or a derived table,
  //     whose scan is its WHERE over its table.
  std::vector<Lock> locks_of(int t, const Statement& s, const StatementRule& rule, const Execution& ex,
                             const std::optional<std::set<std::int64_t>>& select_rows = std::nullopt) const {
    Lock l;
    l.table = s.table;
    l.strength = rule.lock;
    l.database = model.txns()[static_cast<std::size_t>(t)].rules.database_locks;
    l.seq = seq_;
    l.statement = render(adya::strip_instrumentation_of(s), Dialect::Portable) +
                  fmt::format(" of T{}", t);
    if (rule.lock == LockStrength::None) return {l};
    std::vector<Lock> out;
    if (s.is_write()) {
      // The tables it writes, and those its foreign keys' actions wrote (their rows it locks as its own writes).
      std::vector<std::string> tables = s.written_tables();
      for (const auto& c : ex.changes)
        if (std::find(tables.begin(), tables.end(), c.table) == tables.end()) tables.push_back(c.table);
      for (const std::string& table : tables) {
        Lock w = l;
        w.table = table;
        std::set<std::string> old_keys;
        for (const auto& [bt, r] : ex.before)
          if (bt == table)
            for (const std::string& k : model.unique_keys(table, r)) old_keys.insert(k);
        for (const auto& c : ex.changes) {
          if (c.table != table) continue;
          w.rows.insert(c.rid);
          for (const std::string& k : model.unique_keys(table, c.data))
            if (!c.deleted && !old_keys.count(k)) w.written_keys.insert(k);  // values new to their row
        }
        // Deleted values and values updated away are held too (another's insert of them waits).
        w.written_keys.insert(old_keys.begin(), old_keys.end());
        out.push_back(std::move(w));
      }
    } else {
      const auto rows = returned_rows(model.schema(), s, ex.outcome);
      Lock own = l;
      if (auto it = rows.find(s.table); it != rows.end()) own.rows = it->second;
      if (select_rows) own.rows = *select_rows;
      out.push_back(std::move(own));
      for (const Join& j : s.joins) {
        Lock other = l;
        other.table = j.table;
        other.database = false;
        if (auto it = rows.find(j.table); it != rows.end()) other.rows = it->second;
        out.push_back(std::move(other));
      }
    }
    const bool single_scan = s.joins.empty() && s.derived.empty() && !s.limit && s.items.empty();
    if (rule.predicate && s.kind != StatementKind::Insert && !has_subquery(s.where) && single_scan)
      out.front().predicate = s.where.value_or(Expr::lit(Value(1)));
    return out;
  }

  // Only values new to their rows are checked against others' (an unchanged value waits on its row instead).
  Lock waiting_lock(const Lock& l, const Execution& ex) const {
    Lock w = l;
    std::set<std::string> old_keys;
    for (const auto& [table, r] : ex.before)
      if (table == l.table)
        for (const std::string& k : model.unique_keys(table, r)) old_keys.insert(k);
    std::set<std::string> keys;
    for (const std::string& k : l.written_keys)
      if (!old_keys.count(k)) keys.insert(k);
    w.written_keys = keys;
    return w;
  }

  // A COMMIT of another transaction that waited (SQLite's rollback journal: readers hold SHARED locks) and was still
  // in flight when this step completed: the two were retried together, so which came first is not observable.
  std::string commit_in_flight(int t, int e) const {
    for (std::size_t o = 0; o < h.test_case.transactions.size(); ++o) {
      if (static_cast<int>(o) == t) continue;
      const Transaction& tx = h.test_case.transactions[o];
      const std::size_t end = tx.statements.size() + 1;
      const StepRef ref{static_cast<int>(o), static_cast<int>(end)};
      if (end >= h.was_blocked[o].size() || !h.was_blocked[o][end]) continue;
      const int done = h.completed_at(ref);
      if (start_of(ref) < e && (done < 0 || done > e)) return quote(ref);
    }
    return {};
  }

  // One statement being judged, and what the phases of statement() decide about it in turn.
  struct Step {
    int e;                  // the event
    StepRef ref;
    const Statement& s;
    const Outcome& actual;  // what the engine returned
    int t;
    TxnModel& m;
    bool blocked;
    int start;              // where it started (before its wait, if it waited)
    const StatementRule& rule;
    std::vector<std::string> sub_tables;  // tables its subqueries read
    ViewRule sub_rule;
    bool statement_snapshot;  // reads a snapshot of its own start (PostgreSQL READ COMMITTED)
    ViewRule view_rule, start_rule, sub_view_rule;
    std::vector<std::string> tables;
    Statement run;  // the statement as the model runs it (restricted to re-checked rows)
    View view;      // the view the model runs it on
    Execution ex;
    std::vector<Lock> locks;
    bool tied_limit = false;
  };

  // Judges one statement: notes what makes later findings undecided, takes the snapshot where the engine does,
  // builds the statement's view, runs it there, and compares blocking, first-updater-wins and rows with the engine.
  void statement(int e, StepRef ref, const Statement& s, const Outcome& actual) {
    Step st = begin_step(e, ref, s, actual);
    take_snapshot_if_first(st);
    if (!actual.ok()) {
      record_key_error(st);
      return record_error(st);
    }
    if (!build_view(st)) return;
    if (!execute_on_view(st)) return;
    check_blocking(st);
    check_first_updater(st);
    if (s.kind == StatementKind::Select && !check_result(st)) return;
    apply_effect(st);
  }

  Step begin_step(int e, StepRef ref, const Statement& s, const Outcome& actual) {
    const int t = ref.txn;
    if (ambiguous_order.empty())
      if (const std::string c = commit_in_flight(t, e); !c.empty())
        ambiguous_order = c + " waited and was retried together with other statements (their order is not "
                              "observable; the findings depend on it)";
    TxnModel& m = model.txns()[static_cast<std::size_t>(t)];
    const bool blocked = h.was_blocked[static_cast<std::size_t>(t)][static_cast<std::size_t>(ref.index)];
    if (blocked && semi_consistent_waiter < 0 && (s.kind == StatementKind::Update || s.kind == StatementKind::Delete) &&
        !s.is_multi_table_write() && !profile.documented(h.test_case.transactions[static_cast<std::size_t>(t)].isolation, config)
             .allows(behaviour::kSemiConsistentUpdateAfterWait)
             .empty())
      semi_consistent_waiter = t;
    const StatementRule& rule = m.rules.rule(s.kind, s.lock, s.is_multi_table_write());
    // A joined write that waited at a level where the engine releases the locks of rows it scanned and did not write
    // (InnoDB READ COMMITTED and below): it read some rows of both tables before the wait, in its join order, and
    // others may have changed them since. Which rows it wrote then depends on that order, which is not documented:
    // findings from here on are undecided.
    if (blocked && s.is_multi_table_write() && m.rules.rows_read_during_wait && ambiguous_order.empty())
      ambiguous_order = fmt::format("{} is a joined write that waited; below REPEATABLE READ it read rows of both "
                                    "tables before the wait in its join order and released those it did not write "
                                    "({}), so which versions it joined is not documented",
                                    quote(ref), m.rules.rows_read_during_wait_source);
    // After a wait (PostgreSQL READ COMMITTED's EvalPlanQual), or always (InnoDB READ UNCOMMITTED's semi-consistent
    // UPDATE), only rows that matched on the start view when the statement started are written, each re-checked on
    // its version in the statement's view. Subqueries are evaluated once, on the start view.
    const bool statement_snapshot = rule.view == ViewRule::StatementSnapshot;
    const ViewRule sub_rule = rule.subquery();
    return Step{e, ref, s, actual, t, m, blocked, blocked ? start_of(ref) : e, rule, subquery_tables(s), sub_rule,
                statement_snapshot,
                statement_snapshot ? ViewRule::LatestCommitted : rule.view,
                statement_snapshot ? ViewRule::LatestCommitted : rule.start_view,
                sub_rule == ViewRule::StatementSnapshot ? ViewRule::LatestCommitted : sub_rule,
                s.tables(), s, {}, {}, {}};
  }

  // The snapshot point. InnoDB takes it at the first consistent read: a plain SELECT, or the subquery of a statement
  // whose subqueries read the snapshot (SELECT ... FOR UPDATE at REPEATABLE READ); and only if the engine asks
  // InnoDB for a row (snapshot_needs_table_read): a SELECT the optimizer answers alone (Impossible WHERE) takes none.
  void take_snapshot_if_first(Step& st) {
    TxnModel& m = st.m;
    const Statement& s = st.s;
    const bool plain_read = s.kind == StatementKind::Select && s.lock == LockMode::None && st.rule.view == ViewRule::Snapshot;
    const bool subquery_read = !st.sub_tables.empty() && st.sub_rule == ViewRule::Snapshot;
    if (m.snapshot_seq || !(m.rules.snapshot_point == SnapshotPoint::FirstStatement ||
                            (m.rules.snapshot_point == SnapshotPoint::FirstRead && (plain_read || subquery_read))))
      return;
    bool takes = true;
    // An aggregate returns its row whether or not a table row was read (COUNT over an Impossible WHERE is 0).
    const bool rows_show_a_read = !st.actual.rows.empty() && s.items.empty();
    if (m.rules.snapshot_point == SnapshotPoint::FirstRead && st.actual.ok() && (!plain_read || !rows_show_a_read)) {
      // No table row came back (or only a subquery read): whether the engine read a table is asked of the engine,
      // on the same data; without an answer the snapshot point stays ambiguous.
      std::optional<bool> reads;
      if (m.rules.snapshot_needs_table_read && plain_read)
        reads = evaluator.reads_tables(model.schema(), model.view(st.t, ViewRule::Snapshot, st.e, s.tables()), s);
      if (reads && !*reads) {
        takes = false;
        tag("snapshot-not-taken-without-table-read");
      } else if (!reads && (m.rules.snapshot_needs_table_read || !plain_read)) {
        snapshot_point_ambiguous.insert(st.t);
      }
    }
    // A subquery that read the snapshot in a statement that waited: before or after the wait is not documented.
    if (takes && st.blocked && !plain_read && m.rules.snapshot_point == SnapshotPoint::FirstRead)
      snapshot_point_ambiguous.insert(st.t);
    if (takes) m.snapshot_seq = st.blocked && m.rules.snapshot_after_wait ? st.e : st.start;
  }

  // A constraint error of a write that touches a foreign key, followed as every engine error is, and counted by
  // whether the model predicts it: the statement on its view with the keys enforced is refused by them
  // ("foreign-key-error-predicted"), or not ("-not-predicted": e.g. PostgreSQL REPEATABLE READ's check of a child
  // reads the transaction's snapshot, ri_triggers.c, so a parent inserted after it is missing there).
  void record_key_error(Step& st) {
    if (st.actual.error.cls != ErrorClass::ConstraintViolation ||
        foreign_key_checked_tables(model.schema(), st.s).empty())
      return;
    const std::size_t before = undecided.size();
    const bool built = build_view(st);
    undecided.resize(before);  // an error is followed, never judged: its view's ambiguity decides nothing
    if (!built) return tag("foreign-key-error-not-modelled");
    const Execution ex = evaluator.execute(model.schema(), st.view, st.run, {});
    if (ex.key_check) tag("foreign-key-error-predicted");
    else if (ex.outcome.ok()) tag("foreign-key-error-not-predicted");
  }

  void record_error(const Step& st) {
    const TxnResult& fate = h.transactions[static_cast<std::size_t>(st.t)];
    if (fate.fate == TxnFate::Aborted && fate.failed_step && *fate.failed_step == st.ref) {
      tag(st.actual.error.cls == st.m.rules.conflict_error && st.m.rules.snapshot_write_conflict ? "engine-abort-conflict"
                                                                                                : "engine-abort");
      model.end(st.t, TxnState::Aborted, st.e);
    } else {
      tag("statement-error");
    }
  }

  // The view the statement runs on: its own rule's, its subqueries' tables as their rule reads them, and after a
  // wait the rows it re-checks. Returns false (and records why) when the case is undecided.
  bool build_view(Step& st) { return build_statement_view(st) && add_key_tables(st); }

  // A write that touches a foreign key: its check reads, and its actions write, the latest committed versions of the
  // key tables and the transaction's own (InnoDB: a locking read, "FOREIGN KEY Constraints" in the MariaDB KB and
  // row0ins.cc row_ins_check_foreign_constraint; PostgreSQL: the RI triggers' queries with a fresh snapshot, which at
  // REPEATABLE READ fail with a serialization error where that differs from the transaction's snapshot, ri_triggers.c
  // ri_PerformCheck; SQLite: one writer, whose snapshot is the latest). The key's locks wait for uncommitted writes of
  // those rows, so no uncommitted version of another transaction is read. Every table not in the statement's view is
  // added as that; one its view reads otherwise, and a key reads too, makes the statement undecided (one scratch
  // table cannot hold both).
  bool add_key_tables(Step& st) {
    const Schema& schema = model.schema();
    const std::vector<std::string> checked = foreign_key_checked_tables(schema, st.s);
    if (checked.empty()) return true;
    std::set<std::string> read(checked.begin(), checked.end());
    for (bool grew = true; grew;) {  // and every table below them: an action's writes are checked, or act, in turn
      grew = false;
      for (const Table& t : schema.tables)
        for (const ForeignKey& fk : t.foreign_keys)
          if (read.count(fk.table) && read.insert(t.name).second) grew = true;
    }
    const std::vector<std::string> written = st.s.written_tables();
    std::vector<std::string> all;
    for (const Table& t : schema.tables) all.push_back(t.name);
    for (auto& [table, rows] : model.view(st.t, ViewRule::LatestCommitted, st.e, all)) {
      if (std::find(written.begin(), written.end(), table) != written.end()) continue;
      auto it = st.view.find(table);
      if (it == st.view.end()) {
        st.view[table] = std::move(rows);
      } else if (read.count(table) && !(sorted_rows(it->second) == sorted_rows(rows))) {
        const std::vector<std::string> outer = outer_tables(st.s);
        const bool own = std::find(outer.begin(), outer.end(), table) != outer.end();
        undecided.push_back(fmt::format("{}: reads {} as {} while its foreign key's check reads it as the latest "
                                        "committed versions (one scratch table cannot hold both)",
                                        quote(st.ref), table, view_name(own ? st.view_rule : st.sub_view_rule)));
        return false;
      }
    }
    tag("foreign-key-judged");
    return true;
  }

  bool build_statement_view(Step& st) {
    const Statement& s = st.s;
    st.view = model.view(st.t, st.view_rule, st.e, st.tables);
    if (!st.statement_snapshot && st.sub_view_rule != st.view_rule && !st.sub_tables.empty()) {
      const View sub_view = model.view(st.t, st.sub_view_rule, st.e, st.sub_tables);
      for (const std::string& other : outer_tables(s))
        if (sub_view.count(other) && !(sorted_rows(sub_view.at(other)) == sorted_rows(st.view.at(other)))) {
          undecided.push_back(fmt::format("{}: a subquery reads {} as {} while the statement itself reads it as {} "
                                          "(one scratch table cannot hold both)", quote(st.ref), other,
                                          view_name(st.sub_view_rule), view_name(st.view_rule)));
          return false;
        }
      for (const auto& [table, rows] : sub_view) st.view[table] = rows;
    }
    const bool recheck = (st.statement_snapshot && st.blocked) || (st.rule.recheck_from_start && !st.blocked);
    if (recheck && s.kind != StatementKind::Insert) return restrict_to_rechecked_rows(st);
    return true;
  }

  bool restrict_to_rechecked_rows(Step& st) {
    const Statement& s = st.s;
    // The tables read as at the statement's start: its subqueries', and a joined write's joined table (PostgreSQL
    // 13.2.1: the re-check "can see the effects of concurrent updating commands on the same rows it is trying to
    // update, but it does not see effects of those commands on other rows").
    std::vector<std::string> sub;
    if (s.where) s.where->collect_subquery_tables(sub);
    for (const Assignment& a : s.assignments) a.value.collect_subquery_tables(sub);
    for (const Join& j : s.joins) sub.push_back(j.table);
    if (std::find(sub.begin(), sub.end(), s.table) != sub.end()) {
      undecided.push_back(fmt::format("{}: re-checks its rows after a wait with a subquery or join on its own table "
                                      "(which version that reads is not modelled)", quote(st.ref)));
      return false;
    }
    if (st.start_rule == ViewRule::Latest && ambiguous_order.empty())
      if (const std::string w = write_in_flight(st.t, st.e, st.tables); !w.empty())
        ambiguous_order = fmt::format("{} chose its rows on uncommitted versions while {} waited half-done (its "
                                      "partial writes are visible; the version history holds whole statements)",
                                      quote(st.ref), w);
    const View at_start = model.view(st.t, st.start_rule, st.start, st.tables);
    for (const std::string& other : sub) st.view[other] = at_start.at(other);
    const std::vector<std::int64_t> chosen = rows_matching_on(s, at_start);
    std::set<std::string> join_columns;
    for (const Join& j : s.joins) columns_of(j.on, s.table, join_columns);
    if (!recheck_is_decided(st.t, st.ref, s, st.start_rule, st.start, chosen, st.view, join_columns, "join column",
                            "the re-check joins it only to the rows joined at the start"))
      return false;
    // PostgreSQL's re-check (EvalPlanQual) evaluates a join against the rows the original join used, and runs a
    // sub-plan again with the row's new values; an [NOT] EXISTS or IN subquery is either, as the planner chose (a
    // NOT EXISTS pulled up into an anti-join passes a row the sub-plan would reject: seen on 15.18 and 18.4 with
    // UPDATE t1 ... WHERE NOT EXISTS (SELECT 1 FROM t0 WHERE t0.c2 < t1.c1) after t1.c1 changed). Both give the
    // model's result (the subquery's table as at the start) while the row's columns the subquery compares are as they
    // were at the start.
    if (st.statement_snapshot && s.where &&
        !recheck_is_decided(st.t, st.ref, s, st.start_rule, st.start, chosen, st.view,
                            join_like_sublink_columns(*s.where, s.table), "column",
                            "an [NOT] EXISTS or IN subquery compares it, and the re-check evaluates that as a join with "
                            "the subquery rows found at the start or as a sub-plan, as the planner chose"))
      return false;
    st.run = restricted_to_rows(s, chosen);
    return true;
  }

  // Runs the statement alone on its view (with the predicate locks others hold, to see which it changes) and the
  // locks it takes there. Returns false (and records why) when the case is undecided.
  bool execute_on_view(Step& st) {
    const Statement& s = st.s;
    std::vector<Expr> predicates;
    if (s.is_write() && !st.blocked)
      for (const auto& [holder, lock] : predicate_locks(model, st.t, s.table, deadlock_victims_in_flight(st.t, st.e)))
        predicates.push_back(*lock->predicate);
    // A statement that waited, with subqueries: which versions they read depends on when the engine evaluated them,
    // before the wait or after it (not documented for InnoDB; PostgreSQL READ COMMITTED is handled above, SQLite reruns
    // the whole statement). Every view the subquery tables had while the statement waited is a candidate: where all
    // give the statement the same effect, it is decided; otherwise the candidates that give the engine's own outcome
    // decide it if they agree, and none giving it is judged on the view at completion (a finding if it differs).
    if (st.blocked && !st.sub_tables.empty() && !st.statement_snapshot && !st.m.rules.waits_by_retry)
      if (!choose_subquery_view(st.t, st.e, st.start, st.ref, st.sub_view_rule, st.sub_tables, st.run, predicates,
                                st.actual, st.view))
        return false;
    st.ex = evaluator.execute(model.schema(), st.view, st.run, predicates);
    if (st.rule.recheck_from_start && st.blocked && st.ex.outcome.ok() && ambiguous_order.empty() && s.is_write())
      note_semi_consistent_scan_order(st);
    if (st.ex.key_check)
      finding("incorrect-result",
              fmt::format("{} succeeded, but its foreign key's check on the latest committed versions refuses it "
                          "there ({})", quote(st.ref), summary(*st.ex.key_check)),
              {st.t}, st.t);
    if (!st.ex.outcome.ok()) {
      undecided.push_back(fmt::format("{}: ran on the engine but failed on its view ({}): the view rule ({}) is "
                                      "ambiguous here", quote(st.ref), summary(st.ex.outcome), view_name(st.view_rule)));
      return false;
    }
    // A LIMIT over rows equal in every visible column returns whichever of them the engine picks: the result is
    // compared without the hidden columns, and only the rows both returned count as locked.
    st.tied_limit = s.kind == StatementKind::Select && limit_over_equal_rows(model.schema(), s, st.view);
    std::optional<std::set<std::int64_t>> select_rows;
    if (st.tied_limit) {
      const auto mine = returned_rows(model.schema(), s, st.ex.outcome);
      const auto theirs = returned_rows(model.schema(), s, st.actual);
      select_rows.emplace();
      if (mine.count(s.table) && theirs.count(s.table))
        for (std::int64_t r : mine.at(s.table))
          if (theirs.at(s.table).count(r)) select_rows->insert(r);
      tag("limit-over-equal-rows");
    }
    seq_ = st.e;
    st.locks = locks_of(st.t, s, st.rule, st.ex, select_rows);
    return true;
  }

  // A semi-consistent statement that waited has skipped some rows (on their uncommitted versions) before the wait and
  // reads the rest after it: which ones depends on its scan position. If restricting it to the rows that matched when
  // it started changes its effect, later findings depend on that order.
  void note_semi_consistent_scan_order(const Step& st) {
    const View at_start = model.view(st.t, st.rule.start_view, st.start, st.tables);
    const Execution alt =
        evaluator.execute(model.schema(), st.view, restricted_to_rows(st.s, rows_matching_on(st.s, at_start)), {});
    std::set<std::int64_t> a(st.ex.matched.begin(), st.ex.matched.end()), b(alt.matched.begin(), alt.matched.end());
    if (a != b)
      ambiguous_order = fmt::format("{} waited; which rows it skipped on their uncommitted versions before the wait "
                                    "depends on its scan position (semi-consistent read)", quote(st.ref));
    evaluator.execute(model.schema(), st.view, st.run, {});  // leave the scratch tables as the statement left them
  }

  // The first conflict of any of the statement's locks (predicates changed: of its own table's, the first lock).
  std::optional<Conflict> first_conflict(const Step& st, const std::vector<bool>& changed, int at,
                                         const std::set<int>& released) const {
    std::optional<Conflict> c;
    for (std::size_t i = 0; i < st.locks.size() && !c; ++i)
      c = find_conflict(model, st.t, waiting_lock(st.locks[i], st.ex), st.m.rules.unique_value_waits,
                        i == 0 ? changed : std::vector<bool>{}, at, released);
    return c;
  }

  // Lock expectation: a statement that did not wait must not have met a conflicting lock; one that waited should have.
  void check_blocking(Step& st) {
    if (st.blocked) {
      if (!first_conflict(st, {}, st.start, {})) tag("block-not-required");
      return;
    }
    const std::set<int> released = deadlock_victims_in_flight(st.t, st.e);
    if (!released.empty()) tag("deadlock-victim-released");
    const std::optional<Conflict> c = first_conflict(st, st.ex.predicate_changed, -1, released);
    if (!c) return;
    const std::string allowed = skipped_semi_consistently(st, *c) ? behaviour::kSemiConsistentRead : "";
    finding("inconsistent-blocking",
            fmt::format("{} completed without waiting, but {} and T{} was still active: the lock model ({}) says "
                        "it must block", quote(st.ref), c->reason, c->holder,
                        st.m.rules.lock_source.empty() ? st.rule.source : st.m.rules.lock_source),
            {st.t, c->holder}, st.t, allowed);
  }

  // A row the holder changed into one the statement does not match (or deleted), skipped without waiting: the
  // semi-consistent read the profile may document at this level (a single-table write only). Where it was, the model
  // follows the engine: the rows it skipped are not written.
  bool skipped_semi_consistently(Step& st, const Conflict& c) {
    const Statement& s = st.s;
    if (!(s.kind == StatementKind::Update || s.kind == StatementKind::Delete) || s.is_multi_table_write() ||
        st.m.rules.select.view != ViewRule::Latest)
      return false;
    const View latest = model.view(st.t, ViewRule::Latest, st.e, st.tables);
    const std::vector<std::int64_t> dirty = rows_matching_on(s, latest);
    std::vector<std::int64_t> held;
    for (std::int64_t r : st.locks.front().rows)
      if (held_by(c.holder, s.table, r)) {
        held.push_back(r);
        if (std::find(dirty.begin(), dirty.end(), r) != dirty.end()) return false;
      }
    Execution again = evaluator.execute(model.schema(), st.view, restricted_to_rows(st.run, held, true), {});
    if (again.outcome.ok()) {
      st.ex = std::move(again);
      st.locks = locks_of(st.t, s, st.rule, st.ex);
    }
    return true;
  }

  // First-updater-wins: a write (or a locking read where the engine treats it so) of a row changed by a transaction
  // that committed after this one's snapshot must fail with the rules' conflict error.
  void check_first_updater(const Step& st) {
    const TxnModel& m = st.m;
    const Statement& s = st.s;
    const bool conflict_applies = s.is_write() || (s.lock != LockMode::None && m.rules.conflict_on_locking_reads);
    if (!m.rules.snapshot_write_conflict || !m.snapshot_seq || !conflict_applies ||
        (m.rules.conflict_on_any_commit && m.wrote))
      return;
    bool inserted_after_snapshot = false;
    const std::string why = m.rules.conflict_on_any_commit ? commit_after_snapshot(st)
                                                           : row_changed_after_snapshot(st, inserted_after_snapshot);
    if (why.empty()) return;
    finding("missing-abort",
            fmt::format("{} succeeded, but {}: the rules say it fails with {} ({})", quote(st.ref), why,
                        to_string(m.rules.conflict_error), m.rules.conflict_source),
            {st.t}, st.t, inserted_after_snapshot ? behaviour::kWriteToRowInsertedAfterReadView : "");
  }

  // SQLite's rule: any write after another transaction committed changes since this one's snapshot conflicts.
  std::string commit_after_snapshot(const Step& st) const {
    if (!st.s.is_write()) return {};
    for (std::size_t o = 0; o < model.txns().size(); ++o) {
      const TxnModel& other = model.txns()[o];
      if (static_cast<int>(o) != st.t && other.state == TxnState::Committed && other.end_seq > *st.m.snapshot_seq &&
          other.end_seq < st.e && other.wrote_rows)
        return fmt::format("T{} committed changes after T{}'s snapshot", o, st.t);
    }
    return {};
  }

  std::string row_changed_after_snapshot(const Step& st, bool& inserted_after_snapshot) {
    const Statement& s = st.s;
    const int snapshot = *st.m.snapshot_seq;
    for (std::int64_t r : st.ex.matched) {
      if (s.kind == StatementKind::Insert) break;
      const Version* latest = model.latest_committed(r, st.t, st.e);
      if (!latest && s.kind != StatementKind::Select) continue;
      if (latest && (latest->txn == kInitial || latest->txn == st.t)) continue;
      if (latest && model.txns()[static_cast<std::size_t>(latest->txn)].end_seq < snapshot) continue;
      // A row the snapshot does not hold at all (inserted after it) is another case than a changed one.
      if (!model.in_snapshot(r, st.t, snapshot)) inserted_after_snapshot = true;
      return fmt::format("row txp_rid={} was changed by T{}, which committed after T{}'s snapshot", r,
                         latest ? latest->txn : -1, st.t);
    }
    return deleted_after_snapshot(st.t, st.e, s, st.rule);
  }

  // A SELECT's rows against the model's. Returns false (and records why) when the case is undecided.
  bool check_result(Step& st) {
    const Statement& s = st.s;
    const std::string diff = st.tied_limit
                                 ? compare_outcomes(without_hidden(st.ex.outcome), without_hidden(st.actual))
                                 : compare_outcomes(st.ex.outcome, st.actual);
    if (diff.empty()) return true;
    if (st.rule.view == ViewRule::Latest &&
        partial_writes_explain(st.t, st.e, st.run, st.view, st.ex.outcome, st.actual)) {
      tag("dirty-read-of-partial-write");  // every row is as the model has it or as a waiting write left it
      return true;
    }
    if (st.rule.view == ViewRule::Latest)
      if (const std::string w = write_in_flight(st.t, st.e, st.tables); !w.empty()) {
        undecided.push_back(fmt::format("{}: read uncommitted data while {} waited half-done (its partial writes "
                                        "are visible at this level; the version history holds whole statements)",
                                        quote(st.ref), w));
        return false;
      }
    if (st.blocked && s.lock != LockMode::None && st.m.rules.rows_read_during_wait)
      if (auto read = rows_read_during_wait(st.t, st.start, st.e, st.run, st.view_rule, st.sub_view_rule, st.actual)) {
        // explained: every row is a version the row had while the statement scanned; it locked those it returned
        tag("locking-read-rows-read-during-wait");
        st.locks.front().rows = *read;
        return true;
      }
    const bool mixed = st.rule.view == ViewRule::Snapshot && st.m.current_read_beyond_snapshot;
    finding("incorrect-result",
            fmt::format("{} returned rows that differ from the same statement run alone on its view ({} at "
                        "event {}; {}):\n    expected: {}\n    actual:   {}\n    {}",
                        quote(st.ref), view_name(st.rule.view), st.e, st.rule.source, rows_text(st.ex.outcome),
                        rows_text(st.actual), diff),
            {st.t}, st.t, mixed ? behaviour::kSnapshotReadAfterCurrentRead : "");
    return true;
  }

  // An INSERT's unique check is a current read too: a row it inserted whose unique value a row of the snapshot holds
  // that has changed since (InnoDB: a key another transaction deleted after the snapshot, whose delete-marked record
  // the INSERT then reuses, so the transaction's later snapshot reads of that key see its own versions only).
  bool unique_check_beyond_snapshot(const Step& st) const {
    for (const auto& c : st.ex.changes) {
      const auto rid = model.rid_column(c.table);
      const std::vector<std::string> keys = model.unique_keys(c.table, c.data);
      if (c.deleted || !rid || keys.empty()) continue;
      const View snapshot = model.view(st.t, ViewRule::Snapshot, st.e, {c.table});
      for (const Row& r : snapshot.at(c.table)) {
        const std::vector<std::string> theirs = model.unique_keys(c.table, r);
        const bool shared = std::any_of(keys.begin(), keys.end(), [&](const std::string& k) {
          return std::find(theirs.begin(), theirs.end(), k) != theirs.end();
        });
        const std::int64_t id = as_rid(r.at(*rid));
        if (shared && model.latest_committed(id, st.t, st.e) != model.in_snapshot(id, st.t, st.e)) return true;
      }
    }
    return false;
  }

  // Effect on the history: the versions it wrote and the locks it holds from now on.
  void apply_effect(Step& st) {
    TxnModel& m = st.m;
    if (st.s.is_write()) {
      m.wrote = true;
      if (!st.ex.changes.empty()) m.wrote_rows = true;
      if (m.snapshot_seq && m.rules.select.view == ViewRule::Snapshot && st.rule.view != ViewRule::Snapshot) {
        for (std::int64_t r : st.ex.matched)
          if (model.latest_committed(r, st.t, st.e) != model.in_snapshot(r, st.t, st.e))
            m.current_read_beyond_snapshot = true;
        if (st.s.kind == StatementKind::Insert && unique_check_beyond_snapshot(st)) m.current_read_beyond_snapshot = true;
      }
    }
    for (const auto& c : st.ex.changes) model.append(c.table, c.rid, c.data, st.t, c.deleted, st.e);
    for (Lock& l : st.locks)
      if (l.strength != LockStrength::None) m.locks.push_back(std::move(l));
  }

  // PostgreSQL's re-check after a wait (EvalPlanQual) of a joined write (or of a subquery the planner made a join)
  // evaluates the join condition on the target row's latest version against the joined rows it found at the start,
  // not against the whole joined table: the
  // model (the joined table as at the start) gives the same rows only while the target rows' `columns` (those the
  // join compares, named `kind` in the reason) are as they were at the start. Returns false (and records why) when
  // one changed meanwhile.
  bool recheck_is_decided(int t, StepRef ref, const Statement& s, ViewRule start_rule, int start,
                          const std::vector<std::int64_t>& ids, const View& view, const std::set<std::string>& columns,
                          std::string_view kind, std::string_view why) {
    if (columns.empty()) return true;
    const Table* table = model.schema().find_table(s.table);
    const auto rid = model.rid_column(s.table);
    if (!table || !rid) return true;
    auto by_rid = [&](const std::vector<Row>& rows) {
      std::map<std::int64_t, const Row*> out;
      for (const Row& r : rows) out[as_rid(r.at(*rid))] = &r;
      return out;
    };
    const View at_start = model.view(t, start_rule, start, {s.table});
    const auto then = by_rid(at_start.at(s.table));
    const auto now = by_rid(view.at(s.table));
    for (std::int64_t id : ids) {
      auto a = then.find(id), b = now.find(id);
      if (a == then.end() || b == now.end()) continue;
      for (const std::string& c : columns) {
        const auto i = table->column_index(c);
        if (i && a->second->at(*i) != b->second->at(*i)) {
          undecided.push_back(fmt::format("{}: re-checks its rows after a wait, and another transaction changed the {} "
                                          "{} of row txp_rid={} meanwhile ({})", quote(ref), kind, c, id, why));
          return false;
        }
      }
    }
    return true;
  }

  // Troc's "resurrect as deleted" (digest A5, useDel; MySQL#105670): a write that reads the latest committed versions
  // (InnoDB's current read) does not see a row that a transaction committed after its snapshot deleted, though the
  // snapshot holds it and its WHERE matches it there. Without a first-updater rule that is all (the row stays deleted,
  // and the transaction's later snapshot reads still show it: the documented MDEV-26642 class). With one
  // (innodb_snapshot_isolation=ON) the write still reaches the row's delete-marked record, which the transaction's read
  // view keeps from purge, and its writer is newer than the read view: ER_CHECKREAD. Only where the table has no
  // secondary index, so that every access path is the clustered index (a delete-marked secondary-index entry is skipped
  // before the clustered record is checked; tests/scenarios/sdg_mariadb_si_update_skips_changed_row.txn: a known engine
  // bug, MDEV-40092, modelled here as the engine behaves; the Adya oracle names it and counts it with its tracker entry,
  // tests/scenarios/engine_bugs/mariadb_si_delete_after_concurrent_delete.txn), and only
  // for a WHERE without subqueries (whose versions would differ on the snapshot). Returns why it must fail, or "".
  std::string deleted_after_snapshot(int t, int e, const Statement& s, const StatementRule& rule) {
    const TxnModel& m = model.txns()[static_cast<std::size_t>(t)];
    if ((s.kind != StatementKind::Update && s.kind != StatementKind::Delete) || rule.view == ViewRule::Snapshot ||
        !m.snapshot_seq || !subquery_tables(s).empty() || !s.joins.empty())
      return {};
    const Table* table = model.schema().find_table(s.table);
    if (!table || !table->indexes.empty()) return {};
    const View snapshot = model.view(t, ViewRule::Snapshot, e, {s.table});
    for (std::int64_t r : rows_matching_on(s, snapshot)) {
      const Version* latest = model.latest_committed(r, t, e);
      if (!latest || !latest->deleted || latest->txn == kInitial || latest->txn == t) continue;
      if (model.txns()[static_cast<std::size_t>(latest->txn)].end_seq < *m.snapshot_seq) continue;
      return fmt::format("row txp_rid={}, which T{}'s snapshot holds and its WHERE matches there, was deleted by T{}, "
                         "which committed after the snapshot (resurrect as deleted: the write reaches the row's "
                         "delete-marked record)", r, t, latest->txn);
    }
    return {};
  }

  // A locking read that waited at a level where the engine releases the locks of rows it scanned and did not return
  // (VisibilityRules::rows_read_during_wait: InnoDB READ COMMITTED and below) read the rows before its wait earlier, and
  // others may have changed them since: each row's part of its result is what the statement alone returns for that row
  // on the view at some event between its start and its completion. Returns the row ids of the actual result when
  // every row is so explained (those are the rows it locked), nullopt otherwise.
  // A subquery (of a different table) was evaluated at some point of the wait too, not necessarily the point at which
  // a row was read: every pairing of a view of the statement's table with a view of the subquery's tables is a
  // candidate (each distinct view once).
  std::optional<std::set<std::int64_t>> rows_read_during_wait(int t, int start, int e, const Statement& select,
                                                              ViewRule view_rule, ViewRule sub_view_rule,
                                                              const Outcome& actual) {
    const auto c = std::find(actual.columns.begin(), actual.columns.end(), adya::kRowIdColumn);
    const std::vector<std::string> sub = subquery_tables(select);
    if (!actual.ok() || c == actual.columns.end() || !select.joins.empty() ||
        std::find(sub.begin(), sub.end(), select.table) != sub.end())
      return std::nullopt;
    const auto column = static_cast<std::size_t>(c - actual.columns.begin());
    std::map<std::int64_t, Row> got;
    for (const Row& r : actual.rows) got[as_rid(r.at(column))] = r;
    if (got.size() != actual.rows.size()) return std::nullopt;
    std::vector<View> mains, subs;
    for (int p = start; p <= e; ++p) {
      View at = model.view(t, view_rule, p, {select.table});
      for (auto& [table, rows] : at) rows = sorted_rows(std::move(rows));
      if (std::find(mains.begin(), mains.end(), at) == mains.end()) mains.push_back(std::move(at));
      View sv = model.view(t, sub_view_rule, p, sub);
      for (auto& [table, rows] : sv) rows = sorted_rows(std::move(rows));
      if (std::find(subs.begin(), subs.end(), sv) == subs.end()) subs.push_back(std::move(sv));
    }
    // Per row id: the rows the statement alone returns for it on each candidate (absent: std::nullopt).
    std::map<std::int64_t, std::vector<std::optional<Row>>> seen;
    std::size_t candidates = 0;
    for (const View& main : mains)
      for (const View& sv : subs) {
        View at = main;
        for (const auto& [table, rows] : sv) at[table] = rows;
        ++candidates;
        const Execution x = evaluator.execute(model.schema(), at, select, {});
        if (!x.outcome.ok()) return std::nullopt;
        const auto xc = std::find(x.outcome.columns.begin(), x.outcome.columns.end(), adya::kRowIdColumn);
        if (xc == x.outcome.columns.end()) return std::nullopt;
        std::map<std::int64_t, Row> returned;
        for (const Row& r : x.outcome.rows)
          returned[as_rid(r.at(static_cast<std::size_t>(xc - x.outcome.columns.begin())))] = r;
        const auto rid_col = model.rid_column(select.table);
        if (!rid_col) return std::nullopt;
        for (const Row& r : main.at(select.table)) {
          const std::int64_t id = as_rid(r.at(*rid_col));
          auto it = returned.find(id);
          seen[id].push_back(it == returned.end() ? std::nullopt : std::optional<Row>(it->second));
        }
        for (const auto& [id, r] : returned) (void)seen[id];
      }
    for (const auto& [id, row] : got) {
      auto it = seen.find(id);
      if (it == seen.end() || std::find(it->second.begin(), it->second.end(), std::optional<Row>(row)) == it->second.end())
        return std::nullopt;
    }
    for (const auto& [id, options] : seen)
      if (!got.count(id) && std::find(options.begin(), options.end(), std::nullopt) == options.end() &&
          options.size() == candidates)
        return std::nullopt;  // returned on every candidate, yet missing
    std::set<std::int64_t> ids;
    for (const auto& [id, row] : got) ids.insert(id);
    return ids;
  }

  // See the call in statement(). Returns false (and records why) when the case is undecided.
  bool choose_subquery_view(int t, int e, int start, StepRef ref, ViewRule sub_view_rule,
                            const std::vector<std::string>& sub_tables, const Statement& run,
                            const std::vector<Expr>& predicates, const Outcome& actual, View& view) {
    std::vector<View> candidates;
    for (int p = start; p <= e; ++p) {
      View c = model.view(t, sub_view_rule, p, sub_tables);
      for (auto& [table, rows] : c) rows = sorted_rows(std::move(rows));
      if (std::find(candidates.begin(), candidates.end(), c) == candidates.end()) candidates.push_back(std::move(c));
    }
    if (candidates.size() <= 1) return true;  // nobody changed them meanwhile: the view at completion is the one
    std::vector<Execution> runs;
    for (const View& c : candidates) {
      View full = view;
      for (const auto& [table, rows] : c) full[table] = rows;
      runs.push_back(evaluator.execute(model.schema(), full, run, predicates));
    }
    bool all_same = true;
    for (const Execution& x : runs) all_same = all_same && same_execution(x, runs.front());
    if (all_same) {
      tag("subquery-after-wait-same-either-way");
      return true;
    }
    std::vector<std::size_t> fitting;
    for (std::size_t i = 0; i < runs.size(); ++i)
      if (compare_outcomes(runs[i].outcome, actual).empty()) fitting.push_back(i);
    if (fitting.empty()) return true;  // no candidate explains the outcome: judged on the view at completion
    for (std::size_t i : fitting)
      if (!same_execution(runs[i], runs[fitting.front()])) {
        undecided.push_back(fmt::format("{}: waited, and its subquery reads {} before or after other transactions' "
                                        "commits during the wait; the results agree with the engine's either way but "
                                        "the effects differ", quote(ref), fmt::join(sub_tables, ", ")));
        return false;
      }
    tag("subquery-after-wait-chosen-by-outcome");
    for (const auto& [table, rows] : candidates[fitting.front()]) view[table] = rows;
    return true;
  }

  // Transactions the engine chose as deadlock victims while their statement waited, and whose abort the history
  // records after event e: the engine rolled them back (releasing their locks) as soon as the cycle closed, which may
  // be what let the statement at e through without a visible wait.
  std::set<int> deadlock_victims_in_flight(int t, int e) const {
    std::set<int> out;
    for (std::size_t o = 0; o < h.transactions.size(); ++o) {
      const TxnResult& r = h.transactions[o];
      if (static_cast<int>(o) == t || r.fate != TxnFate::Aborted || !r.failed_step ||
          r.abort_reason.cls != ErrorClass::Deadlock)
        continue;
      const int done = h.completed_at(*r.failed_step);
      if (start_of(*r.failed_step) <= e && (done < 0 || done > e)) out.insert(static_cast<int>(o));
    }
    return out;
  }

  // The rows of its own table that UPDATE/DELETE `s` (joined or not) matches on `at`, by row id; none if the probe
  // fails there.
  std::vector<std::int64_t> rows_matching_on(const Statement& s, const View& at) {
    return evaluator.execute(model.schema(), at, target_probe(s), {}).matched;
  }

  bool held_by(int holder, const std::string& table, std::int64_t rid) const {
    for (const Lock& l : model.txns()[static_cast<std::size_t>(holder)].locks)
      if (l.table == table && l.rows.count(rid)) return true;
    return false;
  }

  // Whether a dirty read's rows are each either as the model has them or as the waiting writes of other transactions
  // (half-done, at READ UNCOMMITTED) would leave them: every row id of the actual result, and of the model's, is
  // accounted for by one of the two.
  bool partial_writes_explain(int t, int e, const Statement& select, const View& view, const Outcome& expected,
                              const Outcome& actual) {
    View with = view;
    bool any = false;
    for (std::size_t o = 0; o < h.test_case.transactions.size(); ++o) {
      if (static_cast<int>(o) == t) continue;
      const Transaction& tx = h.test_case.transactions[o];
      for (std::size_t i = 1; i <= tx.statements.size(); ++i) {
        const StepRef ref{static_cast<int>(o), static_cast<int>(i)};
        const Statement& w = tx.statements[i - 1];
        const std::vector<std::string> written = w.written_tables();
        if (!h.was_blocked[o][i] || !w.is_write() ||
            std::none_of(written.begin(), written.end(), [&](const std::string& x) { return with.count(x) > 0; }))
          continue;
        const int done = h.completed_at(ref);
        if (!(start_of(ref) < e && (done < 0 || done > e))) continue;
        const Execution wx = evaluator.execute(
            model.schema(), model.view(static_cast<int>(o), ViewRule::LatestCommitted, e, w.tables()), w, {});
        if (!wx.outcome.ok()) return false;
        for (const auto& c : wx.changes) {
          const auto rid = model.rid_column(c.table);
          if (!rid) return false;
          if (!with.count(c.table)) continue;
          std::vector<Row>& rows = with[c.table];
          std::erase_if(rows, [&](const Row& r) { return as_rid(r.at(*rid)) == c.rid; });
          if (!c.deleted) rows.push_back(c.data);
        }
        any = true;
      }
    }
    if (!any) return false;
    const Execution alt = evaluator.execute(model.schema(), with, select, {});
    if (!alt.outcome.ok()) return false;
    auto by_rid = [](const Outcome& o) -> std::optional<std::map<std::int64_t, Row>> {
      const auto c = std::find(o.columns.begin(), o.columns.end(), adya::kRowIdColumn);
      if (c == o.columns.end()) return std::nullopt;
      const auto i = static_cast<std::size_t>(c - o.columns.begin());
      std::map<std::int64_t, Row> out;
      for (const Row& r : o.rows) out[as_rid(r.at(i))] = r;
      return out;
    };
    const auto a = by_rid(expected), b = by_rid(alt.outcome), x = by_rid(actual);
    if (!a || !b || !x || actual.rows.size() != x->size()) return false;
    std::set<std::int64_t> ids;
    for (const auto* m : {&*a, &*b, &*x})
      for (const auto& [id, row] : *m) ids.insert(id);
    for (std::int64_t id : ids) {
      auto get = [&](const std::map<std::int64_t, Row>& m) {
        auto it = m.find(id);
        return it == m.end() ? std::optional<Row>() : std::optional<Row>(it->second);
      };
      const auto got = get(*x);
      if (got != get(*a) && got != get(*b)) return false;
    }
    return true;
  }

  // A write of another transaction on one of `tables` that was waiting (started, not completed) at event e.
  std::string write_in_flight(int t, int e, const std::vector<std::string>& tables) const {
    for (std::size_t o = 0; o < h.test_case.transactions.size(); ++o) {
      if (static_cast<int>(o) == t) continue;
      const Transaction& tx = h.test_case.transactions[o];
      for (std::size_t i = 1; i <= tx.statements.size(); ++i) {
        const StepRef ref{static_cast<int>(o), static_cast<int>(i)};
        if (!h.was_blocked[o][i] || !tx.statements[i - 1].is_write()) continue;
        const int done = h.completed_at(ref);
        const std::vector<std::string> written = tx.statements[i - 1].written_tables();
        if (start_of(ref) < e && (done < 0 || done > e) &&
            std::any_of(written.begin(), written.end(), [&](const std::string& x) {
              return std::find(tables.begin(), tables.end(), x) != tables.end();
            }))
          return quote(ref);
      }
    }
    return {};
  }

  static std::string view_name(ViewRule r) {
    switch (r) {
      case ViewRule::Latest: return "latest versions, uncommitted included";
      case ViewRule::LatestCommitted: return "latest committed versions and own writes";
      case ViewRule::Snapshot: return "the transaction's snapshot and own writes";
      case ViewRule::StatementSnapshot: return "the statement's snapshot and own writes";
    }
    return "";
  }

  static std::string rows_text(const Outcome& o) {
    if (!o.ok()) return summary(o);
    std::string out;
    for (const Row& r : sorted_rows(o.rows)) out += (out.empty() ? "" : " ") + to_string(r);
    return out.empty() ? "(no rows)" : out;
  }

  // The rule that left a case undecided, without the statement that met it ("T1 UPDATE ... (READ COMMITTED): "), up
  // to its first comma: the run summary counts the cases per rule.
  static std::string undecided_tag(const std::string& why) {
    const std::size_t label_end = why.find("): ");
    std::string rule = label_end == std::string::npos ? why : why.substr(label_end + 3);
    rule = rule.substr(0, rule.find(','));
    if (rule.size() > 100) rule = rule.substr(0, 97) + "...";
    return "no verdict: undecided: " + rule;
  }

  Verdict run() {
    for (const std::string& f : rich_forms(h.test_case)) tag(f);
    if (h.finding) {
      return v.without_verdict("the run did not finish");
    }
    for (const TxnModel& m : model.txns())
      if (!m.rules.modelled) {
        return v.without_verdict(fmt::format("undecided: {} has no visibility rules for {}", profile.name(), sql_name(m.level)));
      }
    // Initial rows, as the engine gives them back.
    View initial;
    for (const Table& t : model.schema().tables) initial[t.name] = t.rows;
    for (const auto& [table, rows] : evaluator.canonical(model.schema(), initial)) model.set_initial(table, rows);
    for (std::size_t e = 0; e < h.events.size(); ++e) {
      const Event& ev = h.events[e];
      if (ev.kind != Event::Kind::Completed) continue;
      const int t = ev.step.txn;
      const Transaction& tx = h.test_case.transactions[static_cast<std::size_t>(t)];
      const Statement s = tx.step(static_cast<std::size_t>(ev.step.index));
      const Outcome& actual = h.outcome(ev.step);
      TxnModel& m = model.txns()[static_cast<std::size_t>(t)];
      const int seq = static_cast<int>(e);
      switch (s.kind) {
        case StatementKind::Begin:
          if (m.rules.snapshot_point == SnapshotPoint::Begin) m.snapshot_seq = seq;
          break;
        case StatementKind::Commit:
          model.end(t, actual.ok() && h.transactions[static_cast<std::size_t>(t)].fate == TxnFate::Committed
                           ? TxnState::Committed
                           : TxnState::Aborted,
                    seq);
          if (!actual.ok()) tag("engine-abort");
          break;
        case StatementKind::Rollback: model.end(t, TxnState::Aborted, seq); break;
        default: statement(seq, ev.step, s, actual);
      }
      if (!undecided.empty()) break;
    }
    if (!undecided.empty()) {
      v.findings.clear();
      v.tags.push_back(undecided_tag(undecided.front()));
      return v.without_verdict("undecided: " + undecided.front());
    }
    for (const TxnModel& m : model.txns())
      if (m.state == TxnState::Active) {
        return v.without_verdict("undecided: a transaction did not end");
      }
    const View expected_view = evaluator.canonical(model.schema(), model.final_state());
    DatabaseState expected;
    for (const auto& [table, rows] : expected_view) expected[table] = sorted_rows(rows);
    DatabaseState actual;
    for (const auto& [table, rows] : h.final_state) actual[table] = sorted_rows(rows);
    if (const std::string diff = compare_states(expected, actual, "model", "engine"); !diff.empty()) {
      std::vector<int> all;
      for (std::size_t i = 0; i < model.txns().size(); ++i) all.push_back(static_cast<int>(i));
      int deciding = 0;
      for (std::size_t i = 0; i < model.txns().size(); ++i)
        if (model.txns()[i].level < model.txns()[static_cast<std::size_t>(deciding)].level) deciding = static_cast<int>(i);
      finding("incorrect-final-state", "the final state differs from the model's:\n  " + diff, all, deciding);
    }
    if (!ambiguous_order.empty() && v.fails()) {
      v.findings.clear();
      v.inconclusive = true;
      v.note = "undecided: " + ambiguous_order;
    }
    if (v.fails())
      for (const Finding& f : v.findings)
        for (int t : f.transactions)
          if (snapshot_point_ambiguous.count(t)) {
            v.findings.clear();
            return v.without_verdict(fmt::format("undecided: T{}'s first read returned no rows, so whether the engine took its snapshot "
                                 "there (or only at a later read) is not known", t));
          }
    return v;
  }
};

}  // namespace

std::unique_ptr<Evaluator> engine_evaluator(Target& target) {
  return std::make_unique<EngineEvaluator>(target.driver().open_session(), target.dialect(), target.engine());
}

Verdict judge(const History& h, const EngineProfile& profile, const TargetConfig& config, Evaluator& evaluator,
              const TrocOptions& options) {
  Judge j(h, profile, config, evaluator, options);
  try {
    return j.run();
  } catch (const std::runtime_error& e) {
    // A view the engine will not hold as tables (a snapshot plus own writes with two rows of one key, which the
    // engine's own unique checks on the latest versions allowed): the rule cannot be evaluated here.
    Verdict v = Verdict::pass("troc");
    return v.without_verdict(std::string("undecided: ") + e.what());
  }
}

Verdict check_troc(Target& target, const History& h, const TrocOptions& options) {
  auto evaluator = engine_evaluator(target);
  return judge(h, options.profile ? *options.profile : target.engine(), target.config(), *evaluator, options);
}

TestCase prepare(const TestCase& c, const EngineCapabilities& engine) {
  adya::InstrumentationOptions o;
  o.engine = engine;  // its writer list grows only where a row changes, as Adya's (update_skips_unchanged_rows)
  o.returning = false;
  o.observer = false;
  o.version_sets = false;  // Troc keeps its own version history; no version-set reads (Adya's predicate reads)
  o.cascade_log = false;    // nor the log of a foreign key's writes: the judge runs the key's actions itself
  return adya::instrument(c, o);
}

TestCase strip(const TestCase& prepared) {
  if (!adya::is_instrumented(prepared)) return prepared;
  TestCase out = prepared;
  adya::hidden_columns().strip_from(out.schema);
  for (Transaction& t : out.transactions)
    for (Statement& s : t.statements) s = adya::strip_instrumentation_of(s);
  return out;
}

}  // namespace txprop::troc
