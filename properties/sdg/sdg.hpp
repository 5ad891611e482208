// The SDG property (TxCheck's Theorem 1, shared/notes/seed-txcheck-thesis.md sections 1-3): run the instrumented case
// with blocking scheduling until every instrumented group ran contiguously, infer the statement-dependency graph,
// remove a statement on a cycle and run again until it is acyclic, then replay a topological order in one session
// without transactions on a fresh database: every statement's result (rows as a multiset, affected count, error or
// not) and the final state must match. The item dependencies of the first converged run also give the transaction
// graph, checked with the Adya classifier (properties/adya) for G1a, G1b, G1c, G-single, G2-item and G-SI.
#pragma once

#include <vector>

#include "graph.hpp"
#include "instrumentation.hpp"
#include "txprop/engine.hpp"
#include "txprop/history.hpp"
#include "txprop/target.hpp"
#include "txprop/verdict.hpp"

namespace txprop::sdg {

// The SDG nodes of a run of an instrumented case: one per statement of a committed transaction.
std::vector<Node> extract_nodes(const History& h, const Layout& layout);
// Whether every instrumented group of a committed transaction ran contiguously (nothing of another transaction in
// between).
// `waits`: also where a statement that waited after its companion's reads has another transaction's step in between,
// which then rolled back (its uncommitted version those reads may have seen); re-planning can move the reads past it.
bool groups_contiguous(const History& h, const Layout& layout, bool waits = true);
// The prepared case's order re-planned to the actual order of the run, each group glued to where its statement
// completed (TxCheck's blocking scheduling).
std::vector<int> replan(const History& h, const Layout& layout);
// Where the engine leaves a row an UPDATE sets to its own values unwritten (EngineCapabilities::
// update_skips_unchanged_rows) and TxCheck's version key wrote it, whether the plain SQL could show the difference
// (by the level's visibility rules: another's write conflicts with a new version, the transaction's own later plain
// read, or a transaction that changed no other row commits nothing plainly). The row and why, or "".
std::string unchanged_rows_written(const History& h, const Layout& layout, const EngineProfile& engine,
                                   const TargetConfig& config);
// A companion's read (instrumentation.hpp) runs at READ UNCOMMITTED: beside another transaction's uncommitted write of
// its table it may see that write, which the owner's own read would not have (its statement would have waited, or
// read around it). Each version-set read is taken back to what it would have returned without such writes (a row
// another transaction's uncommitted write installed goes back to what that write's before-write read returned, an
// inserted one is dropped, a deleted one put back), in `h`. "" when every such read could be taken back; otherwise the
// read and why (a before-write read selects by predicate, which an uncommitted version may match where the committed
// one does not): the run is not judged.
std::string undo_uncommitted(History& h, const Layout& layout);
// Blocking scheduling re-plans a group that waited to after what it waited for. Where that group holds the step that
// takes its transaction's snapshot (transaction_start: PostgreSQL's first statement takes it before it waits for a
// lock), the re-planned run gives the transaction another snapshot, and judges another case than the one that ran.
// `planned`: a run of a prepared case; `replanned`: the run of it re-planned. "re-planning moved T0's start (...) from
// before T1 ended to after it" for the first transaction at a level with a transaction snapshot whose start moved
// across the end of another transaction that committed a change (in either run), or "".
std::string start_moved(const History& planned, const History& replanned, const EngineProfile& engine,
                        const TargetConfig& config);
// The replay case: the groups of `order` (node indexes of `graph`) in one autocommit session.
TestCase replay_case(const History& h, const Layout& layout, const Graph& graph, const std::vector<int>& order);

// The first difference between `plain`, a run of a case, and `run`, a run of it instrumented, that SDG's judgement
// could read (differential::differences, but for a statement that failed in both runs, with other errors, in a
// transaction that committed in neither), or "".
std::string difference_read_by_sdg(const History& plain, const History& run);

struct SdgOptions {
  int max_replans = 6;  // blocking-scheduling rounds per run before the case gets no verdict
  bool isolation = true;   // also classify the transaction graph of item dependencies (Adya's checker)
  // Treat Assumption A3 as holding whatever the profile says (a planted violation: the oracle told A3 holds where the
  // engine documents that it does not).
  bool assume_a3 = false;
  // Look for writes that did not overwrite what their before-write read returned: Assumption A3 broken, no verdict.
  bool a3_check = true;
};

Verdict check_sdg(Target& target, const History& h, const SdgOptions& options = {});

// Why Assumption A3 may break where the profile says it holds: the profile's source when every mismatched write (each
// with what the profile documents at its transaction's level) is a multi-table UPDATE that SETs a column its own join
// condition reads and the profile documents such a statement (behaviour::kMultiTableUpdateSetsJoinColumn: the rows
// it writes depend on the engine's join order); "" otherwise (the no-verdict is tagged "not documented").
std::string join_order_source(const std::vector<std::pair<::txprop::Statement, DocumentedBehaviour>>& writes);

}  // namespace txprop::sdg
