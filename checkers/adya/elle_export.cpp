#include "txprop/internal/adya_elle.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <ostream>
#include <sstream>
#include <tuple>
#include <vector>

namespace txprop::adya {

namespace {

std::uint64_t element(TxnId t, std::uint64_t occurrence) { return t + (occurrence << 32); }

std::string elements(std::span<const TxnId> wlist) {
  std::string out = "[";
  std::map<TxnId, std::uint64_t> occurrences;  // only for writers that repeat; wLists are short in practice
  for (std::size_t i = 0; i < wlist.size(); ++i) {
    if (i) out += ' ';
    out += std::to_string(element(wlist[i], occurrences[wlist[i]]++));
  }
  return out + "]";
}

}  // namespace

void write_elle_history(std::ostream& os, const ObservedHistory& h) {
  const auto& obs = h.observations();
  const auto& stmts = h.statements();
  const std::size_t n = h.txn_count();

  // Observations grouped by transaction in program order: by statement (statements of a transaction are added in
  // program order), then by insertion order. Two stable counting sorts.
  std::vector<std::uint32_t> per_stmt(stmts.size() + 1, 0);
  for (const Observation& o : obs)
    if (o.stmt != kNone) ++per_stmt[o.stmt + 1];
  for (std::size_t s = 0; s < stmts.size(); ++s) per_stmt[s + 1] += per_stmt[s];
  std::vector<ObsIndex> by_stmt(per_stmt.back());
  {
    std::vector<std::uint32_t> at(per_stmt.begin(), per_stmt.end() - 1);
    for (ObsIndex i = 0; i < obs.size(); ++i)
      if (obs[i].stmt != kNone) by_stmt[at[obs[i].stmt]++] = i;
  }
  std::vector<std::uint32_t> per_txn(n + 1, 0);
  for (ObsIndex i : by_stmt) ++per_txn[h.txn_of(obs[i]) + 1];
  for (std::size_t t = 0; t < n; ++t) per_txn[t + 1] += per_txn[t];
  std::vector<ObsIndex> by_txn(by_stmt.size());
  {
    std::vector<std::uint32_t> at(per_txn.begin(), per_txn.end() - 1);
    for (ObsIndex i : by_stmt) by_txn[at[h.txn_of(obs[i])]++] = i;
  }

  // One EDN vector of micro-operations; `filled` puts the observed lists in reads, otherwise nil (the invocation).
  auto value = [&](TxnId t, bool filled) {
    std::string out = "[";
    std::map<RowIndex, std::uint64_t> appends;
    for (std::uint32_t k = per_txn[t]; k < per_txn[t + 1]; ++k) {
      const Observation& o = obs[by_txn[k]];
      std::string mop;
      if (o.is_read()) {
        mop = fmt::format("[:r {} {}]", h.row_id(o.row), filled ? elements(h.wlist(o)) : "nil");
      } else if (o.write_kind() != WriteKind::Delete) {
        mop = fmt::format("[:append {} {}]", h.row_id(o.row), element(t, appends[o.row]++));
      } else {
        continue;
      }
      if (out.size() > 1) out += ' ';
      out += mop;
    }
    return out + "]";
  };

  std::uint64_t index = 0;
  auto op = [&](const char* type, std::uint64_t process, const std::string& v) {
    os << "{:type " << type << ", :f :txn, :value " << v << ", :process " << process << ", :index " << index++ << "}\n";
  };

  // T0: the initial state, as one committed transaction before everything else.
  std::string init = "[";
  for (RowIndex r = 0; r < h.row_count(); ++r) {
    if (!h.is_initial_row(r)) continue;
    if (init.size() > 1) init += ' ';
    init += fmt::format("[:append {} 0]", h.row_id(r));
  }
  init += "]";
  if (init.size() > 2) {
    op(":invoke", 0, init);
    op(":ok", 0, init);
  }

  // Real-time order of invocations and completions; a transaction whose positions are unknown goes last, in id order.
  constexpr Position kLast = kUnknownPosition;
  std::vector<std::tuple<Position, int, TxnId>> events;
  for (TxnId t = 1; t < n; ++t) {
    const TxnInfo& info = h.txn(t);
    if (!info.registered) continue;
    const Position s = info.start != kUnknownPosition ? info.start : info.end;
    const Position e = info.end != kUnknownPosition ? info.end : s;
    events.emplace_back(s == kUnknownPosition ? kLast : s, 0, t);
    events.emplace_back(e == kUnknownPosition ? kLast : e, 1, t);
  }
  std::sort(events.begin(), events.end(), [](const auto& a, const auto& b) {
    // Unknown positions: keep each transaction's invoke right before its completion.
    if (std::get<0>(a) == kLast && std::get<0>(b) == kLast)
      return std::tie(std::get<2>(a), std::get<1>(a)) < std::tie(std::get<2>(b), std::get<1>(b));
    return a < b;
  });
  for (const auto& [pos, completion, t] : events) {
    const Fate fate = h.txn(t).fate;
    if (!completion)
      op(":invoke", t, value(t, false));
    else if (fate == Fate::Committed)
      op(":ok", t, value(t, true));
    else if (fate == Fate::Aborted)
      op(":fail", t, value(t, false));
    else
      op(":info", t, value(t, false));
  }
}

std::string to_elle_edn(const ObservedHistory& history) {
  std::ostringstream os;
  write_elle_history(os, history);
  return os.str();
}

}  // namespace txprop::adya
