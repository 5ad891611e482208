#include "unrecorded_predicates.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "predicate_eval.hpp"
#include "txprop/adya_instrumentation.hpp"
#include "txprop/sql.hpp"

namespace txprop::adya {

namespace {

using Writers = std::map<std::int64_t, std::set<std::size_t>>;  // row id -> the transactions that wrote the row

// Adds the writers of every row `rows` show (columns `rid`, `wl`; writer list ids are transaction index + 1).
void add_writers(Writers& out, const std::vector<Row>& rows, std::size_t rid, std::size_t wl) {
  for (const Row& r : rows) {
    if (rid >= r.size() || wl >= r.size() || r[rid].type() != ValueType::Integer || r[wl].type() != ValueType::Text)
      continue;
    std::set<std::size_t>& writers = out[r[rid].as_int()];
    if (const auto list = parse_writer_list(r[wl].as_text()))
      for (std::uint32_t id : *list)
        if (id > 0) writers.insert(id - 1);
  }
}

// Whether a DELETE deleted rows that stay deleted: it succeeded, returned or counted rows, and its transaction did not
// roll back (a rollback puts the rows back with their writer lists, which the final state then shows). A DELETE that
// deleted nothing may give no result set at all: MariaDB answers a DELETE ... RETURNING whose WHERE it finds impossible
// (`c0 IS NULL` on a NOT NULL key, "Impossible WHERE") with an OK packet, no columns and 0 rows affected, the
// bench's most common "joined DELETE" reason before this check (txprop_no_verdict_bench, MariaDB REPEATABLE READ).
bool deletes_for_good(const History& h, std::size_t tx, const Outcome& o) {
  const bool rolled_back = tx < h.transactions.size() && (h.transactions[tx].fate == TxnFate::RolledBack ||
                                                          h.transactions[tx].fate == TxnFate::Aborted);
  return o.ok() && (o.affected > 0 || !o.rows.empty()) && !rolled_back;
}

// Who wrote each row of `table`: the writer lists of the final state (whole, for every surviving row) and of the rows
// each DELETE ... RETURNING returned (whole at their deletion), the deleter added. nullopt when a write of the table
// leaves rows unaccounted for (a joined DELETE that deleted rows for good, which returns nothing on InnoDB).
std::optional<Writers> writers_of(const History& h, const std::string& table) {
  Writers out;
  const Table* t = h.test_case.schema.find_table(table);
  if (t == nullptr) return std::nullopt;
  const auto rid = t->column_index(kRowIdColumn), wl = t->column_index(kWriterListColumn);
  if (!rid || !wl) return std::nullopt;
  if (auto it = h.final_state.find(table); it != h.final_state.end()) add_writers(out, it->second, *rid, *wl);
  // Rows a foreign key's CASCADE deleted: their writers, and the deleter (instrumentation.cpp, add_cascade_log).
  if (auto it = h.final_state.find(kCascadeLogTable); it != h.final_state.end())
    for (const Row& r : it->second)
      if (const auto d = parse_cascade_log_row(r); d && d->table == table) {
        std::set<std::size_t>& writers = out[d->row];
        for (std::uint32_t id : d->list)
          if (id > 0) writers.insert(id - 1);
        writers.insert(d->writer - 1);
      }
  for (std::size_t tx = 0; tx < h.test_case.transactions.size(); ++tx) {
    const auto& statements = h.test_case.transactions[tx].statements;
    for (std::size_t i = 0; i < statements.size(); ++i) {
      const ::txprop::Statement& s = statements[i];
      const Outcome& o = h.outcomes[tx][i + 1];
      if (s.kind != StatementKind::Delete || !deletes_for_good(h, tx, o)) continue;
      const std::vector<std::string> written = s.written_tables();
      if (std::find(written.begin(), written.end(), table) == written.end()) continue;
      const auto r = std::find(o.columns.begin(), o.columns.end(), kRowIdColumn);
      const auto w = std::find(o.columns.begin(), o.columns.end(), kWriterListColumn);
      if (!s.joins.empty() || r == o.columns.end() || w == o.columns.end()) return std::nullopt;
      Writers deleted;
      add_writers(deleted, o.rows, static_cast<std::size_t>(r - o.columns.begin()),
                  static_cast<std::size_t>(w - o.columns.begin()));
      for (auto& [row, writers] : deleted) {
        writers.insert(tx);
        out[row].insert(writers.begin(), writers.end());
      }
    }
  }
  return out;
}

bool committed(const History& h, std::size_t t) { return h.transactions[t].fate == TxnFate::Committed; }

// What the history shows of one row's versions: its initial values, its last surviving values, or the values a DELETE
// returned, with the writer list seen with them (the whole list: the final state's and a DELETE's are complete).
struct RowVersions {
  std::optional<Row> initial, last;
  std::vector<std::uint32_t> list;  // writer ids (transaction index + 1; 0 the initial state)
  bool deleted = false;
};

std::optional<std::int64_t> rid_of(const Row& r, std::size_t rid) {
  if (rid >= r.size() || r[rid].type() != ValueType::Integer) return std::nullopt;
  return r[rid].as_int();
}

// A RETURNING row (txp_rid, txp_wl, the columns) in the table's column order; nullopt if a column is missing.
std::optional<Row> in_table_order(const Table& t, const std::vector<std::string>& columns, const Row& r) {
  Row out;
  for (const Column& c : t.columns) {
    const auto it = std::find(columns.begin(), columns.end(), c.name);
    if (it == columns.end() || static_cast<std::size_t>(it - columns.begin()) >= r.size()) return std::nullopt;
    out.push_back(r[static_cast<std::size_t>(it - columns.begin())]);
  }
  return out;
}

std::map<std::int64_t, RowVersions> versions_of(const History& h, const Table& t, std::size_t rid, std::size_t wl) {
  std::map<std::int64_t, RowVersions> out;
  for (const Row& r : t.rows)
    if (const auto id = rid_of(r, rid)) out[*id].initial = r;
  auto seen = [&](const Row& r, bool deleted) {
    const auto id = rid_of(r, rid);
    if (!id || wl >= r.size() || r[wl].type() != ValueType::Text) return;
    RowVersions& v = out[*id];
    v.last = r;
    v.deleted = deleted;
    if (auto list = parse_writer_list(r[wl].as_text())) v.list = std::move(*list);
  };
  if (auto it = h.final_state.find(t.name); it != h.final_state.end())
    for (const Row& r : it->second) seen(r, false);
  for (std::size_t tx = 0; tx < h.test_case.transactions.size(); ++tx)
    for (std::size_t i = 0; i < h.test_case.transactions[tx].statements.size(); ++i) {
      const ::txprop::Statement& s = h.test_case.transactions[tx].statements[i];
      const Outcome& o = h.outcomes[tx][i + 1];
      if (s.kind != StatementKind::Delete || !o.ok() || s.table != t.name || !s.joins.empty()) continue;
      for (const Row& r : o.rows)
        if (auto row = in_table_order(t, o.columns, r)) seen(*row, true);
    }
  return out;
}

// Whether some version of the row that a transaction other than the reader installed may change the matches of
// `where` (Adya's thesis 3.1.3: a predicate dependency exists only through a version that does). Provably not only
// where the history shows every version of the row: initial and unchanged by one writer, a writer's single version
// (inserted, or an update of the initial row), then possibly deleted; and txprop evaluates `where` on each exactly.
bool may_change_matches(const Table& t, const std::optional<Expr>& where, const RowVersions& v) {
  std::vector<Row> versions;  // the row's versions in order; absent before an insert and after a delete
  const bool initial = !v.list.empty() && v.list.front() == 0;
  // Without a WHERE every version matches, whatever its values: only an insert or a delete changes the matches.
  if (!where && v.last) return !initial || v.deleted;
  if (v.list.size() > 2 || v.list.empty() || (!initial && v.list.size() > 1) || !v.last) return true;
  if (initial) {
    if (!v.initial) return true;
    versions.push_back(*v.initial);
  }
  if (v.list.size() == 2 || !initial) versions.push_back(*v.last);
  // Absent (before an insert, after a delete) matches nothing: each present version must not match, or all must match
  // alike with nothing absent.
  const bool absent = !initial || v.deleted;
  std::optional<Match> first;
  for (const Row& r : versions) {
    const Match m = matches(where, t, r);
    if (m == Match::Unknown || (absent && m != Match::No) || (first && *first != m)) return true;
    first = m;
  }
  return false;
}

// Every column `e` names, a subquery's included, whatever table it belongs to (more than the WHERE reads of its own
// table's rows: only ever fewer rows pass where_reads_no_written_column).
void columns_named(const Expr& e, std::set<std::string>& out) {
  if (e.kind == Expr::Kind::Column) out.insert(e.column);
  for (const Expr& a : e.args) columns_named(a, out);
}

// Whether a statement of a transaction other than `reader` may set a column of `columns` in a row of `table`: an UPDATE
// that assigns one (a joined UPDATE's assignments to `table` included), an upsert (its update, or REPLACE, rewrites the
// row), or any write whose foreign-key actions reach `table` (InnoDB's are not in the writer lists).
bool may_set_a_column(const History& h, std::size_t reader, const std::string& table,
                      const std::set<std::string>& columns) {
  for (std::size_t u = 0; u < h.test_case.transactions.size(); ++u) {
    if (u == reader) continue;
    for (const ::txprop::Statement& s : h.test_case.transactions[u].statements) {
      const std::vector<std::string> cascaded = cascaded_tables(h.test_case.schema, s.table, s.kind);
      if (std::find(cascaded.begin(), cascaded.end(), table) != cascaded.end()) return true;
      if (s.is_upsert() && s.table == table) return true;
      if (s.kind != StatementKind::Update) continue;
      for (const Assignment& a : s.assignments)
        if ((a.table.empty() ? s.table : a.table) == table && columns.count(a.column) != 0) return true;
    }
  }
  return false;
}

// Whether the row was there in every version (from the start, never deleted) and no other transaction may have set a
// column the WHERE names: then every version matches alike, also where txprop cannot evaluate the WHERE (a subquery:
// within one statement's read the other tables are the same for each version of the row), so no install changes the
// matches (Adya's thesis 3.1.3) and no predicate dependency goes through the row.
bool where_reads_no_written_column(const History& h, std::size_t reader, const ::txprop::Statement& s,
                                   const RowVersions& v) {
  if (v.list.empty() || v.list.front() != 0 || !v.last || v.deleted) return false;
  std::set<std::string> columns;
  if (s.where) columns_named(*s.where, columns);
  return !may_set_a_column(h, reader, s.table, columns);
}

// Whether statement `i` (from 0) of transaction `t`, or the version-set read right before it, waited on a lock.
bool waited(const History& h, std::size_t t, std::size_t i) {
  const auto& blocked = h.was_blocked[t];
  const auto& statements = h.test_case.transactions[t].statements;
  if (i + 1 < blocked.size() && blocked[i + 1]) return true;
  return i >= 1 && is_version_set_read(statements[i - 1]) && blocked[i];
}

// Why a statement's WHERE is not recorded, one text per rule (text_of); unrecorded_class names them.
const char* const kWaitedAfterLockedRead =
    "waited for a lock, and the Adya property draws no predicate edges from a read that waited";
const char* const kLatestCommitted =
    "reads its WHERE on the latest committed rows, which no plain read before it sees (a locking read before a write "
    "would take other locks)";
const char* const kRecheckedAfterWait =
    "waited for a lock and then read its WHERE again on rows changed meanwhile (PostgreSQL READ COMMITTED's re-check "
    "of the latest version), which the version-set read before it did not see";
const char* const kCurrentReadAfterWait =
    "waited for a lock and then read the latest versions of rows changed meanwhile (InnoDB's current read below "
    "REPEATABLE READ), which the version-set read before it did not see";
const char* const kForeignKeyRead = "reads a referenced table through a foreign key, which no instrumented statement records";

const char* text_of(UnrecordedRule r) {
  switch (r) {
    case UnrecordedRule::WaitedAfterLockedRead: return kWaitedAfterLockedRead;
    case UnrecordedRule::LatestCommitted: return kLatestCommitted;
    case UnrecordedRule::RecheckedAfterWait: return kRecheckedAfterWait;
    case UnrecordedRule::CurrentReadAfterWait: return kCurrentReadAfterWait;
    case UnrecordedRule::None: break;
  }
  return "";
}

// A row of `writers` another committed transaction wrote and `t` did not, in a version that may change the matches of
// `s`'s WHERE, as "T<w> (row <id>)"; empty if none. Where `t` wrote the row too, InnoDB's write locks held to the end
// order the two writes, and the item dependency between them already points the way the predicate one would. Rows in
// `recorded` are left out: the Adya property recorded the version the statement read of each (RecordedRows).
std::string written_by_another(const History& h, std::size_t t, const ::txprop::Statement& s, const Writers& writers,
                               const std::set<std::int64_t>& recorded) {
  const Table* table = h.test_case.schema.find_table(s.table);
  const auto rid = table ? table->column_index(kRowIdColumn) : std::nullopt;
  const auto wl = table ? table->column_index(kWriterListColumn) : std::nullopt;
  if (!rid || !wl) return "an unknown writer";
  const std::map<std::int64_t, RowVersions> versions = versions_of(h, *table, *rid, *wl);
  for (const auto& [row, by] : writers) {
    if (by.count(t) != 0 || recorded.count(row) != 0) continue;
    const auto v = versions.find(row);
    if (v != versions.end() &&
        (!may_change_matches(*table, s.where, v->second) || where_reads_no_written_column(h, t, s, v->second)))
      continue;
    for (std::size_t w : by)
      if (w != t && w < h.transactions.size() && committed(h, w)) return fmt::format("T{} (row {})", w, row);
  }
  return {};
}

bool assigns_any(const ::txprop::Statement& s, const std::vector<std::string>& columns) {
  return std::any_of(s.assignments.begin(), s.assignments.end(), [&](const Assignment& a) {
    return std::find(columns.begin(), columns.end(), a.column) != columns.end();
  });
}

// The key columns of each table a statement reads through foreign keys (see the header): a new or changed referencing
// row's referenced key; a deleted or re-keyed referenced row's referencing columns, and those referencing every table
// its actions write.
std::map<std::string, std::set<std::string>> foreign_key_reads(const Schema& schema, const ::txprop::Statement& s) {
  std::map<std::string, std::set<std::string>> out;
  const Table* t = schema.find_table(s.table);
  if (t == nullptr) return out;
  if (s.kind == StatementKind::Insert || s.kind == StatementKind::Update)
    for (const ForeignKey& fk : t->foreign_keys)
      if (s.kind == StatementKind::Insert || assigns_any(s, fk.columns))
        out[fk.table].insert(fk.referenced.begin(), fk.referenced.end());
  if (s.kind != StatementKind::Delete && s.kind != StatementKind::Update) return out;
  std::vector<std::string> referenced = cascaded_tables(schema, s.table, s.kind);
  referenced.push_back(s.table);
  for (const Table& other : schema.tables)
    for (const ForeignKey& fk : other.foreign_keys)
      if (std::find(referenced.begin(), referenced.end(), fk.table) != referenced.end() &&
          (s.kind == StatementKind::Delete || fk.table != s.table || assigns_any(s, fk.referenced)))
        out[other.name].insert(fk.columns.begin(), fk.columns.end());
  return out;
}

// Whether a statement succeeded and wrote rows: one that wrote none neither checked a key nor changed one.
bool changed_rows(const Outcome& o) { return o.ok() && (o.affected > 0 || !o.rows.empty()); }

// A statement of committed transaction `u` other than `t` that may change which rows of `table` a key read matches
// (an equality on `columns`; Adya's thesis 3.1.3: a predicate dependency exists only through a version that changes the
// matches): an INSERT or DELETE of its rows, an UPDATE of those columns, or a write whose key actions reach the table.
// As "T<u>'s <statement>"; empty if none.
std::string key_changed_by_another(const History& h, std::size_t t, const std::string& table,
                                   const std::set<std::string>& columns) {
  const std::vector<std::string> keyed(columns.begin(), columns.end());
  for (std::size_t u = 0; u < std::min(h.test_case.transactions.size(), h.transactions.size()); ++u) {
    if (u == t || !committed(h, u)) continue;
    const auto& statements = h.test_case.transactions[u].statements;
    for (std::size_t i = 0; i < statements.size(); ++i) {
      const ::txprop::Statement& s = statements[i];
      if (!changed_rows(h.outcomes[u][i + 1]) || is_version_set_read(s)) continue;
      const std::vector<std::string> written = s.written_tables();
      const bool writes = std::find(written.begin(), written.end(), table) != written.end() &&
                          (s.kind != StatementKind::Update || assigns_any(s, keyed));
      const std::vector<std::string> cascaded = cascaded_tables(h.test_case.schema, s.table, s.kind);
      if (writes || std::find(cascaded.begin(), cascaded.end(), table) != cascaded.end())
        return fmt::format("T{}'s {}", u, render(strip_instrumentation_of(s), Dialect::Portable));
    }
  }
  return {};
}

}  // namespace

UnrecordedRule unrecorded_rule(const History& h, std::size_t t, std::size_t i, const EngineCapabilities& capabilities,
                               bool rechecks_after_wait) {
  const Transaction& tx = h.test_case.transactions[t];
  const auto& locking = capabilities.locking_plain_reads;
  if (std::find(locking.begin(), locking.end(), tx.isolation) != locking.end()) return UnrecordedRule::None;
  const ::txprop::Statement& s = tx.statements[i];
  if (!s.joins.empty() || !s.derived.empty() || !h.outcomes[t][i + 1].ok() || is_version_set_read(s))
    return UnrecordedRule::None;
  const bool write = s.kind == StatementKind::Update || s.kind == StatementKind::Delete;
  const bool locking_read = s.kind == StatementKind::Select && s.lock != LockMode::None && !s.limit;
  const auto& as_plain = capabilities.current_reads_as_plain_read;
  const bool reads_as_plain = std::find(as_plain.begin(), as_plain.end(), tx.isolation) != as_plain.end();
  // A locking read of the whole table right before it (instrumentation.cpp, scans_whole_table) read what it reads,
  // also where that read waited: it read the latest versions once its waits were over, and its locks on every record
  // and gap kept them (adya_property.cpp, TxnSteps::vset_blocked). Only where the statement itself waited after it,
  // which those locks should make impossible, is that not known.
  const bool locked_read =
      i >= 1 && is_version_set_read(tx.statements[i - 1]) && tx.statements[i - 1].lock != LockMode::None;
  if (locked_read && i + 1 < h.was_blocked[t].size() && h.was_blocked[t][i + 1])
    return UnrecordedRule::WaitedAfterLockedRead;
  if ((write || locking_read) && !capabilities.writes_read_snapshot && !reads_as_plain && !locked_read)
    return UnrecordedRule::LatestCommitted;
  if ((write || locking_read) && rechecks_after_wait && waited(h, t, i)) return UnrecordedRule::RecheckedAfterWait;
  if ((write || locking_read) && reads_as_plain && waited(h, t, i)) return UnrecordedRule::CurrentReadAfterWait;
  return UnrecordedRule::None;
}

std::string unrecorded_class(const std::string& why) {
  for (const char* because : {kWaitedAfterLockedRead, kLatestCommitted, kRecheckedAfterWait, kCurrentReadAfterWait})
    if (why.find(because) != std::string::npos) return std::string(because).substr(0, std::string(because).find(','));
  if (why.find("through a foreign key") != std::string::npos)
    return std::string(kForeignKeyRead).substr(0, std::string(kForeignKeyRead).find(','));
  return why.substr(0, why.find(';'));
}

std::string unrecorded_foreign_key_read(const History& h, const RecordedKeyChecks& recorded) {
  const Schema& schema = h.test_case.schema;
  if (!schema.has_foreign_keys()) return {};
  const std::size_t n = std::min(h.test_case.transactions.size(), h.transactions.size());
  for (std::size_t t = 0; t < n; ++t) {
    if (!committed(h, t)) continue;
    const auto& statements = h.test_case.transactions[t].statements;
    for (std::size_t i = 0; i < statements.size(); ++i) {
      if (!changed_rows(h.outcomes[t][i + 1])) continue;
      for (const auto& [read, columns] : foreign_key_reads(schema, statements[i])) {
        if (recorded.count({t, i, read}) != 0) continue;
        const std::string other = key_changed_by_another(h, t, read, columns);
        if (!other.empty())
          return fmt::format("T{}'s {} reads {} through a foreign key, which no instrumented statement records; {} "
                             "may change which rows that read matches, so a dependency between them would not be "
                             "recorded",
                             t, render(strip_instrumentation_of(statements[i]), Dialect::Portable), read, other);
      }
    }
  }
  return {};
}

std::string unrecorded_predicate(const History& h, const EngineCapabilities& capabilities,
                                 const std::function<bool(IsolationLevel)>& rechecks_after_wait,
                                 const RecordedRows& recorded) {
  const std::size_t n = std::min(h.test_case.transactions.size(), h.transactions.size());
  std::map<std::string, std::optional<Writers>> by_table;
  static const std::set<std::int64_t> kNone;
  for (std::size_t t = 0; t < n; ++t) {
    const Transaction& tx = h.test_case.transactions[t];
    if (!committed(h, t)) continue;
    for (std::size_t i = 0; i < tx.statements.size(); ++i) {
      const UnrecordedRule rule = unrecorded_rule(h, t, i, capabilities, rechecks_after_wait(tx.isolation));
      if (rule == UnrecordedRule::None) continue;
      const ::txprop::Statement& s = tx.statements[i];
      if (!by_table.count(s.table)) by_table[s.table] = writers_of(h, s.table);
      const std::optional<Writers>& writers = by_table[s.table];
      const auto rows = recorded.find({t, i});
      const std::string other =
          writers ? written_by_another(h, t, s, *writers, rows == recorded.end() ? kNone : rows->second)
                  : "a joined DELETE";
      if (!other.empty())
        return fmt::format("T{}'s {} {}; {} wrote a row of {} it did not, in a version that may change what the WHERE "
                           "matches, so a predicate dependency between them would not be recorded",
                           t, render(strip_instrumentation_of(s), Dialect::Portable), text_of(rule), other, s.table);
    }
  }
  return {};
}

}  // namespace txprop::adya
