// The Adya cycle-freedom checker (design.md, "Adya cycle-freedom"): everything a property or a producer needs. It is
// its own layer (library txprop_checkers, sources in checkers/adya/, depending on the model only), so that every
// oracle that builds an item history (the Adya property, the SDG oracle's transaction graph) classifies its cycles
// with this one code, through this public header.
//   ObservedHistory   what an instrumented run observed (rowId + wList per row read, writes, fates, positions)
//   DependencyGraph   the DSG with evidence per edge, G1a/G1b/impossible-history found while building it
//   CycleFinder       SCCs and the smallest cycle of each class
//   classify / check  Findings for a set of proscribed phenomena or an AdyaLevel
//   to_elle_edn       the same history for Elle's list-append checker
#pragma once

#include "txprop/internal/adya_classify.hpp"
#include "txprop/internal/adya_cycles.hpp"
#include "txprop/internal/adya_graph.hpp"
#include "txprop/internal/adya_elle.hpp"
#include "txprop/adya_levels.hpp"
#include "txprop/adya_history.hpp"
