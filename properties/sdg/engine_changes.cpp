#include "engine_changes.hpp"

#include <algorithm>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "txprop/target_config.hpp"

namespace txprop::sdg {

namespace {

bool among(const std::vector<IsolationLevel>& levels, IsolationLevel l) {
  return std::find(levels.begin(), levels.end(), l) != levels.end();
}

std::set<std::string> referenced(const Transaction& tx) {
  std::set<std::string> out;
  for (const Statement& s : tx.statements)
    for (const std::string& t : s.tables()) out.insert(t);
  return out;
}

std::set<std::string> written(const Transaction& tx) {
  std::set<std::string> out;
  for (const Statement& s : tx.statements)
    if (s.is_write())
      for (const std::string& t : s.written_tables()) out.insert(t);
  return out;
}

// Where transaction `t`'s first statement and its end are in the planned order.
std::pair<std::size_t, std::size_t> span(const TestCase& c, std::size_t t) {
  std::size_t first = c.order.size(), end = c.order.size(), step = 0;
  for (std::size_t i = 0; i < c.order.size(); ++i)
    if (static_cast<std::size_t>(c.order[i]) == t) {
      if (step == 1) first = i;
      if (c.transactions[t].is_end_step(step)) end = i;
      ++step;
    }
  return {first, end};
}

// Whether two transactions run statements at the same time in the planned order: one that ended before the other's
// first statement holds no lock and changes no view of it.
bool overlap(const TestCase& c, std::size_t t, std::size_t u) {
  const auto [t_first, t_end] = span(c, t);
  const auto [u_first, u_end] = span(c, u);
  return u_first < t_end && t_first < u_end;
}

// "T2 writes t0", a table transaction `t` references, written by another transaction running beside it (accepted by
// `with`), or "".
template <typename Accept>
std::string other_writer(const TestCase& c, std::size_t t, const std::set<std::string>& tables, Accept&& with) {
  for (std::size_t u = 0; u < c.transactions.size(); ++u) {
    if (u == t || !with(c.transactions[u]) || !overlap(c, t, u)) continue;
    for (const std::string& w : written(c.transactions[u]))
      if (tables.count(w)) return fmt::format("T{} writes {}", u, w);
  }
  return {};
}

// "T2 writes t0": another transaction that, in the planned order, writes a table in `tables` before transaction
// `t`'s first statement and ends after it (the statement may wait for its lock and read past its commit), or "".
std::string writer_before_first(const TestCase& c, std::size_t t, const std::set<std::string>& tables) {
  const std::size_t t_first = span(c, t).first;
  std::vector<std::size_t> step(c.transactions.size(), 0);
  for (std::size_t i = 0; i < t_first && i < c.order.size(); ++i) {
    const auto u = static_cast<std::size_t>(c.order[i]);
    const std::size_t k = step[u]++;
    if (u == t || k == 0 || k > c.transactions[u].statements.size() || span(c, u).second < t_first) continue;
    for (const std::string& w : c.transactions[u].statements[k - 1].written_tables())
      if (tables.count(w)) return fmt::format("T{} writes {}", u, w);
  }
  return {};
}

// Whether the engine has a session whose plain reads take no lock and read the latest versions: READ UNCOMMITTED with
// dirty reads (InnoDB: a plain read at READ UNCOMMITTED takes no lock and reads the latest version of each record,
// MariaDB SET TRANSACTION, READ UNCOMMITTED).
bool dirty_companion(const EngineProfile& engine) {
  if (!among(engine.levels(), IsolationLevel::ReadUncommitted)) return false;
  const VisibilityRules ru = engine.visibility(IsolationLevel::ReadUncommitted, TargetConfig{});
  return ru.select.view == ViewRule::Latest && ru.select.lock == LockStrength::None;
}

// How many of transaction `tx`'s first statements have reads that would change the engine and move to a companion:
// all where plain reads lock (InnoDB SERIALIZABLE), those before the first plain SELECT where that SELECT opens the
// read view, else none. At SERIALIZABLE a companion's reads for later statements race the statements their
// transaction queued behind a wait; three false result-mismatches came of it (reads sent ahead and a never-sent
// DELETE's before-write read: companion_in_place and undo_uncommitted in sdg.cpp; a failed write's before-write read
// beside an uncommitted DELETE: undo_uncommitted).

std::size_t reads_to_move(const Transaction& tx, const EngineProfile& engine) {
  if (tx.autocommit) return 0;
  if (among(engine.capabilities().locking_plain_reads, tx.isolation)) return tx.statements.size();
  const VisibilityRules rules = engine.visibility(tx.isolation, TargetConfig{});
  if (rules.snapshot_point != SnapshotPoint::FirstRead || rules.select.view != ViewRule::Snapshot) return 0;
  std::size_t k = 0;
  while (k < tx.statements.size() &&
         !(tx.statements[k].kind == StatementKind::Select && tx.statements[k].lock == LockMode::None))
    ++k;
  return k;
}

// Whether moved_reads() takes every read of `tx` that would change the engine off its session.
bool moves(const TestCase& c, const Transaction& tx, const EngineProfile& engine) {
  return c.transactions.size() >= 2 && dirty_companion(engine) && reads_to_move(tx, engine) > 0;
}

// InnoDB SERIALIZABLE: every plain SELECT is LOCK IN SHARE MODE (capabilities.hpp, locking_plain_reads), so the reads
// take share locks on rows the plain statements do not lock, or take them before the statement's exclusive ones
// (a share lock then an upgrade: two such transactions deadlock where the plain ones wait).
std::string locking_reads(const TestCase& c, const EngineProfile& engine) {
  const auto& locking = engine.capabilities().locking_plain_reads;
  for (std::size_t t = 0; t < c.transactions.size(); ++t) {
    const Transaction& tx = c.transactions[t];
    if (!among(locking, tx.isolation) || moves(c, tx, engine)) continue;
    const auto any = [](const Transaction&) { return true; };
    std::string other = other_writer(c, t, referenced(tx), any);
    for (std::size_t u = 0; other.empty() && u < c.transactions.size(); ++u)
      if (u != t && overlap(c, t, u)) {
        const std::set<std::string> r = referenced(c.transactions[u]);
        for (const std::string& w : written(tx))
          if (r.count(w)) other = fmt::format("T{} references {}, which T{} writes", u, w, t);
      }
    if (!other.empty())
      return fmt::format("T{} at {} and {}, where {}'s plain reads take share locks: TxCheck's reads beside the "
                         "statements would lock rows the plain statements do not, changing which transaction waits",
                         t, sql_name(tx.isolation), other, engine.name());
  }
  return {};
}

// InnoDB REPEATABLE READ: the read view is opened by the first consistent read, not by a write or a locking read
// (VisibilityRules::snapshot_point); TxCheck's reads before such a first statement would open it there, earlier, so
// the transaction's later plain reads (and, with innodb_snapshot_isolation, its writes) would judge others' commits
// against an older view.
std::string early_read_view(const TestCase& c, const EngineProfile& engine) {
  for (std::size_t t = 0; t < c.transactions.size(); ++t) {
    const Transaction& tx = c.transactions[t];
    // A view opened just before the first statement matters to the statements after it, and to that statement
    // itself where a write or locking read fails on a row changed since the view (innodb_snapshot_isolation=ON:
    // error 1020; cannot_judge gets the profile, not the target's settings, so a lone statement is refused with
    // either setting). Seen: the differential at MariaDB SI REPEATABLE READ, 13 of 571 cases, a first locking read
    // that waited returned rows plainly and failed with 1020 prepared.
    if (tx.statements.empty()) continue;  // shrinking leaves transactions of no statement
    const Statement& first = tx.statements.front();
    if (first.kind == StatementKind::Select && first.lock == LockMode::None) continue;
    if (moves(c, tx, engine)) continue;  // the reads before its first plain SELECT run on a companion
    const VisibilityRules rules = engine.visibility(tx.isolation, TargetConfig{});
    if (rules.snapshot_point != SnapshotPoint::FirstRead || rules.select.view != ViewRule::Snapshot) continue;
    // A lone statement meets a row changed since the view only if it waits for a writer that then commits.
    const std::string other = tx.statements.size() < 2
                                  ? writer_before_first(c, t, referenced(tx))
                                  : other_writer(c, t, referenced(tx), [](const Transaction&) { return true; });
    if (!other.empty())
      return fmt::format("T{} begins with a write or locking read at {} and {}, and on {} that opens no read view "
                         "({}): TxCheck's reads before it would open the view earlier than the plain case",
                         t, sql_name(tx.isolation), other, engine.name(), rules.snapshot_source);
  }
  return {};
}

}  // namespace

Moved moved_reads(const TestCase& c, const EngineProfile& engine) {
  Moved out;
  for (const Transaction& tx : c.transactions) {
    const std::size_t n = moves(c, tx, engine) ? reads_to_move(tx, engine) : 0;
    std::vector<bool> m(tx.statements.size(), false);
    std::fill(m.begin(), m.begin() + static_cast<std::ptrdiff_t>(n), true);
    out.push_back(std::move(m));
  }
  return out;
}

std::string reads_change_engine(const TestCase& c, const EngineProfile& engine) {
  if (c.transactions.size() < 2) return {};
  for (auto rule : {locking_reads, early_read_view})
    if (std::string why = rule(c, engine); !why.empty()) return why;
  return {};
}

// PostgreSQL SERIALIZABLE: every read takes SIREAD locks (a whole-table scan a relation lock), which never block but
// make SSI abort a transaction in a cycle of read-write conflicts (capabilities.hpp, predicate_lock_levels). An
// INSERT reads nothing of its table; its version-set and after-write reads do, so a transaction that reads a table
// only through an INSERT gains a read-write conflict with every serializable writer of that table. SIREAD locks change
// nothing else ("these locks do not cause any blocking", PostgreSQL 15 manual, 13.2.3 Serializable Isolation Level):
// where SSI ends no other transaction than plainly, the run is the plain case's, which check_sdg asks of a plain run.
std::string reads_add_predicate_locks(const TestCase& c, const EngineProfile& engine) {
  const auto& levels = engine.capabilities().predicate_lock_levels;
  const auto serializable = [&](const Transaction& u) { return among(levels, u.isolation); };
  for (std::size_t t = 0; t < c.transactions.size(); ++t) {
    const Transaction& tx = c.transactions[t];
    if (!serializable(tx)) continue;
    std::set<std::string> read, inserted;
    for (const Statement& s : tx.statements)
      for (const std::string& table : s.tables())
        (s.kind == StatementKind::Insert && table == s.table && s.tables().size() == 1 ? inserted : read).insert(table);
    for (const std::string& r : read) inserted.erase(r);
    const std::string other = other_writer(c, t, inserted, serializable);
    if (!other.empty())
      return fmt::format("T{} at {} inserts into a table it does not otherwise read and {}, where {}'s reads take "
                         "SIREAD locks: TxCheck's reads of that table add a read-write conflict SSI may abort on",
                         t, sql_name(tx.isolation), other, engine.name());
  }
  return {};
}

}  // namespace txprop::sdg
