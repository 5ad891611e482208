// The oracle registry, and the oracles txprop ships: one line each (each lives in its own folder).
#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "txprop/oracle.hpp"
#include "txprop/internal/registry.hpp"

namespace txprop {

std::unique_ptr<Oracle> wss_oracle();
std::unique_ptr<Oracle> atomicity_oracle();
std::unique_ptr<Oracle> adya_documented_oracle();
std::unique_ptr<Oracle> adya_claimed_oracle();
std::unique_ptr<Oracle> troc_oracle();
std::unique_ptr<Oracle> sdg_oracle();
std::unique_ptr<Oracle> run_oracle();

TestCase Oracle::prepare(const TestCase& c, const EngineProfile&) const { return c; }
TestCase Oracle::strip(const TestCase& prepared) const { return prepared; }
namespace {

// The refusal as a tag the run summary counts: the reason with transaction and step names (T1, T1.2) made "T", so
// that every case refused for one reason counts under one label.
std::string refusal_tag(const std::string& why) {
  std::string out = "no verdict: ";
  for (std::size_t i = 0; i < why.size(); ++i) {
    const bool word_start = i == 0 || !std::isalnum(static_cast<unsigned char>(why[i - 1]));
    if (why[i] == 'T' && word_start && i + 1 < why.size() && std::isdigit(static_cast<unsigned char>(why[i + 1]))) {
      out += 'T';
      ++i;
      while (i < why.size() && (std::isdigit(static_cast<unsigned char>(why[i])) ||
                                (why[i] == '.' && i + 1 < why.size() && std::isdigit(static_cast<unsigned char>(why[i + 1])))))
        ++i;
      --i;
      continue;
    }
    out += why[i];
  }
  return out;
}

}  // namespace

std::string Oracle::preparation(const TestCase& prepared) const {
  (void)prepared;
  return fmt::format("it ran prepared for {} (the statements it adds are not the case's own)", name());
}

Verdict Oracle::check(Target& target, const TestCase& c) const {
  return judge_case(*this, target, c, [&](const TestCase& prepared) { return target.run(prepared); }).verdict;
}

namespace {

// The issue-17 forms a case has (MERGE, chained transactions, foreign keys), tagged on every oracle's verdict, judged or refused, so
// that the run summary counts the cases with each form per suite (their share of a campaign); once per verdict.
void tag_forms(const TestCase& c, Verdict& v) {
  for (const std::string& f : rich_forms(c))
    if ((f.starts_with("form: MERGE") || f.ends_with("AND CHAIN") || f == "form: truth value" || f == "form: CAST" ||
         f == "form: IS [NOT] DISTINCT FROM" || f.starts_with("form: SAVEPOINT") ||
         f.starts_with("form: FOREIGN KEY") || f == "form: BOOLEAN column") &&
        std::find(v.tags.begin(), v.tags.end(), f) == v.tags.end())
      v.tags.push_back(f);
}

// A no-verdict the oracle gave while judging, which names no reason class of its own (a tag with "no verdict" in
// it), is counted under the first line of its reason (transaction names made "T", at most 120 characters), so that the
// run summary says why every case without a verdict has none (issue 17: a reason that the summary counts).
void tag_no_verdict(Verdict& v) {
  if (!v.inconclusive) return;
  for (const std::string& t : v.tags)
    if (t.find("no verdict") != std::string::npos || t.find("no-verdict") != std::string::npos) return;
  std::string reason = v.note.substr(0, v.note.find('\n'));
  if (reason.size() > 120) reason = reason.substr(0, 117) + "...";
  v.tags.push_back(refusal_tag(reason.empty() ? "no reason given" : reason));
}

}  // namespace

Judgement judge_case(const Oracle& oracle, Target& target, const TestCase& c, const RunCase& run) {
  Judgement j;
  j.refused = oracle.cannot_judge(c, target.engine());
  if (!j.refused.empty()) {
    j.verdict = Verdict::pass(oracle.name());
    j.verdict.tags.push_back(refusal_tag(j.refused));
    j.verdict.without_verdict(oracle.name() + " cannot judge this case: " + j.refused);
    tag_forms(c, j.verdict);
    return j;
  }
  j.prepared = oracle.prepare(c, target.engine());
  j.history = run(j.prepared);
  j.verdict = oracle.judge(target, j.history);
  // The oracle judged a later run of its own (SDG's re-planned run): that is the history the verdict is about.
  if (j.verdict.judged_run) {
    j.history = *j.verdict.judged_run;
    j.prepared = j.history.test_case;
  }
  tag_no_verdict(j.verdict);
  tag_forms(c, j.verdict);
  return j;
}

namespace {

std::vector<std::string> names_of(const Oracle& o) {
  std::vector<std::string> names = o.aliases();
  names.insert(names.begin(), o.name());
  return names;
}

// An oracle answers to its name and its aliases; no two oracles share one.
Registry<Oracle>& registry() {
  static Registry<Oracle> r("oracle", names_of);
  static const bool built_in = [] {
    r.add(wss_oracle());
    r.add(atomicity_oracle());
    r.add(adya_documented_oracle());
    r.add(adya_claimed_oracle());
    r.add(troc_oracle());
    r.add(sdg_oracle());
    r.add(run_oracle());
    return true;
  }();
  (void)built_in;
  return r;
}

}  // namespace

bool register_oracle(std::unique_ptr<Oracle> oracle) {
  registry().add(std::move(oracle));
  return true;
}

const Oracle* find_oracle(std::string_view name) { return registry().find(name); }

const Oracle& oracle(std::string_view name) {
  if (const Oracle* o = find_oracle(name)) return *o;
  std::vector<std::string> names;
  for (const Oracle* o : registered_oracles()) names.push_back(o->name());
  throw std::invalid_argument(fmt::format("txprop: unknown property '{}' (registered: {})", name, fmt::join(names, ", ")));
}

std::vector<const Oracle*> registered_oracles() { return registry().entries(); }

const std::vector<std::string>& run_finding_kinds() {
  static const std::vector<std::string> kinds = {"crash", "hang", "divergence", "invalid-statement"};
  return kinds;
}

bool is_known_finding_kind(std::string_view kind) {
  const auto& run = run_finding_kinds();
  if (std::find(run.begin(), run.end(), kind) != run.end()) return true;
  for (const Oracle* o : registered_oracles()) {
    const auto kinds = o->finding_kinds();
    if (std::find(kinds.begin(), kinds.end(), kind) != kinds.end()) return true;
  }
  return false;
}

}  // namespace txprop
