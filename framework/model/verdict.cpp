#include "txprop/verdict.hpp"

#include <algorithm>
#include <ostream>

namespace txprop {

std::string_view to_string(Standing s) {
  switch (s) {
    case Standing::Fails: return "fails";
    case Standing::Deviation: return "deviation";
    case Standing::Documented: return "documented";
    case Standing::Allowed: return "allowed";
  }
  return "fails";
}

StandingDecision decide_standing(const std::vector<int>& deciding, const std::vector<int>& involved,
                                 std::size_t transactions, const LevelStanding& level) {
  const std::vector<int>& some = involved.empty() ? deciding : involved;
  if (some.empty()) return {};
  auto in_range = [&](int t) { return t >= 0 && static_cast<std::size_t>(t) < transactions; };
  // Whether the levels, read through `by` (promised or claimed), proscribe the kind.
  auto counts = [&](bool LevelStance::*by) {
    auto proscribes = [&](int t) { return in_range(t) && level(t).*by; };
    return std::all_of(deciding.begin(), deciding.end(), proscribes) && std::any_of(some.begin(), some.end(), proscribes);
  };
  if (counts(&LevelStance::proscribed)) return {};
  StandingDecision d{counts(&LevelStance::claimed) ? Standing::Documented : Standing::Allowed, -1};
  std::vector<int> candidates = deciding;
  candidates.insert(candidates.end(), involved.begin(), involved.end());
  auto first_not = [&](bool LevelStance::*by) {
    for (int t : candidates)
      if (in_range(t) && !(level(t).*by)) return t;
    return -1;
  };
  d.by = d.standing == Standing::Allowed ? first_not(&LevelStance::claimed) : -1;
  if (d.by < 0) d.by = first_not(&LevelStance::proscribed);
  return d;
}

StandingDecision decide_standing(const Finding& f, std::size_t transactions, const LevelStanding& level) {
  if (f.deciding.empty() && f.transactions.empty()) return decide_standing({0}, {0}, transactions, level);
  return decide_standing(f.deciding, f.transactions, transactions, level);
}

bool Verdict::fails() const {
  return std::any_of(findings.begin(), findings.end(), [](const Finding& f) { return f.fails(); });
}

bool Verdict::only_deviations() const {
  return fails() && std::all_of(findings.begin(), findings.end(),
                                [](const Finding& f) { return f.standing != Standing::Fails; });
}

bool Verdict::has(std::string_view kind) const {
  return std::any_of(findings.begin(), findings.end(), [&](const Finding& f) { return f.kind == kind; });
}

std::string Verdict::summary() const {
  if (inconclusive && findings.empty()) return "inconclusive";
  if (findings.empty()) return "ok";
  for (const Finding& f : findings)
    if (f.fails()) return f.kind;
  for (const Finding& f : findings)
    if (f.standing != Standing::Allowed) return "documented " + f.kind;
  std::vector<std::string> kinds;
  for (const Finding& f : findings)
    if (std::find(kinds.begin(), kinds.end(), f.kind) == kinds.end()) kinds.push_back(f.kind);
  std::string out = "allowed";
  for (const std::string& k : kinds) out += (out.size() == 7 ? " " : ", ") + k;
  return out;
}

namespace {

std::string_view standing_label(Standing s) {
  switch (s) {
    case Standing::Fails: return "";
    case Standing::Deviation: return " (documented deviation)";
    case Standing::Documented: return " (documented behaviour)";
    case Standing::Allowed: return " (allowed by the level)";
  }
  return "";
}

}  // namespace

std::string Verdict::explain() const {
  std::string out = property + ": " + summary() + "\n";
  if (!note.empty()) out += note + "\n";
  for (const Finding& f : findings) {
    out += "* " + f.kind + std::string(standing_label(f.standing)) + "\n";
    out += f.explanation;
    if (!f.explanation.empty() && f.explanation.back() != '\n') out += "\n";
    if (f.standing != Standing::Fails && !f.source.empty())
      out += (f.standing == Standing::Allowed ? "  " : "  documented by: ") + f.source + "\n";
  }
  return out;
}

Verdict Verdict::pass(std::string property, std::string note) {
  Verdict v;
  v.property = std::move(property);
  v.note = std::move(note);
  return v;
}

std::ostream& operator<<(std::ostream& os, const Verdict& v) { return os << v.explain(); }

}  // namespace txprop
