#include "txprop/internal/adya_classify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "txprop/internal/adya_cycles.hpp"

namespace txprop::adya {

namespace {

// ------------------------------------------------------------------------------------------------ explanations

// Renders evidence in words. The per-transaction write index it needs is built once, and only when a finding exists.
class Explainer {
 public:
  explicit Explainer(const DependencyGraph& g) : g_(g), h_(g.history()) {
    const auto& obs = h_.observations();
    write_offsets_.assign(h_.txn_count() + 1, 0);
    for (const Observation& o : obs)
      if (o.kind() == OpKind::Write) ++write_offsets_[h_.txn_of(o) + 1];
    for (std::size_t t = 0; t < h_.txn_count(); ++t) write_offsets_[t + 1] += write_offsets_[t];
    writes_.resize(write_offsets_.back());
    std::vector<std::uint32_t> at(write_offsets_.begin(), write_offsets_.end() - 1);
    for (ObsIndex i = 0; i < obs.size(); ++i)  // stable: program order within a transaction
      if (obs[i].kind() == OpKind::Write) writes_[at[h_.txn_of(obs[i])]++] = i;
  }

  std::string txn(TxnId t) const { return t == kNone ? "?" : h_.label(t); }
  std::string row(RowIndex r) const { return fmt::format("row {}", h_.row_id(r)); }

  std::string version(std::span<const TxnId> v) const {
    std::string out = "[";
    auto put = [&](std::size_t i) {
      if (out.size() > 1) out += ",";
      out += h_.label(v[i]);
    };
    constexpr std::size_t kHead = 3, kTail = 6;  // long writer lists: their ends carry the evidence
    if (v.size() <= kHead + kTail + 2) {
      for (std::size_t i = 0; i < v.size(); ++i) put(i);
    } else {
      for (std::size_t i = 0; i < kHead; ++i) put(i);
      out += fmt::format(",...({} more)...", v.size() - kHead - kTail);
      for (std::size_t i = v.size() - kTail; i < v.size(); ++i) put(i);
    }
    return out + "]";
  }
  std::string version(RowIndex r, std::uint32_t len) const { return version(g_.version_order(r).first(len)); }

  std::string stmt(StmtIndex s) const {
    if (s == kNone) return "initial state";
    const std::string_view text = h_.statement_text(s);
    if (!text.empty()) return std::string(text);
    return fmt::format("statement {} of {}", s, txn(h_.statements()[s].txn));
  }
  std::string op(ObsIndex o) const { return stmt(h_.observations()[o].stmt); }

  // The statement that wrote position `pos` of the row's version order: the k-th recorded write of that transaction
  // to the row, where k counts its earlier entries in the version order.
  std::string write_op(RowIndex r, std::uint32_t pos) const {
    const auto c = g_.version_order(r);
    const TxnId t = c[pos];
    if (t == kInitialTxn) return "initial state";
    if (t >= h_.txn_count()) return "no such transaction";
    const std::size_t k = static_cast<std::size_t>(std::count(c.begin(), c.begin() + pos, t));
    std::optional<ObsIndex> found;
    std::size_t seen = 0;
    for (std::uint32_t i = write_offsets_[t]; i < write_offsets_[t + 1]; ++i) {
      const Observation& o = h_.observations()[writes_[i]];
      if (o.row != r) continue;
      found = writes_[i];
      if (seen++ == k) break;
    }
    return found ? op(*found) : "no recorded write";
  }

  std::optional<ObsIndex> write_of(TxnId t, RowIndex r) const {
    if (t >= h_.txn_count()) return std::nullopt;
    for (std::uint32_t i = write_offsets_[t]; i < write_offsets_[t + 1]; ++i)
      if (h_.observations()[writes_[i]].row == r) return writes_[i];
    return std::nullopt;
  }

  std::string position(Position p) const { return p == kUnknownPosition ? "unknown" : std::to_string(p); }
  // " (its first consistent read, ...)": the start a finding used, where the producer said what it is.
  std::string start_rule(TxnId t) const {
    const std::string r = h_.start_rule(t);
    return r.empty() ? r : " (" + r + ")";
  }

  std::string edge_line(const CycleEdge& ce) const {
    if (ce.edge == kNone) {  // start-dependency: `from` ended before `to` started
      return fmt::format("{} ended (at position {}) before {} started (at position {}{}): {} -start-> {}", txn(ce.from),
                         position(h_.txn(ce.from).end), txn(ce.to), position(h_.txn(ce.to).start), start_rule(ce.to),
                         txn(ce.from), txn(ce.to));
    }
    const Edge& e = g_.edges()[ce.edge];
    if (e.predicate()) return predicate_line(ce, e);
    const auto c = g_.version_order(e.row);
    const std::uint32_t m = static_cast<std::uint32_t>(c.size());
    const std::string arrow = fmt::format("{} -{}-> {}", txn(ce.from), to_string(e.type()), txn(ce.to));
    switch (e.type()) {
      case EdgeType::WR: {
        const Observation& o = h_.observations()[e.evidence()];
        return fmt::format("{} wrote {} at version {} ({}), and {} read that version ({}): {}", txn(ce.from),
                           row(e.row), version(e.row, o.length), write_op(e.row, o.length - 1), txn(ce.to),
                           op(e.evidence()), arrow);
      }
      case EdgeType::RW: {
        const Observation& o = h_.observations()[e.evidence()];
        const std::uint32_t len = o.length;
        std::uint32_t q = len;
        while (q < m && (!g_.committed(c[q]) || c[q] == c[len - 1])) ++q;
        if (q < m && c[q] == ce.to)
          return fmt::format("{} read {} at version {} ({}), and {} wrote the next {}version {} ({}): {}", txn(ce.from),
                             row(e.row), version(e.row, len), op(e.evidence()), txn(ce.to),
                             q == len ? "" : "committed ", version(e.row, q + 1), write_op(e.row, q), arrow);
        const ObsIndex d = g_.delete_observation(e.row);
        return fmt::format("{} read {} at version {} ({}), and {} deleted {} ({}): {}", txn(ce.from), row(e.row),
                           version(e.row, len), op(e.evidence()), txn(ce.to), row(e.row),
                           d == kNone ? std::string("?") : op(d), arrow);
      }
      case EdgeType::WW: {
        if (e.evidence() >= m) {  // to the deleter
          const ObsIndex d = g_.delete_observation(e.row);
          const std::uint32_t len = d == kNone ? m : h_.observations()[d].length;
          std::uint32_t p = len;
          while (p > 0 && c[p - 1] != ce.from) --p;
          return fmt::format("{} wrote {} at version {} ({}), and {} deleted that version ({}): {}", txn(ce.from),
                             row(e.row), version(e.row, len), p > 0 ? write_op(e.row, p - 1) : "?", txn(ce.to),
                             d == kNone ? std::string("?") : op(d), arrow);
        }
        const std::uint32_t q = e.evidence();
        std::uint32_t p = q;
        while (p > 0 && c[p - 1] != ce.from) --p;
        return fmt::format("{} wrote {} at version {} ({}), and {} wrote the next {}version {} ({}): {}", txn(ce.from),
                           row(e.row), version(e.row, p), p > 0 ? write_op(e.row, p - 1) : "?", txn(ce.to),
                           p == q ? "" : "committed ", version(e.row, q + 1), write_op(e.row, q), arrow);
      }
    }
    return arrow;
  }

  // A predicate edge: which predicate read, which row, which version's install changed whether it matches.
  std::string predicate_line(const CycleEdge& ce, const Edge& e) const {
    const PredicateEvidence& pe = g_.predicate_evidence(e);
    const PredicateRow& pr = h_.predicate_rows()[pe.prow];
    const auto order = h_.predicate_order(pr);
    const auto matches = h_.predicate_matches(pr);
    const std::uint32_t n = pr.order_length;
    auto state = [&](std::uint32_t k) -> std::string {
      if (k == 0) return "not yet inserted";
      if (k == n + 1) return "deleted";
      return fmt::format("version {}", version(order.first(k)));
    };
    auto matching = [&](std::uint32_t k) { return matches[k] == Match::Yes ? "matches" : "does not match"; };
    const TxnId writer = e.type() == EdgeType::WR ? ce.from : ce.to;
    const TxnId reader = e.type() == EdgeType::WR ? ce.to : ce.from;
    const std::string write = pe.version == n + 1 ? fmt::format("{} deleted row {}", txn(writer), pr.row)
                                                  : fmt::format("{} wrote row {} at {}", txn(writer), pr.row,
                                                                state(pe.version));
    const std::string_view pred = h_.predicate_text(pr.pred);
    const std::string read = fmt::format("{} read the predicate {} ({}) when row {} was {}, which {} it", txn(reader),
                                         pred.empty() ? std::string("TRUE") : std::string(pred),
                                         stmt(h_.predicate_statement(pr.pred)), pr.row, state(pr.seen),
                                         matching(pr.seen));
    const std::string arrow = fmt::format("{} -{}-> {} (predicate)", txn(ce.from), to_string(e.type()), txn(ce.to));
    if (e.type() == EdgeType::WR)
      return fmt::format("{}, which {} it; {}: that write changed the predicate's matches before the read: {}", write,
                         matching(pe.version), read, arrow);
    return fmt::format("{}; {} later, which {} it, changing the predicate's matches: {}", read, write,
                       matching(pe.version), arrow);
  }

  static std::string quote(const std::string& s) {
    std::string out = "\"";
    for (char ch : s) {
      if (ch == '"' || ch == '\\') out += '\\';
      out += ch;
    }
    return out + "\"";
  }

  std::string dot_edge(const std::string& name, TxnId from, TxnId to, const std::string& label) const {
    return fmt::format(
        "digraph {} {{\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n  t{} [label={}];\n"
        "  t{} [label={}];\n  t{} -> t{} [label={}];\n}}\n",
        quote(name), from, quote(txn(from)), to, quote(txn(to)), from, to, quote(label));
  }

  std::string dot(const std::string& name, const std::vector<CycleEdge>& edges, const std::string& note = {}) const {
    std::string out =
        fmt::format("digraph {} {{\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n", quote(name));
    std::vector<TxnId> nodes;
    for (const CycleEdge& e : edges) {
      nodes.push_back(e.from);
      nodes.push_back(e.to);
    }
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    for (TxnId t : nodes) out += fmt::format("  t{} [label={}];\n", t, quote(txn(t)));
    for (const CycleEdge& e : edges) {
      std::string label;
      if (e.edge == kNone) {
        label = "start";
      } else {
        const Edge& ed = g_.edges()[e.edge];
        label = fmt::format("{} {}{}", to_string(ed.type()), row(ed.row), ed.predicate() ? " (predicate)" : "");
      }
      if (!note.empty()) label += " " + note;
      out += fmt::format("  t{} -> t{} [label={}];\n", e.from, e.to, quote(label));
    }
    return out + "}\n";
  }

 private:
  const DependencyGraph& g_;
  const ObservedHistory& h_;
  std::vector<std::uint32_t> write_offsets_;
  std::vector<ObsIndex> writes_;
};

// ------------------------------------------------------------------------------------------------ reporting

class Reporter {
 public:
  Reporter(const DependencyGraph& g, const std::set<std::string>& proscribed, const CheckOptions& opt)
      : g_(g), p_(proscribed), opt_(opt) {}

  bool wants(std::string_view kind) const { return is_proscribed(p_, kind); }
  bool wants_any(std::initializer_list<std::string_view> kinds) const {
    return std::any_of(kinds.begin(), kinds.end(), [&](std::string_view k) { return wants(k); });
  }

  const Explainer& ex() {
    if (!ex_) ex_.emplace(g_);
    return *ex_;
  }

  // Builds the text only for findings that are reported and within the cap. `involved` are the transactions of the
  // phenomenon, `deciding` those whose level decides whether it counts (Finding::deciding); the initial state is
  // neither.
  void add(const std::string& kind, const std::function<std::string()>& explanation,
           const std::function<std::string()>& dot = {}, const std::vector<TxnId>& involved = {},
           const std::vector<TxnId>& deciding = {}) {
    if (!wants(kind)) return;
    auto& [first, count] = per_kind_[kind];
    if (count++ >= opt_.max_findings_per_kind) return;
    if (count == 1) first = findings_.size();
    Finding f;
    f.kind = kind;
    f.explanation = explanation();
    if (dot) f.graph_dot = dot();
    // TxnId t is the history's transaction t - 1 (0 is the initial state).
    auto indexes = [](const std::vector<TxnId>& ids) {
      std::vector<int> out;
      for (TxnId t : ids)
        if (t != kInitialTxn && t != kNone && std::find(out.begin(), out.end(), static_cast<int>(t) - 1) == out.end())
          out.push_back(static_cast<int>(t) - 1);
      return out;
    };
    f.transactions = indexes(involved);
    f.deciding = indexes(deciding);
    findings_.push_back(std::move(f));
  }

  // Called with every kind (to classify each finding's standing afterwards): "proscribed here" would say nothing.
  bool wants_everything() const {
    return std::all_of(adya_kinds().begin(), adya_kinds().end(), [&](const std::string& k) { return p_.count(k) != 0; });
  }

  std::string proscribed_as(const std::string& kind) const {
    std::vector<std::string> hit;
    for (const std::string& c : classes_of(kind))
      if (p_.count(c)) hit.push_back(c);
    return fmt::format("{}", fmt::join(hit, ", "));
  }

  std::vector<Finding> finish() {
    for (const auto& [kind, fc] : per_kind_) {
      if (fc.second <= opt_.max_findings_per_kind) continue;
      findings_[fc.first].explanation += fmt::format("\n({} more {} findings in this history are not shown.)",
                                                     fc.second - opt_.max_findings_per_kind, kind);
    }
    return std::move(findings_);
  }

 private:
  const DependencyGraph& g_;
  const std::set<std::string>& p_;
  const CheckOptions& opt_;
  std::optional<Explainer> ex_;
  std::vector<Finding> findings_;
  std::map<std::string, std::pair<std::size_t, std::size_t>> per_kind_;  // kind -> (first finding, count)
};

std::string join_words(const std::vector<std::string>& xs) {
  if (xs.empty()) return "";
  if (xs.size() == 1) return xs[0];
  std::string out;
  for (std::size_t i = 0; i + 1 < xs.size(); ++i) out += (i ? ", " : "") + xs[i];
  return out + " and " + xs.back();
}

// G1a: a committed transaction observed an aborted write (each reader and aborted writer once).
void report_aborted_read(const DependencyGraph& g, Reporter& rep, const DirectAnomaly& a,
                         std::set<std::pair<TxnId, TxnId>>& seen) {
  const ObservedHistory& h = g.history();
  const Observation& o = h.observations()[a.obs];
  const std::span<const TxnId> wl = h.wlist(o);
  const TxnId aborted = wl[a.pos];
  if (!rep.wants("G1a") || !seen.emplace(h.txn_of(o), aborted).second) return;
  rep.add(
      "G1a",
      [&] {
        const Explainer& ex = rep.ex();
        const bool last = a.pos + 1 == o.length;
        const std::optional<ObsIndex> w = ex.write_of(aborted, a.row);
        return fmt::format(
            "{} {} {} at version {} ({}), which contains the write of {} ({}), and {} aborted (at position "
            "{}){}.\n"
            "A committed transaction observed an aborted write: G1a (aborted read).",
            ex.txn(h.txn_of(o)), o.kind() == OpKind::DeleteRead ? "deleted" : "read", ex.row(a.row),
            ex.version(wl), ex.op(a.obs), ex.txn(aborted), w ? ex.op(*w) : "no recorded write", ex.txn(aborted),
            ex.position(h.txn(aborted).end),
            last ? "" : "; the aborted write survived into the later versions written on top of it");
      },
      [&] {
        return rep.ex().dot_edge("G1a", aborted, h.txn_of(o),
                                 fmt::format("wr {} (aborted writer)", rep.ex().row(a.row)));
      },
      {h.txn_of(o), aborted}, {h.txn_of(o)});
}

// G1b: a read of a version that is not its writer's final one (each reader and writer once).
void report_intermediate_read(const DependencyGraph& g, Reporter& rep, const DirectAnomaly& a,
                              std::set<std::pair<TxnId, TxnId>>& seen) {
  const ObservedHistory& h = g.history();
  const auto c = g.version_order(a.row);
  const Observation& o = h.observations()[a.obs];
  const TxnId w = c[a.pos];
  if (!rep.wants("G1b") || !seen.emplace(h.txn_of(o), w).second) return;
  rep.add("G1b", [&] {
    const Explainer& ex = rep.ex();
    std::uint32_t later = a.pos + 1;
    while (later < c.size() && c[later] != w) ++later;
    std::string then;
    if (later < c.size())
      then = fmt::format("but {} wrote {} again later (version {}, {})", ex.txn(w), ex.row(a.row),
                         ex.version(a.row, later + 1), ex.write_op(a.row, later));
    else
      then = fmt::format("but {} later deleted {} ({})", ex.txn(w), ex.row(a.row),
                         ex.op(g.delete_observation(a.row)));
    return fmt::format(
        "{} read {} at version {} ({}), {}: {} read a version that is not {}'s final one: G1b (intermediate "
        "read).",
        ex.txn(h.txn_of(o)), ex.row(a.row), ex.version(a.row, o.length), ex.op(a.obs), then, ex.txn(h.txn_of(o)),
        ex.txn(w));
  }, {}, {h.txn_of(o), w}, {h.txn_of(o)});
}

// Why a row's versions cannot have happened (an impossible history), in words.
std::string impossible_explanation(const DependencyGraph& g, const Explainer& ex, const DirectAnomaly& a) {
  const ObservedHistory& h = g.history();
  const auto c = g.version_order(a.row);
  const ObsIndex witness = h.branch_witness(a.row, g.version_branch(a.row));
  auto seen_by = [&](ObsIndex o) {
    return o == kNone ? std::string("no observation")
                      : fmt::format("seen by {}: {}", ex.txn(h.txn_of(h.observations()[o])), ex.op(o));
  };
  const std::string chain = fmt::format("{} ({})", ex.version(c), seen_by(witness));
  switch (a.kind) {
    case DirectKind::Divergent: {
      const Observation& o = h.observations()[a.obs];
      return fmt::format(
          "Row {} has two writer lists, neither a prefix of the other: {} ({}) and {}; they agree on the first "
          "{} "
          "entr{} only. A version was written on top of a version other than the latest, or a read returned a "
          "version that never existed: impossible history.",
          h.row_id(a.row), ex.version(h.wlist(o)), seen_by(a.obs), chain, a.pos, a.pos == 1 ? "y" : "ies");
    }
    case DirectKind::EmptyWList:
      return fmt::format(
          "{} observed {} with an empty writer list ({}): every version has a writer: "
          "impossible history.",
          ex.txn(h.txn_of(h.observations()[a.obs])), ex.row(a.row), ex.op(a.obs));
    case DirectKind::UnknownWriter:
      return fmt::format(
          "The writer list of {} {} names T{} at position {}, a transaction that does not exist "
          "in this history: impossible history.",
          ex.row(a.row), chain, c[a.pos], a.pos + 1);
    case DirectKind::NoWriteRecorded:
      return fmt::format(
          "The writer list of {} {} names {} at position {}, but {} recorded no write of {}: "
          "impossible history.",
          ex.row(a.row), chain, ex.txn(c[a.pos]), a.pos + 1, ex.txn(c[a.pos]), ex.row(a.row));
    case DirectKind::NotInserted:
      if (c[0] == kInitialTxn)
        return fmt::format(
            "The first version of {} is T0's {}, but {} is not a row of the initial state and "
            "no transaction inserted it: impossible history.",
            ex.row(a.row), chain, ex.row(a.row));
      return fmt::format(
          "The first version of {} {} was written by {}, which recorded no insert of {} (and "
          "it is not an initial row): impossible history.",
          ex.row(a.row), chain, ex.txn(c[0]), ex.row(a.row));
    case DirectKind::InitialNotFirst:
      return fmt::format(
          "The writer list of {} {} names T0 at position {}; T0 only wrote the initial "
          "versions: impossible history.",
          ex.row(a.row), chain, a.pos + 1);
    case DirectKind::DeletedNotLast: {
      const Observation& o = h.observations()[a.obs];
      return fmt::format(
          "{} deleted {} at version {} ({}) and committed, but a later version {} was observed: "
          "a deleted row was written again: impossible history.",
          ex.txn(h.txn_of(o)), ex.row(a.row), ex.version(a.row, o.length), ex.op(a.obs), chain);
    }
    case DirectKind::DeletedTwice: {
      const Observation& o = h.observations()[a.obs];
      const Observation& p = h.observations()[a.other];
      return fmt::format("{} ({}) and {} ({}) both deleted {} and both committed: impossible history.",
                         ex.txn(h.txn_of(p)), ex.op(a.other), ex.txn(h.txn_of(o)), ex.op(a.obs), ex.row(a.row));
    }
    default: return std::string("impossible history");
  }
}

void report_direct(const DependencyGraph& g, Reporter& rep, const CheckOptions& opt) {
  std::set<std::pair<TxnId, TxnId>> g1a_seen, g1b_seen;
  for (const DirectAnomaly& a : g.direct_anomalies()) {
    const auto c = g.version_order(a.row);
    switch (a.kind) {
      case DirectKind::AbortedRead: report_aborted_read(g, rep, a, g1a_seen); break;
      case DirectKind::IntermediateRead: report_intermediate_read(g, rep, a, g1b_seen); break;
      default:
        // Unrecorded writes are not evidence when the producer could not record every write.
        if (!opt.writes_complete &&
            (a.kind == DirectKind::NoWriteRecorded || (a.kind == DirectKind::NotInserted && c[0] != kInitialTxn)))
          break;
        rep.add("impossible-history", [&] { return impossible_explanation(g, rep.ex(), a); });
        break;
    }
  }
}

// Edges that break snapshot isolation's real-time rules, found in one pass over all edges (the positions of both ends
// are random reads, so one pass instead of two halves the cache misses). Each (source, target) pair once.
struct SnapshotEdges {
  std::vector<CycleEdge> interference;   // G-SIa: Tj read- or write-depends on Ti, and Ti had not ended when Tj started
  std::vector<CycleEdge> missed_effect;  // G-SIb: Ti -rw-> Tj, although Tj ended before Ti started
};

SnapshotEdges snapshot_edges(const DependencyGraph& g, bool want_a, bool want_b) {
  SnapshotEdges out;
  if (!want_a && !want_b) return out;
  const ObservedHistory& h = g.history();
  const std::size_t n = g.node_count();
  // The target's positions are a random read per edge: a compact copy (start, end as 32-bit values when they fit)
  // keeps those reads in cache far more often than the 32-byte TxnInfo records do.
  constexpr std::uint32_t kUnknown32 = kNone;
  bool narrow = true;
  for (TxnId t = 1; t < n && narrow; ++t) {
    const TxnInfo& i = h.txn(t);
    narrow = (i.start == kUnknownPosition || i.start < kUnknown32) && (i.end == kUnknownPosition || i.end < kUnknown32);
  }
  std::vector<std::uint64_t> narrow_pos;
  if (narrow) {
    narrow_pos.resize(n);
    for (TxnId t = 0; t < n; ++t) {
      const TxnInfo& i = h.txn(t);
      const std::uint64_t s = i.start == kUnknownPosition ? kUnknown32 : i.start;
      const std::uint64_t e = i.end == kUnknownPosition ? kUnknown32 : i.end;
      narrow_pos[t] = s << 32 | e;
    }
  }
  auto positions = [&](TxnId t) -> std::pair<Position, Position> {  // (start, end)
    if (!narrow) return {h.txn(t).start, h.txn(t).end};
    const std::uint64_t v = narrow_pos[t];
    const std::uint32_t s = static_cast<std::uint32_t>(v >> 32), e = static_cast<std::uint32_t>(v);
    return {s == kUnknown32 ? kUnknownPosition : s, e == kUnknown32 ? kUnknownPosition : e};
  };

  for (TxnId t = 1; t < n; ++t) {  // T0 ended before everything: nothing to find from it
    const auto es = g.out_edges(t);
    if (es.empty()) continue;
    const auto [start, end] = positions(t);
    if (start == kUnknownPosition && end == kUnknownPosition) continue;
    for (std::uint32_t i = 0; i < es.size(); ++i) {
      const Edge& e = es[i];
      if (e.to == kInitialTxn) continue;
      const auto [to_start, to_end] = positions(e.to);
      if (e.type() == EdgeType::RW) {
        if (want_b && to_end != kUnknownPosition && start != kUnknownPosition && to_end < start)
          out.missed_effect.push_back({t, e.to, g.first_edge(t) + i});
      } else if (want_a && end != kUnknownPosition && to_start != kUnknownPosition && end >= to_start) {
        out.interference.push_back({t, e.to, g.first_edge(t) + i});
      }
    }
  }
  // One finding per (source, target) pair: the first edge in CSR order, which is already sorted by source.
  for (auto* v : {&out.interference, &out.missed_effect}) {
    std::stable_sort(v->begin(), v->end(), [](const CycleEdge& a, const CycleEdge& b) {
      return std::tie(a.from, a.to) < std::tie(b.from, b.to);
    });
    v->erase(std::unique(v->begin(), v->end(),
                         [](const CycleEdge& a, const CycleEdge& b) { return a.from == b.from && a.to == b.to; }),
             v->end());
  }
  return out;
}

void report_gsia(const DependencyGraph& g, Reporter& rep, const std::vector<CycleEdge>& edges) {
  for (const CycleEdge& ce : edges) {
    rep.add(
        "G-SIa",
        [&] {
          const Explainer& ex = rep.ex();
          const ObservedHistory& h = g.history();
          const Edge& e = g.edges()[ce.edge];
          return fmt::format(
              "{}\n{} ended at position {}, not before {} started at position {}{}: {} {} a write of a transaction "
              "that had not committed when {} started: G-SIa (interference).",
              ex.edge_line(ce), ex.txn(ce.from), ex.position(h.txn(ce.from).end), ex.txn(ce.to),
              ex.position(h.txn(ce.to).start), ex.start_rule(ce.to), ex.txn(ce.to),
              e.type() == EdgeType::WR ? "read" : "overwrote", ex.txn(ce.to));
        },
        [&] { return rep.ex().dot("G-SIa", {ce}); }, {ce.from, ce.to}, {ce.to});
  }
}

// The named refinement of a cycle (levels.hpp: the most specific kind is reported).
std::string cycle_kind(const DependencyGraph& g, const Cycle& cy) {
  switch (cy.cls) {
    case CycleClass::G0: return "G0";
    case CycleClass::G1c: return "G1c";
    case CycleClass::GSingle:
      if (cy.edges.size() == 2) {
        const Edge& rw = g.edges()[cy.edges[0].edge];
        const Edge& back = g.edges()[cy.edges[1].edge];
        if (back.type() == EdgeType::WW && back.row == rw.row) return "lost-update";
        if (back.row != rw.row) return "read-skew";
      }
      return "G-single";
    case CycleClass::G2Item:
      if (cy.edges.size() == 2 && g.edges()[cy.edges[0].edge].row != g.edges()[cy.edges[1].edge].row)
        return "write-skew";
      return "G2-item";
    case CycleClass::GSinglePredicate: return "G-single-predicate";
    case CycleClass::G2Predicate: return "G2";
  }
  return "G2";
}

std::string cycle_summary(const DependencyGraph& g, const Explainer& ex, const Cycle& cy, const std::string& kind) {
  std::size_t rw = 0, wr = 0;
  for (const CycleEdge& e : cy.edges) {
    rw += g.edges()[e.edge].type() == EdgeType::RW;
    wr += g.edges()[e.edge].type() == EdgeType::WR;
  }
  auto row_of = [&](std::size_t i) { return ex.row(g.edges()[cy.edges[i].edge].row); };
  switch (cy.cls) {
    case CycleClass::G0: return "This cycle consists of write-write dependencies only: G0 (dirty write).";
    case CycleClass::G1c:
      return fmt::format(
          "This cycle consists of write-write and write-read dependencies, {} of them write-read: G1c "
          "(circular information flow).",
          wr);
    case CycleClass::GSingle: {
      std::string detail;
      if (kind == "lost-update") {
        detail = fmt::format(" (lost update: both wrote {})", row_of(0));
      } else if (kind == "read-skew") {
        const Edge& back = g.edges()[cy.edges[1].edge];
        detail = fmt::format(" (read skew: the anti-dependency is on {}, the write-{} dependency on {})", row_of(0),
                             back.type() == EdgeType::WW ? "write" : "read", row_of(1));
      } else if (cy.edges.size() == 2) {
        detail = fmt::format(" (non-repeatable read: {} read {} before and after {} wrote it)",
                             ex.txn(cy.edges[0].from), row_of(0), ex.txn(cy.edges[0].to));
      }
      return "This cycle has exactly one anti-dependency: G-single" + detail + ".";
    }
    case CycleClass::G2Item: {
      std::string detail;
      if (kind == "write-skew")
        detail = fmt::format(" (write skew: {} and {} each read a row the other then wrote: {} and {})",
                             ex.txn(cy.edges[0].from), ex.txn(cy.edges[0].to), row_of(0), row_of(1));
      return fmt::format("This cycle has {} anti-dependencies: G2-item{}.", rw, detail);
    }
    case CycleClass::GSinglePredicate:
      return "This cycle has exactly one anti-dependency, a predicate anti-dependency: G-single (with a predicate "
             "edge; not a G2-item).";
    case CycleClass::G2Predicate:
      return fmt::format(
          "This cycle has {} anti-dependencies, all of them predicate anti-dependencies: G2 (phantom{}), not a "
          "G2-item.",
          rw, cy.edges.size() == 2 ? fmt::format(": {} and {} each read a predicate the other's write then changed",
                                                 ex.txn(cy.edges[0].from), ex.txn(cy.edges[0].to))
                                   : std::string());
  }
  return {};
}

std::vector<TxnId> cycle_transactions(const Cycle& cy) {
  std::vector<TxnId> out;
  for (const CycleEdge& e : cy.edges) out.push_back(e.from);
  return out;
}

// Adya's mixed-level serialization graph keeps a read-dependency only where its reader (the target) and an
// anti-dependency only where its reader (the source) runs at a level that proscribes the phenomenon; write-dependencies
// always count. So the readers decide whether a cycle counts.
std::vector<TxnId> cycle_readers(const DependencyGraph& g, const Cycle& cy) {
  std::vector<TxnId> out;
  for (const CycleEdge& e : cy.edges) {
    if (e.edge == kNone) continue;  // a start-dependency
    const EdgeType type = g.edges()[e.edge].type();
    if (type == EdgeType::WR) out.push_back(e.to);
    if (type == EdgeType::RW) out.push_back(e.from);
  }
  return out;
}

void report_cycles(const DependencyGraph& g, Reporter& rep, const CheckOptions& opt) {
  std::vector<CycleClass> classes;
  if (rep.wants_any({"G0"})) classes.push_back(CycleClass::G0);
  if (rep.wants_any({"G1c"})) classes.push_back(CycleClass::G1c);
  if (rep.wants_any({"G-single", "lost-update", "read-skew"})) classes.push_back(CycleClass::GSingle);
  if (rep.wants_any({"G2-item", "write-skew"})) classes.push_back(CycleClass::G2Item);
  if (g.predicate_edge_count() > 0) {
    if (rep.wants_any({"G-single-predicate"})) classes.push_back(CycleClass::GSinglePredicate);
    if (rep.wants_any({"G2"})) classes.push_back(CycleClass::G2Predicate);
  }
  if (classes.empty()) return;
  CycleFinder finder(g, opt.search_budget);
  for (std::size_t c = 0; c < finder.component_count(); ++c) {
    // A predicate class is reported only where no item cycle already shows as much in this component (classes are
    // searched in the order above): an item G-single is proscribed wherever a predicate G-single or G2 is, a G2-item
    // wherever a predicate G2 is. Otherwise a read skew whose read also was a predicate read would be reported twice.
    bool item_single = false, item_or_predicate_single = false, item_g2 = false;
    for (CycleClass cls : classes) {
      if (cls == CycleClass::GSinglePredicate && item_single) continue;
      if (cls == CycleClass::G2Predicate && (item_or_predicate_single || item_g2)) continue;
      const std::optional<Cycle> cy = finder.smallest(c, cls);
      if (!cy) continue;
      if (cls == CycleClass::GSingle) item_single = item_or_predicate_single = true;
      if (cls == CycleClass::GSinglePredicate) item_or_predicate_single = true;
      if (cls == CycleClass::G2Item) item_g2 = true;
      const std::string kind = cycle_kind(g, *cy);
      rep.add(
          kind,
          [&] {
            const Explainer& ex = rep.ex();
            std::string out;
            for (const CycleEdge& e : cy->edges) out += ex.edge_line(e) + "\n";
            out += cycle_summary(g, ex, *cy, kind);
            std::vector<std::string> also;
            for (const char* k : {"G0", "G1c", "G-single", "G-SIb", "G2-item", "G2"})
              if (classes_of(kind).count(k) && kind != k && std::string_view(to_string(cy->cls)) != k)
                also.push_back(k);
            if (!also.empty()) out += " It is also " + join_words(also) + " in Adya's terms.";
            if (!rep.wants_everything()) out += " Proscribed here as " + rep.proscribed_as(kind) + ".";
            if (cy->budget_exhausted)
              out += fmt::format(
                  "\n(The search stopped at its budget in a component of {} transactions: a shorter "
                  "cycle of this kind may exist.)",
                  finder.component(c).size());
            return out;
          },
          [&] { return rep.ex().dot(kind, cy->edges); }, cycle_transactions(*cy), cycle_readers(g, *cy));
    }
  }
}

// G-SIb through a start-dependency: Ti -rw-> Tj although Tj ended before Ti started (Ti's snapshot missed Tj's
// committed write). Any G-SIb cycle whose ww/wr edges respect real time collapses to this two-edge shape, because
// start-dependencies compose (c_i < s_j < c_j < s_k). Cycles that need a G-SIa edge as well are reported through that
// edge; DSG cycles with exactly one rw are reported as G-single (a G-SIb too).
void report_gsib_start(const DependencyGraph& g, Reporter& rep, const std::vector<CycleEdge>& edges) {
  for (const CycleEdge& ce : edges) {
    const std::vector<CycleEdge> cycle = {ce, {ce.to, ce.from, kNone}};
    rep.add(
        "G-SIb",
        [&] {
          const Explainer& ex = rep.ex();
          return fmt::format(
              "{}\n{}\nThis cycle has exactly one anti-dependency and a start-dependency: G-SIb "
              "(missed effects: {} started after {} ended, yet did not see its write of {}).",
              ex.edge_line(cycle[0]), ex.edge_line(cycle[1]), ex.txn(ce.from), ex.txn(ce.to),
              ex.row(g.edges()[ce.edge].row));
        },
        [&] { return rep.ex().dot("G-SIb", cycle); }, {ce.from, ce.to}, {ce.from});
  }
}

}  // namespace

std::vector<Finding> classify(const DependencyGraph& graph, const std::set<std::string>& proscribed,
                              const CheckOptions& options) {
  Reporter rep(graph, proscribed, options);
  report_direct(graph, rep, options);
  const SnapshotEdges si = snapshot_edges(graph, rep.wants("G-SIa"), rep.wants("G-SIb"));
  report_gsia(graph, rep, si.interference);
  report_cycles(graph, rep, options);
  report_gsib_start(graph, rep, si.missed_effect);
  return rep.finish();
}

Verdict check(const ObservedHistory& history, const std::set<std::string>& proscribed, const CheckOptions& options) {
  const DependencyGraph g = DependencyGraph::build(history);
  Verdict v;
  v.property = "adya";
  v.findings = classify(g, proscribed, options);
  if (g.predicate_edge_count() > 0) v.tags.push_back("predicate-edges");
  std::size_t committed = 0;
  for (TxnId t = 1; t < history.txn_count(); ++t) committed += history.committed(t);
  v.note = fmt::format(
      "{} transactions ({} committed), {} rows; dependency edges: ww {}, wr {}, rw {} ({} of them predicate edges, "
      "from {} predicate reads)",
      history.txn_count() - 1, committed, history.distinct_rows(), g.edge_count(EdgeType::WW),
      g.edge_count(EdgeType::WR), g.edge_count(EdgeType::RW), g.predicate_edge_count(), history.predicate_read_count());
  return v;
}

Verdict check(const ObservedHistory& history, AdyaLevel level, const CheckOptions& options) {
  Verdict v = check(history, proscribed(level), options);
  v.note = fmt::format("{}: {}", to_string(level), v.note);
  return v;
}

}  // namespace txprop::adya
