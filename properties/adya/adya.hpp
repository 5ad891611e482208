// The Adya cycle-freedom checker (design.md, "Adya cycle-freedom"): everything a property or a producer needs.
//   ObservedHistory   what an instrumented run observed (rowId + wList per row read, writes, fates, positions)
//   DependencyGraph   the DSG with evidence per edge, G1a/G1b/impossible-history found while building it
//   CycleFinder       SCCs and the smallest cycle of each class
//   classify / check  Findings for a set of proscribed phenomena or an AdyaLevel
//   to_elle_edn       the same history for Elle's list-append checker
#pragma once

#include "classify.hpp"
#include "cycles.hpp"
#include "dependency_graph.hpp"
#include "elle_export.hpp"
#include "levels.hpp"
#include "observed_history.hpp"

#include "txprop/history.hpp"

namespace txprop::adya {

// What an instrumented run observed, as check_adya reads it from the history (for tests that plant histories).
ObservedHistory observe(const ::txprop::History& h);

}  // namespace txprop::adya
