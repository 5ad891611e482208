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

// SELECT 1: the SnapshotPin (instrumentation.hpp); no statement of a case reads no table, so it is told apart by that.
Statement snapshot_pin() {
  Statement s = Statement::select("");
  s.select_exprs = {Expr::lit(Value(std::int64_t{1}))};
  return s;
}

bool is_snapshot_pin(const Statement& s) {
  return s.kind == StatementKind::Select && s.table.empty() && s.derived.empty();
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

std::optional<std::int64_t> version_of(const Statement& s) {
  const auto literal = [](const Expr& e) -> std::optional<std::int64_t> {
    if (e.kind != Expr::Kind::Literal || e.literal.type() != ValueType::Integer) return std::nullopt;
    return e.literal.as_int();
  };
  for (const Assignment& a : s.assignments)
    if (a.column == kVersionKey)
      return a.value.kind == Expr::Kind::Case && a.value.args.size() == 3 ? literal(a.value.args[1]) : literal(a.value);
  if (s.kind == StatementKind::Insert && !s.values.empty() && !s.values.front().empty())
    return literal(s.values.front().back());
  return std::nullopt;
}

bool is_instrumented(const TestCase& c) {
  return keys().in(c.schema);
}

namespace {

// One statement's group: the reads before it, the statement as instrumented, the reads after it.
struct Group {
  std::vector<Statement> before;
  Statement statement;
  std::vector<Statement> after;
};

// The instrumentation read of `table` (SELECT txp_pk, txp_vk, <columns> FROM table [WHERE where]).
Statement instrumentation_read(const Schema& schema, const std::string& table, std::optional<Expr> where) {
  return Statement::select(table, std::move(where), LockMode::None, keys().leading(schema.find_table(table)));
}

Expr version_is(std::int64_t version) {
  return Expr::binary(BinaryOp::Eq, Expr::col(kVersionKey), Expr::lit(Value(version)));
}

}  // namespace

std::vector<std::string> cascade_tables(const Statement& s, const Schema& schema) {
  std::vector<std::string> out;
  if (s.kind != StatementKind::Update && s.kind != StatementKind::Delete) return out;
  for (const std::string& w : s.written_tables())
    for (const std::string& t : cascaded_tables(schema, w, s.kind))
      if (std::find(out.begin(), out.end(), t) == out.end() && schema.find_table(t)) out.push_back(t);
  return out;
}

namespace {

// The distinct tables a statement reads that the schema has: one version-set read each. Those it names, and those a
// foreign key's check reads without the statement naming them (the referenced row of an INSERT or key-setting UPDATE
// of the referencing table; the referencing rows of a DELETE or key-setting UPDATE of the referenced one): their
// version-set reads place the statement after the writes the check saw and before those that overwrote it
// (over-approximately: every row of the table, as for a join's tables). A LOCK TABLE reads no row: none (its step is
// still a Statement group, so that groups stay the original statements' indexes; extract_nodes leaves it out).
std::vector<std::string> read_tables(const Statement& s, const Schema& schema) {
  std::vector<std::string> out;
  if (s.kind == StatementKind::LockTable) return out;
  std::vector<std::string> tables = s.tables();
  for (const std::string& checked : foreign_key_checked_tables(schema, s)) tables.push_back(checked);
  for (const std::string& cascaded : cascade_tables(s, schema)) tables.push_back(cascaded);
  for (const std::string& t : tables)
    if (std::find(out.begin(), out.end(), t) == out.end() && schema.find_table(t)) out.push_back(t);
  return out;
}

// txp_vk = K, or where the engine leaves unchanged rows unwritten (`on_change`) and the UPDATE has no join,
// txp_vk = CASE WHEN <an assigned column changes> THEN K ELSE txp_vk END as the first assignment
// (set_where_a_value_changes, as Adya's writer list). A joined UPDATE (its columns qualified, its order of evaluation
// not promised) sets K in every table it writes.
void set_version(Statement& s, std::int64_t version, bool on_change) {
  const std::vector<std::string> written = s.written_tables();
  if (!on_change || !s.joins.empty() || s.assignments.empty()) {
    for (const std::string& w : written)
      s.assignments.push_back(Assignment{kVersionKey, Expr::lit(Value(version)), w == s.table ? std::string() : w});
    return;
  }
  s.assignments.insert(s.assignments.begin(), set_where_a_value_changes(s, kVersionKey, Expr::lit(Value(version))));
}

// `version`: the version key of a write; `next_inserted`: the next row key of an inserted row.
Group group_of(const Statement& original, const Schema& schema, std::int64_t version, std::int64_t& next_inserted,
               bool on_change) {
  Group g{{}, original, {}};
  Statement& s = g.statement;
  // Version-set reads of every referenced table (an INSERT's own table too: whether it fails on a unique key
  // depends on the rows there).
  for (const std::string& t : read_tables(s, schema)) g.before.push_back(instrumentation_read(schema, t, std::nullopt));
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
      break;
    case StatementKind::Insert:
      s.columns.push_back(kRowKey);
      s.columns.push_back(kVersionKey);
      for (auto& row : s.values) {
        row.push_back(Expr::lit(Value(next_inserted++)));
        row.push_back(Expr::lit(Value(version)));
      }
      g.after.push_back(instrumentation_read(schema, s.table, version_is(version)));
      break;
    case StatementKind::Update: {
      // A multi-table UPDATE writes every table its SET names: one before-write read, one version key and one
      // after-write read per written table, in written_tables() order (layout() counts them the same way).
      const std::vector<std::string> written = s.written_tables();
      for (const std::string& w : written) g.before.push_back(instrumentation_read(schema, w, write_predicate(s, w)));
      set_version(s, version, on_change);
      for (const std::string& w : written) g.after.push_back(instrumentation_read(schema, w, version_is(version)));
      for (const std::string& c : cascade_tables(s, schema)) g.after.push_back(instrumentation_read(schema, c, std::nullopt));
      break;
    }
    case StatementKind::Delete:
      // One before-write read per table it deletes from (MariaDB's DELETE t, u FROM t JOIN u deletes from both);
      // a deleted row leaves nothing for an after-write read.
      for (const std::string& w : s.written_tables()) g.before.push_back(instrumentation_read(schema, w, write_predicate(s, w)));
      for (const std::string& c : cascade_tables(s, schema)) g.after.push_back(instrumentation_read(schema, c, std::nullopt));
      break;
    default: break;
  }
  return g;
}

bool moved_at(const Moved& moved, std::size_t t, std::size_t stmt) {
  return t < moved.size() && stmt < moved[t].size() && moved[t][stmt];
}

// The companion of a transaction with moved groups: autocommit reads at READ UNCOMMITTED.
Transaction companion_of(std::vector<Statement> reads) {
  Transaction o;
  o.isolation = IsolationLevel::ReadUncommitted;
  o.autocommit = true;
  o.statements = std::move(reads);
  return o;
}

// Steps of one submitted step of the original case in the prepared order: the companion's before it, the
// transaction's own, the companion's after it.
struct Placed {
  int before = 0, own = 1, after = 0;
};

}  // namespace

TestCase instrument(const TestCase& c, bool first_write_lock, const Moved& moved, bool on_change,
                    bool cascade_triggers, bool keep_covering, const std::vector<IsolationLevel>& pin_levels) {
  TestCase out = c;
  keys().add_to(out.schema, [](std::int64_t n) { return Row{Value(n), Value(std::int64_t{0})}; }, keep_covering);
  if (cascade_triggers)
    for (const std::string& t : cascading_tables(out.schema))
      out.schema.find_table(t)->cascade_log = CascadeLog{"", kRowKey, kVersionKey};  // SDG's form (schema.hpp)
  std::int64_t next_version = 1, next_inserted = kInsertedRowKeys;
  std::vector<std::vector<Placed>> placed(c.transactions.size());  // [txn][step]
  std::vector<int> companion(c.transactions.size(), -1);
  for (std::size_t ti = 0; ti < c.transactions.size(); ++ti) {
    const Transaction& tx = c.transactions[ti];
    std::vector<Statement> statements, observer;
    placed[ti].push_back(Placed{});  // BEGIN
    for (std::size_t k = 0; k < tx.statements.size(); ++k) {
      const Statement& original = tx.statements[k];
      const std::int64_t version = next_version;
      if (original.kind == StatementKind::Insert || original.kind == StatementKind::Update ||
          original.kind == StatementKind::Delete)
        ++next_version;
      Group g = group_of(original, out.schema, version, next_inserted, on_change);
      Placed p{0, 1, 0};
      // Before the first statement that takes the snapshot: a LOCK TABLE takes none (txn_start.cpp, takes_snapshot).
      const bool first_snapshot = original.kind != StatementKind::LockTable &&
                                  std::none_of(tx.statements.begin(), tx.statements.begin() + static_cast<long>(k),
                                               [](const Statement& s) { return s.kind != StatementKind::LockTable; });
      if (first_snapshot && !tx.autocommit &&
          std::find(pin_levels.begin(), pin_levels.end(), tx.isolation) != pin_levels.end()) {
        statements.push_back(snapshot_pin());
        ++p.own;
      }
      if (first_write_lock && statements.empty() && original.is_write()) {
        statements.push_back(write_lock(original.table));
        ++p.own;
      }
      if (moved_at(moved, ti, k)) {
        p.before = static_cast<int>(g.before.size());
        p.after = static_cast<int>(g.after.size());
        for (Statement& r : g.before) observer.push_back(std::move(r));
        statements.push_back(std::move(g.statement));
        for (Statement& r : g.after) observer.push_back(std::move(r));
      } else {
        p.own += static_cast<int>(g.before.size() + g.after.size());
        for (Statement& r : g.before) statements.push_back(std::move(r));
        statements.push_back(std::move(g.statement));
        for (Statement& r : g.after) statements.push_back(std::move(r));
      }
      placed[ti].push_back(p);
    }
    placed[ti].push_back(Placed{});  // the end
    out.transactions[ti].statements = std::move(statements);
    if (!observer.empty()) {
      companion[ti] = static_cast<int>(out.transactions.size());
      out.transactions.push_back(companion_of(std::move(observer)));
    }
  }
  out.order.clear();
  std::vector<std::size_t> at(c.transactions.size(), 0);
  std::vector<std::size_t> sent(out.transactions.size(), 0);  // companion steps placed so far
  auto place = [&](int o, int n) {
    for (int i = 0; i < n; ++i) {
      if (sent[static_cast<std::size_t>(o)]++ == 0) out.order.push_back(o);  // its BEGIN (nothing is sent)
      out.order.push_back(o);
      if (sent[static_cast<std::size_t>(o)] == out.transactions[static_cast<std::size_t>(o)].statements.size())
        out.order.push_back(o);  // its end, right after its last read
    }
  };
  for (int t : c.order) {
    const std::size_t ti = static_cast<std::size_t>(t);
    const Placed p = at[ti] < placed[ti].size() ? placed[ti][at[ti]] : Placed{};
    ++at[ti];
    place(companion[ti], p.before);
    out.order.insert(out.order.end(), static_cast<std::size_t>(p.own), t);
    place(companion[ti], p.after);
  }
  return out;
}

namespace {

bool companion_shape(const Transaction& tx) {
  return tx.autocommit && tx.isolation == IsolationLevel::ReadUncommitted && !tx.statements.empty() &&
         std::all_of(tx.statements.begin(), tx.statements.end(), is_instrumentation_read);
}

// The roles of a transaction's own steps; `moved` gets the groups whose statement has no reads before it in the
// transaction (every statement references a table, so its reads are on the companion).
std::vector<StepRole> own_roles(const Transaction& tx, const Schema& schema, std::vector<int>& moved) {
  std::vector<StepRole> roles(tx.step_count());
  roles.front() = {Role::Control, -1};
  roles.back() = {Role::Control, -1};
  int group = 0;
  std::vector<std::size_t> pending;  // instrumentation reads waiting for their statement
  std::size_t expect_after = 0;    // after-write reads still to come for the last statement
  std::size_t expect_cascade = 0;  // then its reads of the tables its keys' actions write
  for (std::size_t i = 0; i < tx.statements.size(); ++i) {
    const Statement& s = tx.statements[i];
    const std::size_t step = i + 1;
    if (is_write_lock(s)) {
      roles[step] = {Role::WriteLock, -1};
      continue;
    }
    if (is_snapshot_pin(s)) {
      roles[step] = {Role::SnapshotPin, -1};
      continue;
    }
    if (is_instrumentation_read(s)) {
      if (expect_after > 0) {
        roles[step] = {Role::AfterWriteRead, group - 1};
        --expect_after;
      } else if (expect_cascade > 0) {
        roles[step] = {Role::CascadeRead, group - 1};
        --expect_cascade;
      } else {
        pending.push_back(step);
      }
      continue;
    }
    // One before-write read (UPDATE, DELETE) and one after-write read (UPDATE, INSERT) per written table.
    const std::size_t written = s.written_tables().size();
    const std::size_t befores =
        (s.kind == StatementKind::Update || s.kind == StatementKind::Delete) ? std::min(written, pending.size()) : 0;
    for (std::size_t k = 0; k < pending.size(); ++k)
      roles[pending[k]] = {k + befores >= pending.size() ? Role::BeforeWriteRead : Role::VersionSetRead, group};
    const bool here = !pending.empty();
    if (!here) moved.push_back(group);
    pending.clear();
    roles[step] = {Role::Statement, group};
    expect_after = here && (s.kind == StatementKind::Update || s.kind == StatementKind::Insert) ? written : 0;
    expect_cascade = here ? cascade_tables(s, schema).size() : 0;
    ++group;
  }
  for (std::size_t step : pending) roles[step] = {Role::VersionSetRead, group};  // malformed: reads without statement
  return roles;
}

// The roles of a companion's reads: for each moved group of `owner` in turn, its version-set and before-write reads,
// then its after-write reads (as group_of() makes them).
void companion_roles(const Transaction& owner, int owner_index, const std::vector<int>& groups, const Schema& schema,
                     std::vector<StepRole>& roles) {
  std::size_t step = 1;
  auto take = [&](Role role, int group, std::size_t n) {
    for (std::size_t i = 0; i < n && step + 1 < roles.size(); ++i) roles[step++] = {role, group, owner_index};
  };
  std::vector<const Statement*> statements;
  for (const Statement& s : owner.statements)
    if (!is_instrumentation_read(s) && !is_write_lock(s) && !is_snapshot_pin(s)) statements.push_back(&s);
  for (int g : groups) {
    if (static_cast<std::size_t>(g) >= statements.size()) break;
    const Statement& s = *statements[static_cast<std::size_t>(g)];
    const std::size_t written = s.written_tables().size();
    const bool overwrites = s.kind == StatementKind::Update || s.kind == StatementKind::Delete;
    take(Role::VersionSetRead, g, read_tables(s, schema).size());
    take(Role::BeforeWriteRead, g, overwrites ? written : 0);
    take(Role::AfterWriteRead, g, s.kind == StatementKind::Update || s.kind == StatementKind::Insert ? written : 0);
    take(Role::CascadeRead, g, cascade_tables(s, schema).size());
  }
}

}  // namespace

Layout layout(const TestCase& prepared) {
  Layout out;
  std::vector<std::pair<int, std::vector<int>>> owners;  // transactions with moved groups, in index order
  for (std::size_t t = 0; t < prepared.transactions.size(); ++t) {
    const Transaction& tx = prepared.transactions[t];
    std::vector<int> moved;
    if (companion_shape(tx)) {
      out.emplace_back(tx.step_count(), StepRole{});
      continue;
    }
    out.push_back(own_roles(tx, prepared.schema, moved));
    if (!moved.empty()) owners.emplace_back(static_cast<int>(t), std::move(moved));
  }
  // The k-th companion holds the reads of the k-th transaction with moved groups (instrument() appends them so).
  std::size_t k = 0;
  for (std::size_t t = 0; t < prepared.transactions.size() && k < owners.size(); ++t)
    if (companion_shape(prepared.transactions[t])) {
      const auto& [owner, groups] = owners[k++];
      companion_roles(prepared.transactions[static_cast<std::size_t>(owner)], owner, groups, prepared.schema, out[t]);
    }
  return out;
}

bool is_companion(const Layout& layout, std::size_t t) {
  return t < layout.size() &&
         std::any_of(layout[t].begin(), layout[t].end(), [](const StepRole& r) { return r.owner >= 0; });
}

std::vector<StepRef> group_steps(const Layout& layout, int txn, int group) {
  // Reads before the statement, the statement, reads after it; each part in step order (a group's reads are all in
  // its transaction or all on its companion).
  auto part = [](Role r) { return r == Role::Statement ? 1 : is_after(r) ? 2 : 0; };
  std::vector<std::pair<int, StepRef>> steps;
  for (std::size_t u = 0; u < layout.size(); ++u)
    for (std::size_t s = 0; s < layout[u].size(); ++s) {
      const StepRole& r = layout[u][s];
      const int owner = r.owner >= 0 ? r.owner : static_cast<int>(u);
      if (r.group == group && owner == txn && r.role != Role::Control)
        steps.emplace_back(part(r.role), StepRef{static_cast<int>(u), static_cast<int>(s)});
    }
  std::stable_sort(steps.begin(), steps.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<StepRef> out;
  for (const auto& [p, ref] : steps) out.push_back(ref);
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
  for (Table& t : out.schema.tables) t.cascade_log.reset();
  // Companions come after every transaction of the case: dropping them keeps the others' indexes.
  while (!out.transactions.empty() && is_companion(roles, out.transactions.size() - 1)) out.transactions.pop_back();
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
    if (ti >= out.transactions.size()) continue;
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
