// Troc's version history, view construction (A5) and lock conflict analysis (A6), generalised to n transactions and
// several tables. Pure: no engine is asked here.
#include <algorithm>

#include <fmt/format.h>

#include "txprop/adya_instrumentation.hpp"
#include "troc.hpp"

namespace txprop::troc {

Model::Model(const Schema& instrumented, std::vector<TxnModel> txns) : schema_(instrumented), txns_(std::move(txns)) {}

std::optional<std::size_t> Model::rid_column(const std::string& table) const {
  const Table* t = schema_.find_table(table);
  return t ? t->column_index(adya::kRowIdColumn) : std::nullopt;
}

namespace {
std::int64_t rid_of(const Row& row, std::size_t column) {
  const Value& v = row.at(column);
  return v.type() == ValueType::Integer ? v.as_int() : static_cast<std::int64_t>(v.as_number());
}
}  // namespace

void Model::set_initial(const std::string& table, const std::vector<Row>& rows) {
  const auto col = rid_column(table);
  if (!col) return;
  for (const Row& r : rows) {
    RowHistory& h = rows_[rid_of(r, *col)];
    h.table = table;
    h.versions.push_back(Version{r, kInitial, false, -1});
  }
}

void Model::append(const std::string& table, std::int64_t rid, Row data, int txn, bool deleted, int seq) {
  RowHistory& h = rows_[rid];
  h.table = table;
  h.versions.push_back(Version{std::move(data), txn, deleted, seq});
}

void Model::end(int txn, TxnState state, int seq) {
  TxnModel& t = txns_.at(static_cast<std::size_t>(txn));
  if (t.state != TxnState::Active) return;
  t.state = state;
  t.end_seq = seq;
}

bool Model::visible(int reader, int writer, ViewRule rule, int seq) const {
  if (writer == kInitial || writer == reader) return true;
  const TxnModel& w = txns_.at(static_cast<std::size_t>(writer));
  const bool ended_before = w.end_seq >= 0 && w.end_seq < seq;
  const bool committed_before = w.state == TxnState::Committed && ended_before;
  switch (rule) {
    case ViewRule::Latest:  // V1+V2: whatever is there, unless its writer already rolled back
      return !(w.state == TxnState::Aborted && ended_before);
    case ViewRule::LatestCommitted:
    case ViewRule::StatementSnapshot:  // V1+V3
      return committed_before;
    case ViewRule::Snapshot: {  // V1+V4
      const TxnModel& r = txns_.at(static_cast<std::size_t>(reader));
      const int point = r.snapshot_seq.value_or(seq);
      return w.state == TxnState::Committed && w.end_seq >= 0 && w.end_seq < point && w.end_seq < seq;
    }
  }
  return false;
}

const Version* Model::pick(const RowHistory& r, int txn, ViewRule rule, int seq) const {
  for (auto it = r.versions.rbegin(); it != r.versions.rend(); ++it)
    if (it->seq < seq && visible(txn, it->txn, rule, seq)) return &*it;
  return nullptr;
}

View Model::view(int txn, ViewRule rule, int seq, const std::vector<std::string>& tables) const {
  View out;
  for (const std::string& t : tables) out[t];
  for (const auto& [rid, r] : rows_) {
    auto it = out.find(r.table);
    if (it == out.end()) continue;
    if (const Version* v = pick(r, txn, rule, seq); v && !v->deleted) it->second.push_back(v->data);
  }
  return out;
}

const Version* Model::latest_committed(std::int64_t rid, int txn, int seq) const {
  auto it = rows_.find(rid);
  return it == rows_.end() ? nullptr : pick(it->second, txn, ViewRule::LatestCommitted, seq);
}

const Version* Model::in_snapshot(std::int64_t rid, int txn, int seq) const {
  auto it = rows_.find(rid);
  return it == rows_.end() ? nullptr : pick(it->second, txn, ViewRule::Snapshot, seq);
}

DatabaseState Model::final_state() const {
  DatabaseState out;
  for (const Table& t : schema_.tables) out[t.name];
  for (const auto& [rid, r] : rows_) {
    const Version* latest = nullptr;
    for (const Version& v : r.versions) {
      if (v.txn != kInitial && txns_.at(static_cast<std::size_t>(v.txn)).state != TxnState::Committed) continue;
      latest = &v;
    }
    if (latest && !latest->deleted) out[r.table].push_back(latest->data);
  }
  for (auto& [name, rows] : out) rows = sorted_rows(std::move(rows));
  return out;
}

std::vector<std::string> Model::unique_keys(const std::string& table, const Row& row) const {
  std::vector<std::string> out;
  const Table* t = schema_.find_table(table);
  if (!t) return out;
  std::vector<std::pair<std::string, std::vector<std::string>>> indexes;
  if (!t->primary_key.empty()) indexes.emplace_back("PRIMARY", t->primary_key);
  for (const Index& i : t->indexes)
    if (i.unique) indexes.emplace_back(i.name, i.columns);
  for (const auto& [name, columns] : indexes) {
    std::string key = table + "." + name + ":";
    bool complete = true;
    for (const std::string& c : columns) {
      const auto i = t->column_index(c);
      if (!i || *i >= row.size() || row[*i].is_null()) {
        complete = false;
        break;
      }
      key += to_string(Row{row[*i]}) + ",";
    }
    if (complete) out.push_back(key);
  }
  return out;
}

namespace {
bool exclusive(LockStrength a, LockStrength b) {
  return a != LockStrength::None && b != LockStrength::None &&
         (a == LockStrength::Exclusive || b == LockStrength::Exclusive);
}
}  // namespace

std::vector<std::pair<int, const Lock*>> predicate_locks(const Model& model, int txn, const std::string& table,
                                                         const std::set<int>& released) {
  std::vector<std::pair<int, const Lock*>> out;
  for (std::size_t o = 0; o < model.txns().size(); ++o) {
    if (static_cast<int>(o) == txn || model.txns()[o].state != TxnState::Active) continue;
    if (released.count(static_cast<int>(o))) continue;
    for (const Lock& l : model.txns()[o].locks)
      if (l.table == table && l.predicate) out.emplace_back(static_cast<int>(o), &l);
  }
  return out;
}

std::optional<Conflict> find_conflict(const Model& model, int txn, const Lock& mine, bool unique_waits,
                                      const std::vector<bool>& changed_predicates, int at,
                                      const std::set<int>& released) {
  if (mine.strength == LockStrength::None) return std::nullopt;
  for (std::size_t o = 0; o < model.txns().size(); ++o) {
    const TxnModel& other = model.txns()[o];
    const bool active = other.state == TxnState::Active || (at >= 0 && other.end_seq > at);
    if (static_cast<int>(o) == txn || !active || released.count(static_cast<int>(o))) continue;
    for (const Lock& held : other.locks) {
      if (at >= 0 && held.seq >= at) continue;
      if (mine.database && held.database && exclusive(mine.strength, held.strength))
        return Conflict{static_cast<int>(o), fmt::format("T{} holds the database write lock (taken by {})", o,
                                                         held.statement)};
      if (held.table != mine.table || !exclusive(mine.strength, held.strength)) continue;
      for (std::int64_t r : mine.rows)
        if (held.rows.count(r))
          return Conflict{static_cast<int>(o),
                          fmt::format("T{} holds a {} lock on row txp_rid={} (taken by {})", o,
                                      held.strength == LockStrength::Exclusive ? "exclusive" : "shared", r,
                                      held.statement)};
      if (unique_waits)
        for (const std::string& k : mine.written_keys)
          if (held.written_keys.count(k))
            return Conflict{static_cast<int>(o),
                            fmt::format("T{} wrote the unique value {} (in {})", o, k, held.statement)};
    }
  }
  const auto predicates = predicate_locks(model, txn, mine.table, released);
  for (std::size_t i = 0; i < predicates.size() && i < changed_predicates.size(); ++i)
    if (changed_predicates[i] && exclusive(mine.strength, predicates[i].second->strength))
      return Conflict{predicates[i].first,
                      fmt::format("T{} holds a predicate (next-key) lock of {}, whose rows this write changes",
                                  predicates[i].first, predicates[i].second->statement)};
  return std::nullopt;
}

}  // namespace txprop::troc
