#include "txprop/verdict.hpp"

#include <algorithm>
#include <ostream>

namespace txprop {

bool Verdict::fails() const {
  return std::any_of(findings.begin(), findings.end(), [](const Finding& f) { return !f.documented; });
}

bool Verdict::only_deviations() const {
  return fails() && std::all_of(findings.begin(), findings.end(), [](const Finding& f) { return f.documented || f.deviation; });
}

bool Verdict::has(std::string_view kind) const {
  return std::any_of(findings.begin(), findings.end(), [&](const Finding& f) { return f.kind == kind; });
}

std::string Verdict::summary() const {
  if (inconclusive && findings.empty()) return "inconclusive";
  if (findings.empty()) return "ok";
  for (const Finding& f : findings)
    if (!f.documented) return f.kind;
  for (const Finding& f : findings)
    if (!f.allowed) return "documented " + f.kind;
  std::vector<std::string> kinds;
  for (const Finding& f : findings)
    if (std::find(kinds.begin(), kinds.end(), f.kind) == kinds.end()) kinds.push_back(f.kind);
  std::string out = "allowed";
  for (const std::string& k : kinds) out += (out.size() == 7 ? " " : ", ") + k;
  return out;
}

std::string Verdict::explain() const {
  std::string out = property + ": " + summary() + "\n";
  if (!note.empty()) out += note + "\n";
  for (const Finding& f : findings) {
    out += "* " + f.kind +
           (f.allowed      ? " (allowed by the level)"
            : f.documented ? " (documented behaviour)"
            : f.deviation  ? " (documented deviation)"
                           : "") +
           "\n";
    out += f.explanation;
    if (!f.explanation.empty() && f.explanation.back() != '\n') out += "\n";
    if ((f.documented || f.deviation) && !f.source.empty())
      out += (f.allowed ? "  " : "  documented by: ") + f.source + "\n";
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
