#include "graph.hpp"

#include <algorithm>
#include <map>
#include <queue>

#include <fmt/format.h>

namespace txprop::sdg {

const char* to_string(DepKind k) {
  switch (k) {
    case DepKind::ItemRead: return "item-read";
    case DepKind::ItemWrite: return "item-write";
    case DepKind::ItemAnti: return "item-anti";
    case DepKind::PredicateRead: return "predicate-read";
    case DepKind::PredicateWrite: return "predicate-write";
    case DepKind::PredicateAnti: return "predicate-anti";
    case DepKind::ValueWrite: return "value-write";
  }
  return "?";
}

bool is_item(DepKind k) { return k == DepKind::ItemRead || k == DepKind::ItemWrite || k == DepKind::ItemAnti; }

namespace {

bool installs(const Node& n) { return !n.failed && n.kind != StatementKind::Select; }

// The kind of an edge that comes from `n`'s version-set reads of `table`: into n when n saw a version another
// statement installed, out of n when another statement overwrote (or inserted into) what n scanned.
DepKind version_set_kind(const Node& n, const std::string& table, bool into) {
  if (n.kind == StatementKind::Select) return into ? DepKind::PredicateRead : DepKind::PredicateAnti;
  if ((n.kind == StatementKind::Update || n.kind == StatementKind::Delete) && (table == n.table || n.written.count(table)))
    return DepKind::PredicateWrite;
  return DepKind::ValueWrite;
}

}  // namespace

Graph Graph::infer(std::vector<Node> nodes) {
  Graph g;
  g.nodes_ = std::move(nodes);
  const int n = static_cast<int>(g.nodes_.size());
  std::map<Version, std::vector<int>> installer, overwriter;
  std::map<std::pair<std::string, std::int64_t>, std::vector<int>> inserter, deleter;
  for (int i = 0; i < n; ++i) {
    const Node& x = g.nodes_[static_cast<std::size_t>(i)];
    if (!installs(x)) continue;
    for (const Version& v : x.after) installer[v].push_back(i);
    if (x.kind == StatementKind::Update || x.kind == StatementKind::Delete)
      for (const Version& v : x.before) overwriter[v].push_back(i);
    if (x.kind == StatementKind::Insert)
      for (const Version& v : x.after) inserter[{v.table, v.row}].push_back(i);
    // A DELETE's ON DELETE SET NULL updates rows it does not delete (their new versions are in `after`).
    if (x.kind == StatementKind::Delete)
      for (const Version& v : x.before)
        if (std::none_of(x.after.begin(), x.after.end(), [&](const Version& a) { return a.table == v.table && a.row == v.row; }))
          deleter[{v.table, v.row}].push_back(i);
  }
  std::set<std::tuple<int, int, DepKind>> seen;
  auto add = [&](int from, int to, DepKind kind, const Version& evidence) {
    if (from == to || !seen.insert({from, to, kind}).second) return;
    g.edges_.push_back(Edge{from, to, kind, evidence});
  };
  auto each = [](const std::map<Version, std::vector<int>>& m, const Version& v, auto&& f) {
    if (auto it = m.find(v); it != m.end())
      for (int k : it->second) f(k);
  };
  for (int j = 0; j < n; ++j) {
    const Node& s = g.nodes_[static_cast<std::size_t>(j)];
    for (const Version& v : s.reads) {
      each(installer, v, [&](int i) { add(i, j, DepKind::ItemRead, v); });
      each(overwriter, v, [&](int k) { add(j, k, DepKind::ItemAnti, v); });
    }
    if (installs(s) && (s.kind == StatementKind::Update || s.kind == StatementKind::Delete))
      for (const Version& v : s.before) each(installer, v, [&](int i) { add(i, j, DepKind::ItemWrite, v); });
    for (const Version& v : s.version_set) {
      each(installer, v, [&](int i) { add(i, j, version_set_kind(s, v.table, true), v); });
      each(overwriter, v, [&](int k) { add(j, k, version_set_kind(s, v.table, false), v); });
    }
    // Rows the version-set reads did not see.
    for (const std::string& table : s.scanned) {
      std::set<std::int64_t> rows;
      for (const Version& v : s.version_set)
        if (v.table == table) rows.insert(v.row);
      for (const auto& [key, inserters] : inserter) {
        if (key.first != table || rows.count(key.second)) continue;
        const auto del = deleter.find(key);
        for (int i : inserters) {
          if (i == j) continue;
          add(j, i, version_set_kind(s, table, false), Version{table, key.second, 0});
          // Missed because it was already deleted? Only possible if s completed after the insert.
          if (del != deleter.end() && s.position > g.nodes_[static_cast<std::size_t>(i)].position)
            for (int d : del->second) add(d, j, version_set_kind(s, table, true), Version{table, key.second, 0});
        }
      }
      for (const auto& [key, deleters] : deleter) {
        if (key.first != table || rows.count(key.second) || inserter.count(key)) continue;
        for (int d : deleters) add(d, j, version_set_kind(s, table, true), Version{table, key.second, 0});
      }
    }
  }
  g.out_.assign(static_cast<std::size_t>(n), {});
  g.in_.assign(static_cast<std::size_t>(n), {});
  for (std::size_t e = 0; e < g.edges_.size(); ++e) {
    g.out_[static_cast<std::size_t>(g.edges_[e].from)].push_back(static_cast<int>(e));
    g.in_[static_cast<std::size_t>(g.edges_[e].to)].push_back(static_cast<int>(e));
  }
  return g;
}

bool Graph::has_edge(int from, int to, DepKind kind) const {
  return std::any_of(edges_.begin(), edges_.end(),
                     [&](const Edge& e) { return e.from == from && e.to == to && e.kind == kind; });
}

int Graph::find(int txn, int stmt) const {
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].txn == txn && nodes_[i].stmt == stmt) return static_cast<int>(i);
  return -1;
}

std::optional<std::vector<int>> Graph::cycle() const {
  const std::size_t n = nodes_.size();
  std::vector<int> color(n, 0), parent(n, -1);
  for (std::size_t root = 0; root < n; ++root) {
    if (color[root]) continue;
    // Iterative DFS: (node, next out-edge position).
    std::vector<std::pair<int, std::size_t>> stack = {{static_cast<int>(root), 0}};
    color[root] = 1;
    while (!stack.empty()) {
      auto& [u, k] = stack.back();
      const auto& outs = out_[static_cast<std::size_t>(u)];
      if (k == outs.size()) {
        color[static_cast<std::size_t>(u)] = 2;
        stack.pop_back();
        continue;
      }
      const int v = edges_[static_cast<std::size_t>(outs[k++])].to;
      if (color[static_cast<std::size_t>(v)] == 1) {
        std::vector<int> c;
        for (int w = u; w != v; w = parent[static_cast<std::size_t>(w)]) c.push_back(w);
        c.push_back(v);
        std::reverse(c.begin(), c.end());
        return c;
      }
      if (color[static_cast<std::size_t>(v)] == 0) {
        color[static_cast<std::size_t>(v)] = 1;
        parent[static_cast<std::size_t>(v)] = u;
        stack.push_back({v, 0});
      }
    }
  }
  return std::nullopt;
}

int Graph::pick_for_removal(const std::vector<int>& cycle) const {
  int best = cycle.front();
  std::size_t degree = 0;
  for (int v : cycle) {
    const std::size_t d = out_[static_cast<std::size_t>(v)].size() + in_[static_cast<std::size_t>(v)].size();
    if (d > degree) degree = d, best = v;
  }
  return best;
}

std::vector<int> Graph::topological_order() const {
  const std::size_t n = nodes_.size();
  std::vector<int> indegree(n, 0);
  for (const Edge& e : edges_) ++indegree[static_cast<std::size_t>(e.to)];
  auto later = [&](int a, int b) {
    const Node &x = nodes_[static_cast<std::size_t>(a)], &y = nodes_[static_cast<std::size_t>(b)];
    return std::tie(x.position, a) > std::tie(y.position, b);
  };
  std::priority_queue<int, std::vector<int>, decltype(later)> ready(later);
  for (std::size_t i = 0; i < n; ++i)
    if (!indegree[i]) ready.push(static_cast<int>(i));
  std::vector<int> order;
  while (!ready.empty()) {
    const int u = ready.top();
    ready.pop();
    order.push_back(u);
    for (int e : out_[static_cast<std::size_t>(u)])
      if (--indegree[static_cast<std::size_t>(edges_[static_cast<std::size_t>(e)].to)] == 0)
        ready.push(edges_[static_cast<std::size_t>(e)].to);
  }
  if (order.size() != n) order.clear();
  return order;
}

std::string Graph::label(int node) const {
  const Node& x = nodes_[static_cast<std::size_t>(node)];
  return fmt::format("T{}.{} {}", x.txn, x.stmt + 1, x.text);
}

std::string Graph::path_to(int node, const std::vector<int>& order) const {
  std::vector<int> rank(nodes_.size(), -1);
  for (std::size_t i = 0; i < order.size(); ++i) rank[static_cast<std::size_t>(order[i])] = static_cast<int>(i);
  std::vector<const Edge*> chain;
  std::set<int> visited = {node};
  for (int at = node;;) {
    const Edge* best = nullptr;
    for (int e : in_[static_cast<std::size_t>(at)]) {
      const Edge& edge = edges_[static_cast<std::size_t>(e)];
      if (!best || rank[static_cast<std::size_t>(edge.from)] > rank[static_cast<std::size_t>(best->from)]) best = &edge;
    }
    if (!best || !visited.insert(best->from).second) break;
    chain.push_back(best);
    at = best->from;
  }
  if (chain.empty()) return fmt::format("  {} depends on no statement\n", label(node));
  std::string out;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it)
    out += fmt::format("  {} -{}-> {} (row {} of {}, version {})\n", label((*it)->from), to_string((*it)->kind),
                       label((*it)->to), (*it)->evidence.row, (*it)->evidence.table, (*it)->evidence.version);
  return out;
}

std::string Graph::dot(const std::vector<int>& highlight) const {
  auto escape = [](std::string s) {
    std::string out;
    for (char c : s) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    return out;
  };
  std::string out = "digraph sdg {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n";
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const bool hot = std::find(highlight.begin(), highlight.end(), static_cast<int>(i)) != highlight.end();
    out += fmt::format("  n{} [label=\"{}\"{}];\n", i, escape(label(static_cast<int>(i))), hot ? ", color=red" : "");
  }
  for (const Edge& e : edges_)
    out += fmt::format("  n{} -> n{} [label=\"{}\"{}];\n", e.from, e.to, to_string(e.kind), is_item(e.kind) ? "" : ", style=dashed");
  out += "}\n";
  return out;
}

}  // namespace txprop::sdg
