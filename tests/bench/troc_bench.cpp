// Troc campaign and benchmark, per configured target (TXPROP_TARGETS) and level, plus a "mixed" row where every
// transaction draws its own level: N generated cases each, judged by the troc oracle. Prints passes, each finding
// kind (failing / documented), statements that waited where the lock model needs no wait, undecided cases (and the
// rule named by the first), and Troc cases per second (anchor: Troc ~2.9 s per schedule on MariaDB, i.e. 0.35/s).
// The first failing case of each kind is printed in full (TXPROP_TROC_SHOW=n prints n per kind). Cases use the richer
// statement forms and the engine's joined writes, as the Troc suite does; the share of cases using each form is printed
// per row ("forms").
// Usage: txprop_troc_bench [cases=200] [seed=1]
#include <cctype>
#include <cstdlib>
#include <map>

#include <fmt/format.h>

#include "bench_support.hpp"
#include "properties/troc/troc.hpp"
#include "txprop/generators.hpp"
#include "txprop/oracle.hpp"
#include "txprop/property.hpp"
#include "txprop/sql.hpp"
#include "txprop/target.hpp"

using namespace txprop;
using namespace txprop::bench;

namespace {

struct Tally {
  int cases = 0, passes = 0, undecided = 0, errors = 0;
  std::map<std::string, int> failing, documented, tags, undecided_notes;
  double seconds = 0;
};

// The rule an undecided note names, without the statement it quotes ("undecided: T0.1 UPDATE ... (LEVEL): why"), so
// that cases group by rule.
std::string undecided_rule(const std::string& note) {
  std::string why = note.rfind("undecided: ", 0) == 0 ? note.substr(11) : note;
  for (const char* level : {"(READ UNCOMMITTED): ", "(READ COMMITTED): ", "(REPEATABLE READ): ", "(SERIALIZABLE): "})
    if (const auto at = why.find(level); at != std::string::npos) why = why.substr(at + std::string(level).size());
  if (why.size() > 2 && why[0] == 'T' && std::isdigit(static_cast<unsigned char>(why[1])))
    why = "Tn" + why.substr(why.find_first_not_of("0123456789", 1));
  return why.substr(0, 90);
}

void run_level(Target& target, const std::vector<IsolationLevel>& levels, const std::string& label, int cases,
               unsigned seed, int show) {
  const Oracle& troc = oracle("troc");
  gen::Options o;
  // The richer forms and the joined writes the engine has, as the Troc suite generates them.
  o.rich_statements = true;
  o.derived_inner_forms = true;
  o.engine = target.engine().capabilities();
  o.isolation = levels.front();
  rc::Random random(seed);
  const auto g = gen::test_case(o);
  Tally t;
  std::map<std::string, int> shown;
  for (int i = 0; i < cases; ++i) {
    TestCase c = g(random.split(), 50).value();
    if (levels.size() > 1)
      for (std::size_t k = 0; k < c.transactions.size(); ++k)
        c.transactions[k].isolation = levels[(static_cast<std::size_t>(i) * 7 + k * 3 + k * k) % levels.size()];
    const auto start = Clock::now();
    Verdict v;
    try {
      v = troc.check(target, c);
    } catch (const std::exception& e) {
      ++t.errors;
      fmt::print("  error: {}\n", e.what());
      continue;
    }
    t.seconds += seconds_since(start);
    ++t.cases;
    for (const std::string& tag : v.tags) ++t.tags[tag];
    if (v.inconclusive) {
      ++t.undecided;
      ++t.undecided_notes[undecided_rule(v.note)];
      continue;
    }
    if (v.findings.empty()) {
      ++t.passes;
      continue;
    }
    for (const Finding& f : v.findings) {
      ++(f.documented() ? t.documented : t.failing)[f.kind];
      // TXPROP_TROC_SHOW_DOCUMENTED=1: documented findings too (to audit what the profile's entries cover).
      static const bool show_documented = std::getenv("TXPROP_TROC_SHOW_DOCUMENTED") != nullptr;
      if ((!f.documented() || show_documented) && shown[(f.documented() ? "documented " : "") + f.kind]++ < show)
        fmt::print("---- {} {}{} case {}:\n{}\n{}\n", label, f.documented() ? "documented " : "", f.kind, i, describe(troc.strip(troc.prepare(c, target.engine())), target.dialect()),
                   v.explain());
    }
  }
  auto join = [](const std::map<std::string, int>& m) {
    std::string out;
    for (const auto& [k, n] : m) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", k, n);
    return out.empty() ? std::string("none") : out;
  };
  fmt::print("== troc {} at {}: {} cases in {:.1f} s = {:.1f} cases/s ({:.3f} s/case; Troc ~2.9 s/schedule); "
             "passes {}; findings: {}; documented: {}; undecided {} ({:.1f}%: {}); waits not required {}; "
             "engine aborts {}; errors {}\n",
             target.name(), label, t.cases, t.seconds, t.cases / std::max(t.seconds, 1e-9),
             t.seconds / std::max(t.cases, 1), t.passes, join(t.failing), join(t.documented), t.undecided,
             100.0 * t.undecided / std::max(t.cases, 1), join(t.undecided_notes),
             t.tags["block-not-required"], t.tags["engine-abort"] + t.tags["engine-abort-conflict"], t.errors);
  std::string forms;
  for (const auto& [tag, n] : t.tags)
    if (tag.rfind("form: ", 0) == 0)
      forms += fmt::format("{}{} {:.1f}%", forms.empty() ? "" : ", ", tag.substr(6), 100.0 * n / std::max(t.cases, 1));
  fmt::print("   forms (share of cases): {}\n", forms.empty() ? "none" : forms);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const int cases = argc > 1 ? std::atoi(argv[1]) : 200;
  const unsigned seed = argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : 1;
  const int show = std::getenv("TXPROP_TROC_SHOW") ? std::atoi(std::getenv("TXPROP_TROC_SHOW")) : 1;
  const char* only = std::getenv("TXPROP_TROC_LEVEL");  // e.g. "REPEATABLE READ" or "mixed"
  return for_each_configured_target([&](const TargetConfig& config) {
    std::unique_ptr<Target> target = Target::open(config);
    for (IsolationLevel l : config.levels)
      if (!only || sql_name(l) == only) run_level(*target, {l}, sql_name(l), cases, seed, show);
    if (config.levels.size() > 1 && (!only || std::string(only) == "mixed"))
      run_level(*target, config.levels, "mixed levels", cases, seed, show);
  });
}
