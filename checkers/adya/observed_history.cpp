#include "txprop/adya_history.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "huge_pages.hpp"

namespace txprop::adya {

namespace {

// Ids index dense vectors; a wild id from a producer must not allocate gigabytes.
constexpr TxnId kMaxTxnId = (1u << 31) - 1;
constexpr std::uint32_t kMaxBranch = (1u << 28) - 1;
constexpr std::size_t kMaxObservations = std::size_t{1} << 30;  // an edge keeps an observation index in 30 bits

std::uint64_t mix(std::uint64_t x) {  // splitmix64 finaliser: row ids are often sequential, spread them
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

bool same(const TxnId* a, const TxnId* b, std::size_t n) {
  if (n > 16) return std::memcmp(a, b, n * sizeof(TxnId)) == 0;
  for (std::size_t i = 0; i < n; ++i)  // most wLists are short: a call to memcmp costs more than the loop
    if (a[i] != b[i]) return false;
  return true;
}

}  // namespace

// ---------------------------------------------------------------- RowMap

std::optional<RowIndex> ObservedHistory::RowMap::find(RowId id) const {
  if (slots_.empty()) return std::nullopt;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = mix(id) & mask;; i = (i + 1) & mask) {
    if (slots_[i].value == kNone) return std::nullopt;
    if (slots_[i].key == id) return slots_[i].value;
  }
}

RowIndex ObservedHistory::RowMap::insert(RowId id, RowIndex value) {
  if ((size_ + 1) * 4 > slots_.size() * 3) grow();  // load factor <= 3/4
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = mix(id) & mask;; i = (i + 1) & mask) {
    if (slots_[i].value == kNone) {
      slots_[i] = {id, value};
      ++size_;
      return value;
    }
    if (slots_[i].key == id) return slots_[i].value;
  }
}

void ObservedHistory::RowMap::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{0, kNone});
  const std::size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.value == kNone) continue;
    std::size_t i = mix(s.key) & mask;
    while (slots_[i].value != kNone) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

// ---------------------------------------------------------------- SmallChain

void ObservedHistory::SmallChain::append(const TxnId* p, std::size_t n) {
  if (n == 0) return;
  if (size_ + n > std::numeric_limits<std::uint32_t>::max() / 2) throw std::length_error("adya: writer list too long");
  const std::uint32_t need = size_ + static_cast<std::uint32_t>(n);
  if (need > cap_) {
    const std::uint32_t cap = std::max(need, cap_ * 2);
    TxnId* heap = new TxnId[cap];
    std::copy(data(), data() + size_, heap);
    if (cap_ != kInline) delete[] heap_;
    heap_ = heap;
    cap_ = cap;
  }
  TxnId* out = (cap_ == kInline ? inline_ : heap_) + size_;
  for (std::size_t i = 0; i < n; ++i) out[i] = p[i];  // usually one writer: a memmove call costs more
  size_ = need;
}

// ---------------------------------------------------------------- ObservedHistory

ObservedHistory::ObservedHistory() {
  txns_.resize(1);
  txns_[0].fate = Fate::Committed;
  txns_[0].registered = true;
}

TxnInfo& ObservedHistory::ensure_txn(TxnId id) {
  if (id > kMaxTxnId) throw std::invalid_argument("adya: transaction id out of range");
  if (id >= txns_.size()) txns_.resize(std::size_t{id} + 1);
  return txns_[id];
}

void ObservedHistory::add_initial_row(RowId row) { rows_[row_index(row)].initial = true; }

void ObservedHistory::add_transaction(TxnId id, std::string_view label, Position start) {
  if (id == kInitialTxn) throw std::invalid_argument("adya: transaction 0 is the initial state");
  TxnInfo& t = ensure_txn(id);
  t.registered = true;
  if (!label.empty() && label != "T" + std::to_string(id)) labels_[id] = std::string(label);
  if (start != kUnknownPosition) t.start = start;
}

void ObservedHistory::set_label(TxnId id, std::string_view label) {
  ensure_txn(id);
  labels_[id] = std::string(label);
}

void ObservedHistory::set_start(TxnId id, Position start) {
  if (id == kInitialTxn) throw std::invalid_argument("adya: transaction 0 is the initial state");
  ensure_txn(id).start = start;
}

void ObservedHistory::set_start_rule(TxnId id, std::string_view rule) { start_rules_[id] = std::string(rule); }

std::string ObservedHistory::start_rule(TxnId id) const {
  const auto it = start_rules_.find(id);
  return it == start_rules_.end() ? std::string() : it->second;
}

void ObservedHistory::finish_transaction(TxnId id, Fate fate, Position end) {
  if (id == kInitialTxn) throw std::invalid_argument("adya: transaction 0 is the initial state");
  TxnInfo& t = ensure_txn(id);
  t.registered = true;
  t.fate = fate;
  t.end = end;
}

StmtIndex ObservedHistory::add_statement(TxnId txn, std::string_view text) {
  if (txn == kInitialTxn) throw std::invalid_argument("adya: transaction 0 has no statements");
  ensure_txn(txn).registered = true;
  if (stmts_.size() >= kNone) throw std::length_error("adya: too many statements");
  if (texts_.size() + text.size() > std::numeric_limits<std::uint32_t>::max())
    throw std::length_error("adya: statement texts exceed 4 GiB");
  texts_.append(text);
  stmts_.push_back(Statement{txn, static_cast<std::uint32_t>(texts_.size())});
  return static_cast<StmtIndex>(stmts_.size() - 1);
}

RowIndex ObservedHistory::row_index(RowId id) {
  if (dense_ids_) {
    // The presence bits, not the 64-byte row states, answer the common case: they stay in cache.
    if (id < rows_.size()) {
      std::uint64_t& word = dense_present_[id >> 6];
      const std::uint64_t bit = std::uint64_t{1} << (id & 63);
      if (!(word & bit)) {
        word |= bit;
        rows_[id].present = true;
        rows_[id].id = id;
        ++present_rows_;
      }
      return static_cast<RowIndex>(id);
    }
    if (id < 4 * (present_rows_ + 1) + 4096) {
      rows_.resize(static_cast<std::size_t>(id) + 1);
      if (dense_present_.size() * 64 < rows_.size())
        dense_present_.resize(std::max((rows_.size() + 63) / 64, dense_present_.size() * 2), 0);
      dense_present_[id >> 6] |= std::uint64_t{1} << (id & 63);
      rows_[id].present = true;
      rows_[id].id = id;
      ++present_rows_;
      return static_cast<RowIndex>(id);
    }
    dense_present_ = {};
    dense_ids_ = false;  // from now on: the map, new rows appended
    for (RowIndex r = 0; r < rows_.size(); ++r)
      if (rows_[r].present) row_map_.insert(rows_[r].id, r);
  }
  const RowIndex next = static_cast<RowIndex>(rows_.size());
  const RowIndex r = row_map_.insert(id, next);
  if (r == next) {
    if (rows_.size() >= kNone) throw std::length_error("adya: too many rows");
    rows_.resize(rows_.size() + 1);
    rows_[next].id = id;
    rows_[next].present = true;
    ++present_rows_;
  }
  return r;
}

void ObservedHistory::add_observation(StmtIndex stmt, RowId row, std::span<const TxnId> wlist, OpKind kind) {
  if (stmt >= stmts_.size()) throw std::out_of_range("adya: unknown statement index");
  if (obs_.size() >= kMaxObservations) throw std::length_error("adya: too many observations");
  const RowIndex r = row_index(row);
  const ObsIndex self = static_cast<ObsIndex>(obs_.size());
  Observation o;
  o.row = r;
  o.stmt = stmt;
  o.length = static_cast<std::uint32_t>(wlist.size());
  o.packed = static_cast<std::uint32_t>(kind);  // branch 0 until placed
  obs_.push_back(o);

  // Placing the wList needs the row's state, which for a large history is a cache miss. Short wLists wait in a small
  // FIFO while the row is prefetched, so that the misses of consecutive observations overlap instead of queueing.
  if (wlist.size() > kPendingLength) {
    settle();
    place(self, r, wlist);
    return;
  }
  if (pending_count_ == kPipeline) {
    const Pending& p = pending_[pending_head_];
    place(p.obs, p.row, std::span<const TxnId>(&pending_pool_[pending_head_ * kPendingLength], p.length));
    pending_head_ = (pending_head_ + 1) % kPipeline;
    --pending_count_;
  }
  const std::size_t slot = (pending_head_ + pending_count_) % kPipeline;
  TxnId* copy = &pending_pool_[slot * kPendingLength];
  for (std::size_t i = 0; i < wlist.size(); ++i) copy[i] = wlist[i];  // a few writers: no memmove call
  pending_[slot] = Pending{self, r, static_cast<std::uint32_t>(wlist.size())};
  ++pending_count_;
  __builtin_prefetch(&rows_[r]);
}

void ObservedHistory::settle() const {
  while (pending_count_ > 0) {
    const Pending& p = pending_[pending_head_];
    place(p.obs, p.row, std::span<const TxnId>(&pending_pool_[pending_head_ * kPendingLength], p.length));
    pending_head_ = (pending_head_ + 1) % kPipeline;
    --pending_count_;
  }
}

void ObservedHistory::place(ObsIndex self, RowIndex r, std::span<const TxnId> wlist) const {
  RowState& rs = rows_[r];
  auto set_branch = [&](std::uint32_t b) { obs_[self].packed |= b << 4; };

  // Find the branch this wList continues. One branch is the normal case, so this is one or two comparisons.
  const std::size_t n = wlist.size();
  const std::uint32_t main_size = rs.chain.size();
  if (n <= main_size) {
    if (same(wlist.data(), rs.chain.data(), n)) return;  // a prefix: an older or the latest version
  } else if (same(rs.chain.data(), wlist.data(), main_size)) {
    rs.chain.append(wlist.data() + main_size, n - main_size);  // a newer version than any seen: it becomes the chain
    rs.witness = self;
    return;
  }
  std::uint32_t at = rs.extra;  // the extra branches, in order
  std::uint32_t last = kNone;
  for (std::uint32_t b = 1; at != kNone; ++b) {
    std::vector<TxnId>& chain = extra_[at].chain;
    if (n <= chain.size()) {
      if (same(wlist.data(), chain.data(), n)) return set_branch(b);
    } else if (same(chain.data(), wlist.data(), chain.size())) {
      chain.insert(chain.end(), wlist.begin() + static_cast<std::ptrdiff_t>(chain.size()), wlist.end());
      extra_[at].witness = self;
      return set_branch(b);
    }
    last = at;
    at = extra_[at].next;
  }
  // Diverges from every branch: a rollback, or the engine branched this row's history (the graph builder decides).
  if (rs.extra_count >= kMaxBranch) throw std::length_error("adya: too many divergent versions of one row");
  const std::uint32_t idx = static_cast<std::uint32_t>(extra_.size());
  extra_.push_back(Branch{std::vector<TxnId>(wlist.begin(), wlist.end()), self, kNone});
  if (last == kNone)
    rs.extra = idx;
  else
    extra_[last].next = idx;
  set_branch(++rs.extra_count);
}

void ObservedHistory::add_read(StmtIndex stmt, RowId row, std::span<const TxnId> wlist) {
  add_observation(stmt, row, wlist, OpKind::Read);
}

void ObservedHistory::add_delete_read(StmtIndex stmt, RowId row, std::span<const TxnId> wlist) {
  add_observation(stmt, row, wlist, OpKind::DeleteRead);
}

void ObservedHistory::add_write(StmtIndex stmt, RowId row, WriteKind kind) {
  if (stmt >= stmts_.size()) throw std::out_of_range("adya: unknown statement index");
  if (obs_.size() >= kMaxObservations) throw std::length_error("adya: too many observations");
  Observation o;
  o.row = row_index(row);
  o.stmt = stmt;
  o.packed = static_cast<std::uint32_t>(OpKind::Write) | (static_cast<std::uint32_t>(kind) << 2);
  obs_.push_back(o);
}

PredIndex ObservedHistory::add_predicate_read(StmtIndex stmt, std::string_view predicate) {
  if (stmt >= stmts_.size()) throw std::out_of_range("adya: unknown statement index");
  pred_stmt_.push_back(stmt);
  pred_texts_.append(predicate);
  pred_text_end_.push_back(static_cast<std::uint32_t>(pred_texts_.size()));
  return static_cast<PredIndex>(pred_stmt_.size() - 1);
}

void ObservedHistory::add_predicate_row(PredIndex pred, RowId row, std::span<const TxnId> order, std::uint32_t seen,
                                        std::span<const Match> matches, TxnId deleter) {
  if (pred >= pred_stmt_.size()) throw std::out_of_range("adya: unknown predicate read");
  if (matches.size() != order.size() + 2 || seen > order.size() + 1)
    throw std::invalid_argument("adya: a predicate row needs order.size() + 2 matches and seen <= order.size() + 1");
  PredicateRow r;
  r.pred = pred;
  r.row = row;
  r.order_begin = static_cast<std::uint32_t>(pred_txns_.size());
  r.order_length = static_cast<std::uint32_t>(order.size());
  r.match_begin = static_cast<std::uint32_t>(pred_match_.size());
  r.seen = seen;
  r.deleter = deleter;
  pred_txns_.insert(pred_txns_.end(), order.begin(), order.end());
  pred_match_.insert(pred_match_.end(), matches.begin(), matches.end());
  pred_rows_.push_back(r);
}

void ObservedHistory::reserve_predicates(std::size_t reads, std::size_t rows, std::size_t versions) {
  pred_stmt_.reserve(reads);
  pred_text_end_.reserve(reads);
  pred_rows_.reserve(rows);
  pred_txns_.reserve(versions);
  pred_match_.reserve(versions + 2 * rows);
  detail::advise_huge_pages(pred_rows_);
  detail::advise_huge_pages(pred_txns_);
  detail::advise_huge_pages(pred_match_);
}

std::string_view ObservedHistory::predicate_text(PredIndex p) const {
  const std::uint32_t begin = p == 0 ? 0 : pred_text_end_[p - 1];
  return std::string_view(pred_texts_).substr(begin, pred_text_end_[p] - begin);
}

void ObservedHistory::reserve(std::size_t transactions, std::size_t statements, std::size_t observations,
                              std::size_t text_bytes) {
  txns_.reserve(transactions + 1);
  stmts_.reserve(statements);
  obs_.reserve(observations);
  texts_.reserve(text_bytes);
  detail::advise_huge_pages(txns_);
  detail::advise_huge_pages(stmts_);
  detail::advise_huge_pages(obs_);
  detail::advise_huge_pages(texts_);
}

std::string ObservedHistory::label(TxnId id) const {
  if (!labels_.empty())
    if (const auto it = labels_.find(id); it != labels_.end()) return it->second;
  return "T" + std::to_string(id);
}

std::string_view ObservedHistory::statement_text(StmtIndex s) const {
  if (s >= stmts_.size()) return {};
  const std::uint32_t begin = s == 0 ? 0 : stmts_[s - 1].text_end;
  return std::string_view(texts_).substr(begin, stmts_[s].text_end - begin);
}

std::optional<RowIndex> ObservedHistory::find_row(RowId id) const {
  if (dense_ids_) {
    // The presence bits (a bit per row, in cache) rather than the row's 64-byte state (a cache miss per lookup).
    if (id < rows_.size() && (dense_present_[id >> 6] >> (id & 63)) & 1u) return static_cast<RowIndex>(id);
    return std::nullopt;
  }
  return row_map_.find(id);
}

std::uint32_t ObservedHistory::branch_count(RowIndex r) const {
  settle();
  return 1 + rows_[r].extra_count;
}

std::span<const TxnId> ObservedHistory::branch(RowIndex r, std::uint32_t b) const {
  settle();
  if (b == 0) return rows_[r].chain.view();
  std::uint32_t e = rows_[r].extra;
  for (std::uint32_t i = 1; i < b; ++i) e = extra_[e].next;
  return extra_[e].chain;
}

ObsIndex ObservedHistory::branch_witness(RowIndex r, std::uint32_t b) const {
  settle();
  if (b == 0) return rows_[r].witness;
  std::uint32_t e = rows_[r].extra;
  for (std::uint32_t i = 1; i < b; ++i) e = extra_[e].next;
  return extra_[e].witness;
}

std::size_t ObservedHistory::memory_bytes() const {
  settle();
  std::size_t n = txns_.capacity() * sizeof(TxnInfo) + stmts_.capacity() * sizeof(Statement) +
                  obs_.capacity() * sizeof(Observation) + rows_.memory_bytes() + extra_.capacity() * sizeof(Branch) +
                  row_map_.memory_bytes() + labels_.size() * 64 + texts_.capacity() +
                  pred_stmt_.capacity() * 8 + pred_texts_.capacity() + pred_rows_.capacity() * sizeof(PredicateRow) +
                  pred_txns_.capacity() * sizeof(TxnId) + pred_match_.capacity();
  for (std::size_t r = 0; r < rows_.size(); ++r) n += rows_[r].chain.heap_bytes();
  for (const Branch& b : extra_) n += b.chain.capacity() * sizeof(TxnId);
  return n;
}

std::optional<std::vector<TxnId>> parse_wlist(std::string_view text) {
  std::vector<TxnId> out;
  std::size_t i = 0;
  auto skip_space = [&] {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  };
  skip_space();
  if (i == text.size()) return out;  // an empty list; the checker reports it, the parser does not judge
  for (;;) {
    skip_space();
    if (i < text.size() && (text[i] == 'T' || text[i] == 't')) ++i;
    const std::size_t digits = i;
    std::uint64_t v = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      v = v * 10 + static_cast<std::uint64_t>(text[i] - '0');
      if (v > kMaxTxnId) return std::nullopt;
      ++i;
    }
    if (i == digits) return std::nullopt;
    out.push_back(static_cast<TxnId>(v));
    skip_space();
    if (i == text.size()) return out;
    if (text[i] != ',') return std::nullopt;
    ++i;
  }
}

}  // namespace txprop::adya
