// From an instrumented run to the Adya checker: each returned row's (txp_rid, txp_wl) becomes a read observation,
// DELETE ... RETURNING rows become before-delete reads, INSERT and UPDATE ... RETURNING rows become writes, a joined
// write's partner rows (from RETURNING or the join read before it) become reads of the joined table; then the
// expectation table decides which findings fail.
#include <algorithm>
#include <cstdlib>
#include <deque>
#include <functional>
#include <map>
#include <ranges>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "txprop/adya_checker.hpp"
#include "txprop/adya.hpp"
#include "txprop/behaviours.hpp"
#include "txprop/table_locks.hpp"
#include "txprop/txn_start.hpp"
#include "txprop/adya_instrumentation.hpp"
#include "current_read_versions.hpp"
#include "predicate_eval.hpp"
#include "unrecorded_predicates.hpp"
#include "txprop/internal/test_hooks.hpp"
#include "txprop/sql.hpp"

namespace txprop {

namespace {

adya::TxnId txn_id(std::size_t index) { return static_cast<adya::TxnId>(index + 1); }

struct Columns {
  std::optional<std::size_t> rid, wl;
};

Columns find_columns(const Outcome& o) {
  Columns c;
  // The first of each: a joined write's RETURNING lists the written table's columns before the joined table's.
  for (std::size_t i = 0; i < o.columns.size(); ++i) {
    if (o.columns[i] == adya::kRowIdColumn && !c.rid) c.rid = i;
    if (o.columns[i] == adya::kWriterListColumn && !c.wl) c.wl = i;
  }
  return c;
}

// A write or locking read that skipped a row its transaction's read view holds in a matching version, because
// another transaction changed the row after the read view so that its latest committed version no longer matches
// (behaviour::kCurrentReadSkipsRowChangedAfterReadView): the reader, the transaction that changed the row, and what
// a report says of it.
struct SkippedChangedRow {
  adya::TxnId reader = adya::kNone, changer = adya::kNone;
  std::string what;
};

struct Extracted {
  adya::ObservedHistory observed;
  std::vector<std::string> malformed;  // rows whose instrumentation columns could not be read
  std::size_t predicate_reads = 0;     // predicate reads recorded with their version sets
  std::size_t predicate_skipped = 0;   // predicate reads left without predicate edges (see add_predicates)
  std::size_t joined_writes = 0;       // joined writes that ran, and those whose partner rows' versions were recorded
  std::size_t joined_writes_with_partners = 0;
  std::size_t join_reads_not_matching = 0;  // join reads before a write that did not see the rows it wrote (SQLite)
  adya::RecordedRows current_reads;         // current reads recorded from the commit order (add_current_read)
  std::vector<SkippedChangedRow> skipped_changed_rows;  // found by add_predicates (skipped_changed_row)
  adya::RecordedKeyChecks key_checks;  // INSERTs' key checks recorded with their version sets (record_key_read)
};

// What predicate dependencies need beyond the item observations: the values of each row version seen, each
// predicate read's version set, and who deleted what.
struct PredicateData {
  std::map<std::pair<adya::RowId, std::size_t>, Row> values;  // (row, versions) -> the version's values (table order)
  std::map<adya::RowId, const Table*> table_of;
  std::map<std::string, std::vector<adya::RowId>> rows_of;  // table -> every row that ever existed in it
  std::map<adya::RowId, std::vector<adya::TxnId>> deleters;
  struct Read {
    adya::StmtIndex stmt;
    adya::TxnId txn;
    const Statement* statement;
    const Table* table;
    std::map<adya::RowId, std::vector<std::uint32_t>> vset;      // the version-set read: row -> writer list
    std::map<adya::RowId, std::vector<std::uint32_t>> returned;  // rows the statement returned/wrote: version read
    // An UPDATE that returns no rows (MariaDB 10.11 has no UPDATE ... RETURNING): how many rows it matched (the
    // driver's affected-row count is the found rows, CLIENT_FOUND_ROWS), checked instead of the rows returned.
    std::optional<std::int64_t> matched = std::nullopt;
    // A write or locking read whose version-set read (if any) does not show what it read (adya::UnrecordedRule):
    // its versions follow from the writer lists and the commit order (add_current_read).
    struct Current {
      std::size_t t = 0, i = 0;  // transaction, statement index from 0 (adya::RecordedRows' key)
      adya::Position submitted = 0, completed = 0;
      bool snapshot_first = false;  // PostgreSQL READ COMMITTED's re-check (adya::CurrentRead)
      bool version_set = false;     // a version-set read ran right before it (not at InnoDB REPEATABLE READ)
      // An UPDATE that returns nothing and is its transaction's only statement that may change the table's rows:
      // the reader's one entry in a row's writer list after its first is this UPDATE's write (own_write_state).
      bool only_writer = false;
      // It kept what it read locked (adya::CurrentRead::holds_what_it_read).
      bool holds_what_it_read = false;
    };
    std::optional<Current> current = std::nullopt;
    // The transaction's plain reads read one read view (ReadRules::one_read_view): what they showed of a row is
    // what that view holds (skipped_changed_row).
    bool read_view = false;
    // An INSERT's key check (adya::is_key_read): `statement` is the key read, whose WHERE is the check's lookup; the
    // check counts as recorded (adya::RecordedKeyChecks) once its predicate read is added.
    std::optional<std::tuple<std::size_t, std::size_t, std::string>> key_check = std::nullopt;
  };
  std::vector<Read> reads;
  std::size_t skipped = 0, added = 0;
  adya::RecordedRows current_reads;
  adya::RecordedKeyChecks key_checks;
  std::vector<SkippedChangedRow> skipped_changed_rows;

  void add_row(adya::RowId rid, const Table* t) {
    if (table_of.emplace(rid, t).second) rows_of[t->name].push_back(rid);
  }
  // A returned row with every column of its table: its values are those of the version its writer list names.
  void add_values(const Table& t, const Outcome& out, const Row& r, adya::RowId rid, std::size_t versions) {
    Row values(t.columns.size());
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      const auto at = std::find(out.columns.begin(), out.columns.end(), t.columns[c].name);
      if (at == out.columns.end()) return;  // not every column: not the whole version
      values[c] = r[static_cast<std::size_t>(at - out.columns.begin())];
    }
    values_of(rid, versions, std::move(values));
  }
  void values_of(adya::RowId rid, std::size_t versions, Row values) { this->values.emplace(std::pair{rid, versions}, std::move(values)); }
};

// Whether version k (1: the first in the row's order) of row `rid` matches `where`: evaluated on its values where the
// history shows them; without a WHERE every version matches, whatever its values (an UPDATE that returned nothing
// leaves them unknown).
adya::Match version_matches(const PredicateData& d, adya::RowId rid, std::uint32_t k, const std::optional<Expr>& where,
                            const Table& table) {
  if (!where) return adya::Match::Yes;
  const auto val = d.values.find({rid, k});
  return val == d.values.end() ? adya::Match::Unknown : adya::matches(where, table, val->second);
}

// The committed one of a row's deleters if any (a DELETE of an aborted transaction deleted nothing), else the first.
adya::TxnId deleter_of(const adya::ObservedHistory& o, const std::vector<adya::TxnId>& deleters) {
  adya::TxnId deleter = adya::kNone;
  for (adya::TxnId t : deleters)
    if (deleter == adya::kNone || o.committed(t)) deleter = t;
  return deleter;
}

// The state (adya::RowStates) of a version given by its writer list, if the list is a prefix of the row's order.
std::optional<std::uint32_t> state_of(const std::vector<std::uint32_t>& list, const std::vector<adya::TxnId>& order) {
  if (list.size() > order.size() || !std::equal(list.begin(), list.end(), order.begin())) return std::nullopt;
  return static_cast<std::uint32_t>(list.size());
}

// Where an UPDATE that returns nothing (MariaDB 10.11) is its transaction's only statement that may change the
// table's rows (PredicateData::Read::Current::only_writer), the reader's one entry in the row's writer list after the
// first (the first may be its INSERT of the row) is that UPDATE's write, which read the state before it: the state
// that UPDATE read, as if it had returned the row. nullopt if there is no such entry, or more than one.
std::optional<std::uint32_t> own_write_state(const std::vector<adya::TxnId>& order, adya::TxnId reader) {
  std::optional<std::uint32_t> state;
  for (std::size_t k = 1; k < order.size(); ++k) {
    if (order[k] != reader) continue;
    if (state) return std::nullopt;
    state = static_cast<std::uint32_t>(k);
  }
  return state;
}

// The state a version-set read saw the row in, given the writer list it read: where the list ends in versions of
// transactions that did not commit (a READ UNCOMMITTED read of a write later rolled back, which the row's order no
// longer has), the state of the committed versions beneath them. That was the latest committed state when the read
// ran: the writer held the row locked from its write to its rollback, so nobody committed a version in between.
std::optional<std::uint32_t> version_set_state(const adya::ObservedHistory& o, std::vector<std::uint32_t> list,
                                               const std::vector<adya::TxnId>& order, adya::TxnId reader) {
  if (const auto state = state_of(list, order)) return state;
  while (!list.empty() && list.back() != adya::kInitialTxn && list.back() != reader && !o.committed(list.back()))
    list.pop_back();
  return state_of(list, order);
}

// What a current read (PredicateData::Read::current) knows of one row: its states, the one its version-set read saw
// (version_set_state; a row the read did not return: before its insert if it was inserted and never deleted, after
// its delete if it was there from the start and deleted; the others cannot be placed), the one it returned. nullopt
// where a writer list read is not a prefix of the row's order.
std::optional<adya::CurrentRead> current_read_of(const adya::ObservedHistory& o, PredicateData& d,
                                                 const PredicateData::Read& read, adya::RowId rid,
                                                 const adya::RowStates& states) {
  const PredicateData::Read::Current& c = *read.current;
  adya::CurrentRead r{read.txn, c.submitted, c.completed, c.snapshot_first, std::nullopt, std::nullopt,
                      read.matched.has_value(), c.holds_what_it_read};
  const std::uint32_t n = static_cast<std::uint32_t>(states.order.size());
  const bool initial = n > 0 && states.order[0] == adya::kInitialTxn;
  if (const auto v = read.vset.find(rid); v != read.vset.end()) {
    r.snapshot = version_set_state(o, v->second, states.order, read.txn);
    if (!r.snapshot) return std::nullopt;
  } else if (!c.version_set) {
    // No version-set read (InnoDB REPEATABLE READ): the states follow from the commit order alone.
  } else if (!initial && d.deleters[rid].empty()) {
    r.snapshot = 0;
  } else if (initial && !d.deleters[rid].empty()) {
    r.snapshot = n + 1;
  }
  if (const auto ret = read.returned.find(rid); ret != read.returned.end()) {
    r.returned = state_of(ret->second, states.order);
    if (!r.returned) return std::nullopt;
  } else if (c.only_writer) {
    r.returned = own_write_state(states.order, read.txn);
  }
  // What its result says of the state it read: a row it returned matched; one a DELETE ... RETURNING or a SELECT of
  // its matching rows (no aggregate, grouping or HAVING between its WHERE and its result) did not return did not,
  // nor one an UPDATE that matched nothing read.
  const Statement& s = *read.statement;
  const bool returns_rows =
      s.kind == StatementKind::Delete
          ? !s.returning.empty()
          : s.kind == StatementKind::Select && s.items.empty() && s.group_by.empty() && !s.having;
  if (r.returned) r.result = adya::Match::Yes;
  else if (read.matched ? *read.matched == 0 : returns_rows) r.result = adya::Match::No;
  return r;
}

// One row of a current read's table: its states (the version order the writer lists give, the deleter, whether each
// version matches the WHERE) and what the read knows of it; no read where the row's writer lists diverged.
struct CurrentRow {
  adya::RowId row;
  adya::RowStates states;
  std::optional<adya::CurrentRead> read;
  adya::ReadVersion version;
};
CurrentRow current_row(const adya::ObservedHistory& o, PredicateData& d, const PredicateData::Read& read,
                       adya::RowId rid) {
  CurrentRow p{rid, {}, std::nullopt, {}};
  const auto ri = o.find_row(rid);
  if (!ri || o.branch_count(*ri) != 1) return p;
  const auto chain = o.branch(*ri, 0);
  p.states.order.assign(chain.begin(), chain.end());
  p.states.deleter = deleter_of(o, d.deleters[rid]);
  p.states.matches.assign(p.states.order.size() + 2, adya::Match::No);
  for (std::uint32_t k = 1; k <= p.states.order.size(); ++k)
    p.states.matches[k] = version_matches(d, rid, k, read.statement->where, *read.table);
  p.read = current_read_of(o, d, read, rid, p.states);
  return p;
}

// The state (adya::RowStates) in which `read`'s transaction's read view holds row `rid`: what its latest plain
// (consistent) read of the table before `read` showed, by that read's version set. nullopt where none showed the row.
std::optional<std::uint32_t> read_view_state(const PredicateData& d, const PredicateData::Read& read, adya::RowId rid,
                                             const std::vector<adya::TxnId>& order) {
  std::optional<std::uint32_t> state;
  for (const PredicateData::Read& r : d.reads) {
    const bool plain = !r.current && r.statement->is_read() && r.statement->lock == LockMode::None;
    if (r.txn != read.txn || r.stmt >= read.stmt || !plain) continue;
    if (const auto v = r.vset.find(rid); v != r.vset.end()) state = state_of(v->second, order);
  }
  return state;
}

// Whether the current read `read`, which read row `rid` in state `seen`, skipped it although its transaction's read
// view holds it in a matching version: another transaction changed the row after the read view (installed the state
// after the view's, or deleted it) and the latest committed version the read saw no longer matches. Where the engine
// promises an error for a record changed after the read view (InnoDB innodb_snapshot_isolation=ON, ER_CHECKREAD),
// this is the silent skip of MDEV-40092; the engine profile says whether it documents it.
std::optional<SkippedChangedRow> skipped_changed_row(const adya::ObservedHistory& o, const PredicateData& d,
                                                     const PredicateData::Read& read, adya::RowId rid,
                                                     const adya::RowStates& states, std::uint32_t seen) {
  const Statement& s = *read.statement;
  const bool locks = s.kind == StatementKind::Update || s.kind == StatementKind::Delete || s.lock != LockMode::None;
  if (!read.read_view || !locks) return std::nullopt;
  const std::optional<std::uint32_t> view = read_view_state(d, read, rid, states.order);
  const std::uint32_t n = static_cast<std::uint32_t>(states.order.size());
  if (!view || *view == 0 || *view > n || seen <= *view) return std::nullopt;
  if (states.matches[*view] != adya::Match::Yes || states.matches[seen] != adya::Match::No) return std::nullopt;
  // The transaction that changed the row first after the read view; none of the changes up to `seen` its own.
  const adya::TxnId changer = *view < n ? states.order[*view] : states.deleter;
  for (std::uint32_t k = *view; k < std::min(seen, n); ++k)
    if (states.order[k] == read.txn) return std::nullopt;
  if (changer == read.txn || changer == adya::kNone || (seen > n && states.deleter == read.txn)) return std::nullopt;
  const std::string change = seen > n ? "deleted it" : "changed it so that it no longer matches";
  return SkippedChangedRow{read.txn, changer,
                           fmt::format("{} skipped row {} without an error: T{}'s read view holds a version of it "
                                       "that matches, and T{} {} after that view", o.statement_text(read.stmt), rid,
                                       read.txn - 1, changer - 1, change)};
}

// A current read: each row whose version is determined (adya::current_read_version) goes into its version set; the
// others are left out, and the rows recorded are reported (adya::RecordedRows) for unrecorded_predicate to judge the
// rest. Where a row was returned in a version the statement cannot have read, or the UPDATE's count of matched rows
// disagrees, nothing is recorded (unrecorded_predicate then judges every row): txprop's model of the engine or its
// evaluation of the WHERE is wrong there, and no edge is drawn from it.
void add_current_read(adya::ObservedHistory& o, PredicateData& d, const PredicateData::Read& read) {
  using adya::Match;
  struct Recorded {
    adya::RowId row;
    adya::RowStates states;
    std::uint32_t seen;
  };
  std::vector<Recorded> rows;
  std::set<std::int64_t> determined;
  std::int64_t matching = 0, undetermined = 0;
  const adya::CommittedAt committed_at = [&](adya::TxnId w) -> std::optional<adya::Position> {
    if (!o.committed(w)) return std::nullopt;
    return o.txn(w).end;
  };
  std::vector<CurrentRow> pending;
  for (adya::RowId rid : d.rows_of[read.table->name]) {
    CurrentRow p = current_row(o, d, read, rid);
    if (p.read) p.version = adya::current_read_version(p.states, *p.read, committed_at);
    if (p.version.kind == adya::ReadVersion::Kind::Contradicts) {
      ++d.skipped;
      return;
    }
    matching += p.version.kind == adya::ReadVersion::Kind::Determined && p.version.match == Match::Yes;
    pending.push_back(std::move(p));
  }
  // An UPDATE that returns nothing and matched exactly the rows found matching: every other row it read in a state
  // that does not match, as if it had returned what it matched.
  // One that matched exactly those rows and every row not determined: each of these it read in a state that matches.
  const auto not_determined = std::count_if(pending.begin(), pending.end(), [](const CurrentRow& p) {
    return p.version.kind != adya::ReadVersion::Kind::Determined;
  });
  const bool all_matched = read.matched && not_determined > 0 && matching + not_determined == *read.matched;
  if (read.matched && (matching == *read.matched || all_matched))
    for (CurrentRow& p : pending)
      if (p.read && p.version.kind == adya::ReadVersion::Kind::Undetermined) {
        p.read->returns_nothing = false;
        p.read->matched = all_matched;
        if (all_matched) p.read->result = adya::Match::Yes;
        p.version = adya::current_read_version(p.states, *p.read, committed_at);
        if (p.version.kind == adya::ReadVersion::Kind::Contradicts) {
          ++d.skipped;
          return;
        }
      }
  matching = 0;  // again: rows determined above count now
  for (CurrentRow& p : pending) {
    if (p.version.kind != adya::ReadVersion::Kind::Determined) {
      ++undetermined;
      continue;
    }
    matching += p.version.match == Match::Yes;
    // The match the statement's result gave (adya::CurrentRead::result), where txprop could not evaluate it.
    if (p.states.matches[p.version.seen] == Match::Unknown) p.states.matches[p.version.seen] = p.version.match;
    determined.insert(static_cast<std::int64_t>(p.row));
    if (auto skipped = skipped_changed_row(o, d, read, p.row, p.states, p.version.seen))
      d.skipped_changed_rows.push_back(std::move(*skipped));
    rows.push_back(Recorded{p.row, std::move(p.states), p.version.seen});
  }
  if (read.matched && (matching > *read.matched || *read.matched > matching + undetermined)) {
    ++d.skipped;
    return;
  }
  ++d.added;
  const Statement& s = *read.statement;
  const adya::PredIndex p =
      o.add_predicate_read(read.stmt, s.where ? render(*s.where, Dialect::Portable) : std::string("TRUE"));
  for (const Recorded& r : rows)
    o.add_predicate_row(p, r.row, r.states.order, r.seen, r.states.matches, r.states.deleter);
  d.current_reads[{read.current->t, read.current->i}] = std::move(determined);
}

// Adds each predicate read with its version set (adya::ObservedHistory::add_predicate_row). A predicate read is left
// without predicate edges (counted as skipped) when its version set cannot be trusted to be the one the statement was
// evaluated against: it or its version-set read waited on a lock or failed (a write that waited where writes keep
// reading the snapshot, Extractor::read_its_snapshot_after_wait, is trusted), a row's writer lists diverged, or the
// rows it returned are not exactly those of its version set that txprop evaluates as matching (which also guards the
// evaluator against SQL semantics it does not model). A row that was inserted and also deleted but is absent from the
// version set (before its insert or after its delete?) is left out of that read's version set.
void add_predicates(adya::ObservedHistory& o, PredicateData& d) {
  using adya::Match;
  for (const PredicateData::Read& read : d.reads) {
    if (read.current) {
      add_current_read(o, d, read);
      continue;
    }
    const Statement& s = *read.statement;
    struct Pending {
      adya::RowId row;
      std::vector<adya::TxnId> order;
      std::uint32_t seen;
      std::vector<Match> matches;
      adya::TxnId deleter;
    };
    std::vector<Pending> rows;
    bool consistent = true;
    std::int64_t matching = 0;  // rows whose version read matches, for read.matched
    for (adya::RowId rid : d.rows_of[read.table->name]) {
      const auto ri = o.find_row(rid);
      if (!ri || o.branch_count(*ri) != 1) continue;
      const auto chain = o.branch(*ri, 0);
      Pending p{rid, std::vector<adya::TxnId>(chain.begin(), chain.end()), 0, {}, adya::kNone};
      const std::uint32_t n = static_cast<std::uint32_t>(p.order.size());
      const auto& dels = d.deleters[rid];
      for (adya::TxnId t : dels)
        if (p.deleter == adya::kNone || o.committed(t)) p.deleter = t;
      if (const auto v = read.vset.find(rid); v != read.vset.end()) {
        if (v->second.size() > n || !std::equal(v->second.begin(), v->second.end(), p.order.begin())) continue;
        p.seen = static_cast<std::uint32_t>(v->second.size());
      } else if (n > 0 && p.order[0] != adya::kInitialTxn && dels.empty()) {
        p.seen = 0;  // not inserted yet
      } else if (n > 0 && p.order[0] == adya::kInitialTxn && !dels.empty()) {
        p.seen = n + 1;  // deleted
      } else {
        continue;
      }
      p.matches.assign(n + 2, Match::No);
      for (std::uint32_t k = 1; k <= n; ++k) p.matches[k] = version_matches(d, rid, k, s.where, *read.table);
      // The statement's own result must agree with txprop's evaluation on the version it saw.
      const auto ret = read.returned.find(rid);
      const Match saw = p.matches[p.seen];
      if (read.matched) {
        if (saw == Match::Unknown) consistent = false;
        matching += saw == Match::Yes;
      } else if (ret != read.returned.end()) {
        if (ret->second.size() != p.seen || saw == Match::No) consistent = false;
      } else if (saw == Match::Yes) {
        consistent = false;
      }
      rows.push_back(std::move(p));
    }
    for (const auto& [rid, wl] : read.returned)
      if (!read.vset.count(rid)) consistent = false;
    if (read.matched && matching != *read.matched) consistent = false;
    if (!consistent) {
      ++d.skipped;
      continue;
    }
    ++d.added;
    if (read.key_check) d.key_checks.insert(*read.key_check);
    const adya::PredIndex p =
        o.add_predicate_read(read.stmt, s.where ? render(*s.where, Dialect::Portable) : std::string("TRUE"));
    for (const Pending& r : rows) {
      o.add_predicate_row(p, r.row, r.order, r.seen, r.matches, r.deleter);
      if (auto skipped = skipped_changed_row(o, d, read, r.row, adya::RowStates{r.order, r.deleter, r.matches}, r.seen))
        d.skipped_changed_rows.push_back(std::move(*skipped));
    }
  }
}

// Where UPDATE returns nothing (MariaDB), a write shows up only in later writer lists. It is attributed to the
// writer's UPDATE of the row's table when the writer ran exactly one that changed rows, so that explanations can
// quote it; otherwise it stays unrecorded (the checker is told writes are incomplete).
struct UpdateAttribution {
  std::map<std::pair<adya::TxnId, std::string>, std::vector<adya::StmtIndex>> updates;  // (txn, table) -> UPDATEs
  std::map<adya::RowId, std::string> row_table;                                        // row -> table it was read in
  std::set<std::pair<adya::TxnId, adya::RowId>> recorded;
  std::vector<std::pair<adya::RowId, std::vector<std::uint32_t>>> lists;             // every writer list read

  void apply(adya::ObservedHistory& o) const {
    std::set<std::pair<adya::TxnId, adya::RowId>> done = recorded;
    for (const auto& [row, list] : lists)
      for (adya::TxnId writer : list) {
        if (writer == adya::kInitialTxn || !done.insert({writer, row}).second) continue;
        const auto table = row_table.find(row);
        if (table == row_table.end()) continue;
        const auto it = updates.find({writer, table->second});
        if (it != updates.end() && it->second.size() == 1) o.add_write(it->second.front(), row, adya::WriteKind::Update);
      }
  }
};

// The writes foreign-key actions made (adya_instrumentation.hpp, kCascadeLogTable), each attributed to the statement
// that caused it: its transaction's only successful UPDATE or DELETE whose actions reach the written table
// (adya::cascaded_tables). Where a transaction ran several, which one made a write is unknown: its deletes stay
// unrecorded and its updates unattributed (UpdateAttribution's rule), and writes count as incomplete (writes_complete).
struct CascadedWrites {
  std::map<std::pair<adya::TxnId, std::string>, std::vector<adya::CascadedDelete>> deletes;  // (writer, table) -> rows
  std::vector<std::string> malformed;

  explicit CascadedWrites(const History& h) {
    const auto log = h.final_state.find(adya::kCascadeLogTable);
    if (log == h.final_state.end()) return;
    for (const Row& r : log->second) {
      if (auto d = adya::parse_cascade_log_row(r)) deletes[{d->writer, d->table}].push_back(std::move(*d));
      else
        malformed.push_back(
            fmt::format("{} holds a row ({}) txprop's triggers did not write", adya::kCascadeLogTable,
                        fmt::join(r | std::views::transform([](const Value& v) { return v.to_string(); }), ", ")));
    }
  }

  // Per written table, the statements (from 1) of transaction `t` that may have written it through a foreign key.
  static std::map<std::string, std::vector<std::size_t>> causes(const History& h, std::size_t t) {
    std::map<std::string, std::vector<std::size_t>> out;
    const auto& statements = h.test_case.transactions[t].statements;
    for (std::size_t i = 1; i <= statements.size(); ++i) {
      const Outcome& o = h.outcomes[t][i];
      if (!o.ok() || (o.affected <= 0 && o.rows.empty())) continue;
      const Statement& s = statements[i - 1];
      for (const std::string& w : adya::cascaded_tables(h.test_case.schema, s.table, s.kind)) out[w].push_back(i);
    }
    return out;
  }

  // The rows transaction `t`'s own DELETEs returned: logged too, and recorded already.
  static std::set<std::pair<std::string, std::int64_t>> deleted_directly(const History& h, std::size_t t) {
    std::set<std::pair<std::string, std::int64_t>> out;
    const auto& statements = h.test_case.transactions[t].statements;
    for (std::size_t i = 1; i <= statements.size(); ++i) {
      const Outcome& o = h.outcomes[t][i];
      const auto rid = std::find(o.columns.begin(), o.columns.end(), adya::kRowIdColumn);
      if (statements[i - 1].kind != StatementKind::Delete || !o.ok() || rid == o.columns.end()) continue;
      for (const Row& r : o.rows) {
        const Value& v = r[static_cast<std::size_t>(rid - o.columns.begin())];
        if (v.type() == ValueType::Integer) out.emplace(statements[i - 1].table, v.as_int());
      }
    }
    return out;
  }
};

// A row id and writer list as the engine returned them: the row id an integer (or, see extract, an integral REAL), the
// writer list a text txprop wrote. nullopt otherwise.
std::optional<std::pair<adya::RowId, std::vector<std::uint32_t>>> parse_row_version(const Value& rid, const Value& wl) {
  auto list = wl.type() == ValueType::Text ? adya::parse_writer_list(wl.as_text()) : std::nullopt;
  if (!list) return std::nullopt;
  if (rid.type() == ValueType::Integer) return std::pair{static_cast<adya::RowId>(rid.as_int()), std::move(*list)};
  if (rid.type() == ValueType::Real && rid.as_real() == static_cast<double>(static_cast<std::int64_t>(rid.as_real())))
    return std::pair{static_cast<adya::RowId>(static_cast<std::int64_t>(rid.as_real())), std::move(*list)};
  return std::nullopt;
}

bool is_plain_star(const Statement& s) {
  return s.kind == StatementKind::Select && s.columns.empty() && s.items.empty() && s.joins.empty() &&
         s.derived.empty() && s.select_exprs.empty();
}

// SELECT * FROM (SELECT * FROM t ...) AS d: the rows returned are rows of t with every column of t, by name.
bool derived_returns_rows(const Statement& s) {
  return s.derived.size() == 1 && s.columns.empty() && s.items.empty() && s.joins.empty() &&
         is_plain_star(s.derived.front()) && s.derived.front().table == s.table;
}

// SELECT * FROM t [INNER|LEFT] JOIN u ON ... [, scalar subqueries]: the columns are told apart by position
// (adya::joined_table_columns). Each returned row is an item read of the version of t's row and of each joined row it carries; a LEFT JOIN's missing
// side (row id and writer list both NULL) is no read. When the result's columns are not laid out exactly so (an
// aggregating or column-listed join) no read is recorded: a missing read can only hide a dependency. Values of the
// versions are not kept from a join (predicate evaluation would need them by position; fewer values only make
// predicate matches unknown), and the statement gets no predicate read (see `shaped_predicate` in extract).
struct JoinedVersion {
  const Table* table;
  adya::RowId row;
  std::vector<std::uint32_t> list;
};
// Per returned row, the versions it carries (its own table's first; a LEFT JOIN's missing side left out); nullopt when
// the result is not laid out as SELECT * over the join.
template <typename OnMalformed>
std::optional<std::vector<std::vector<JoinedVersion>>> join_versions(const Schema& schema, const Statement& s,
                                                                     const Outcome& out, OnMalformed&& malformed) {
  const auto parts = adya::joined_table_columns(schema, s, out);
  if (!parts) return std::nullopt;
  std::vector<std::vector<JoinedVersion>> rows;
  for (const Row& r : out.rows) {
    if (r.size() != out.columns.size()) return std::nullopt;
    std::vector<JoinedVersion>& versions = rows.emplace_back();
    for (const adya::JoinedTableColumns& p : *parts) {
      if (p.optional && r[p.rid].is_null() && r[p.wl].is_null()) continue;
      auto version = parse_row_version(r[p.rid], r[p.wl]);
      if (!version) {
        malformed(fmt::format("returned row id {} with writer list {} of {}", r[p.rid].to_string(), r[p.wl].to_string(),
                              p.table->name));
        continue;
      }
      versions.push_back(JoinedVersion{p.table, version->first, std::move(version->second)});
    }
  }
  return rows;
}

// One item read of `row`'s version `list` (of `table`) by `stmt`, and what predicates and UPDATE attribution need of it.
void add_item_read(adya::ObservedHistory& o, PredicateData& pd, UpdateAttribution& attribution, adya::StmtIndex stmt,
                   const Table* table, adya::RowId row, const std::vector<std::uint32_t>& list) {
  o.add_read(stmt, row, list);
  pd.add_row(row, table);
  attribution.row_table.emplace(row, table->name);
  attribution.lists.emplace_back(row, list);
}

template <typename OnMalformed>
void add_join_reads(adya::ObservedHistory& o, PredicateData& pd, UpdateAttribution& attribution, const Schema& schema,
                    const Statement& s, const Outcome& out, adya::StmtIndex stmt, OnMalformed&& malformed) {
  const auto rows = join_versions(schema, s, out, malformed);
  if (!rows) return;
  // One read per row version: a row joined to several partners comes back once per partner.
  std::set<std::pair<adya::RowId, std::vector<std::uint32_t>>> seen;
  for (const auto& versions : *rows)
    for (const JoinedVersion& v : versions)
      if (seen.insert({v.row, v.list}).second) add_item_read(o, pd, attribution, stmt, v.table, v.row, v.list);
}

// The one statement of transaction `tx` that may have changed rows of `table`, if it is a single-table UPDATE that
// returned nothing (MariaDB 10.11); nullptr if the transaction ran any other write of the table (a DELETE, a joined
// write, a foreign-key action reaching it) or none.
const Statement* sole_update_of(const History& h, std::size_t tx, const std::string& table) {
  const Statement* found = nullptr;
  const auto& statements = h.test_case.transactions[tx].statements;
  for (std::size_t i = 0; i < statements.size(); ++i) {
    const Statement& s = statements[i];
    if (!h.outcomes[tx][i + 1].ok() || (s.kind != StatementKind::Update && s.kind != StatementKind::Delete)) continue;
    const std::vector<std::string> written = s.written_tables();
    const std::vector<std::string> cascaded = adya::cascaded_tables(h.test_case.schema, s.table, s.kind);
    if (std::find(written.begin(), written.end(), table) == written.end() &&
        std::find(cascaded.begin(), cascaded.end(), table) == cascaded.end())
      continue;
    if (found != nullptr || s.kind != StatementKind::Update || !s.joins.empty() || !s.returning.empty() ||
        !cascaded.empty())
      return nullptr;
    found = &s;
  }
  return found;
}

// The value a column of type `type` holds once assigned `v`, where that is the value itself on every engine.
std::optional<Value> stored_as(const Column& column, const Value& v) {
  if (v.is_null()) return column.not_null ? std::nullopt : std::optional<Value>(v);
  switch (column.type) {
    case ColumnType::Integer: return v.type() == ValueType::Integer ? std::optional<Value>(v) : std::nullopt;
    case ColumnType::Real:
      if (v.type() == ValueType::Real) return v;
      if (v.type() == ValueType::Integer && std::abs(v.as_int()) < (std::int64_t{1} << 53))
        return Value(static_cast<double>(v.as_int()));
      return std::nullopt;
    case ColumnType::Text: return v.type() == ValueType::Text ? std::optional<Value>(v) : std::nullopt;
    case ColumnType::Boolean:
      return v.type() == ValueType::Integer && (v.as_int() == 0 || v.as_int() == 1) ? std::optional<Value>(v)
                                                                                      : std::nullopt;
  }
  return std::nullopt;
}

// The version an UPDATE that returned nothing wrote over `before`: its assignments evaluated left to right, each on the
// row as the ones before it left it (MariaDB KB, UPDATE: "single-table UPDATE assignments are generally evaluated from
// left to right"; the hidden writer-list column is left as it was, no WHERE reads it); nullopt where txprop cannot
// evaluate one exactly or the UPDATE's WHERE does not match `before`.
std::optional<Row> updated_version(const Statement& update, const Table& table, Row row) {
  if (adya::matches(update.where, table, row) != adya::Match::Yes) return std::nullopt;
  for (const Assignment& a : update.assignments) {
    if (a.column == adya::kWriterListColumn) continue;
    const auto column = table.column_index(a.column);
    if (!column || !a.table.empty()) return std::nullopt;
    const std::optional<Value> v = adya::evaluate(a.value, table, row);
    const std::optional<Value> stored = v ? stored_as(table.columns[*column], *v) : std::nullopt;
    if (!stored) return std::nullopt;
    row[*column] = *stored;
  }
  return row;
}

// Where an UPDATE returns nothing (MariaDB), the versions it wrote are seen only if a later read returned them; a
// version nobody read has unknown values, so whether it matches a predicate is unknown and no predicate edge is drawn
// through it. Where the writer's only write of the table is one such UPDATE, it appears once in the row's writer list
// and the version before it is known, the version it wrote is that UPDATE applied to it (updated_version).
void derive_update_versions(const adya::ObservedHistory& o, PredicateData& d, const History& h) {
  for (const Table& table : h.test_case.schema.tables)
    for (adya::RowId rid : d.rows_of[table.name]) {
      const auto ri = o.find_row(rid);
      if (!ri || o.branch_count(*ri) != 1) continue;
      const auto chain = o.branch(*ri, 0);
      for (std::size_t k = 2; k <= chain.size(); ++k) {
        const adya::TxnId w = chain[k - 1];
        const auto before = d.values.find({rid, k - 1});
        if (d.values.count({rid, k}) != 0 || before == d.values.end() || w == adya::kInitialTxn ||
            w > h.test_case.transactions.size() || std::count(chain.begin(), chain.end(), w) != 1)
          continue;
        const Statement* update = sole_update_of(h, w - 1, table.name);
        if (update == nullptr) continue;
        if (std::optional<Row> after = updated_version(*update, table, before->second))
          d.values_of(rid, k, std::move(*after));
      }
    }
}

// The engine's rules for what a write's WHERE reads (adya::unrecorded_rule): with them, the reads they name are
// recorded from the commit order (add_current_read); without them (observe(), a history judged without its engine)
// those reads get no predicate edges.
struct ReadRules {
  EngineCapabilities capabilities;
  std::function<bool(IsolationLevel)> rechecks_after_wait;
  // Whether a transaction's plain reads at the level read one snapshot (its read view) for the whole transaction.
  std::function<bool(IsolationLevel)> one_read_view = [](IsolationLevel) { return false; };
};

// Reads the observed history out of an instrumented run (IsoRel's row ids and writer lists), one phase per kind of
// step: the initial rows, each transaction's start and end, version-set reads, join reads before a joined write, and
// each statement's item reads, writes, joined partners and predicate read.
// `starts`: each transaction's start as its engine documents it (transaction_starts); empty: its first statement's
// submission (a history judged without its engine, observe()).
class Extractor {
 public:
  Extractor(const History& h, const std::vector<TxnStart>& starts, const ReadRules* rules)
      : h_(h), c_(h.test_case), starts_(starts), rules_(rules), cascaded_(h) {}

  Extracted run() {
    x_.malformed = cascaded_.malformed;
    add_initial_rows();
    const std::vector<int> previous_end = previous_ends();
    for (std::size_t t = 0; t < c_.transactions.size(); ++t) add_transaction(t, previous_end[t]);
    attribution_.apply(x_.observed);
    derive_update_versions(x_.observed, pd_, h_);
    add_predicates(x_.observed, pd_);
    x_.predicate_reads = pd_.added;
    x_.predicate_skipped = pd_.skipped;
    x_.current_reads = std::move(pd_.current_reads);
    x_.skipped_changed_rows = std::move(pd_.skipped_changed_rows);
    x_.key_checks = std::move(pd_.key_checks);
    return std::move(x_);
  }

 private:
  using Versions = std::map<adya::RowId, std::vector<std::uint32_t>>;
  using JoinRead = std::vector<std::vector<JoinedVersion>>;

  // What a transaction's instrumentation steps leave for the statement that follows them.
  struct TxnSteps {
    std::size_t number = 0;         // the statement's number in the transaction as generated (instrumentation not counted)
    std::optional<Versions> vset;   // the version-set read just before
    // The version-set read waited for a lock. A plain one then read versions other than the statement's; a locking
    // read of the whole table (InnoDB REPEATABLE READ, instrumentation.cpp scans_whole_table) read the latest
    // versions once its waits were over and holds a next-key lock on every record and the supremum since (MySQL 8.0
    // manual 17.7.3, "Locks Set by Different SQL Statements in InnoDB"): nobody changes, deletes or inserts a row of
    // the table until its transaction ends, so the write after it reads exactly the versions it returned.
    bool vset_blocked = false;
    std::optional<JoinRead> join_read;  // the join read just before a joined write
    // The key reads just before an INSERT (adya::is_key_read), each with the version-set read just before it.
    struct KeyRead {
      const Statement* s;
      const Table* table;
      const Outcome* out;
      std::size_t i;         // its step (from 1)
      std::size_t first;     // the step of its version-set read, or its own
      bool blocked;          // it or its version-set read waited
      std::optional<Versions> vset;
    };
    std::vector<KeyRead> key_reads;
    // Every version-set read since the last statement of the case, by table (a DELETE's reads of the tables its key
    // checks read come before its own), and the table of the last.
    struct TableRead {
      std::string table;
      std::size_t i;  // its step (from 1)
      bool blocked;
      std::optional<Versions> versions;
    };
    std::vector<TableRead> table_reads;
    std::string vset_table;
  };

  // One statement of the case as it ran.
  struct Step {
    std::size_t t, i;
    const Statement& s;
    const Outcome& out;
    const Table* table;
    bool blocked;
    adya::StmtIndex stmt = 0;
    Columns cols;
  };

  adya::ObservedHistory& o() { return x_.observed; }
  void malformed(const Step& st, const std::string& what) {
    x_.malformed.push_back(fmt::format("T{}.{} {}", st.t, st.i, what));
  }

  void add_initial_rows() {
    o().set_label(adya::kInitialTxn, "init");  // txprop numbers transactions from T0
    for (const Table& t : c_.schema.tables) {
      const auto rid = t.column_index(adya::kRowIdColumn);
      for (const Row& r : t.rows) {
        const auto id = static_cast<adya::RowId>(r[*rid].as_int());
        o().add_initial_row(id);
        pd_.add_row(id, &t);
        pd_.values_of(id, 1, r);
      }
    }
  }

  // A transaction on a connection that ran another before it started no earlier than that one ended (its first
  // step may have been submitted while it still ran, and queued behind it).
  std::vector<int> previous_ends() const {
    std::vector<int> previous_end(c_.transactions.size(), -1);
    for (const auto& session : c_.sessions())
      for (std::size_t j = 1; j < session.size(); ++j)
        previous_end[static_cast<std::size_t>(session[j])] =
            h_.transactions[static_cast<std::size_t>(session[j - 1])].end_event;
    return previous_end;
  }

  void add_transaction(std::size_t t, int previous_end) {
    const Transaction& tx = c_.transactions[t];
    const std::size_t first = tx.statements.empty() ? 0 : 1;
    int start = h_.submitted_at[t][first];
    if (start >= 0 && previous_end >= 0) start = std::max(start, previous_end + 1);
    if (t < starts_.size()) start = starts_[t].position;
    o().add_transaction(txn_id(t), fmt::format("T{}", t),
                        start < 0 ? adya::kUnknownPosition : static_cast<adya::Position>(start));
    if (t < starts_.size()) o().set_start_rule(txn_id(t), starts_[t].rule);
    TxnSteps steps;
    causes_ = CascadedWrites::causes(h_, t);
    deleted_directly_ = CascadedWrites::deleted_directly(h_, t);
    for (std::size_t i = 1; i <= tx.statements.size(); ++i) {
      const Statement& s = tx.statements[i - 1];
      const bool blocked = i < h_.was_blocked[t].size() && h_.was_blocked[t][i];
      Step st{t, i, s, h_.outcomes[t][i], c_.schema.find_table(s.table), blocked, 0, {}};
      if (adya::is_key_read(s)) add_key_read(st, steps);
      else if (adya::is_version_set_read(s)) {
        add_version_set_read(st, steps);
        steps.vset_table = s.table;
        steps.table_reads.push_back(TxnSteps::TableRead{s.table, i, blocked, steps.vset});
      }
      else if (adya::is_join_read_before_write(s)) add_join_read(st, steps);
      else add_statement(st, steps);
    }
    const TxnResult& r = h_.transactions[t];
    const adya::Fate fate = r.fate == TxnFate::Committed   ? adya::Fate::Committed
                            : r.fate == TxnFate::Unfinished ? adya::Fate::Unknown
                                                            : adya::Fate::Aborted;
    o().finish_transaction(txn_id(t), fate,
                           r.end_event < 0 ? adya::kUnknownPosition : static_cast<adya::Position>(r.end_event));
  }

  void add_version_set_read(const Step& st, TxnSteps& steps) {
    steps.vset.reset();
    steps.vset_blocked = st.blocked && st.s.lock == LockMode::None;
    if (!st.out.ok() || st.table == nullptr) return;
    const Columns cols = find_columns(st.out);
    if (!cols.rid || !cols.wl) return;
    steps.vset.emplace();
    for (const Row& r : st.out.rows) {
      auto list = r[*cols.wl].type() == ValueType::Text ? adya::parse_writer_list(r[*cols.wl].as_text()) : std::nullopt;
      if (r[*cols.rid].type() != ValueType::Integer || !list) {
        steps.vset.reset();
        return;
      }
      const auto rid = static_cast<adya::RowId>(r[*cols.rid].as_int());
      pd_.add_row(rid, st.table);
      pd_.add_values(*st.table, st.out, r, rid, list->size());
      (*steps.vset)[rid] = *list;
    }
  }

  void add_key_read(const Step& st, TxnSteps& steps) {
    const bool vset = steps.vset.has_value() || steps.vset_blocked;
    steps.key_reads.push_back(TxnSteps::KeyRead{&st.s, st.table, &st.out, st.i, vset ? st.i - 1 : st.i,
                                                st.blocked || steps.vset_blocked, std::move(steps.vset)});
    steps.vset.reset();
    steps.vset_blocked = false;
  }

  // Whether no step of another transaction completed between step `from` of transaction `t` and step `to`: nothing
  // ran, and so nothing committed, between them.
  bool back_to_back(std::size_t t, std::size_t from, std::size_t to) const {
    const int a = h_.completed_at(StepRef{static_cast<int>(t), static_cast<int>(from)});
    const int b = h_.completed_at(StepRef{static_cast<int>(t), static_cast<int>(to)});
    if (a < 0 || b < a) return false;
    for (int e = a + 1; e < b; ++e)
      if (h_.events[static_cast<std::size_t>(e)].step.txn != static_cast<int>(t)) return false;
    return true;
  }

  // An INSERT's key check, recorded by the key read before it (adya::is_key_read) where the two ran back to back and
  // neither waited: the check then read the versions the key read returned (an item read each) and, where a
  // version-set read came first, looked its key up in that version set (a predicate read). Otherwise the check stays
  // unrecorded (unrecorded_foreign_key_read): a wait lets other transactions commit between the read and the check.
  void record_key_read(const Step& st, TxnSteps::KeyRead& k) {
    if (!k.out->ok() || k.table == nullptr || k.blocked || st.blocked || !back_to_back(st.t, k.first, st.i)) return;
    const Step read{st.t, k.i, *k.s, *k.out, k.table, false, st.stmt, find_columns(*k.out)};
    PredicateData::Read pread{st.stmt, txn_id(st.t), k.s, k.table, {}, {}};
    each_row(read, [&](adya::RowId row, const std::vector<std::uint32_t>& list) {
      o().add_read(st.stmt, row, list);
      attribution_.row_table.emplace(row, k.table->name);
      attribution_.lists.emplace_back(row, list);
      keep_values(read, row, list.size());
      pread.returned[row] = list;
    });
    if (!k.vset) return;
    pread.vset = std::move(*k.vset);
    pread.key_check = std::tuple{st.t, st.i - 1, k.table->name};
    pd_.reads.push_back(std::move(pread));
  }

  // Whether a transaction other than `t` that committed after `t` began and before its step `i` completed made a write
  // that may reach `table` (directly or through a key's action).
  bool written_meanwhile(std::size_t t, std::size_t i, const std::string& table) const {
    const int begin = h_.completed_at(StepRef{static_cast<int>(t), 0});
    const int end = h_.completed_at(StepRef{static_cast<int>(t), static_cast<int>(i)});
    for (std::size_t u = 0; u < std::min(c_.transactions.size(), h_.transactions.size()); ++u) {
      const int ended = h_.transactions[u].end_event;
      if (u == t || h_.transactions[u].fate != TxnFate::Committed || ended < begin || ended > end) continue;
      for (const Statement& s : c_.transactions[u].statements) {
        const std::vector<std::string> written = s.written_tables();
        const std::vector<std::string> cascaded = adya::cascaded_tables(c_.schema, s.table, s.kind);
        if (std::find(written.begin(), written.end(), table) != written.end() ||
            std::find(cascaded.begin(), cascaded.end(), table) != cascaded.end())
          return true;
      }
    }
    return false;
  }

  // A DELETE's key check of the referencing table `r` read (adya::checked_referencing_key): its lookup of the deleted
  // keys is a predicate read over the version set `r` gave, where that is the one the check read: `r` and the DELETE ran
  // back to back and neither waited; and where the transaction's plain reads read one snapshot while the check reads
  // the latest committed rows (PostgreSQL REPEATABLE READ and SERIALIZABLE: ri_PerformCheck's detectNewRows; InnoDB and
  // SQLite below: their snapshot is the latest for a writer), no other transaction committed a write of the table since
  // the transaction began. What the check found: nothing (NO ACTION, RESTRICT: the DELETE succeeded), or the rows
  // its CASCADE deleted, where the cascade log shows them as this DELETE's (CascadedWrites). Otherwise the check stays
  // unrecorded (unrecorded_foreign_key_read).
  void record_referencing_check(const Step& st, const TxnSteps::TableRead& r) {
    const Table* child = c_.schema.find_table(r.table);
    const ForeignKey* fk = child != nullptr ? adya::checked_referencing_key(*child, st.s.table) : nullptr;
    if (rules_ == nullptr || fk == nullptr || st.s.kind != StatementKind::Delete || !st.s.joins.empty() ||
        st.table == nullptr || st.blocked || r.blocked || !r.versions || !back_to_back(st.t, r.i, st.i))
      return;
    if (rules_->one_read_view(c_.transactions[st.t].isolation) && written_meanwhile(st.t, st.i, child->name)) return;
    std::vector<std::vector<Value>> keys;
    for (const Row& row : st.out.rows) {
      std::vector<Value> key;
      for (const std::string& column : fk->referenced) {
        const auto at = std::find(st.out.columns.begin(), st.out.columns.end(), column);
        if (at == st.out.columns.end()) return;
        key.push_back(row[static_cast<std::size_t>(at - st.out.columns.begin())]);
      }
      keys.push_back(std::move(key));
    }
    if (keys.empty()) return;
    PredicateData::Read pread{st.stmt, txn_id(st.t), nullptr, child, *r.versions, {}};
    if (fk->on_delete == ReferentialAction::Cascade) {
      const auto causes = causes_.find(child->name);
      if (causes == causes_.end() || causes->second != std::vector<std::size_t>{st.i}) return;
      if (const auto logged = cascaded_.deletes.find({txn_id(st.t), child->name}); logged != cascaded_.deletes.end())
        for (const adya::CascadedDelete& d : logged->second)
          if (deleted_directly_.count({child->name, d.row}) == 0) pread.returned[static_cast<adya::RowId>(d.row)] = d.list;
    }
    lookups_.push_back(Statement::select(child->name, key_lookup(fk->columns, keys)));
    pread.statement = &lookups_.back();
    pread.key_check = std::tuple{st.t, st.i - 1, child->name};
    pd_.reads.push_back(std::move(pread));
  }

  // An UPDATE's key check of the referenced table `r` read (adya::checked_referenced_key): its lookup of the new keys is a
  // predicate read over the version set `r` gave, where that is the one the check read (`r` and the UPDATE ran back to
  // back, neither waited; the check reads the statement's snapshot), and the parent rows it found are item reads. The
  // keys are known where the UPDATE returned its rows (RETURNING) and every row it wrote changed its key to one that is
  // not NULL, so that every engine checked each of them (PostgreSQL checks an unchanged key only for a row its own
  // transaction inserted, RI_FKey_fk_upd_check_required; SQLite whenever the SET list names the column; none a NULL
  // key). What it found: the parent rows of those keys (the UPDATE succeeded). Otherwise the check stays unrecorded.
  void record_referenced_check(const Step& st, const TxnSteps::TableRead& r) {
    const ForeignKey* fk = st.table != nullptr ? adya::checked_referenced_key(*st.table, st.s) : nullptr;
    const Table* parent = fk != nullptr ? c_.schema.find_table(fk->table) : nullptr;
    if (rules_ == nullptr || parent == nullptr || r.table != parent->name || st.s.returning.empty() || st.blocked ||
        r.blocked || !r.versions || !st.cols.rid || !st.cols.wl || st.out.rows.empty() || !back_to_back(st.t, r.i, st.i))
      return;
    std::vector<std::vector<Value>> keys;
    for (const Row& row : st.out.rows) {
      const Value& rid = row[*st.cols.rid];
      const Value& wl = row[*st.cols.wl];
      const auto list = wl.type() == ValueType::Text ? adya::parse_writer_list(wl.as_text()) : std::nullopt;
      if (rid.type() != ValueType::Integer || !list || list->size() < 2 || list->back() != txn_id(st.t)) return;
      const auto before = pd_.values.find({static_cast<adya::RowId>(rid.as_int()), list->size() - 1});
      if (before == pd_.values.end()) return;
      std::vector<Value> key;
      for (const std::string& column : fk->columns) {
        const auto at = std::find(st.out.columns.begin(), st.out.columns.end(), column);
        const auto old = st.table->column_index(column);
        if (at == st.out.columns.end() || !old) return;
        const Value& now = row[static_cast<std::size_t>(at - st.out.columns.begin())];
        if (now.is_null() || now == before->second[*old]) return;
        key.push_back(now);
      }
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(std::move(key));
    }
    lookups_.push_back(Statement::select(parent->name, key_lookup(fk->referenced, keys)));
    PredicateData::Read pread{st.stmt, txn_id(st.t), &lookups_.back(), parent, *r.versions, {}};
    for (const auto& [row, list] : *r.versions) {
      const auto values = pd_.values.find({row, list.size()});
      const adya::Match m =
          values == pd_.values.end() ? adya::Match::Unknown : adya::matches(pread.statement->where, *parent, values->second);
      if (m == adya::Match::Unknown) return;
      if (m == adya::Match::Yes) pread.returned[row] = list;
    }
    for (const auto& [row, list] : pread.returned) {
      o().add_read(st.stmt, row, list);
      attribution_.row_table.emplace(row, parent->name);
      attribution_.lists.emplace_back(row, list);
    }
    pread.key_check = std::tuple{st.t, st.i - 1, parent->name};
    pd_.reads.push_back(std::move(pread));
  }

  void add_join_read(const Step& st, TxnSteps& steps) {
    steps.join_read.reset();
    if (st.out.ok())
      steps.join_read = join_versions(c_.schema, st.s, st.out, [&](const std::string& m) { malformed(st, m); });
  }

  // A statement of the case: its item reads and writes, a joined write's partner rows, and its predicate read.
  void add_statement(Step& st, TxnSteps& steps) {
    const Statement& s = st.s;
    std::optional<JoinRead> my_join_read;
    std::swap(my_join_read, steps.join_read);
    std::vector<TxnSteps::KeyRead> key_reads;
    std::swap(key_reads, steps.key_reads);
    std::vector<TxnSteps::TableRead> table_reads;
    std::swap(table_reads, steps.table_reads);
    if (steps.vset_table != s.table) steps.vset.reset();  // a read of another table only (checked_referencing_key)
    ++steps.number;
    st.stmt = o().add_statement(txn_id(st.t), fmt::format("T{}.{} {}", st.t, steps.number,
                                                          render(adya::strip_instrumentation_of(s), Dialect::Portable)));
    std::optional<Versions> my_vset;
    std::swap(my_vset, steps.vset);
    const bool had_vset = my_vset.has_value();
    if (!st.out.ok()) {  // a failed statement changed nothing and returned nothing
      if (had_vset) ++pd_.skipped;
      return;
    }
    for (TxnSteps::KeyRead& k : key_reads) record_key_read(st, k);
    PredicateData::Read pread{st.stmt, txn_id(st.t), &s, st.table, {}, {}};
    pread.read_view = rules_ != nullptr && rules_->one_read_view(c_.transactions[st.t].isolation);
    // A read through a join or a derived table, or with a LIMIT, is no predicate read of `s.where` over the table's
    // version set: the rows a join returns also depend on the joined table and its ON condition, a derived table's
    // on the inner WHERE and LIMIT, and a LIMIT cuts the matches short (an insert past the last row returned
    // changes no result). Drawing predicate edges from `s.where` there could invent a dependency, hence a false
    // cycle; they get none (their item reads are still recorded, below). A scalar subquery in the SELECT list
    // filters nothing: the statement's WHERE still decides exactly which rows of its table it returns, so it stays
    // a predicate read of its table (the subquery's own reads of another table are not recorded: missing edges).
    const bool shaped_predicate = s.joins.empty() && s.derived.empty() && !s.limit;
    const bool predicate = my_vset && (!st.blocked || read_its_snapshot_after_wait(st.t)) && !steps.vset_blocked &&
                           st.table != nullptr && shaped_predicate;
    pread.current = current_read(st, shaped_predicate, had_vset && !steps.vset_blocked);
    if ((predicate || pread.current) && my_vset) pread.vset = std::move(*my_vset);
    st.cols = find_columns(st.out);
    record_rows(st, pread);
    record_cascaded(st);
    for (const TxnSteps::TableRead& r : table_reads) {
      record_referencing_check(st, r);
      record_referenced_check(st, r);
    }
    if (s.is_multi_table_write()) record_partners(st, my_join_read);
    if ((predicate || pread.current) && pread.table != nullptr && s.kind != StatementKind::Insert)
      pd_.reads.push_back(std::move(pread));
    else if (had_vset)
      ++pd_.skipped;
  }

  // Whether a write or locking read of transaction `t` that waited for a row lock still evaluated its WHERE on the
  // snapshot its version-set read saw: where writes read the transaction's snapshot and are not re-checked on newer
  // versions after a wait. PostgreSQL REPEATABLE READ and SERIALIZABLE: once the lock holder ends, the statement goes
  // on in its snapshot if the holder only locked the row or rolled back, and fails with 40001 if it changed the row
  // (manual 13.2.2); SQLite: a write retried after SQLITE_BUSY succeeds only where nothing committed since its read
  // snapshot (SQLITE_BUSY_SNAPSHOT otherwise; wal.html). Without the engine's rules (observe()), not known.
  bool read_its_snapshot_after_wait(std::size_t t) const {
    return rules_ != nullptr && rules_->capabilities.writes_read_snapshot &&
           !rules_->rechecks_after_wait(c_.transactions[t].isolation);
  }

  // Where a rule of the engine leaves the statement's predicate read unrecorded by its version-set read
  // (adya::unrecorded_rule), what add_current_read needs to record it from the commit order: InnoDB REPEATABLE
  // READ's writes and locking reads, which have no version-set read, and a write or locking read that waited after
  // one (PostgreSQL READ COMMITTED, InnoDB below REPEATABLE READ).
  std::optional<PredicateData::Read::Current> current_read(const Step& st, bool shaped, bool version_set) const {
    if (rules_ == nullptr || !shaped || st.table == nullptr || st.s.kind == StatementKind::Insert) return std::nullopt;
    const IsolationLevel level = c_.transactions[st.t].isolation;
    const adya::UnrecordedRule rule =
        adya::unrecorded_rule(h_, st.t, st.i - 1, rules_->capabilities, rules_->rechecks_after_wait(level));
    const bool after_wait =
        rule == adya::UnrecordedRule::RecheckedAfterWait || rule == adya::UnrecordedRule::CurrentReadAfterWait;
    if (!(rule == adya::UnrecordedRule::LatestCommitted && !version_set) && !(after_wait && version_set))
      return std::nullopt;
    const int completed = h_.completed_at(StepRef{static_cast<int>(st.t), static_cast<int>(st.i)});
    const int submitted = h_.submitted_at[st.t][st.i];
    if (completed < 0 || submitted < 0) return std::nullopt;
    const auto& holding = rules_->capabilities.current_reads_hold_what_they_read;
    return PredicateData::Read::Current{st.t,
                                        st.i - 1,
                                        static_cast<adya::Position>(submitted),
                                        static_cast<adya::Position>(completed),
                                        rule == adya::UnrecordedRule::RecheckedAfterWait,
                                        version_set,
                                        only_writer(st),
                                        rule == adya::UnrecordedRule::LatestCommitted &&
                                            std::find(holding.begin(), holding.end(), level) != holding.end()};
  }

  // Whether `st` is an UPDATE without RETURNING and no other statement of its transaction may change its table's rows
  // (no other UPDATE or DELETE of it, joined or not, and no foreign-key action reaching it).
  bool only_writer(const Step& st) const {
    if (st.s.kind != StatementKind::Update || !st.s.returning.empty() || !st.s.joins.empty()) return false;
    const auto& statements = c_.transactions[st.t].statements;
    for (std::size_t i = 0; i < statements.size(); ++i) {
      const Statement& s = statements[i];
      if (i + 1 == st.i || (s.kind != StatementKind::Update && s.kind != StatementKind::Delete)) continue;
      const std::vector<std::string> written = s.written_tables();
      const std::vector<std::string> cascaded = adya::cascaded_tables(c_.schema, s.table, s.kind);
      if (std::find(written.begin(), written.end(), st.s.table) != written.end() ||
          std::find(cascaded.begin(), cascaded.end(), st.s.table) != cascaded.end())
        return false;
    }
    const std::vector<std::string> cascaded = adya::cascaded_tables(c_.schema, st.s.table, st.s.kind);
    return std::find(cascaded.begin(), cascaded.end(), st.s.table) == cascaded.end();
  }

  // Each returned row's id and writer list; a row whose instrumentation columns cannot be read is reported.
  template <typename F>
  void each_row(const Step& st, F&& f) {
    if (!st.cols.rid || !st.cols.wl) return;
    for (const Row& r : st.out.rows) {
      const Value& rid = r[*st.cols.rid];
      const Value& wl = r[*st.cols.wl];
      auto list = wl.type() == ValueType::Text ? adya::parse_writer_list(wl.as_text()) : std::nullopt;
      // SQLite 3.40.1 returns the INTEGER txp_rid as REAL from UPDATE/DELETE ... RETURNING when the table has
      // a REAL column before it (an engine bug of its own, pinned in tests/integration/known_engine_bugs_test);
      // an integral real is the row id.
      const bool integral = rid.type() == ValueType::Integer ||
                            (rid.type() == ValueType::Real && rid.as_real() == static_cast<double>(
                                                                                   static_cast<std::int64_t>(rid.as_real())));
      if (!integral || !list) {
        x_.malformed.push_back(fmt::format("T{}.{} returned row id {} with writer list {}", st.t, st.i, rid.to_string(),
                                           wl.to_string()));
        continue;
      }
      f(static_cast<adya::RowId>(rid.type() == ValueType::Integer ? rid.as_int()
                                                                  : static_cast<std::int64_t>(rid.as_real())),
        *list);
    }
  }

  // The row's values, when the result has every column of the table (found again by its id: results are small).
  void keep_values(const Step& st, adya::RowId row, std::size_t versions) {
    if (st.table == nullptr) return;
    for (const Row& r : st.out.rows) {
      const Value& v = r[*st.cols.rid];
      if ((v.type() == ValueType::Integer && static_cast<adya::RowId>(v.as_int()) == row) ||
          (v.type() == ValueType::Real && static_cast<adya::RowId>(v.as_real()) == row)) {
        pd_.add_row(row, st.table);
        pd_.add_values(*st.table, st.out, r, row, versions);
        return;
      }
    }
  }

  // Item reads and writes by kind of statement, and the versions its predicate read returned.
  void record_rows(const Step& st, PredicateData::Read& pread) {
    const Statement& s = st.s;
    const adya::TxnId txn = txn_id(st.t);
    switch (s.kind) {
      case StatementKind::Select:
        if (!s.joins.empty()) {
          add_join_reads(o(), pd_, attribution_, c_.schema, s, st.out, st.stmt,
                         [&](const std::string& m) { malformed(st, m); });
          break;
        }
        // A derived table returns its table's rows (row id and writer list included) only when it is a SELECT * of
        // the table and the outer SELECT is a SELECT * of it; any other shape records no item read.
        if (!s.derived.empty() && !derived_returns_rows(s)) break;
        each_row(st, [&](adya::RowId row, const std::vector<std::uint32_t>& list) {
          o().add_read(st.stmt, row, list);
          attribution_.row_table.emplace(row, s.table);
          attribution_.lists.emplace_back(row, list);
          keep_values(st, row, list.size());
          pread.returned[row] = list;
        });
        break;
      case StatementKind::Delete:
        each_row(st, [&](adya::RowId row, const std::vector<std::uint32_t>& list) {
          o().add_delete_read(st.stmt, row, list);
          o().add_write(st.stmt, row, adya::WriteKind::Delete);
          attribution_.row_table.emplace(row, s.table);
          attribution_.lists.emplace_back(row, list);
          keep_values(st, row, list.size());
          pd_.deleters[row].push_back(txn);
          pread.returned[row] = list;
        });
        break;
      case StatementKind::Update:
        // A joined UPDATE that writes the joined table too (MariaDB) is that table's UPDATE as well.
        if (st.out.affected > 0)
          for (const std::string& written : s.written_tables()) attribution_.updates[{txn, written}].push_back(st.stmt);
        if (s.returning.empty() && s.joins.empty()) pread.matched = st.out.affected;
        each_row(st, [&](adya::RowId row, const std::vector<std::uint32_t>& list) {
          o().add_write(st.stmt, row, adya::WriteKind::Update);
          attribution_.recorded.insert({txn, row});
          keep_values(st, row, list.size());
          // The version the UPDATE read is the one before its own write.
          if (!list.empty() && list.back() == txn)
            pread.returned[row] = std::vector<std::uint32_t>(list.begin(), list.end() - 1);
          else
            pread.table = nullptr;  // not the writer list this UPDATE wrote: no version set
        });
        break;
      case StatementKind::Insert: record_inserts(st); break;
      default: break;
    }
  }

  // The writes the statement's foreign-key actions made, where it is its transaction's only statement that may have
  // made them (CascadedWrites): a deleted row's version is read and deleted, as by a DELETE ... RETURNING; an updated
  // row's write is attributed from the writer lists, as an UPDATE's without RETURNING.
  void record_cascaded(const Step& st) {
    const adya::TxnId txn = txn_id(st.t);
    for (const auto& [table, statements] : causes_) {
      if (std::find(statements.begin(), statements.end(), st.i) == statements.end()) continue;
      attribution_.updates[{txn, table}].push_back(st.stmt);
      const auto logged = cascaded_.deletes.find({txn, table});
      if (statements.size() != 1 || logged == cascaded_.deletes.end()) continue;
      for (const adya::CascadedDelete& d : logged->second) {
        if (deleted_directly_.count({table, d.row}) != 0) continue;
        const auto row = static_cast<adya::RowId>(d.row);
        o().add_delete_read(st.stmt, row, d.list);
        o().add_write(st.stmt, row, adya::WriteKind::Delete);
        attribution_.row_table.emplace(row, table);
        attribution_.lists.emplace_back(row, d.list);
        pd_.deleters[row].push_back(txn);
      }
    }
  }

  // An INSERT's rows by their literal row ids, with the inserted version's values where every one is known.
  void record_inserts(const Step& st) {
    const Statement& s = st.s;
    const auto at = std::find(s.columns.begin(), s.columns.end(), adya::kRowIdColumn) - s.columns.begin();
    for (const auto& values : s.values) {
      if (static_cast<std::size_t>(at) >= values.size() || values[static_cast<std::size_t>(at)].kind != Expr::Kind::Literal)
        continue;
      const auto row = static_cast<adya::RowId>(values[static_cast<std::size_t>(at)].literal.as_int());
      o().add_write(st.stmt, row, adya::WriteKind::Insert);
      if (st.table == nullptr) continue;
      pd_.add_row(row, st.table);
      // The inserted version's values: literal values, NULL for columns not named.
      Row inserted(st.table->columns.size());
      bool exact = true;
      for (std::size_t k = 0; k < s.columns.size() && k < values.size(); ++k) {
        const auto ci = st.table->column_index(s.columns[k]);
        if (!ci) continue;
        const std::optional<Value> v = values[k].kind == Expr::Kind::Literal ? std::optional<Value>(values[k].literal)
                                                                             : adya::evaluate(values[k], *st.table, inserted);
        if (!v) exact = false;
        else inserted[*ci] = *v;
      }
      if (exact) pd_.values_of(row, 1, std::move(inserted));
    }
  }

  // A joined write's reads of its partner rows. A write returns t's rows in the order it wrote them; pairing each with
  // the version of its partner needs the partner per returned row (RETURNING of the joined table) or a join read that
  // saw those same rows. MariaDB's multi-table writes return nothing and InnoDB's writes read the latest committed
  // versions, which a plain read before them need not see: the partner rows they read stay unrecorded (a missing read
  // can hide a dependency, never invent one).
  void record_partners(const Step& st, const std::optional<JoinRead>& join_read) {
    const Table* joined = c_.schema.find_table(st.s.joins.front().table);
    if (joined == nullptr) return;
    std::set<std::pair<adya::RowId, std::vector<std::uint32_t>>> partners;
    if (!st.s.returning_joined.empty()) partners = returned_partners(st, *joined);
    else if (join_read) partners = partners_from_join_read(st, *join_read, joined);
    for (const auto& [row, list] : partners) add_item_read(o(), pd_, attribution_, st.stmt, joined, row, list);
    ++x_.joined_writes;
    if (!partners.empty()) ++x_.joined_writes_with_partners;
  }

  // PostgreSQL: the partner's row id and writer list follow the written table's columns, in the row of the written
  // row it was joined to (the version the join read; an EvalPlanQual recheck at READ COMMITTED keeps the partner row
  // it joined).
  std::set<std::pair<adya::RowId, std::vector<std::uint32_t>>> returned_partners(const Step& st, const Table& joined) {
    const Statement& s = st.s;
    std::set<std::pair<adya::RowId, std::vector<std::uint32_t>>> partners;
    const auto rid = std::find(s.returning_joined.begin(), s.returning_joined.end(), adya::kRowIdColumn);
    const auto wl = std::find(s.returning_joined.begin(), s.returning_joined.end(), adya::kWriterListColumn);
    const std::size_t at_rid = s.returning.size() + static_cast<std::size_t>(rid - s.returning_joined.begin());
    const std::size_t at_wl = s.returning.size() + static_cast<std::size_t>(wl - s.returning_joined.begin());
    if (rid == s.returning_joined.end() || wl == s.returning_joined.end() ||
        st.out.columns.size() != s.returning.size() + s.returning_joined.size())
      return partners;
    for (const Row& r : st.out.rows) {
      if (auto version = parse_row_version(r[at_rid], r[at_wl])) partners.insert(std::move(*version));
      else x_.malformed.push_back(fmt::format("T{}.{} returned row id {} with writer list {} of {}", st.t, st.i,
                                              r[at_rid].to_string(), r[at_wl].to_string(), joined.name));
    }
    return partners;
  }

  // SQLite: the join read just before ran in the same transaction, on the same snapshot as the write (a WAL reader
  // keeps its snapshot and cannot write on a stale one: SQLITE_BUSY_SNAPSHOT; a rollback-journal reader's SHARED lock
  // keeps writers from committing), also when the write waited (SQLITE_BUSY) and was retried: a retry that succeeds
  // ran on that snapshot. It is taken as the write's read only if it found exactly the versions of t's rows the write
  // returned (before its own write); otherwise the partners' versions stay unrecorded.
  std::set<std::pair<adya::RowId, std::vector<std::uint32_t>>> partners_from_join_read(const Step& st,
                                                                                      const JoinRead& join_read,
                                                                                      const Table* joined) {
    std::set<std::pair<adya::RowId, std::vector<std::uint32_t>>> read_rows, written_rows, partners;
    for (const auto& versions : join_read)
      if (!versions.empty() && versions.front().table == st.table)
        read_rows.emplace(versions.front().row, versions.front().list);
    bool exact = st.cols.rid && st.cols.wl;
    for (const Row& r : st.out.rows) {
      auto version = exact ? parse_row_version(r[*st.cols.rid], r[*st.cols.wl]) : std::nullopt;
      if (!version) exact = false;  // (a malformed row was reported above)
      else if (st.s.kind == StatementKind::Delete) written_rows.insert(std::move(*version));
      else if (!version->second.empty() && version->second.back() == txn_id(st.t))
        written_rows.emplace(version->first, std::vector<std::uint32_t>(version->second.begin(), version->second.end() - 1));
      else exact = false;
    }
    if (!exact || read_rows != written_rows) {
      ++x_.join_reads_not_matching;
      return partners;
    }
    for (const auto& versions : join_read)
      for (std::size_t k = 1; k < versions.size(); ++k)
        if (versions[k].table == joined) partners.emplace(versions[k].row, versions[k].list);
    return partners;
  }

  const History& h_;
  const TestCase& c_;
  const std::vector<TxnStart>& starts_;
  const ReadRules* rules_;
  Extracted x_;
  UpdateAttribution attribution_;
  PredicateData pd_;
  CascadedWrites cascaded_;
  std::map<std::string, std::vector<std::size_t>> causes_;             // of the transaction being added
  std::set<std::pair<std::string, std::int64_t>> deleted_directly_;  // of the transaction being added
  std::deque<Statement> lookups_;  // the lookups of DELETEs' key checks (record_referencing_check), which reads point to
};

Extracted extract(const History& h, const std::vector<TxnStart>& starts = {}, const ReadRules* rules = nullptr) {
  return Extractor(h, starts, rules).run();
}

// Whether transactions that ran concurrently (neither ended before the other started) touched the same row, or a row
// of one's predicate read's version set, with at least one of them writing it: the cases in which an isolation
// anomaly can show at all (issue 13's measure of generated cases). Returns the tag: "contended", or why not, the
// first that applies of
//   uncontended: serial                  no two transactions overlapped in time (a lock wait or an early abort can
//                                        serialise a generated interleaving)
//   uncontended: read-only               transactions overlapped, but none of an overlapping pair had a write statement
//   uncontended: writes took no effect   overlapping transactions had write statements, none changed a row (matched
//                                        nothing, failed, or its transaction was aborted before it ran)
//   uncontended: ended by the engine     a transaction was aborted by a conflict error (serialization failure,
//                                        deadlock, lock timeout, snapshot conflict) before anything it touched
//                                        overlapped: the engine saw a conflict and ended it first
//   uncontended: disjoint rows           overlapping transactions wrote, but not a row (or a version-set row) the
//                                        other touched
// A write counts whether or not its transaction commits (an uncommitted write another transaction touches is what a
// dirty read or write is made of).
std::string contention_of(const adya::ObservedHistory& o, const History& h) {
  const TestCase& c = h.test_case;
  auto concurrent = [&](adya::TxnId a, adya::TxnId b) {
    if (a == b || a == adya::kInitialTxn || b == adya::kInitialTxn) return false;
    const adya::TxnInfo &x = o.txn(a), &y = o.txn(b);
    const bool a_before = x.end != adya::kUnknownPosition && y.start != adya::kUnknownPosition && x.end < y.start;
    const bool b_before = y.end != adya::kUnknownPosition && x.start != adya::kUnknownPosition && y.end < x.start;
    return !a_before && !b_before;
  };
  std::map<adya::RowIndex, std::vector<std::pair<adya::TxnId, bool>>> by_row;  // row -> (txn, wrote)
  std::set<std::pair<adya::RowIndex, adya::TxnId>> writers_seen;
  for (const adya::Observation& ob : o.observations()) {
    by_row[ob.row].emplace_back(o.txn_of(ob), !ob.is_read());
    // A writer list read names the row's writers too: where an UPDATE returns nothing (MariaDB), its writes are
    // known only from the lists read later.
    if (ob.is_read())
      for (adya::TxnId w : o.branch(ob.row, ob.branch()).first(ob.length))
        if (w != adya::kInitialTxn && writers_seen.emplace(ob.row, w).second) by_row[ob.row].emplace_back(w, true);
  }
  for (const auto& [row, users] : by_row)
    for (std::size_t i = 0; i < users.size(); ++i)
      for (std::size_t j = i + 1; j < users.size(); ++j)
        if ((users[i].second || users[j].second) && concurrent(users[i].first, users[j].first)) return "contended";
  for (const adya::PredicateRow& pr : o.predicate_rows()) {
    const adya::TxnId reader = o.statements()[o.predicate_statement(pr.pred)].txn;
    for (adya::TxnId w : o.predicate_order(pr))
      if (concurrent(reader, w)) return "contended";
    if (pr.deleter != adya::kNone && concurrent(reader, pr.deleter)) return "contended";
    // Writers of the row that are not in its final version order: their transactions did not commit.
    if (const auto r = o.find_row(pr.row); r && by_row.count(*r))
      for (const auto& [t, wrote] : by_row.at(*r))
        if (wrote && concurrent(reader, t)) return "contended";
  }
  // Why not: the overlapping pairs, whether they meant to write, whether a write took effect.
  const std::size_t n = std::min<std::size_t>(c.transactions.size(), o.txn_count() > 0 ? o.txn_count() - 1 : 0);
  std::vector<bool> writes_statement(n, false), wrote(n, false);
  for (std::size_t t = 0; t < n; ++t)
    for (const Statement& s : c.transactions[t].statements) writes_statement[t] = writes_statement[t] || s.is_write();
  for (const adya::Observation& ob : o.observations())
    if (!ob.is_read() || ob.kind() == adya::OpKind::DeleteRead)
      if (const adya::TxnId t = o.txn_of(ob); t >= 1 && t - 1 < n) wrote[t - 1] = true;
  bool overlap = false, meant = false, effect = false;
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = a + 1; b < n; ++b) {
      if (!concurrent(txn_id(a), txn_id(b))) continue;
      overlap = true;
      meant = meant || writes_statement[a] || writes_statement[b];
      effect = effect || wrote[a] || wrote[b];
    }
  if (!overlap) return "uncontended: serial";
  if (!meant) return "uncontended: read-only";
  for (std::size_t t = 0; t < std::min(n, h.transactions.size()); ++t) {
    const ErrorClass e = h.transactions[t].abort_reason.cls;
    if (h.transactions[t].fate == TxnFate::Aborted &&
        (e == ErrorClass::SerializationFailure || e == ErrorClass::Deadlock || e == ErrorClass::LockTimeout ||
         e == ErrorClass::SnapshotConflict || e == ErrorClass::CertificationFailure))
      return "uncontended: ended by the engine";
  }
  if (!effect) return "uncontended: writes took no effect";
  return "uncontended: disjoint rows";
}

// A stale read: a transaction on one node of a cluster began (took its snapshot, transaction_starts) after a
// transaction on another node had committed, yet read a version that one overwrote. That is Adya's G-SIb through a
// start-dependency (checkers/adya/classify.cpp, report_gsib_start: Ti -rw-> Tj although Tj ended before Ti started)
// whose two transactions ran on different nodes; on one server the same history stays a G-SIb, judged by the level
// as before. Named so where the engine is a cluster (EngineProfile::multi_host) and the history says both nodes (the
// runner writes every transaction's node on a cluster). Galera documents it (galera_profile.cpp, kStaleRead:
// MariaDB's "Known Limitations" and wsrep_sync_wait); a cluster whose profile does not fails it (below).
void name_stale_reads(std::vector<Finding>& findings, const TestCase& c, const EngineProfile& engine) {
  if (!engine.multi_host()) return;
  const auto node = [&](int t) { return t >= 0 && static_cast<std::size_t>(t) < c.transactions.size()
                                            ? c.transactions[static_cast<std::size_t>(t)].node : -1; };
  for (Finding& f : findings) {
    // report_gsib_start names the reader (the anti-dependency's source) first, then the writer it missed.
    if (f.kind != "G-SIb" || f.transactions.size() != 2) continue;
    const int reader = f.transactions[0], writer = f.transactions[1];
    if (node(reader) < 0 || node(writer) < 0 || node(reader) == node(writer)) continue;
    f.kind = behaviour::kStaleRead;
    f.explanation += fmt::format(
        "\nStale read: T{} ran on node {} and began after T{}, on node {}, had committed, yet read a version T{} "
        "overwrote (one server would have shown T{} its write: Adya's G-SIb, here across nodes).",
        reader, node(reader) + 1, writer, node(writer) + 1, writer, reader);
  }
}

// Appends `line` (ending in a newline) to the finding's explanation, on a line of its own.
void add_line(Finding& f, const std::string& line) {
  if (!f.explanation.empty() && f.explanation.back() != '\n') f.explanation += '\n';
  f.explanation += line;
}

// For each finding, the named mechanism that explains it, or null: a G-single (of any shape) whose cycle holds both
// the reader and the changer of a row a current read skipped though its read view holds it in a matching version
// (SkippedChangedRow): the anti-dependency from the read view's version to the change, and the dependency of the
// current read on the change. Said in the finding's explanation; the standing looks the mechanism up in the profile.
std::vector<const char*> explain_by_skipped_changed_rows(std::vector<Finding>& findings,
                                                         const std::vector<SkippedChangedRow>& skipped) {
  std::vector<const char*> mechanisms(findings.size(), nullptr);
  for (std::size_t i = 0; i < findings.size(); ++i) {
    Finding& f = findings[i];
    if (adya::classes_of(f.kind).count("G-single") == 0) continue;
    const auto involved = [&](adya::TxnId t) {
      return std::find(f.transactions.begin(), f.transactions.end(), static_cast<int>(t) - 1) != f.transactions.end();
    };
    for (const SkippedChangedRow& row : skipped) {
      if (!involved(row.reader) || !involved(row.changer)) continue;
      mechanisms[i] = behaviour::kCurrentReadSkipsRowChangedAfterReadView;
      add_line(f,
               fmt::format("Mechanism ({}): {}.\n", behaviour::kCurrentReadSkipsRowChangedAfterReadView, row.what));
      break;
    }
  }
  return mechanisms;
}

// For each finding no mechanism explains yet, kSsiIgnoresXidAssignedBeforeSnapshot where it applies: a G2-class
// finding with two or more anti-dependencies (write-skew, G2-item, G2; not a G-single: snapshot isolation alone
// prevents those) one of whose transactions committed after a LOCK TABLE ... IN ACCESS EXCLUSIVE MODE before its
// snapshot (txprop/table_locks.hpp): PostgreSQL's SSI ignores the anti-dependencies of readers that missed that
// transaction's writes (docs/engine_bugs/postgresql_ssi_access_exclusive.md), so such a cycle can commit. A Finding
// carries no edges, so that the cycle's edge into that transaction is an anti-dependency is not checked. The standing
// looks the mechanism up in the profile.
void explain_by_xid_assigned_before_snapshot(std::vector<Finding>& findings, const History& h,
                                             std::vector<const char*>& mechanisms) {
  for (std::size_t i = 0; i < findings.size(); ++i) {
    Finding& f = findings[i];
    const std::set<std::string> classes = adya::classes_of(f.kind);
    if (mechanisms[i] != nullptr || classes.count("G2") == 0 || classes.count("G-single") != 0) continue;
    for (const int t : f.transactions) {
      if (t < 0 || static_cast<std::size_t>(t) >= std::min(h.transactions.size(), h.test_case.transactions.size()) ||
          h.transactions[static_cast<std::size_t>(t)].fate != TxnFate::Committed)
        continue;
      const std::optional<AccessExclusiveLockBeforeSnapshot> lock =
          access_exclusive_lock_before_snapshot(h.test_case.transactions[static_cast<std::size_t>(t)]);
      if (!lock) continue;
      mechanisms[i] = behaviour::kSsiIgnoresXidAssignedBeforeSnapshot;
      add_line(f, fmt::format("Mechanism ({}): T{} ran LOCK TABLE {} IN ACCESS EXCLUSIVE MODE (T{}.{}) before its "
                              "snapshot, which gave it its xid before PostgreSQL's SSI tracked it, and committed; "
                              "SSI then ignores the anti-dependencies of readers that missed its writes.\n",
                              behaviour::kSsiIgnoresXidAssignedBeforeSnapshot, t, lock->table, t, lock->statement + 1));
      break;
    }
  }
}

// What each transaction's level claims (its ANSI name read as Adya's level) and what the engine documents of it (the
// profile's DocumentedBehaviour as it is), by transaction index.
struct Levels {
  std::vector<adya::AdyaLevel> claimed;
  std::vector<DocumentedBehaviour> documented;
  std::set<std::string> names;  // "PL-2.99 claimed (REPEATABLE READ), PL-SI promised", for the note
};

Levels levels_of(const Target& target, const TestCase& c) {
  Levels l;
  for (const Transaction& t : c.transactions) {
    l.claimed.push_back(adya_claimed_level(t.isolation));
    l.documented.push_back(target.engine().documented(t.isolation, target.config()));
    l.names.insert(fmt::format("{} claimed ({}), {} promised", adya::to_string(l.claimed.back()),
                               sql_name(t.isolation), l.documented.back().promise));
  }
  return l;
}

// Every write is known only if every UPDATE and DELETE returned the rows it wrote (not on MariaDB/MySQL), of every
// table it wrote (a joined UPDATE returns only its own table's).
bool writes_complete(const TestCase& c) {
  // A foreign key's writes are attributed only where one statement can have made them (CascadedWrites).
  for (const Table& t : c.schema.tables)
    if (t.cascade_log) return false;
  for (const Transaction& t : c.transactions)
    for (const Statement& s : t.statements)
      if ((s.kind == StatementKind::Update || s.kind == StatementKind::Delete) &&
          (s.returning.empty() || s.written_tables().size() > 1))
        return false;
  return true;
}

// How often the suites exercise joined writes (issue 11 item 5): the forms the case has, and whether a joined write
// that ran had its partner rows' versions recorded (PostgreSQL, SQLite; never MariaDB).
std::set<std::string> joined_write_tags(const TestCase& c, const Extracted& x) {
  std::set<std::string> forms;
  for (const Transaction& t : c.transactions)
    for (const Statement& s : t.statements)
      if (s.is_multi_table_write())
        forms.insert(s.kind == StatementKind::Delete      ? "form: joined DELETE"
                     : s.written_tables().size() > 1 ? "form: joined UPDATE of two tables"
                                                         : "form: joined UPDATE");
  if (!forms.empty()) forms.insert("form: any joined write");
  if (x.joined_writes > 0) forms.insert("joined write ran");
  if (x.joined_writes_with_partners > 0) forms.insert("joined write with its partners' versions recorded");
  if (x.join_reads_not_matching > 0) forms.insert("joined write whose join read did not see its rows (partners not recorded)");
  return forms;
}

// The engine's own passage on the phenomenon (the kind or a class of it), if its documentation names it.
std::string engine_passage(const DocumentedBehaviour& d, const std::string& kind) {
  for (const std::string& c : adya::classes_of(kind))
    if (std::string passage = d.allows(c); !passage.empty()) return passage;
  return {};
}

// TXPROP_ADYA_HUNT=<kind>[,<kind>...]: findings of these kinds fail whatever their standing, so that the first
// one is shrunk and reported (how the isolation-table campaign gets a minimal example of an allowed phenomenon).
// Exact kinds: hunting G2 (phantoms) must not stop at a write-skew, which is a G2 too.
std::set<std::string> hunted_kinds() {
  std::set<std::string> hunted;
  if (const char* hunt = std::getenv("TXPROP_ADYA_HUNT"); hunt && *hunt) {
    std::string_view rest(hunt);
    while (!rest.empty()) {
      const std::size_t comma = std::min(rest.find(','), rest.size());
      if (comma > 0) hunted.emplace(rest.substr(0, comma));
      rest.remove_prefix(std::min(comma + 1, rest.size()));
    }
  }
  return hunted;
}

// A finding's standing: proscribed by what the engine promises at the deciding levels (fails), by their claimed levels
// only (documented; a deviation in Claimed mode), or by neither (allowed by the level), with its source and a line
// saying so.
void decide_adya_standing(Finding& f, const Levels& levels, AdyaMode mode, const char* mechanism) {
  // A stale read is no phenomenon of Adya's levels (they order transactions by real time only at PL-SI, as G-SIb):
  // what it breaks is one-copy semantics, which a cluster presenting itself as one database claims at every level.
  // So it fails unless the engine documents it at the reader's level (DocumentedBehaviour::allowed[kStaleRead]).
  const bool stale = f.kind == behaviour::kStaleRead;
  const StandingDecision d = decide_standing(f, levels.claimed.size(), [&](int t) {
    const std::size_t i = static_cast<std::size_t>(t);
    if (stale) return LevelStance{levels.documented[i].allowed.count(behaviour::kStaleRead) == 0, true};
    // A phenomenon through a mechanism the engine documents at that level (a known bug, with its tracker entry)
    // is not what the engine promises to prevent there: counted and shown with its source, not failed.
    const bool mechanism_documented = mechanism != nullptr && levels.documented[i].allowed.count(mechanism) != 0;
    return LevelStance{adya::is_proscribed(levels.documented[i].prevented, f.kind) && !mechanism_documented,
                       adya::is_proscribed(levels.claimed[i], f.kind)};
  });
  if (d.standing == Standing::Fails) return;
  const std::size_t by = static_cast<std::size_t>(std::max(d.by, 0));
  const DocumentedBehaviour& documented = levels.documented[by];
  const std::string claimed(adya::to_string(levels.claimed[by]));
  if (!f.explanation.empty() && f.explanation.back() != '\n') f.explanation += '\n';
  const std::string passage =
      mechanism != nullptr && documented.allowed.count(mechanism) != 0 ? documented.allowed.at(mechanism)
                                                                       : engine_passage(documented, f.kind);
  if (d.standing == Standing::Allowed) {
    f.standing = Standing::Allowed;
    f.source = fmt::format("allowed at {} (Adya's {} proscribes {})", claimed, claimed,
                           fmt::join(adya::proscribed(levels.claimed[by]), ", "));
    if (!passage.empty()) f.source += "; the engine documents it: " + passage;
    f.explanation += fmt::format("Standing: {} allowed at {}.\n", f.kind, claimed);
    return;
  }
  f.source = passage.empty() ? documented.source : passage;
  if (stale) {
    f.standing = mode == AdyaMode::Documented ? Standing::Documented : Standing::Deviation;
    f.explanation += fmt::format("Standing: a stale read breaks one-copy semantics at any level; documented by the "
                                 "engine at {} ({}).\n", claimed, documented.promise);
    return;
  }
  if (mode == AdyaMode::Documented) {
    f.standing = Standing::Documented;
    if (mechanism != nullptr && documented.allowed.count(mechanism) != 0)
      f.explanation += fmt::format("Standing: proscribed by {} and by what the engine promises ({}), but through {}, "
                                   "which the engine's profile documents (below).\n", claimed, documented.promise,
                                   mechanism);
    else
      f.explanation += fmt::format("Standing: proscribed by {} (the claimed level), documented by the engine ({}).\n",
                                   claimed, documented.promise);
  } else {
    f.standing = Standing::Deviation;  // proscribed by the claimed level only: shrink it, report it, do not fail the test
    if (mechanism != nullptr && documented.allowed.count(mechanism) != 0)
      f.explanation += fmt::format("Proscribed by {} (the claimed level) and by what the engine promises ({}), but "
                                   "through {}, which the engine's profile documents (below).\n",
                                   claimed, documented.promise, mechanism);
    else
      f.explanation += fmt::format("Proscribed by {} (the claimed level), allowed by {} as documented.\n", claimed,
                                   documented.promise);
  }
}


}  // namespace

namespace adya {
ObservedHistory observe(const History& h) { return extract(h).observed; }
}  // namespace adya

TestCase instrument_for_adya(const TestCase& c, const EngineProfile& engine) {
  return adya::instrument(c, adya::InstrumentationOptions{.engine = engine.capabilities()});
}

Verdict check_adya(Target& target, const History& h, AdyaMode mode) {
  Verdict v = Verdict::pass("adya");
  if (!adya::is_instrumented(h.test_case)) {
    return v.without_verdict("the case was not instrumented (run instrument_for_adya(c, engine))");
  }
  // Joined writes are judged too: see the `is_multi_table_write` branch in extract for the reads of the joined
  // table's rows they record, and adya_instrumentation.hpp for how each written table's rows get the writer.
  // Every transaction is judged at its own level (Adya's mixed-level serialization graph): the checker looks for
  // every phenomenon, and each finding is classified by the levels of the transactions that decide it
  // (Finding::deciding): proscribed by what the engine promises there (fails), documented by the engine (a weaker
  // promise than the claimed level: counted, with source; a deviation in Claimed mode), or allowed by the claimed level
  // itself (counted: e.g. "lost-update allowed at PL-2").
  const Levels levels = levels_of(target, h.test_case);
  if (h.test_case.transactions.empty()) return v;
  const ReadRules rules{target.engine().capabilities(target.config()),
                        [&](IsolationLevel level) {
                          return target.engine().visibility(level, target.config()).update.view ==
                                 ViewRule::StatementSnapshot;
                        },
                        [&](IsolationLevel level) {
                          return target.engine().visibility(level, target.config()).select.view == ViewRule::Snapshot;
                        }};
  Extracted x = extract(h,
                        transaction_starts(h, target.engine(), target.config(),
                                           [&](int t, int step) {
                                             const Statement& s = h.test_case.transactions[static_cast<std::size_t>(t)]
                                                                      .statements[static_cast<std::size_t>(step - 1)];
                                             return adya::is_version_set_read(s) || adya::is_join_read_before_write(s);
                                           }),
                        &rules);
  adya::CheckOptions options;
  options.writes_complete = writes_complete(h.test_case);
  Verdict found = adya::check(x.observed, adya::adya_kinds(), options);
  v.tags = found.tags;
  // The observer (the last transaction) runs after everything else: it contends with nobody.
  v.tags.push_back(contention_of(x.observed, h));
  const std::set<std::string> forms = joined_write_tags(h.test_case, x);
  v.tags.insert(v.tags.end(), forms.begin(), forms.end());
  for (const std::string& m : x.malformed) {
    Finding f;
    f.kind = "impossible-history";
    f.explanation = m + ": not a row id and writer list txprop wrote\n";
    found.findings.push_back(std::move(f));
  }
  const std::set<std::string> hunted = hunted_kinds();
  name_stale_reads(found.findings, h.test_case, target.engine());
  std::vector<const char*> mechanisms = explain_by_skipped_changed_rows(found.findings, x.skipped_changed_rows);
  explain_by_xid_assigned_before_snapshot(found.findings, h, mechanisms);
  if (!x.skipped_changed_rows.empty()) v.tags.push_back(behaviour::kCurrentReadSkipsRowChangedAfterReadView);
  for (std::size_t i = 0; i < found.findings.size(); ++i) {
    Finding& f = found.findings[i];
    if (hunted.count(f.kind) != 0) {
      add_line(f, "Hunted (TXPROP_ADYA_HUNT): reported as a failure whatever its standing.\n");
      continue;
    }
    if (f.kind == "impossible-history") continue;  // fails
    decide_adya_standing(f, levels, mode, mechanisms[i]);
  }
  v.findings = std::move(found.findings);
  v.note = fmt::format("{}; {} predicate reads with version sets, {} without (see add_predicates)",
                       fmt::join(levels.names, "; "), x.predicate_reads, x.predicate_skipped);
  // A cycle through a predicate read the instrumentation cannot record would go unseen (issue 21 item 2;
  // unrecorded_predicates.hpp): a history without findings gets no verdict instead of "ok"; the findings of one that
  // has some stand (each is a cycle the history has), with the reason others may be missing in the note.
  std::string why =
      adya::unrecorded_predicate(h, rules.capabilities, rules.rechecks_after_wait, x.current_reads);
  if (why.empty()) why = adya::unrecorded_foreign_key_read(h, x.key_checks);
  if (!why.empty()) {
    if (v.findings.empty()) {
      v.tags.push_back("no verdict: adya cannot judge this history: " + adya::unrecorded_class(why));
      return v.without_verdict("adya cannot judge this history: " + why);
    }
    v.note += "; other cycles may be unseen: " + why;
    v.tags.push_back("unrecorded predicate read");
  }
  if (!v.findings.empty()) v.attachments.emplace_back("history.edn", adya::to_elle_edn(x.observed));
  return v;
}

}  // namespace txprop
