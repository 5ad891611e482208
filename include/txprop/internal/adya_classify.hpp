// From a dependency graph to txprop::Finding objects: direct anomalies (G1a, G1b, impossible histories), snapshot
// interference (G-SIa), the smallest cycle of each class in each cyclic component, and missed effects (G-SIb through a
// start-dependency). Which phenomena count is the caller's: a set of proscribed phenomena (levels.hpp), reported
// under the rule documented there (most specific kind; reported when any class it belongs to is proscribed).
//
// Explanations are built only for reported findings: one line per edge in Elle's style, e.g.
//   T1 read row 3 at version [T0] (T1.1 SELECT ...), and T2 wrote the next version [T0,T2] (T2.1 UPDATE ...): T1 -rw->
//   T2 T2 wrote row 3 at version [T0,T2] (T2.1 UPDATE ...), and T1 wrote the next version [T0,T2,T1] (...): T2 -ww-> T1
//   This cycle has exactly one anti-dependency: G-single (lost update: both wrote row 3).
// and each cycle finding carries a Graphviz DOT of the cycle with labelled edges.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "txprop/internal/adya_graph.hpp"
#include "txprop/adya_levels.hpp"
#include "txprop/verdict.hpp"

namespace txprop::adya {

struct CheckOptions {
  // A broken engine can produce thousands of findings of one kind; the rest are counted, not explained.
  std::size_t max_findings_per_kind = 10;
  // Edge visits per cycle search in one component (see CycleFinder).
  std::uint64_t search_budget = 50'000'000;
  // Every write was recorded with its row (e.g. UPDATE ... RETURNING rowId). When false (an engine without RETURNING
  // on UPDATE, where an UPDATE's rows are not known), a wList naming a transaction that recorded no write of the row,
  // or a first version whose writer recorded no insert, is not an impossible history: the write was just not seen.
  bool writes_complete = true;
};

std::vector<Finding> classify(const DependencyGraph& graph, const std::set<std::string>& proscribed,
                              const CheckOptions& options = {});

// Builds the graph and classifies: the Verdict of property "adya" for the claimed level.
Verdict check(const ObservedHistory& history, AdyaLevel level, const CheckOptions& options = {});
Verdict check(const ObservedHistory& history, const std::set<std::string>& proscribed,
              const CheckOptions& options = {});

}  // namespace txprop::adya
