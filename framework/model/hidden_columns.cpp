#include "txprop/hidden_columns.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace txprop {

namespace {

// A secondary index of `t` that holds, with the primary key, every column of `t`; null if none.
const Index* covering_index(const Table& t) {
  for (const Index& i : t.indexes) {
    const auto held = [&](const Column& c) {
      const auto in = [&](const std::vector<std::string>& cols) {
        return std::find(cols.begin(), cols.end(), c.name) != cols.end();
      };
      return in(i.columns) || in(t.primary_key);
    };
    if (std::all_of(t.columns.begin(), t.columns.end(), held)) return &i;
  }
  return nullptr;
}

// The covering index of `t` that gets a covering twin: only where `t` has a primary key, which orders a secondary
// index's records with equal values (without one InnoDB orders them by its internal row id, in insertion order, and
// a twin's hidden row id, numbered by statement, would not).
const Index* twinned_index(const Table& t) { return t.primary_key.empty() ? nullptr : covering_index(t); }

}  // namespace

bool HiddenColumns::is_hidden(std::string_view column) const {
  return std::any_of(columns_.begin(), columns_.end(), [&](const Column& c) { return c.name == column; });
}

bool HiddenColumns::in(const Schema& schema) const {
  return !schema.tables.empty() && !columns_.empty() && schema.tables.front().find_column(columns_.front().name);
}

void HiddenColumns::add_to(Schema& schema, const std::function<Row(std::int64_t n)>& values, bool keep_covering) const {
  std::int64_t n = 1;
  for (Table& t : schema.tables) {
    if (const Index* covering = keep_covering ? twinned_index(t) : nullptr) {
      Index twin = covering_twin(t, *covering);
      t.indexes.push_back(std::move(twin));
    }
    t.columns.insert(t.columns.end(), columns_.begin(), columns_.end());
    for (Row& r : t.rows) {
      Row added = values(n++);
      r.insert(r.end(), std::make_move_iterator(added.begin()), std::make_move_iterator(added.end()));
    }
  }
}

Index HiddenColumns::covering_twin(const Table& table, const Index& index) const {
  Index twin{"txp_" + index.name, index.columns, false};
  for (const std::string& k : table.primary_key)
    if (std::find(twin.columns.begin(), twin.columns.end(), k) == twin.columns.end()) twin.columns.push_back(k);
  for (const Column& c : columns_) twin.columns.push_back(c.name);
  return twin;
}

void HiddenColumns::strip_from(Schema& schema) const {
  for (Table& t : schema.tables) {
    std::erase_if(t.indexes, [&](const Index& i) {
      return std::any_of(i.columns.begin(), i.columns.end(), [&](const std::string& c) { return is_hidden(c); });
    });
    for (std::size_t i = t.columns.size(); i-- > 0;)
      if (is_hidden(t.columns[i].name)) {
        t.columns.erase(t.columns.begin() + static_cast<std::ptrdiff_t>(i));
        for (Row& r : t.rows)
          if (i < r.size()) r.erase(r.begin() + static_cast<std::ptrdiff_t>(i));
      }
  }
}

void HiddenColumns::strip_from(Statement& s) const {
  // A derived table's ORDER BY gets a hidden column as its tie-break too (SDG: properties/sdg/instrumentation.cpp).
  for (Statement& d : s.derived) strip_from(d);
  std::erase_if(s.assignments, [&](const Assignment& a) { return is_hidden(a.column); });
  std::erase_if(s.order_by, [&](const OrderItem& o) { return is_hidden(o.column); });
  for (std::size_t i = s.columns.size(); i-- > 0;)
    if (is_hidden(s.columns[i])) {
      s.columns.erase(s.columns.begin() + static_cast<std::ptrdiff_t>(i));
      for (auto& row : s.values)
        if (i < row.size()) row.erase(row.begin() + static_cast<std::ptrdiff_t>(i));
    }
}

std::vector<std::string> HiddenColumns::leading(const Table* table) const {
  std::vector<std::string> out;
  for (const Column& c : columns_) out.push_back(c.name);
  if (table)
    for (const Column& c : table->columns)
      if (!is_hidden(c.name)) out.push_back(c.name);
  return out;
}

Row HiddenColumns::visible(const Table& table, const Row& row) const {
  Row v;
  for (std::size_t i = 0; i < row.size() && i < table.columns.size(); ++i)
    if (!is_hidden(table.columns[i].name)) v.push_back(row[i]);
  return v;
}

Outcome HiddenColumns::visible(Outcome o) const {
  std::vector<std::size_t> keep;
  for (std::size_t i = 0; i < o.columns.size(); ++i)
    if (!is_hidden(o.columns[i])) keep.push_back(i);
  std::vector<std::string> columns;
  for (std::size_t i : keep) columns.push_back(o.columns[i]);
  for (Row& r : o.rows) {
    Row v;
    for (std::size_t i : keep)
      if (i < r.size()) v.push_back(r[i]);
    r = std::move(v);
  }
  o.columns = std::move(columns);
  return o;
}

namespace {

bool at(const std::vector<IsolationLevel>& levels, IsolationLevel level) {
  return std::find(levels.begin(), levels.end(), level) != levels.end();
}

// Whether `s`, in a transaction at `level`, reads `table` with a current read. Not a single-table UPDATE's read of a
// table it does not write at a level of `update_reads_other_tables_consistently`: a consistent read, which locks
// nothing and sees the same rows through whichever index it scans.
bool current_read_of(const Statement& s, IsolationLevel level, const std::string& table, const EngineCapabilities& e) {
  const bool current = s.kind == StatementKind::Update || s.kind == StatementKind::Delete || s.lock != LockMode::None ||
                       (s.is_read() && at(e.locking_plain_reads, level));
  const std::vector<std::string> tables = s.tables();
  if (!current || std::find(tables.begin(), tables.end(), table) == tables.end()) return false;
  const bool consistent = s.kind == StatementKind::Update && s.joins.empty() && table != s.table &&
                          at(e.update_reads_other_tables_consistently, level);
  return !consistent;
}

bool names_a_column(const Expr& e, const std::vector<std::string>& columns) {
  if (std::find(columns.begin(), columns.end(), e.column) != columns.end()) return true;
  return std::any_of(e.args.begin(), e.args.end(), [&](const Expr& a) { return names_a_column(a, columns); });
}

// Whether any condition or expression of `s` (its derived table's included) names one of `columns`.
bool names_a_column(const Statement& s, const std::vector<std::string>& columns) {
  const auto names = [&](const Expr& e) { return names_a_column(e, columns); };
  return (s.where && names(*s.where)) || (s.having && names(*s.having)) ||
         std::any_of(s.joins.begin(), s.joins.end(), [&](const Join& j) { return names(j.on); }) ||
         std::any_of(s.select_exprs.begin(), s.select_exprs.end(), names) ||
         std::any_of(s.derived.begin(), s.derived.end(),
                     [&](const Statement& d) { return names_a_column(d, columns); });
}

// What makes a current read `s` at `level` of `table`, by transaction `reader`, one the hidden columns may change, or
// empty.
using Hazard =
    std::function<std::string(const Table& table, const Statement& s, IsolationLevel level, std::size_t reader)>;

// The first current read of a table of `c` that `hazard` names, by a transaction while another writes that table,
// described; empty if none.
std::string current_read_beside_a_write(const TestCase& c, const EngineCapabilities& engine, const Hazard& hazard) {
  if (engine.writes_read_snapshot) return {};
  for (const Table& table : c.schema.tables)
    for (std::size_t t = 0; t < c.transactions.size(); ++t)
      for (std::size_t i = 0; i < c.transactions[t].statements.size(); ++i) {
        const Statement& s = c.transactions[t].statements[i];
        const IsolationLevel level = c.transactions[t].isolation;
        if (!current_read_of(s, level, table.name, engine)) continue;
        const std::string why = hazard(table, s, level, t);
        if (why.empty()) continue;
        for (std::size_t w = 0; w < c.transactions.size(); ++w)
          for (const Statement& write : c.transactions[w].statements) {
            const std::vector<std::string> written = write.written_tables();
            if (w != t && std::find(written.begin(), written.end(), table.name) != written.end())
              return fmt::format("{} and T{}.{} reads it with a current read while T{} writes it", why, t, i + 1, w);
          }
      }
  return {};
}

std::string covers(const Index& index, const Table& table) {
  return fmt::format("index {} ({}) covers {}", index.name, fmt::join(index.columns, ","), table.name);
}

}  // namespace

std::string covering_index_read_concurrently(const TestCase& c, const EngineCapabilities& engine) {
  return current_read_beside_a_write(c, engine, [](const Table& table, const Statement&, IsolationLevel, std::size_t) {
    const Index* index = covering_index(table);
    return index ? covers(*index, table) : std::string();
  });
}

namespace {

// Why the covering twin of `table`'s covering index `index` may change what the current read `s` at `level` does, or
// empty. Plainly every statement reads `index`; prepared, a scan reads the twin while a lookup of one key of a unique
// index and an UPDATE or DELETE (which need the whole row) keep to `index` (EXPLAIN on MariaDB 10.11.19, t2 (c0 PRIMARY
// KEY, c1 UNIQUE t2_u): `SELECT * ... WHERE c1 IN (1, 5) FOR UPDATE` key txp_t2_u "Using index", `... WHERE c1 = 5`
// const t2_u, `UPDATE t2 ... WHERE c1 IN (1, 5)` and `DELETE ... WHERE c1 = 1 OR c1 = 5` key t2_u). InnoDB locks the
// records of the index a statement reads (and the clustered record where it reads the row), so two statements meet
// where both lock the same index's record or the same row's clustered record:
// - a shared-locking read (LOCK IN SHARE MODE, a plain read at SERIALIZABLE, the read of a table a statement does not
//   write) of a covering index locks its records alone; prepared it reads the twin and misses a lock another
//   transaction's UPDATE or DELETE took on `index`'s record of a row it did not change (differential case 1895 at
//   MariaDB SERIALIZABLE: a failed UPDATE's locks; the plain read waited, the prepared one did not), or, looking up a
//   unique key, it locks the clustered record too and meets an UPDATE that changed nothing (case 117: T1.2 1062
//   prepared where it was 1213 plainly). An exclusive lock reads the whole row (row_search_mvcc locks the clustered
//   record, ha_innobase::build_template), which meets every writer on the clustered record either way;
// - a locking SELECT at a level of `gap_lock_levels` that the plain case may answer by looking up keys of a unique
//   index (no gap lock) scans the non-unique twin (gap locks): plainly, `SELECT * FROM t2 WHERE c1 IN (1, 5) FOR
//   UPDATE` at REPEATABLE READ with c1 = 1, 5, 9 lets another transaction insert c1 = 6; prepared the INSERT waits (the
//   same with LOCK IN SHARE MODE, checked by hand on MariaDB 10.11.19).
// A shared-locking read meets nothing else where the other transactions only insert into the table
// (others_only_insert_into): the twin's records and gaps are `index`'s, one per row in the same order, so the shared
// locks each takes conflict with the same INSERTs, and an INSERT locks no existing record but shared (its duplicate
// check), which no shared lock meets. Checked by hand on MariaDB 10.11.19 with t (c0 PRIMARY KEY, c1 UNIQUE t_u), rows
// (1, 1) (2, 5) (3, 9), plainly and with the hidden columns and the twin txp_t_u: at READ COMMITTED `... WHERE c1 IN
// (1, 5) LOCK IN SHARE MODE` lets an INSERT of c1 = 6 through in both; a read of c1 BETWEEN 2 AND 4 waits for an
// uncommitted INSERT of c1 = 3 in both; after an INSERT that failed on c1 = 5 (READ COMMITTED) or on c0 = 2
// (SERIALIZABLE), a lookup of c1 = 5 (on t_u and, prepared, the clustered record) does not wait in both; at REPEATABLE
// READ a read of every row, and a lookup of the missing c1 = 6, make an INSERT of c1 = 6 or 7 wait in both, a read of
// c0 < 3 (PRIMARY in both, EXPLAIN) lets an INSERT of (50, 3) through in both; at SERIALIZABLE a plain read of every
// row waits for an uncommitted INSERT in both.
std::string twin_changes(const Table& table, const Index& index, const Statement& s, IsolationLevel level,
                         const EngineCapabilities& engine, bool others_only_insert) {
  const std::vector<std::string> written = s.written_tables();
  const bool writes = std::find(written.begin(), written.end(), table.name) != written.end();
  const bool exclusive = s.lock == LockMode::Update || s.lock == LockMode::NoKeyUpdate;
  if ((exclusive || !writes) && index.unique && at(engine.gap_lock_levels, level) && names_a_column(s, index.columns))
    return fmt::format("{}, whose covering twin is not unique and locks gaps a lookup of {} does not at {},",
                       covers(index, table), index.name, sql_name(level));
  if (!writes && !exclusive && !others_only_insert)
    return fmt::format("{}, whose covering twin a shared-locking read scans where the plain read locks {}'s records,",
                       covers(index, table), index.name);
  return {};
}

// Whether the transactions of `c` other than `reader` take no lock on `table`'s existing records but what an INSERT's
// duplicate check takes: they write it only with INSERTs of values (no upsert, no subquery), none reads it with an
// exclusive lock, and `table` has no foreign key whose action another table's write could turn into a write of it.
bool others_only_insert_into(const TestCase& c, std::size_t reader, const Table& table) {
  if (!table.foreign_keys.empty()) return false;
  for (std::size_t w = 0; w < c.transactions.size(); ++w)
    for (const Statement& s : c.transactions[w].statements) {
      const std::vector<std::string> read = s.tables();
      if (w == reader || std::find(read.begin(), read.end(), table.name) == read.end()) continue;
      const std::vector<std::string> written = s.written_tables();
      const bool writes = std::find(written.begin(), written.end(), table.name) != written.end();
      const bool exclusive = s.lock == LockMode::Update || s.lock == LockMode::NoKeyUpdate;
      std::vector<std::string> subquery_tables;
      for (const auto& row : s.values)
        for (const Expr& v : row) v.collect_subquery_tables(subquery_tables);
      const bool plain_insert =
          s.kind == StatementKind::Insert && s.upsert == Upsert::None && subquery_tables.empty();
      if (exclusive || (writes && !plain_insert)) return false;
    }
  return true;
}

}  // namespace

std::string hidden_columns_uncover_an_index(const TestCase& c, const EngineCapabilities& engine) {
  return current_read_beside_a_write(
      c, engine, [&](const Table& table, const Statement& s, IsolationLevel level, std::size_t reader) {
        const Index* index = covering_index(table);
        if (index == nullptr) return std::string();
        if (twinned_index(table) == nullptr)
          return covers(*index, table) + ", which has no primary key to order a covering twin,";
        return twin_changes(table, *index, s, level, engine, others_only_insert_into(c, reader, table));
      });
}

Assignment set_where_a_value_changes(const Statement& s, const std::string& column, Expr value) {
  std::optional<Expr> changed;
  for (const Assignment& a : s.assignments) {
    Expr differs = Expr::is_distinct(Expr::col(a.column), a.value);
    changed = changed ? Expr::binary(BinaryOp::Or, std::move(*changed), std::move(differs)) : std::move(differs);
  }
  return Assignment{column, Expr::case_(std::move(*changed), std::move(value), Expr::col(column)), {}};
}

}  // namespace txprop
