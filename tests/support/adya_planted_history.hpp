// Planted histories for the Adya property's unit tests (no server): a case instrumented as the oracle runs it, every
// step completing in its submitted order, and the results a test writes in by hand.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "txprop/adya.hpp"
#include "txprop/adya_checker.hpp"
#include "txprop/adya_instrumentation.hpp"
#include "txprop/history.hpp"
#include "tests/support/planted.hpp"

namespace txprop::test {

// t(k INTEGER PRIMARY KEY, v INTEGER) with the row (1, 0), named `name`.
inline Table one_row_table(const std::string& name) {
  Table t;
  t.name = name;
  t.columns = {{"k", ColumnType::Integer, true}, {"v", ColumnType::Integer, false}};
  t.primary_key = {"k"};
  t.rows = {{1, 0}};
  return t;
}

// `c` instrumented with `options`, run in its submitted order, every step completing as submitted, every transaction
// committing; `at(t, i)` is the result of transaction t's statement i (from 1, the instrumented statements counted).
// The observer (the last transaction, one SELECT * per table) reads the final writer lists (`observed`), which give
// the version orders.
struct PlantedHistory {
  History h;
  PlantedHistory(const TestCase& c, const adya::InstrumentationOptions& options) {
    EXPECT_EQ(c.validate(), "");
    h = completed_in_order(adya::instrument(c, options));
    for (TxnResult& t : h.transactions) t.fate = TxnFate::Committed;
  }
  Outcome& at(std::size_t t, std::size_t i) { return h.outcomes[t][i]; }
  void observed(std::size_t table, std::vector<Row> rows) {
    Outcome& o = h.outcomes.back()[table + 1];
    o.columns = {"k", "v", "txp_rid", "txp_wl"};
    o.rows = std::move(rows);
  }
};

// The result columns of one_row_table's SELECT *, of a SELECT * over two of them joined, and of RETURNING.
inline const std::vector<std::string> kTableColumns = {"k", "v", "txp_rid", "txp_wl"};
inline const std::vector<std::string> kJoinColumns = {"k", "v", "txp_rid", "txp_wl", "k", "v", "txp_rid", "txp_wl"};
inline const std::vector<std::string> kReturning = {"txp_rid", "txp_wl", "k", "v"};

inline bool has_kind(const Verdict& v, const std::string& kind) {
  return std::any_of(v.findings.begin(), v.findings.end(), [&](const Finding& f) { return f.kind == kind; });
}

// The dependency graph's edges, "from-type->to " each.
inline std::string edges_of(const adya::ObservedHistory& o) {
  const adya::DependencyGraph g = adya::DependencyGraph::build(o);
  std::string edges;
  for (adya::TxnId from = 0; from < g.node_count(); ++from)
    for (const adya::Edge& e : g.out_edges(from))
      edges += std::to_string(from) + "-" + adya::to_string(e.type()) + "->" + std::to_string(e.to) + " ";
  return edges;
}

}  // namespace txprop::test
