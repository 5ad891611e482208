#include "txprop/internal/adya_cycles.hpp"

#include <algorithm>
#include <limits>
#include <tuple>

namespace txprop::adya {

const char* to_string(CycleClass c) {
  switch (c) {
    case CycleClass::G0: return "G0";
    case CycleClass::G1c: return "G1c";
    case CycleClass::GSingle: return "G-single";
    case CycleClass::G2Item: return "G2-item";
    case CycleClass::GSinglePredicate: return "G-single";
    case CycleClass::G2Predicate: return "G2";
  }
  return "?";
}

CycleFinder::CycleFinder(const DependencyGraph& g, std::uint64_t budget) : g_(g), budget_(budget) { tarjan(); }

void CycleFinder::tarjan() {
  const std::size_t n = g_.node_count();
  comp_.assign(n, kNone);
  comp_offsets_.assign(1, 0);
  // index[v]: DFS number, with kOnStack set while v is on the Tarjan stack; one random read per edge, not two.
  constexpr std::uint32_t kOnStack = 1u << 31;
  constexpr std::uint32_t kUnvisited = kNone;
  std::vector<std::uint32_t> index(n, kUnvisited), low(n, 0);
  std::vector<TxnId> stack;
  struct Frame {
    TxnId v;
    std::uint32_t e;  // next out-edge to look at
  };
  std::vector<Frame> calls;
  const auto edges = g_.edges();
  std::uint32_t counter = 0;

  // Roots in descending id order: dependencies mostly point from older to newer transactions, so a newer one's
  // successors are usually finished already and the DFS stays shallow.
  for (TxnId s = static_cast<TxnId>(n); s-- > 0;) {
    // A transaction without out-edges is its own trivial component; it is still entered when reached from others.
    if (index[s] != kUnvisited || g_.out_edges(s).empty()) continue;
    index[s] = counter | kOnStack;
    low[s] = counter++;
    stack.push_back(s);
    calls.push_back({s, g_.first_edge(s)});
    while (!calls.empty()) {
      const TxnId v = calls.back().v;
      const std::uint32_t end = g_.first_edge(v + 1);
      if (calls.back().e < end) {
        const TxnId w = edges[calls.back().e++].to;
        const std::uint32_t iw = index[w];
        if (iw == kUnvisited) {
          index[w] = counter | kOnStack;
          low[w] = counter++;
          stack.push_back(w);
          calls.push_back({w, g_.first_edge(w)});
        } else if (iw & kOnStack) {
          low[v] = std::min(low[v], iw & ~kOnStack);
        }
        continue;
      }
      calls.pop_back();
      if (!calls.empty()) low[calls.back().v] = std::min(low[calls.back().v], low[v]);
      if (low[v] != (index[v] & ~kOnStack)) continue;
      if (stack.back() == v) {  // trivial: self edges are never built, so one transaction is no cycle
        stack.pop_back();
        index[v] &= ~kOnStack;
        continue;
      }
      const std::uint32_t id = static_cast<std::uint32_t>(comp_offsets_.size() - 1);
      TxnId w;
      do {
        w = stack.back();
        stack.pop_back();
        index[w] &= ~kOnStack;
        comp_[w] = id;
        comp_nodes_.push_back(w);
      } while (w != v);
      std::sort(comp_nodes_.begin() + comp_offsets_.back(), comp_nodes_.end());
      comp_offsets_.push_back(static_cast<std::uint32_t>(comp_nodes_.size()));
    }
  }
}

namespace {

ClassRule rule(CycleClass c) {
  switch (c) {
    case CycleClass::G0: return {EdgeType::WW, edge_bit(EdgeType::WW), false, 1};
    case CycleClass::G1c:
      return {EdgeType::WR, static_cast<std::uint8_t>(edge_bit(EdgeType::WW) | edge_bit(EdgeType::WR)), false, 1};
    case CycleClass::GSingle:
      return {EdgeType::RW, static_cast<std::uint8_t>(edge_bit(EdgeType::WW) | edge_bit(EdgeType::WR)), false, 3, 0,
              true};
    case CycleClass::G2Item: return {EdgeType::RW, 7, true, 2, 0, true};
    case CycleClass::GSinglePredicate:
      return {EdgeType::RW, static_cast<std::uint8_t>(edge_bit(EdgeType::WW) | edge_bit(EdgeType::WR)), false, 3, 1,
              true};
    case CycleClass::G2Predicate: return {EdgeType::RW, 7, true, 2, 1, false};
  }
  return {EdgeType::WW, 0, false, 1};
}

}  // namespace

std::vector<Candidate> CycleFinder::first_edges(std::size_t component, const ClassRule& cr) {
  const std::uint32_t c = static_cast<std::uint32_t>(component);
  std::vector<Candidate> cands;
  for (TxnId a : this->component(component)) {
    const std::uint32_t base = g_.first_edge(a);
    const auto es = g_.out_edges(a);
    spend(es.size());
    for (std::uint32_t i = 0; i < es.size(); ++i)
      if (es[i].type() == cr.first && comp_[es[i].to] == c &&
          (cr.first_predicate < 0 || es[i].predicate() == (cr.first_predicate == 1)))
        cands.push_back({es[i].to, a, es[i].row, base + i});
  }
  std::sort(cands.begin(), cands.end());
  return cands;
}

bool CycleFinder::two_transaction_cycle(const std::vector<Candidate>& cands, std::uint32_t c, const ClassRule& cr,
                                        CycleClass cls, Cycle& out) {
  // Phase 1: two-transaction cycles a -> b -> a, scored by how specific their shape is:
  //   G-single: 3 lost update (rw and ww on one row), 2 read skew (rw and ww/wr on different rows), 1 other
  //   G2-item:  2 write skew (two rw on different rows), 1 other
  int best_score = 0;
  std::uint32_t best_first = kNone, best_back = kNone;
  for (std::size_t gi = 0; gi < cands.size() && best_score < cr.best_score;) {
    std::size_t ge = gi;
    while (ge < cands.size() && cands[ge].b == cands[gi].b) ++ge;
    const TxnId b = cands[gi].b;
    const std::uint32_t base = g_.first_edge(b);
    const auto es = g_.out_edges(b);
    if (!spend(es.size())) break;
    for (std::uint32_t j = 0; j < es.size() && best_score < cr.best_score; ++j) {
      const Edge& back = es[j];
      if (comp_[back.to] != c || !(cr.way_back & edge_bit(back.type()))) continue;
      if (cr.need_rw && back.type() != EdgeType::RW) continue;
      if (!cr.item_rw_back && back.type() == EdgeType::RW && !back.predicate()) continue;
      const auto lo = std::lower_bound(cands.begin() + gi, cands.begin() + ge, Candidate{b, back.to, 0, 0});
      const auto hi = std::lower_bound(lo, cands.begin() + ge, Candidate{b, back.to + 1, 0, 0});
      if (lo == hi) continue;
      int score = 1;
      auto pick = lo;
      const auto other_row = std::find_if(lo, hi, [&](const Candidate& x) { return x.row != back.row; });
      if (cls == CycleClass::GSingle || cls == CycleClass::GSinglePredicate) {
        const auto same_row = std::find_if(lo, hi, [&](const Candidate& x) { return x.row == back.row; });
        if (back.type() == EdgeType::WW && same_row != hi) {
          score = 3;
          pick = same_row;
        } else if (other_row != hi) {
          score = 2;
          pick = other_row;
        }
      } else if ((cls == CycleClass::G2Item || cls == CycleClass::G2Predicate) && other_row != hi) {
        score = 2;
        pick = other_row;
      }
      if (score > best_score) {
        best_score = score;
        best_first = pick->edge;
        best_back = base + j;
      }
    }
    gi = ge;
  }
  if (best_score == 0) return false;
  const TxnId a = g_.source_of(best_first);
  const TxnId b = g_.edges()[best_first].to;
  out.edges = {{a, b, best_first}, {b, a, best_back}};
  return true;
}

void CycleFinder::shortest_cycle(std::size_t component, const std::vector<Candidate>& cands, const ClassRule& cr,
                                 Cycle& out) {
  const std::uint32_t c = static_cast<std::uint32_t>(component);
  // Phase 2: BFS from each first-edge target b back to the candidate sources, level by level; the first source
  // reached closes the shortest cycle through b. Depth is capped by the best cycle so far. States are (position of
  // the transaction in the component, "an rw edge was used"): scratch sized by the component, not the history.
  const std::span<const TxnId> nodes = this->component(component);
  auto local = [&](TxnId v) {
    return static_cast<std::uint32_t>(std::lower_bound(nodes.begin(), nodes.end(), v) - nodes.begin());
  };
  const std::size_t states = nodes.size() * 2;
  if (mark_.size() < states) {
    mark_.assign(states, 0);
    dist_.assign(states, 0);
    parent_state_.assign(states, 0);
    parent_edge_.assign(states, 0);
    target_mark_.assign(states, 0);
  }
  std::uint32_t best_len = std::numeric_limits<std::uint32_t>::max();
  const std::uint32_t target_bit = cr.need_rw ? 1 : 0;
  for (std::size_t gi = 0; gi < cands.size() && best_len > 3;) {
    std::size_t ge = gi;
    while (ge < cands.size() && cands[ge].b == cands[gi].b) ++ge;
    if (used_ > budget_) break;
    const TxnId b = cands[gi].b;
    const std::uint32_t ep = ++epoch_;
    for (std::size_t k = gi; k < ge; ++k) target_mark_[local(cands[k].a) * 2 + target_bit] = ep;
    queue_.clear();
    const std::uint32_t start = local(b) * 2;
    mark_[start] = ep;
    dist_[start] = 0;
    queue_.push_back(start);
    std::uint32_t hit = kNone;
    for (std::size_t qi = 0; qi < queue_.size() && hit == kNone; ++qi) {
      const std::uint32_t u = queue_[qi];
      // A path of length d closes a cycle of length d + 1: extending u only helps if dist+1 < best_len - 1.
      if (best_len != std::numeric_limits<std::uint32_t>::max() && dist_[u] + 2 >= best_len) break;
      const TxnId node = nodes[u >> 1];
      const std::uint32_t base = g_.first_edge(node);
      const auto es = g_.out_edges(node);
      if (!spend(es.size())) break;
      for (std::uint32_t j = 0; j < es.size(); ++j) {
        const Edge& e = es[j];
        if (comp_[e.to] != c || !(cr.way_back & edge_bit(e.type()))) continue;
        if (!cr.item_rw_back && e.type() == EdgeType::RW && !e.predicate()) continue;
        const std::uint32_t v = local(e.to) * 2 + ((u & 1) | (e.type() == EdgeType::RW ? 1 : 0));
        if (mark_[v] == ep) continue;
        mark_[v] = ep;
        dist_[v] = dist_[u] + 1;
        parent_state_[v] = u;
        parent_edge_[v] = base + j;
        if (target_mark_[v] == ep) {
          hit = v;
          break;
        }
        queue_.push_back(v);
      }
    }
    if (hit != kNone && dist_[hit] + 1 < best_len) {
      const TxnId a = nodes[hit >> 1];
      std::vector<CycleEdge> path;
      for (std::uint32_t s = hit; s != start; s = parent_state_[s])
        path.push_back({nodes[parent_state_[s] >> 1], nodes[s >> 1], parent_edge_[s]});
      // With the "rw seen" bit a path may pass a transaction twice (once per bit): that walk is two G-single cycles
      // glued together, not a G2-item cycle. Only simple cycles are reported.
      bool simple = true;
      if (cr.need_rw) {
        std::vector<TxnId> visited{b};
        for (const CycleEdge& e : path) visited.push_back(e.to);
        std::sort(visited.begin(), visited.end());
        simple = std::adjacent_find(visited.begin(), visited.end()) == visited.end();
      }
      if (simple) {
        best_len = dist_[hit] + 1;
        const auto first = std::lower_bound(cands.begin() + gi, cands.begin() + ge, Candidate{b, a, 0, 0});
        out.edges.clear();
        out.edges.push_back({a, b, first->edge});
        out.edges.insert(out.edges.end(), path.rbegin(), path.rend());
      }
    }
    gi = ge;
  }
}

std::optional<Cycle> CycleFinder::smallest(std::size_t component, CycleClass cls) {
  used_ = 0;
  const ClassRule cr = rule(cls);
  Cycle out;
  out.cls = cls;
  const std::vector<Candidate> cands = first_edges(component, cr);
  if (cands.empty()) return std::nullopt;
  if (!two_transaction_cycle(cands, static_cast<std::uint32_t>(component), cr, cls, out))
    shortest_cycle(component, cands, cr, out);
  out.budget_exhausted = used_ > budget_;
  if (out.edges.empty()) return std::nullopt;
  return out;
}

}  // namespace txprop::adya
