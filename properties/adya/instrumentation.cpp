#include "txprop/adya_instrumentation.hpp"

#include <algorithm>

namespace txprop::adya {

namespace {

bool is_hidden(const std::string& column) { return hidden_columns().is_hidden(column); }

// Row ids are unique across all tables and the whole case: initial rows count from 1, each inserted row gets
// 1'000'000 + its place among all inserted rows of the case, in transaction and statement order.
constexpr std::int64_t kInsertedRowIds = 1'000'000;

// RETURNING list of an instrumented write: the row id and writer list first, then every other column.
std::vector<std::string> all_columns(const Schema& schema, const std::string& table) {
  return hidden_columns().leading(schema.find_table(table));
}

}  // namespace

const HiddenColumns& hidden_columns() {
  static const HiddenColumns h(
      {Column{kRowIdColumn, ColumnType::Integer, false}, Column{kWriterListColumn, ColumnType::Text, true}});
  return h;
}

EngineCapabilities every_returning_form() {
  EngineCapabilities c;
  c.update_returning = c.delete_returning = true;
  c.joined_write_returning = c.joined_write_returning_joined_table = true;
  return c;
}

bool join_reads_before_writes(const EngineCapabilities& engine) {
  return engine.joined_write_returning && !engine.joined_write_returning_joined_table && engine.writes_read_snapshot;
}

bool is_version_set_read(const Statement& s) {
  return s.kind == StatementKind::Select && !s.columns.empty() && s.columns.front() == kRowIdColumn;
}

bool is_key_read(const Statement& s) { return is_version_set_read(s) && s.where.has_value(); }

LockMode key_check_lock(const EngineCapabilities& engine) {
  const auto& strengths = engine.lock_strengths;
  if (std::find(strengths.begin(), strengths.end(), LockMode::KeyShare) != strengths.end()) return LockMode::KeyShare;
  return engine.locking_reads ? LockMode::Share : LockMode::None;
}

const ForeignKey* checked_referencing_key(const Table& child, const std::string& table) {
  if (child.foreign_keys.size() != 1 || child.name == table) return nullptr;
  const ForeignKey& fk = child.foreign_keys.front();
  const bool reads = fk.on_delete == ReferentialAction::NoAction || fk.on_delete == ReferentialAction::Restrict ||
                     fk.on_delete == ReferentialAction::Cascade;
  return fk.table == table && reads ? &fk : nullptr;
}

const ForeignKey* checked_referenced_key(const Table& child, const Statement& update) {
  if (child.foreign_keys.size() != 1 || update.kind != StatementKind::Update || !update.joins.empty() ||
      update.table != child.name || child.foreign_keys.front().table == child.name)
    return nullptr;
  const ForeignKey& fk = child.foreign_keys.front();
  const bool sets = std::any_of(update.assignments.begin(), update.assignments.end(), [&](const Assignment& a) {
    return (a.table.empty() || a.table == child.name) &&
           std::find(fk.columns.begin(), fk.columns.end(), a.column) != fk.columns.end();
  });
  return sets ? &fk : nullptr;
}

bool is_join_read_before_write(const Statement& s) {
  return s.kind == StatementKind::Select && !s.joins.empty() && s.select_exprs.size() == 1 &&
         s.select_exprs.front().kind == Expr::Kind::Literal && s.select_exprs.front().literal.type() == ValueType::Text &&
         s.select_exprs.front().literal.as_text() == kJoinReadMarker;
}

namespace {

// A version-set read or a join read before a write: reads instrument() adds, which strip_instrumentation removes.
bool is_added_read(const Statement& s) { return is_version_set_read(s) || is_join_read_before_write(s); }

// SELECT *, 'txp_join_read' FROM t INNER JOIN u ON <on> WHERE <where>: the rows of t and u a joined write reads, as a
// SELECT * over the join returns them (each table's columns, row id and writer list included, in its place).
Statement join_read_before(const Statement& write) {
  Statement r = Statement::select(write.table, write.where);
  r.joins.push_back(Join{false, write.joins.front().table, write.joins.front().on});
  r.select_exprs.push_back(Expr::lit(Value(std::string(kJoinReadMarker))));
  return r;
}

// txp_wl = txp_wl || ',<id>'. With `on_change` (an engine that leaves a row the UPDATE sets to its own values
// unwritten, EngineCapabilities::update_skips_unchanged_rows) only where some assigned column changes:
//   txp_wl = CASE WHEN a IS DISTINCT FROM <new a> OR ... THEN txp_wl || ',<id>' ELSE txp_wl END
// as the first assignment, so that it compares the old values on MariaDB too, which evaluates a single-table UPDATE's
// assignments left to right, each seeing the values set before it (KB, UPDATE: "single-table UPDATE assignments are
// generally evaluated from left to right"). The comparison is the engine's own (NULL-safe equality, the column's
// collation): it calls a text value that differs only where the collation ignores a difference (case, trailing
// spaces under a case-insensitive PAD SPACE collation) unchanged where InnoDB would write it; generated values have
// no such pair (generators/test_case_gen.cpp kTexts).
void add_writer(Statement& s, const std::string& id, bool on_change) {
  Expr append = Expr::binary(BinaryOp::Concat, Expr::col(kWriterListColumn), Expr::lit(Value("," + id)));
  if (!on_change || s.assignments.empty()) {
    s.assignments.push_back(Assignment{kWriterListColumn, std::move(append), {}});
    return;
  }
  s.assignments.insert(s.assignments.begin(), set_where_a_value_changes(s, kWriterListColumn, std::move(append)));
}

// Every column `e` names, subqueries' included.
void columns_named(const Expr& e, std::vector<std::string>& out) {
  if (e.kind == Expr::Kind::Column) out.push_back(e.column);
  for (const Expr& a : e.args) columns_named(a, out);
}

bool keyed(const Table& t, const std::string& column) {
  if (!t.primary_key.empty() && t.primary_key.front() == column) return true;
  return std::any_of(t.indexes.begin(), t.indexes.end(),
                     [&](const Index& i) { return !i.columns.empty() && i.columns.front() == column; });
}

// Whether `t` has an index on a hidden column: a covering twin (HiddenColumns::covering_twin).
bool has_covering_twin(const Table& t) {
  return std::any_of(t.indexes.begin(), t.indexes.end(), [](const Index& i) {
    return std::any_of(i.columns.begin(), i.columns.end(), [](const std::string& c) { return is_hidden(c); });
  });
}

// Whether `s` sets a column of `t`'s primary key or of one of its unique indexes.
bool sets_a_unique_column(const Table& t, const Statement& s) {
  const auto in = [](const std::vector<std::string>& cols, const std::string& c) {
    return std::find(cols.begin(), cols.end(), c) != cols.end();
  };
  return std::any_of(s.assignments.begin(), s.assignments.end(), [&](const Assignment& a) {
    return in(t.primary_key, a.column) || std::any_of(t.indexes.begin(), t.indexes.end(), [&](const Index& i) {
             return i.unique && in(i.columns, a.column);
           });
  });
}

// Whether InnoDB's UPDATE or DELETE `s` at REPEATABLE READ locks exactly what SELECT ... FOR UPDATE of its whole table
// locks: it reads no other table (no join, no subquery: their shared locks would come after all of the table's
// exclusive ones instead of row by row), its WHERE names no column an index leads with (so no range or lookup can
// narrow the scan: it scans the whole clustered index, as the full read does, and both take an exclusive next-key lock
// on every record and on the supremum, MySQL 8.0 manual 15.7.3, "Locks Set by Different SQL Statements in InnoDB":
// "If you have no indexes suitable for your statement and MySQL must scan the entire table to process the statement,
// every row of the table becomes locked"), it has no LIMIT, and no foreign key of or to its table makes it read or
// write another table row by row. Nor does an UPDATE that sets a column of the primary key or of a unique index: a
// duplicate key ends it at the row that has it, before it locks the records after it, where the read locked them all
// (the instrumentation differential, 500 contended cases at MariaDB REPEATABLE READ: the added read waited for a row
// another transaction had inserted, which the plain UPDATE, failing with 1062 on an earlier row, never reached).
// Nor where the table has a covering twin (HiddenColumns::covering_twin): the read scans the twin instead of the
// clustered index, and locks the twin's records and gaps where the write locks the clustered index's (the differential,
// 2,000 cases at MariaDB REPEATABLE READ with innodb_snapshot_isolation=ON, case 919: before `DELETE FROM t0` the read
// took no lock on the clustered index's supremum, and another transaction's INSERT failed with 1062 at once where,
// plainly, it waited and was ended by a deadlock).
bool scans_whole_table(const Schema& schema, const Table& t, const Statement& s) {
  if ((s.kind != StatementKind::Update && s.kind != StatementKind::Delete) || !s.joins.empty() || s.limit ||
      s.tables().size() != 1 || !t.foreign_keys.empty() || sets_a_unique_column(t, s) || has_covering_twin(t))
    return false;
  for (const Table& other : schema.tables)
    for (const ForeignKey& fk : other.foreign_keys)
      if (fk.table == t.name) return false;
  std::vector<std::string> named;
  if (s.where) columns_named(*s.where, named);
  return std::none_of(named.begin(), named.end(), [&](const std::string& c) { return keyed(t, c); });
}

// SELECT txp_rid, txp_wl, <every other column> FROM t [WHERE ...] [lock]: a version-set read (is_version_set_read).
Statement version_set_read(const Table& t, std::optional<Expr> where = std::nullopt, LockMode lock = LockMode::None) {
  Statement v = Statement::select(t.name, std::move(where), lock);
  v.columns = {kRowIdColumn, kWriterListColumn};
  for (const Column& col : t.columns)
    if (!is_hidden(col.name)) v.columns.push_back(col.name);
  return v;
}

// The reads recording an INSERT's foreign-key checks (is_key_read), each with a version-set read of the referenced
// table before it where `plain_sees_check` (a plain read right before the INSERT sees the versions its check reads: the
// statement's snapshot at PostgreSQL, SQLite, InnoDB READ COMMITTED). None for a key whose lookups are not known before
// the INSERT runs, or that looks up nothing (inserted_keys).
std::vector<Statement> key_reads_before(const Schema& schema, const Statement& insert, const EngineCapabilities& engine,
                                        bool plain_sees_check) {
  std::vector<Statement> out;
  const Table* t = schema.find_table(insert.table);
  if (insert.kind != StatementKind::Insert || t == nullptr) return out;
  for (const ForeignKey& fk : t->foreign_keys) {
    const Table* referenced = schema.find_table(fk.table);
    const auto keys = inserted_keys(insert, fk);
    if (referenced == nullptr || !keys || keys->empty()) continue;
    if (plain_sees_check) out.push_back(version_set_read(*referenced));
    out.push_back(version_set_read(*referenced, key_lookup(fk.referenced, *keys), key_check_lock(engine)));
  }
  return out;
}

// Version-set reads of the tables whose rows a DELETE's or UPDATE's key checks read (checked_referencing_key,
// checked_referenced_key), before the write's own version-set read.
std::vector<Statement> key_table_reads_before(const Schema& schema, const Statement& s) {
  std::vector<Statement> out;
  if (s.kind == StatementKind::Delete && s.joins.empty())
    for (const Table& child : schema.tables)
      if (checked_referencing_key(child, s.table) != nullptr) out.push_back(version_set_read(child));
  const Table* t = schema.find_table(s.table);
  if (const ForeignKey* fk = t != nullptr ? checked_referenced_key(*t, s) : nullptr)
    if (const Table* referenced = schema.find_table(fk->table)) out.push_back(version_set_read(*referenced));
  return out;
}

}  // namespace

bool is_instrumented(const TestCase& c) {
  return hidden_columns().in(c.schema);
}

namespace {

// The observer runs after everything else ended, at the strongest level of the case, so that it is never the weakest
// transaction a phenomenon involves, and reads every table.
void append_observer(TestCase& out) {
  Transaction observer;
  observer.isolation = out.transactions.front().isolation;
  for (const Transaction& t : out.transactions) observer.isolation = std::max(observer.isolation, t.isolation);
  for (const Table& t : out.schema.tables) observer.statements.push_back(Statement::select(t.name));
  observer.after_all = true;
  const int index = static_cast<int>(out.transactions.size());
  out.transactions.push_back(observer);
  out.order.insert(out.order.end(), observer.step_count(), index);
}

// The order once reads were inserted: each original step of transaction t becomes the step it moved to, preceded by
// the read inserted before it (`added`: per transaction, the new step indexes of the inserted reads).
std::vector<int> order_with_added_reads(const std::vector<int>& original,
                                        const std::vector<std::vector<std::size_t>>& added) {
  std::vector<int> order;
  std::vector<std::size_t> seen(added.size(), 0), next_added(added.size(), 0);
  for (int t : original) {
    const std::size_t ti = static_cast<std::size_t>(t);
    // The reads inserted before this original step, whose new index is the originals before it plus the reads so far.
    while (next_added[ti] < added[ti].size() && added[ti][next_added[ti]] == seen[ti] + next_added[ti]) {
      order.push_back(t);
      ++next_added[ti];
    }
    ++seen[ti];
    order.push_back(t);
  }
  return order;
}

// What one statement of transaction `id` (1-based) writes into the hidden columns and returns: an INSERT's row ids and
// writer, an UPDATE's writer list (every written table's of a joined UPDATE), a write's RETURNING of the versions it
// read, a plain SELECT's row ids.
struct WriteRecording {
  const Schema& schema;
  const EngineCapabilities& engine;
  bool update_returning = false;
  bool delete_returning = false;
  std::int64_t next_inserted = kInsertedRowIds;  // the row id of the next inserted row
};

void record_statement(Statement& s, const std::string& id, WriteRecording& r) {
  switch (s.kind) {
    case StatementKind::Select:
      // A join's column list cannot name txp_rid unqualified (every table has one): it returns no row ids, only
      // SELECT * over a join does (each table's in its place, see add_join_reads in adya_property.cpp).
      if (!s.columns.empty() && s.joins.empty()) {
        s.columns.push_back(kRowIdColumn);
        s.columns.push_back(kWriterListColumn);
      }
      break;
    case StatementKind::Insert:
      s.columns.push_back(kRowIdColumn);
      s.columns.push_back(kWriterListColumn);
      for (auto& row : s.values) {
        row.push_back(Expr::lit(Value(r.next_inserted++)));
        row.push_back(Expr::lit(Value(id)));
      }
      break;
    case StatementKind::Update: {
      if (s.joins.empty()) {
        add_writer(s, id, r.engine.update_skips_unchanged_rows);
        if (r.update_returning) s.returning = all_columns(r.schema, s.table);
        break;
      }
      // Both tables have a txp_wl: the appended list names its table. Every written table's rows get the writer.
      const std::vector<std::string> written = s.written_tables();
      for (const std::string& w : written)
        s.assignments.push_back(Assignment{
            kWriterListColumn,
            Expr::binary(BinaryOp::Concat, Expr::qcol(w, kWriterListColumn), Expr::lit(Value("," + id))),
            w == s.table ? std::string() : w});
      if (r.update_returning && r.engine.joined_write_returning) {
        s.returning = all_columns(r.schema, s.table);
        // The partner's version is the one read only if this UPDATE does not write the partner too.
        if (r.engine.joined_write_returning_joined_table && written.size() == 1)
          s.returning_joined = all_columns(r.schema, s.joins.front().table);
      }
      break;
    }
    case StatementKind::Delete:
      if (s.joins.empty()) {
        if (r.delete_returning) s.returning = all_columns(r.schema, s.table);
      } else if (r.delete_returning && r.engine.joined_write_returning) {
        s.returning = all_columns(r.schema, s.table);
        if (r.engine.joined_write_returning_joined_table)
          s.returning_joined = all_columns(r.schema, s.joins.front().table);
      }
      break;
    default: break;
  }
}

// Tables a foreign-key action may write, each given a CascadeLog, the log table added, every transaction its writer.
void add_cascade_log(TestCase& out) {
  const std::vector<std::string> written = cascading_tables(out.schema);
  if (written.empty()) return;
  for (const std::string& w : written)
    out.schema.find_table(w)->cascade_log = CascadeLog{kCascadeLogTable, kRowIdColumn, kWriterListColumn};
  Table log;
  log.name = kCascadeLogTable;
  log.columns = {Column{"txp_writer", ColumnType::Text, false}, Column{"txp_table", ColumnType::Text, false},
                 Column{"txp_row", ColumnType::Integer, false}, Column{"txp_list", ColumnType::Text, false}};
  out.schema.tables.push_back(std::move(log));
  for (std::size_t i = 0; i < out.transactions.size(); ++i) out.transactions[i].writer = static_cast<int>(i + 1);
}

}  // namespace

bool is_cascade_log(const Table& t) { return t.name == kCascadeLogTable; }

std::optional<CascadedDelete> parse_cascade_log_row(const Row& r) {
  if (r.size() != 4 || r[0].type() != ValueType::Text || r[1].type() != ValueType::Text ||
      r[2].type() != ValueType::Integer || r[3].type() != ValueType::Text)
    return std::nullopt;
  const auto writer = parse_writer_list(r[0].as_text());
  auto list = parse_writer_list(r[3].as_text());
  if (!writer || writer->size() != 1 || writer->front() == 0 || !list) return std::nullopt;
  return CascadedDelete{writer->front(), r[1].as_text(), r[2].as_int(), std::move(*list)};
}

TestCase instrument(const TestCase& c, const InstrumentationOptions& options) {
  TestCase out = c;
  // Where current reads depend on the index scanned (InnoDB), a covering index keeps a covering twin.
  hidden_columns().add_to(out.schema, [](std::int64_t n) { return Row{Value(n), Value("0")}; },
                          !options.engine.writes_read_snapshot);
  // Version-set reads: inserted before predicate reads, and their steps into the order (the step before the
  // statement's own step, which is step index + 1: step 0 is BEGIN).
  // Join reads before joined writes are inserted the same way.
  const EngineCapabilities& engine = options.engine;
  const bool join_reads = join_reads_before_writes(engine);
  const bool update_returning = options.returning && engine.update_returning;
  const bool delete_returning = options.returning && engine.delete_returning;
  const bool adds_reads = options.version_sets || join_reads;
  std::vector<std::vector<std::size_t>> added(out.transactions.size());  // per transaction: new step indexes
  for (std::size_t i = 0; i < out.transactions.size() && adds_reads; ++i) {
    Transaction& tx = out.transactions[i];
    if (tx.autocommit || std::find(engine.locking_plain_reads.begin(), engine.locking_plain_reads.end(),
                                   tx.isolation) != engine.locking_plain_reads.end())
      continue;
    std::vector<Statement> statements;
    for (const Statement& s : tx.statements) {
      // Reads through a join or a derived table, or with a LIMIT, are no predicate reads of their WHERE over one
      // table's version set (the Adya property draws no predicate edges from them): no version-set read.
      // A joined write's WHERE is no predicate over one table's version set either.
      // Nor before a write that is its transaction's first statement where such a write takes its snapshot after a
      // wait (SQLite): the read would take it before, and the retried write would fail on a changed database.
      // Below InnoDB's REPEATABLE READ, a plain read right before a write or locking read sees what its current read
      // reads unless it waits (current_reads_as_plain_read; a wait leaves the read without predicate edges).
      const bool reads_as_plain = std::find(engine.current_reads_as_plain_read.begin(),
                                            engine.current_reads_as_plain_read.end(),
                                            tx.isolation) != engine.current_reads_as_plain_read.end();
      const bool write_reads_snapshot = (engine.writes_read_snapshot || reads_as_plain) &&
                                        !(engine.first_write_snapshot_after_wait && statements.empty());
      // A locking read reads like a write (InnoDB: the latest committed versions, a current read; a plain read
      // before it would also open InnoDB's read view early, which changes what the transaction's later plain reads
      // see and, with innodb_snapshot_isolation, which of its locking reads fail).
      const bool predicate =
          options.version_sets && s.joins.empty() &&
          ((s.kind == StatementKind::Select && s.derived.empty() && !s.limit &&
            (s.lock == LockMode::None || write_reads_snapshot)) ||
           ((s.kind == StatementKind::Update || s.kind == StatementKind::Delete) && write_reads_snapshot));
      const Table* table = out.schema.find_table(s.table);
      // At InnoDB REPEATABLE READ a write's current read is recorded by a locking read of the whole table where the
      // write locks the whole table anyway (scans_whole_table): the same locks, taken by the read; the write then
      // reads the rows the read returned, locked since. A locking read opens no read view.
      const auto& whole = engine.whole_table_locking_read;
      const bool locked_read = options.version_sets && !engine.writes_read_snapshot && table != nullptr &&
                               std::find(whole.begin(), whole.end(), tx.isolation) != whole.end() &&
                               scans_whole_table(out.schema, *table, s);
      if (s.is_multi_table_write() && join_reads && table != nullptr) {
        added[i].push_back(statements.size() + 1);
        statements.push_back(join_read_before(s));
      } else if ((predicate || locked_read) && table != nullptr) {
        // A DELETE's or UPDATE's key checks read other tables as the write reads its own: in its snapshot.
        for (Statement& r : predicate ? key_table_reads_before(out.schema, s) : std::vector<Statement>{}) {
          added[i].push_back(statements.size() + 1);
          statements.push_back(std::move(r));
        }
        added[i].push_back(statements.size() + 1);
        statements.push_back(version_set_read(*table, std::nullopt, locked_read ? LockMode::Update : LockMode::None));
      } else if (options.version_sets && !(engine.first_write_snapshot_after_wait && statements.empty())) {
        // An INSERT's key checks (not before a first write that takes its snapshot after a wait: SQLite, as above).
        for (Statement& r : key_reads_before(out.schema, s, engine, engine.writes_read_snapshot || reads_as_plain)) {
          added[i].push_back(statements.size() + 1);
          statements.push_back(std::move(r));
        }
      }
      statements.push_back(s);
    }
    tx.statements = std::move(statements);
  }
  if (adds_reads) out.order = order_with_added_reads(out.order, added);
  WriteRecording recording{out.schema, engine, update_returning, delete_returning, kInsertedRowIds};
  for (std::size_t i = 0; i < out.transactions.size(); ++i) {
    const std::string id = std::to_string(i + 1);
    for (Statement& s : out.transactions[i].statements)
      if (!is_added_read(s)) record_statement(s, id, recording);
  }
  if (options.cascade_log && engine.cascaded_writes_unrecorded.empty()) add_cascade_log(out);
  if (options.observer && !out.transactions.empty()) append_observer(out);
  return out;
}

std::optional<std::vector<JoinedTableColumns>> joined_table_columns(const Schema& schema, const ::txprop::Statement& s,
                                                                    const Outcome& out) {
  if (!s.columns.empty() || !s.items.empty() || !s.derived.empty()) return std::nullopt;
  std::vector<JoinedTableColumns> parts;
  std::size_t offset = 0;
  auto add_part = [&](const std::string& name, bool optional) {
    const Table* t = schema.find_table(name);
    if (t == nullptr) return false;
    const auto rid = t->column_index(kRowIdColumn), wl = t->column_index(kWriterListColumn);
    if (!rid || !wl) return false;
    parts.push_back(JoinedTableColumns{t, offset + *rid, offset + *wl, optional});
    offset += t->columns.size();
    return true;
  };
  if (!add_part(s.table, false)) return std::nullopt;
  for (const Join& j : s.joins)
    if (!add_part(j.table, j.left)) return std::nullopt;
  if (out.columns.size() != offset + s.select_exprs.size()) return std::nullopt;
  for (const JoinedTableColumns& p : parts)
    if (out.columns[p.rid] != kRowIdColumn || out.columns[p.wl] != kWriterListColumn) return std::nullopt;
  return parts;
}

TestCase strip_instrumentation(const TestCase& c) {
  if (!is_instrumented(c)) return c;
  TestCase out = c;
  hidden_columns().strip_from(out.schema);
  std::erase_if(out.schema.tables, [](const Table& t) { return is_cascade_log(t); });
  for (Table& t : out.schema.tables) t.cascade_log.reset();
  for (Transaction& t : out.transactions) t.writer = 0;
  // The observer is the last transaction and reads every table; it was appended last to the order.
  const int last = static_cast<int>(out.transactions.size()) - 1;
  if (last >= 1 && out.order.size() >= out.transactions[static_cast<std::size_t>(last)].step_count() &&
      std::all_of(out.order.end() - static_cast<std::ptrdiff_t>(out.transactions.back().step_count()), out.order.end(),
                  [&](int t) { return t == last; })) {
    out.order.resize(out.order.size() - out.transactions.back().step_count());
    out.transactions.pop_back();
  }
  // Version-set reads, join reads before writes, and their steps.
  std::vector<int> order;
  std::vector<std::size_t> seen(out.transactions.size(), 0);
  for (int t : out.order) {
    const std::size_t ti = static_cast<std::size_t>(t);
    const std::size_t step = seen[ti]++;
    const auto& st = out.transactions[ti].statements;
    if (step >= 1 && step <= st.size() && is_added_read(st[step - 1])) continue;
    order.push_back(t);
  }
  out.order = std::move(order);
  for (Transaction& t : out.transactions) {
    std::erase_if(t.statements, [](const Statement& s) { return is_added_read(s); });
    for (Statement& s : t.statements) s = strip_instrumentation_of(s);
  }
  return out;
}

Statement strip_instrumentation_of(const Statement& statement) {
  Statement s = statement;
  if (std::find(s.returning.begin(), s.returning.end(), kRowIdColumn) != s.returning.end()) s.returning.clear();
  if (std::find(s.returning_joined.begin(), s.returning_joined.end(), kRowIdColumn) != s.returning_joined.end())
    s.returning_joined.clear();
  hidden_columns().strip_from(s);
  return s;
}

std::optional<std::vector<std::uint32_t>> parse_writer_list(const std::string& text) {
  std::vector<std::uint32_t> out;
  std::uint64_t current = 0;
  bool digits = false;
  for (char ch : text) {
    if (ch >= '0' && ch <= '9') {
      current = current * 10 + static_cast<std::uint64_t>(ch - '0');
      if (current > 0xffffffffu) return std::nullopt;
      digits = true;
    } else if (ch == ',' && digits) {
      out.push_back(static_cast<std::uint32_t>(current));
      current = 0;
      digits = false;
    } else {
      return std::nullopt;
    }
  }
  if (!digits) return std::nullopt;
  out.push_back(static_cast<std::uint32_t>(current));
  return out;
}

}  // namespace txprop::adya
