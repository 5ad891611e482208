#include "txprop/internal/adya_graph.hpp"

#include <algorithm>
#include <stdexcept>
#include <optional>

#include "huge_pages.hpp"

namespace txprop::adya {

const char* to_string(EdgeType t) {
  switch (t) {
    case EdgeType::WW: return "ww";
    case EdgeType::WR: return "wr";
    case EdgeType::RW: return "rw";
  }
  return "?";
}

namespace {
constexpr std::uint8_t kCommitted = 0, kAborted = 1, kUnfinished = 2, kUnregistered = 3;
}  // namespace

// Builds the CSR in two passes over the rows: the first counts out-degrees and records direct anomalies, the second
// places the edges. Recomputing the per-row work is cheaper than holding a second, unsorted copy of all edges.
class GraphBuilder {
 public:
  GraphBuilder(const ObservedHistory& h, DependencyGraph& g) : h_(h), g_(g) {}

  // Transactions (rows) per bucket when edges (observations) are sorted by source (row): a bucket's share of a
  // history stays in cache (see run and group_by_row).
  static constexpr std::size_t kBucketSize = 1024;

  void run() {
    const std::size_t n = h_.txn_count();
    g_.h_ = &h_;
    g_.status_.resize(n);
    for (TxnId t = 0; t < n; ++t) {
      const TxnInfo& i = h_.txn(t);
      g_.status_[t] = !i.registered               ? kUnregistered
                      : i.fate == Fate::Committed ? kCommitted
                      : i.fate == Fate::Aborted   ? kAborted
                                                  : kUnfinished;
    }
    group_by_row();
    g_.offsets_.assign(n + 1, 0);
    detail::advise_huge_pages(g_.offsets_);

    const std::size_t rows = h_.row_count();
    if (h_.any_divergent_row()) g_.auth_.assign(rows, 0);

    for (RowIndex r = 0; r < rows; ++r) process<false>(r);
    predicate_edges<false>();
    std::uint64_t total = 0;
    for (std::size_t t = 0; t <= n; ++t) {
      total += g_.offsets_[t];
      if (total >= kNone) throw std::length_error("adya: too many dependency edges");
      g_.offsets_[t] = static_cast<std::uint32_t>(total);
    }
    g_.edges_ = std::make_unique_for_overwrite<Edge[]>(total);
    g_.edge_total_ = total;
    detail::advise_huge_pages(g_.edges_.get(), total * sizeof(Edge));
    // The second pass places each edge in its source's bucket of kBucketSize consecutive transactions (a bucket's
    // region of the CSR is contiguous), appending in emission order, with the source's offset in the bucket beside
    // it; then each bucket is sorted into its sources' slots. Placing an edge straight at its source's slot is a
    // random write into an array of the history's size (a cache and TLB miss per edge, most of the build's time at
    // 10^6 transactions); appending to one of n / kBucketSize bucket ends is a sequential write per bucket, and the
    // sort of one bucket stays in cache. Emission order is kept within each source: the graph is the same.
    const std::size_t buckets = (n + kBucketSize - 1) / kBucketSize;
    cursor_.resize(buckets);
    for (std::size_t b = 0; b < buckets; ++b) cursor_[b] = g_.offsets_[b * kBucketSize];
    slot_in_bucket_ = std::make_unique_for_overwrite<std::uint16_t[]>(total);
    detail::advise_huge_pages(slot_in_bucket_.get(), total * sizeof(std::uint16_t));
    for (RowIndex r = 0; r < rows; ++r) process<true>(r);
    predicate_edges<true>();
    sort_buckets(n, buckets);
    slot_in_bucket_.reset();
    cursor_ = {};
    grouped_.reset();
    row_offsets_ = {};
  }

 private:
  // Predicate read- and anti-dependencies (Adya's definitions 4 and 5): along each version-set row's committed
  // versions, every install that changes whether the row matches gives an edge from its writer to the reader (the
  // version is the one read or earlier) or from the reader to its writer (later). Unknown matches give no edge.
  // Linear in the version sets: each (predicate read, row) record is walked once per pass, in record order, and its
  // edges go straight into the CSR like the item edges (counted in the first pass, placed in the second), so that no
  // intermediate list of all predicate edges is built. Evidence indices are handed out in the same order in both
  // passes: the first pass records them, the second recounts them.
  template <bool kFill>
  void predicate_edges() {
    const auto& prows = h_.predicate_rows();
    // The evidence is stored in the second pass, once the first has counted it: reserved exactly, it is written once
    // (a guessed reservation that proves short copies it all, at 10^6 transactions tens of MiB).
    if constexpr (kFill) {
      g_.pred_evidence_.reserve(pred_edges_);
      detail::advise_huge_pages(g_.pred_evidence_);
    }
    std::uint32_t next_evidence = 0;
    for (PredRowIndex i = 0; i < prows.size(); ++i) {
      const PredicateRow& pr = prows[i];
      const TxnId reader = h_.statements()[h_.predicate_statement(pr.pred)].txn;
      if (!committed(reader)) continue;
      const std::optional<RowIndex> row = h_.find_row(pr.row);
      if (!row) continue;
      const TxnId* order = h_.predicate_order(pr).data();
      const Match* matches = h_.predicate_matches(pr).data();
      const std::uint32_t n = pr.order_length;
      Match prev = Match::No;  // before its insert a row matches nothing
      auto change = [&](std::uint32_t k, TxnId w, Match m) {
        if (prev != Match::Unknown && m != Match::Unknown && m != prev && w != reader) {
          const std::uint32_t ev = next_evidence++;
          if constexpr (kFill)
            g_.pred_evidence_.push_back({i, k});
          else if (ev > Edge::kEvidenceMask)
            throw std::length_error("adya: too many predicate edges");
          if (k <= pr.seen)
            emit<kFill>(w, Edge::predicate_edge(reader, *row, ev, EdgeType::WR));
          else
            emit<kFill>(reader, Edge::predicate_edge(w, *row, ev, EdgeType::RW));
        }
        prev = m;
      };
      for (std::uint32_t k = 1; k <= n; ++k) {
        const TxnId w = order[k - 1];
        if (!committed(w)) continue;  // an aborted or unfinished writer installed no version
        change(k, w, matches[k]);
      }
      if (pr.deleter != kNone && committed(pr.deleter)) change(n + 1, pr.deleter, Match::No);
    }
    if constexpr (!kFill) pred_edges_ = next_evidence;
  }

  // The observation fields the per-row pass needs, copied so that both passes read them sequentially instead of
  // chasing indices into the (much larger, history-ordered) observation array.
  struct Grouped {
    TxnId txn;
    std::uint32_t length;
    std::uint32_t packed;
    ObsIndex obs;
  };

  void group_by_row() {
    const auto& obs = h_.observations();
    row_offsets_.assign(h_.row_count() + 1, 0);
    for (const Observation& o : obs) ++row_offsets_[o.row + 1];
    for (std::size_t r = 0; r < h_.row_count(); ++r) row_offsets_[r + 1] += row_offsets_[r];
    grouped_ = std::make_unique_for_overwrite<Grouped[]>(obs.size());
    detail::advise_huge_pages(grouped_.get(), obs.size() * sizeof(Grouped));
    // As the edges (run): appended to the end of their row's bucket of kBucketSize rows, then each bucket sorted into
    // its rows' slots in cache, instead of a random write per observation into an array of the history's size.
    const std::size_t rows = h_.row_count();
    const std::size_t buckets = (rows + kBucketSize - 1) / kBucketSize;
    std::vector<std::uint32_t> bucket_end(buckets);
    for (std::size_t b = 0; b < buckets; ++b) bucket_end[b] = row_offsets_[b * kBucketSize];
    auto slots = std::make_unique_for_overwrite<std::uint16_t[]>(obs.size());
    detail::advise_huge_pages(slots.get(), obs.size() * sizeof(std::uint16_t));
    const auto& stmts = h_.statements();  // observations come in statement order: sequential reads
    for (ObsIndex i = 0; i < obs.size(); ++i) {
      const Observation& o = obs[i];
      const std::uint32_t at = bucket_end[o.row / kBucketSize]++;
      grouped_[at] = Grouped{stmts[o.stmt].txn, o.length, o.packed, i};
      slots[at] = static_cast<std::uint16_t>(o.row % kBucketSize);
    }
    std::vector<Grouped> scratch;
    std::uint32_t at[kBucketSize];
    for (std::size_t b = 0; b < buckets; ++b) {
      const std::size_t first = b * kBucketSize, last = std::min(rows, first + kBucketSize);
      const std::uint32_t begin = row_offsets_[first], end = row_offsets_[last];
      if (end - begin < 2) continue;
      scratch.assign(grouped_.get() + begin, grouped_.get() + end);
      for (std::size_t r = first; r < last; ++r) at[r - first] = row_offsets_[r];
      for (std::size_t i = 0; i < scratch.size(); ++i) grouped_[at[slots[begin + i]]++] = scratch[i];
    }
  }

  std::uint8_t status(TxnId t) const { return t < g_.status_.size() ? g_.status_[t] : kUnregistered; }
  bool committed(TxnId t) const { return status(t) == kCommitted; }


  // Sorts each bucket's edges (in emission order, see run) into its sources' CSR slots, keeping their order.
  void sort_buckets(std::size_t n, std::size_t buckets) {
    std::vector<Edge> scratch;
    std::vector<std::uint16_t> slots;
    std::uint32_t at[kBucketSize];
    for (std::size_t b = 0; b < buckets; ++b) {
      const std::size_t first = b * kBucketSize, last = std::min(n, first + kBucketSize);
      const std::uint32_t begin = g_.offsets_[first], end = g_.offsets_[last];
      if (end - begin < 2) continue;
      scratch.assign(g_.edges_.get() + begin, g_.edges_.get() + end);
      slots.assign(slot_in_bucket_.get() + begin, slot_in_bucket_.get() + end);
      for (std::size_t t = first; t < last; ++t) at[t - first] = g_.offsets_[t];
      for (std::size_t i = 0; i < scratch.size(); ++i) g_.edges_[at[slots[i]]++] = scratch[i];
    }
  }

  template <bool kFill>
  void emit(TxnId from, const Edge& e) {
    if constexpr (kFill) {
      const std::uint32_t at = cursor_[from / kBucketSize]++;
      g_.edges_[at] = e;
      slot_in_bucket_[at] = static_cast<std::uint16_t>(from % kBucketSize);
    } else {
      ++g_.offsets_[from + 1];
      ++g_.counts_[static_cast<unsigned>(e.type())];
    }
  }

  template <bool kFill>
  void anomaly(const DirectAnomaly& a) {
    if constexpr (!kFill) g_.direct_.push_back(a);
  }

  // One row's scan in process(): its observations, its version order and what the phases found of it.
  struct RowScan {
    RowIndex r = 0;
    const Grouped* begin = nullptr;
    const Grouped* end = nullptr;
    std::uint32_t nb = 1;    // branches of the row's writer lists
    std::uint32_t auth = 0;  // the branch that is the version order
    std::span<const TxnId> c = {};
    std::uint32_t m = 0;  // versions in the version order
    bool small = true;
    std::uint32_t ep = 0;  // the epoch of the per-transaction marks for this row
    TxnId del = kNone;     // the committed transaction that deleted the row
    const Grouped* del_obs = nullptr;
    std::uint32_t first_aborted = 0;
    bool has_dup = false;  // a transaction appears twice in the version order
    std::uint32_t last_committed = kNone;
  };

  template <bool kFill>
  void process(RowIndex r) {
    RowScan row;
    row.r = r;
    row.begin = grouped_.get() + row_offsets_[r];
    row.end = grouped_.get() + row_offsets_[r + 1];
    version_order<kFill>(row);
    // Small rows (the common case) answer "did t write / insert this row" and "does t repeat in the version order" by
    // scanning their own few entries, which are in cache; large ones use per-transaction marks, which are random
    // accesses into arrays of the history's size.
    row.small = row.m <= 16 && row.end - row.begin <= 64;
    if (!row.small && seen_.empty()) {  // allocated on the first large row only
      wrote_.assign(g_.status_.size(), 0);
      inserted_.assign(g_.status_.size(), 0);
      seen_.assign(g_.status_.size(), 0);
    }
    writers<kFill>(row);
    forward<kFill>(row);
    backward(row);
    if (row.del != kNone) deletion<kFill>(row);
    reads<kFill>(row);
  }

  // The version order. Normally the row's only branch. When reads diverged, a rollback explains it if one branch
  // continues with uncommitted writers only (an aborted transaction read its own write, or a dirty read of a write
  // that was then rolled back): the version order is the branch with the most committed writers (then the longest),
  // and every other branch must agree with it up to cp_[b] entries and hold only uncommitted writers after that.
  template <bool kFill>
  void version_order(RowScan& row) {
    const RowIndex r = row.r;
    const std::uint32_t nb = row.nb = h_.branch_count(r);
    std::uint32_t auth = 0;
    if (nb > 1) {
      if constexpr (kFill) {
        auth = g_.auth_[r];
      } else {
        std::pair<std::size_t, std::size_t> best{0, 0};
        for (std::uint32_t b = 0; b < nb; ++b) {
          const std::span<const TxnId> br = h_.branch(r, b);
          const std::pair<std::size_t, std::size_t> key{
              static_cast<std::size_t>(std::count_if(br.begin(), br.end(), [&](TxnId t) { return committed(t); })),
              br.size()};
          if (b == 0 || key > best) {
            best = key;
            auth = b;
          }
        }
        g_.auth_[r] = auth;
      }
    }
    row.auth = auth;
    const std::span<const TxnId> c = row.c = h_.branch(r, auth);
    const std::uint32_t m = row.m = static_cast<std::uint32_t>(c.size());
    if (nb > 1) {
      cp_.assign(nb, m);
      rolled_back_.assign(nb, 0);
      for (std::uint32_t b = 0; b < nb; ++b) {
        if (b == auth) continue;
        const std::span<const TxnId> other = h_.branch(r, b);
        const std::size_t k = std::min(other.size(), c.size());
        cp_[b] = static_cast<std::uint32_t>(std::mismatch(other.begin(), other.begin() + k, c.begin()).first -
                                            other.begin());
        rolled_back_[b] = std::none_of(other.begin() + cp_[b], other.end(), [&](TxnId t) { return committed(t); });
        if (!rolled_back_[b])
          anomaly<kFill>({DirectKind::Divergent, r, h_.branch_witness(r, b), h_.branch_witness(r, auth), cp_[b]});
      }
    }
  }

  // 0: the observation is a version of the version order; 1: a rolled-back version; 2: a divergent one (reported
  // once per branch by version_order).
  int placement(const RowScan& row, const Grouped& g) const {
    const std::uint32_t b = g.packed >> 4;
    if (row.nb == 1 || b == row.auth || g.length <= cp_[b]) return 0;
    return rolled_back_[b] ? 1 : 2;
  }

  // A committed transaction that observed a rolled-back version observed an aborted write (if one aborted).
  template <bool kFill>
  void rolled_back_read(const RowScan& row, const Grouped& g) {
    const std::span<const TxnId> wl = h_.branch(row.r, g.packed >> 4).first(g.length);
    for (std::uint32_t p = 0; p < wl.size(); ++p)
      if (status(wl[p]) == kAborted) return anomaly<kFill>({DirectKind::AbortedRead, row.r, g.obs, kNone, p});
  }

  // Whether t recorded a write (insert: an insert) of a small row, from the row's own observations.
  static bool recorded(const RowScan& row, TxnId t, bool insert) {
    for (const Grouped* g = row.begin; g != row.end; ++g) {
      if (g->txn != t) continue;
      const OpKind kind = static_cast<OpKind>(g->packed & 3u);
      if (insert ? kind == OpKind::Write && static_cast<WriteKind>((g->packed >> 2) & 3u) == WriteKind::Insert
                 : kind != OpKind::Read)
        return true;
    }
    return false;
  }

  // Who wrote, inserted and (committed) deleted this row.
  template <bool kFill>
  void writers(RowScan& row) {
    const std::uint32_t ep = row.ep = ++epoch_;
    for (const Grouped* g = row.begin; g != row.end; ++g) {
      const OpKind kind = static_cast<OpKind>(g->packed & 3u);
      if (kind == OpKind::Read) continue;
      if (!kFill && !row.small) {
        wrote_[g->txn] = ep;  // a delete is a write of the row too
        if (kind == OpKind::Write && static_cast<WriteKind>((g->packed >> 2) & 3u) == WriteKind::Insert)
          inserted_[g->txn] = ep;
      }
      if (kind == OpKind::DeleteRead && committed(g->txn)) {
        if (row.del == kNone) {
          row.del = g->txn;
          row.del_obs = g;
        } else if (g->txn != row.del) {
          anomaly<kFill>({DirectKind::DeletedTwice, row.r, g->obs, row.del_obs->obs, 0});
        }
      }
    }
  }

  // Forward over the version order: sanity of each writer, ww edges between consecutive committed writers.
  template <bool kFill>
  void forward(RowScan& row) {
    const RowIndex r = row.r;
    const std::span<const TxnId> c = row.c;
    const std::uint32_t m = row.m, ep = row.ep;
    const bool small = row.small;
    std::uint32_t first_aborted = m;
    bool has_dup = false;
    std::uint32_t prev = kNone;
    for (std::uint32_t p = 0; p < m; ++p) {
      const TxnId t = c[p];
      const std::uint8_t st = status(t);
      if constexpr (!kFill) {
        if (st == kUnregistered) {
          anomaly<kFill>({DirectKind::UnknownWriter, r, kNone, kNone, p});
        } else if (p == 0) {
          if (t == kInitialTxn ? !h_.is_initial_row(r) : !(small ? recorded(row, t, true) : inserted_[t] == ep))
            anomaly<kFill>({DirectKind::NotInserted, r, kNone, kNone, p});
        } else if (t == kInitialTxn) {
          anomaly<kFill>({DirectKind::InitialNotFirst, r, kNone, kNone, p});
        } else if (!(small ? recorded(row, t, false) : wrote_[t] == ep)) {
          anomaly<kFill>({DirectKind::NoWriteRecorded, r, kNone, kNone, p});
        }
      }
      if (t >= g_.status_.size()) continue;
      if (st == kAborted && first_aborted == m) first_aborted = p;
      if (small) {
        for (std::uint32_t q = 0; q < p && !has_dup; ++q) has_dup = c[q] == t;
      } else {
        if (seen_[t] == ep) has_dup = true;
        seen_[t] = ep;
      }
      if (st != kCommitted) continue;
      if (prev != kNone && c[prev] != t) emit<kFill>(c[prev], Edge{t, r, p, EdgeType::WW});
      prev = p;
    }
    row.first_aborted = first_aborted;
    row.has_dup = has_dup;
    row.last_committed = prev;
  }

  // Backward: next_[p] = the first later committed writer other than c[p] (the target of an anti-dependency of a
  // read of version p+1); again_[p] = c[p] writes this row again later (a read of version p+1 is intermediate).
  void backward(const RowScan& row) {
    const std::span<const TxnId> c = row.c;
    const std::uint32_t m = row.m;
    const bool has_dup = row.has_dup;
    next_.resize(m);
    if (has_dup) again_.assign(m, 0);
    const std::uint32_t ep2 = ++epoch_;
    std::uint32_t next_committed = m;
    for (std::uint32_t p = m; p-- > 0;) {
      const TxnId t = c[p];
      next_[p] = next_committed == m ? m : c[next_committed] != t ? next_committed : next_[next_committed];
      if (has_dup && row.small) {
        for (std::uint32_t q = p + 1; q < m && !again_[p]; ++q) again_[p] = c[q] == t;
      } else if (has_dup && t < g_.status_.size()) {
        again_[p] = seen_[t] == ep2;
        seen_[t] = ep2;
      }
      if (committed(t)) next_committed = p;
    }
  }

  // The committed delete: the version it deleted, and the ww edge from that version's writer.
  template <bool kFill>
  void deletion(const RowScan& row) {
    const RowIndex r = row.r;
    const std::span<const TxnId> c = row.c;
    const TxnId del = row.del;
    const Grouped* del_obs = row.del_obs;
    if constexpr (!kFill) g_.deletes_.emplace_back(r, del_obs->obs);
    if (placement(row, *del_obs) == 1) rolled_back_read<kFill>(row, *del_obs);
    if (placement(row, *del_obs) == 0 && del_obs->length > 0) {
      const std::uint32_t len = del_obs->length;
      // Uncommitted writers after the deleted version were rolled back; a committed one wrote a deleted row.
      if (row.last_committed != kNone && row.last_committed >= len)
        anomaly<kFill>({DirectKind::DeletedNotLast, r, del_obs->obs, kNone, len});
      if (row.first_aborted < len) anomaly<kFill>({DirectKind::AbortedRead, r, del_obs->obs, kNone, row.first_aborted});
      std::uint32_t p = len;
      while (p > 0 && !committed(c[p - 1])) --p;
      if (p > 0 && c[p - 1] != del) emit<kFill>(c[p - 1], Edge{del, r, row.m, EdgeType::WW});
    }
  }

  // Every committed read: wr from the version's writer, rw to the next committed writer (or the deleter).
  template <bool kFill>
  void reads(const RowScan& row) {
    const RowIndex r = row.r;
    const std::span<const TxnId> c = row.c;
    const std::uint32_t m = row.m, first_aborted = row.first_aborted;
    const TxnId del = row.del;
    const bool has_dup = row.has_dup;
    for (const Grouped* g = row.begin; g != row.end; ++g) {
      const OpKind kind = static_cast<OpKind>(g->packed & 3u);
      if (kind == OpKind::Write) continue;
      if (g->length == 0) {
        anomaly<kFill>({DirectKind::EmptyWList, r, g->obs, kNone, 0});
        continue;
      }
      const TxnId reader = g->txn;
      if (kind != OpKind::Read || !committed(reader)) continue;
      if (const int place = placement(row, *g); place != 0) {
        if (place == 1) rolled_back_read<kFill>(row, *g);
        continue;
      }
      const std::uint32_t len = g->length;
      const TxnId w = c[len - 1];
      if constexpr (!kFill) {
        if (first_aborted < len) anomaly<kFill>({DirectKind::AbortedRead, r, g->obs, kNone, first_aborted});
        if (w != reader && status(w) != kAborted && ((has_dup && again_[len - 1]) || w == del))
          anomaly<kFill>({DirectKind::IntermediateRead, r, g->obs, kNone, len - 1});
      }
      if (w != reader && committed(w)) emit<kFill>(w, Edge{reader, r, g->obs, EdgeType::WR});
      const std::uint32_t q = next_[len - 1];
      const TxnId to = q < m ? c[q] : (del != kNone && del != w ? del : kNone);
      if (to != kNone && to != reader) emit<kFill>(reader, Edge{to, r, g->obs, EdgeType::RW});
    }
  }

  const ObservedHistory& h_;
  DependencyGraph& g_;
  std::vector<std::uint32_t> row_offsets_;
  std::unique_ptr<Grouped[]> grouped_;
  std::vector<std::uint32_t> cursor_;                   // second pass: per bucket, where its next edge goes
  std::unique_ptr<std::uint16_t[]> slot_in_bucket_;  // per placed edge: its source's offset in its bucket
  // Per-transaction marks, valid when equal to the current epoch: no clearing between rows.
  std::vector<std::uint32_t> wrote_, inserted_, seen_;
  std::uint32_t epoch_ = 0;
  std::uint32_t pred_edges_ = 0;  // counted by the first pass of predicate_edges
  std::vector<std::uint32_t> cp_, next_;
  std::vector<std::uint8_t> again_, rolled_back_;
};

DependencyGraph DependencyGraph::build(const ObservedHistory& h) {
  DependencyGraph g;
  GraphBuilder(h, g).run();
  return g;
}

TxnId DependencyGraph::source_of(std::uint32_t edge_index) const {
  return static_cast<TxnId>(std::upper_bound(offsets_.begin(), offsets_.end(), edge_index) - offsets_.begin() - 1);
}

TxnId DependencyGraph::deleter(RowIndex r) const {
  const ObsIndex o = delete_observation(r);
  return o == kNone ? kNone : h_->txn_of(h_->observations()[o]);
}

ObsIndex DependencyGraph::delete_observation(RowIndex r) const {
  auto it = std::lower_bound(deletes_.begin(), deletes_.end(), std::make_pair(r, ObsIndex{0}));
  return it != deletes_.end() && it->first == r ? it->second : kNone;
}

std::size_t DependencyGraph::memory_bytes() const {
  return offsets_.capacity() * sizeof(std::uint32_t) + edge_total_ * sizeof(Edge) + status_.capacity() +
         auth_.capacity() * sizeof(std::uint32_t) + deletes_.capacity() * sizeof(deletes_[0]) +
         direct_.capacity() * sizeof(DirectAnomaly) + pred_evidence_.capacity() * sizeof(PredicateEvidence);
}

}  // namespace txprop::adya
