// Cycle search in the dependency graph, Elle-style: strongly connected components first (iterative Tarjan, so 10^6
// transactions cannot overflow the stack), then inside each non-trivial component the SMALLEST cycle of each class by
// BFS restricted to the edge types the class allows:
//   G0        ww only
//   G1c       ww + wr, at least one wr
//   G-single  exactly one rw (first edge rw, the way back ww + wr)
//   G2-item   two or more rw (first edge rw, the way back over all types with at least one rw)
// Every cycle of a class contains an edge of its first type, so the shortest path back from each such edge's target
// gives the smallest cycle. Two-transaction cycles are examined first over all parallel edges, preferring the named
// shapes (a lost update over a read skew over a plain G-single; a write skew on two rows over a G2-item on one), so
// the reported refinement does not depend on which parallel edge a BFS meets first.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <tuple>
#include <vector>

#include "txprop/internal/adya_graph.hpp"

namespace txprop::adya {

// With predicate edges (Adya's definitions 4 and 5): G-single and G2-item cycles start at an ITEM anti-dependency (a
// G2-item cycle has one or more item anti-dependencies, other edges may be predicate ones); GSinglePredicate is a
// G-single whose one anti-dependency is a predicate one (not a G2-item), G2Predicate a cycle with two or more
// anti-dependencies, all of them predicate ones (a G2 that is not a G2-item: phantoms).
enum class CycleClass : std::uint8_t { G0, G1c, GSingle, G2Item, GSinglePredicate, G2Predicate };
const char* to_string(CycleClass c);  // "G0", "G1c", "G-single", "G2-item", "G-single", "G2"

struct CycleEdge {
  TxnId from = 0;
  TxnId to = 0;
  std::uint32_t edge = kNone;  // index into DependencyGraph::edges(); kNone: a start-dependency (to ended first)
};

struct Cycle {
  CycleClass cls = CycleClass::G0;
  std::vector<CycleEdge> edges;   // edges[i].to == edges[i+1].from, last.to == first.from
  bool budget_exhausted = false;  // the search stopped early: a shorter cycle of this class may exist
};

// What a cycle of one class looks like to the search (cycles.cpp: rule()).
struct ClassRule {
  EdgeType first;         // the edge every cycle of the class contains; the search starts from it
  std::uint8_t way_back;  // edge types allowed on the path back
  bool need_rw;           // the path back must contain an rw edge
  int best_score;         // the most specific two-transaction shape; finding it ends the search
  int first_predicate = -1;      // -1 any first edge, 0 item edges only, 1 predicate edges only
  bool item_rw_back = true;      // item anti-dependencies allowed on the way back
};

// A first edge a -> b of a cycle of the class, ordered by b (the search starts from b) then a.
struct Candidate {
  TxnId b, a;  // the first edge a -> b
  RowIndex row;
  std::uint32_t edge;
  bool operator<(const Candidate& o) const { return std::tie(b, a, row) < std::tie(o.b, o.a, o.row); }
};

class CycleFinder {
 public:
  // budget: edge visits allowed per smallest() call. Exact search is quadratic in a component's size; histories with
  // huge cyclic components (an engine failing everywhere) get the shortest cycle found within the budget instead.
  explicit CycleFinder(const DependencyGraph& g, std::uint64_t budget = 50'000'000);

  // Strongly connected components with at least two transactions.
  std::size_t component_count() const { return comp_offsets_.size() - 1; }
  std::span<const TxnId> component(std::size_t i) const {
    return std::span<const TxnId>(comp_nodes_).subspan(comp_offsets_[i], comp_offsets_[i + 1] - comp_offsets_[i]);
  }

  std::optional<Cycle> smallest(std::size_t component, CycleClass cls);

 private:
  void tarjan();
  // smallest() in phases: the candidate first edges, two-transaction cycles scored by how specific their shape is,
  // and else the shortest cycle by BFS.
  std::vector<Candidate> first_edges(std::size_t component, const ClassRule& rule);
  bool two_transaction_cycle(const std::vector<Candidate>& cands, std::uint32_t c, const ClassRule& rule, CycleClass cls,
                             Cycle& out);
  void shortest_cycle(std::size_t component, const std::vector<Candidate>& cands, const ClassRule& rule, Cycle& out);
  bool spend(std::uint64_t n) {
    used_ += n;
    return used_ <= budget_;
  }

  const DependencyGraph& g_;
  std::uint64_t budget_;
  std::uint64_t used_ = 0;
  std::vector<std::uint32_t> comp_;  // per transaction: its non-trivial component, or kNone
  std::vector<TxnId> comp_nodes_;
  std::vector<std::uint32_t> comp_offsets_;
  // BFS scratch over states (position in the component * 2 + "an rw edge was used"), sized by the largest component.
  std::vector<std::uint32_t> mark_, dist_, parent_state_, parent_edge_, target_mark_, queue_;
  std::uint32_t epoch_ = 0;
};

}  // namespace txprop::adya
