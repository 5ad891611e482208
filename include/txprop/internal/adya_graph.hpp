// Adya's direct serialization graph (DSG) over committed transactions, inferred from an ObservedHistory as IsoRel's
// Algorithm 1 does (notes/seed-isorel.md §4), but in time linear in the size of the observations: one version order
// per row (its longest observed wList) instead of IsoRel's pairwise loop over query results.
//
// Per row r with version order C = [C0, C1, ..., Cm-1] (oldest first) and, optionally, a committed deleter D:
//   ww  consecutive committed writers of C (aborted and unfinished writers are skipped, they installed no version);
//       the last writer of the deleted version -> D
//   wr  C[L-1] -> reader, for a read of the version of length L
//   rw  reader of the version of length L -> the first later committed writer that is not C[L-1] (a transaction that
//       writes a row twice installs one version in Adya's model; reading its first write is G1b, not an extra
//       anti-dependency), or -> D when no such writer exists
// Self edges are dropped; only committed transactions (and T0) have edges. Anomalies that need no cycle (G1a, G1b,
// impossible histories) are recorded while the graph is built.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "txprop/adya_history.hpp"

namespace txprop::adya {

enum class EdgeType : std::uint8_t { WW = 0, WR = 1, RW = 2 };
inline constexpr std::uint8_t edge_bit(EdgeType t) { return static_cast<std::uint8_t>(1u << static_cast<unsigned>(t)); }
const char* to_string(EdgeType t);  // "ww", "wr", "rw"

// 12 bytes (a history of 10^6 transactions has about 5 * 10^6 edges); the source is implicit in the CSR position
// (DependencyGraph::source_of). Evidence, for explanations:
//   WR, RW: the read observation (its row, version length, reader and statement)
//   WW: the chain position of the target's write; == the version order's length for the edge to the deleter
//   predicate WR, RW (predicate() set): an index into DependencyGraph::predicate_evidence()
struct Edge {
  TxnId to;
  RowIndex row;
  std::uint32_t bits;  // evidence (30 bits) | type << 30

  Edge() = default;  // trivial: the edge array is allocated without a zeroing pass, every slot is then written
  Edge(TxnId to_, RowIndex row_, std::uint32_t evidence, EdgeType type)
      : to(to_), row(row_), bits(evidence | (static_cast<std::uint32_t>(type) << 30)) {}
  static Edge predicate_edge(TxnId to_, RowIndex row_, std::uint32_t evidence, EdgeType type) {
    return Edge(to_, row_, evidence | kPredicateBit, type);
  }
  EdgeType type() const { return static_cast<EdgeType>(bits >> 30); }
  std::uint32_t evidence() const { return bits & kEvidenceMask; }
  // A predicate read- or anti-dependency (Adya's definitions 4 and 5): a write changed whether the row matches a
  // predicate read.
  bool predicate() const { return (bits & kPredicateBit) != 0; }
  static constexpr std::uint32_t kPredicateBit = 1u << 29;
  static constexpr std::uint32_t kEvidenceMask = kPredicateBit - 1;
};

// Why a predicate edge exists: the (predicate read, row) record and the version whose install changed the row's match
// (1..n: the version written by order[k-1]; n+1: the row's delete).
struct PredicateEvidence {
  PredRowIndex prow = 0;
  std::uint32_t version = 0;
};

// What the graph builder found that needs no cycle. The classifier turns these into findings.
enum class DirectKind : std::uint8_t {
  AbortedRead,       // G1a: a committed read saw a version containing an aborted transaction's write (pos: in the
                     // observed wList, which may be a rolled-back version outside the version order)
  IntermediateRead,  // G1b: a committed read saw a version whose writer wrote the row again later (pos = its write)
  Divergent,         // two observed wLists of a row, neither a prefix of the other, and the difference is not a
                     // rollback of uncommitted writes (obs, other = the version order's witness, pos = common length)
  EmptyWList,        // a row version with no writer
  UnknownWriter,     // a wList names a transaction id that was never registered (pos)
  NoWriteRecorded,   // a wList names a transaction that recorded no write of that row (pos)
  NotInserted,       // the row's first version is not T0's initial row nor an insert of its writer (pos = 0)
  InitialNotFirst,   // T0 appears after the first position of a wList (pos)
  DeletedNotLast,    // a committed delete removed a version that was later overwritten (obs = the delete read)
  DeletedTwice,      // two committed transactions deleted the same row (obs, other)
};

struct DirectAnomaly {
  DirectKind kind;
  RowIndex row = 0;
  ObsIndex obs = kNone;    // the observation concerned (kNone: the version order itself)
  ObsIndex other = kNone;  // a second observation, when the anomaly is a conflict between two
  std::uint32_t pos = 0;   // position in the row's version order
};

class DependencyGraph {
 public:
  // Builds the graph in time linear in the observations and version orders. The history must outlive the graph.
  static DependencyGraph build(const ObservedHistory& h);

  const ObservedHistory& history() const { return *h_; }
  std::size_t node_count() const { return offsets_.size() - 1; }
  std::span<const Edge> out_edges(TxnId t) const {
    return std::span<const Edge>(edges_.get() + offsets_[t], offsets_[t + 1] - offsets_[t]);
  }
  std::uint32_t first_edge(TxnId t) const { return offsets_[t]; }
  std::span<const Edge> edges() const { return {edges_.get(), edge_total_}; }
  TxnId source_of(std::uint32_t edge_index) const;  // O(log n)
  std::size_t edge_count(EdgeType t) const { return counts_[static_cast<unsigned>(t)]; }
  std::size_t predicate_edge_count() const { return pred_evidence_.size(); }
  const PredicateEvidence& predicate_evidence(const Edge& e) const { return pred_evidence_[e.evidence()]; }

  bool committed(TxnId t) const { return t < status_.size() && status_[t] == 0; }

  // The row's version order: its longest observed wList. When wLists diverged (rollbacks, or an engine bug), the
  // branch with the most committed writers, then the longest.
  std::uint32_t version_branch(RowIndex r) const { return auth_.empty() ? 0 : auth_[r]; }
  std::span<const TxnId> version_order(RowIndex r) const { return h_->branch(r, version_branch(r)); }
  // The committed transaction that deleted the row and the observation of the version it deleted, or kNone.
  TxnId deleter(RowIndex r) const;
  ObsIndex delete_observation(RowIndex r) const;

  const std::vector<DirectAnomaly>& direct_anomalies() const { return direct_; }

  // Real-time order for snapshot isolation (Adya's start-dependency): Ti ended before Tj started. T0 ended before
  // every transaction started. Unknown positions make both predicates false: SI checks skip what they cannot judge.
  bool ended_before(TxnId i, TxnId j) const {
    if (i == kInitialTxn) return j != kInitialTxn;
    if (j == kInitialTxn) return false;
    const Position end = h_->txn(i).end, start = h_->txn(j).start;
    return end != kUnknownPosition && start != kUnknownPosition && end < start;
  }
  bool known_not_ended_before(TxnId i, TxnId j) const {
    if (i == kInitialTxn || j == kInitialTxn) return false;
    const Position end = h_->txn(i).end, start = h_->txn(j).start;
    return end != kUnknownPosition && start != kUnknownPosition && end >= start;
  }

  std::size_t memory_bytes() const;

 private:
  const ObservedHistory* h_ = nullptr;
  std::vector<std::uint32_t> offsets_;  // CSR by source, node_count()+1
  std::unique_ptr<Edge[]> edges_;       // edge_total_ edges in CSR order
  std::size_t edge_total_ = 0;
  std::vector<std::uint8_t> status_;  // 0 committed, 1 aborted, 2 unknown fate, 3 never registered
  std::vector<std::uint32_t> auth_;   // per row version branch; empty when no row has divergent wLists
  std::vector<std::pair<RowIndex, ObsIndex>> deletes_;  // sorted by row: committed deletes
  std::vector<DirectAnomaly> direct_;
  std::vector<PredicateEvidence> pred_evidence_;
  std::size_t counts_[3] = {0, 0, 0};

  friend class GraphBuilder;
};

}  // namespace txprop::adya
