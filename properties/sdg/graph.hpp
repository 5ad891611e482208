// The statement-dependency graph (TxCheck, OSDI'23, Definition 1; shared/notes/seed-txcheck-thesis.md sections 1.2,
// 2.3): nodes are the statements of committed transactions (each with its instrumentation), an edge S_i -> S_j says
// S_j depends on S_i. Inferred from the instrumented outputs alone (no server needed, so it is unit tested):
//   item-read      AWR(S_i) ∩ out(S_j)                 exact
//   item-write     AWR(S_i) ∩ BWR(S_j)                 exact (Assumption A3)
//   item-anti      out(S_i) ∩ BWR(S_j)                 exact (A1, A3)
//   predicate-read / predicate-write / value-write     AWR(S_i) ∩ VSR*(S_j), and VSR*(S_i) ∩ BWR(S_j)
//   predicate-anti                                      over-approximated: a super-graph keeps the oracle sound
// plus the rows a version-set read did NOT see: a row inserted by S_j that S_i's scan of its table missed puts S_i
// before S_j; a row deleted by S_j that S_i missed puts S_j before S_i (both edges when the row was inserted and
// deleted in the case and the order cannot tell which: over-approximation, never a missing edge).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "txprop/statement.hpp"

namespace txprop::sdg {

struct Version {
  std::string table;
  std::int64_t row = 0;      // txp_pk
  std::int64_t version = 0;  // txp_vk (0: the initial state)
  friend auto operator<=>(const Version&, const Version&) = default;
};

enum class DepKind { ItemRead, ItemWrite, ItemAnti, PredicateRead, PredicateWrite, PredicateAnti, ValueWrite };
const char* to_string(DepKind k);  // "item-read", ...
bool is_item(DepKind k);

// One statement of a committed transaction, with what its group's reads returned.
struct Node {
  int txn = 0;
  int stmt = 0;  // 0-based index among the transaction's (original) statements
  StatementKind kind = StatementKind::Select;
  std::string table;  // the statement's own table
  std::set<std::string> written;  // the tables it writes (two for a multi-table UPDATE)
  std::string text;   // for explanations, e.g. "UPDATE t0 SET c1 = 1"
  long position = 0;  // when the statement completed in the actual order (ties and heuristics)
  bool failed = false;  // returned an error: installed nothing
  std::vector<Version> reads;        // what the statement itself returned (SELECT)
  std::vector<Version> before;       // its before-write read
  std::vector<Version> after;        // its after-write read: the versions it installed
  std::vector<Version> version_set;  // its version-set reads, every referenced table
  std::set<std::string> scanned;     // the tables its version-set reads scanned
};

struct Edge {
  int from = 0, to = 0;  // node indexes
  DepKind kind = DepKind::ItemRead;
  Version evidence;
  friend bool operator==(const Edge&, const Edge&) = default;
};

class Graph {
 public:
  // Infers the edges (deduplicated per (from, to, kind), self edges dropped).
  static Graph infer(std::vector<Node> nodes);

  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<Edge>& edges() const { return edges_; }
  bool has_edge(int from, int to, DepKind kind) const;
  // Node index of (txn, stmt), or -1.
  int find(int txn, int stmt) const;

  // Some cycle (node indexes, each depends on the previous, the first on the last), or nothing if acyclic.
  std::optional<std::vector<int>> cycle() const;
  // The node of `cycle` to remove when decycling: the one with the most edges (TxCheck's code), first on ties.
  int pick_for_removal(const std::vector<int>& cycle) const;
  // A topological order (Kahn), preferring among ready nodes the one that completed first in the actual run.
  // Empty if the graph has a cycle.
  std::vector<int> topological_order() const;
  // The chain of dependencies that forces `node` after its predecessors in `order`: from a node with no
  // predecessors to `node`, each step the predecessor placed last. In words, one line per edge.
  std::string path_to(int node, const std::vector<int>& order) const;
  std::string label(int node) const;  // "T1.2 UPDATE ..."
  std::string dot(const std::vector<int>& highlight = {}) const;

 private:
  std::vector<Node> nodes_;
  std::vector<Edge> edges_;
  std::vector<std::vector<int>> out_, in_;  // edge indexes per node
};

}  // namespace txprop::sdg
