// Cases without a verdict, per configured target and level and per oracle, with their reasons (issue 21: under 2% per
// cell). Generates cases as the oracle's property suite does (properties/<oracle>/*_suite.cpp settings) and judges
// each on the one judging path (judge_case), counting the verdicts that are "no verdict" by their reason with
// transaction, row and table names and the statement's text left out, so one reason counts once.
// Usage: txprop_no_verdict_bench [cases=300] [oracle ...]   (oracles: adya sdg by default; all levels of each target)
#include <algorithm>
#include <cstdlib>
#include <map>
#include <regex>

#include <fmt/format.h>

#include "bench_support.hpp"
#include "txprop/generators.hpp"
#include "txprop/oracle.hpp"
#include "txprop/sql.hpp"
#include "txprop/target.hpp"

using namespace txprop;
using namespace txprop::bench;

namespace {

// The generator settings of the oracle's suite (AdyaDocumented, Sdg), on the target's capabilities and the level.
gen::Options suite_options(const std::string& oracle, const TargetConfig& config, IsolationLevel level) {
  gen::Options o;
  o.engine = config.profile().capabilities(config);
  o.isolation = level;
  o.rich_statements = true;
  o.derived_inner_forms = true;
  o.rollback_probability = oracle == "sdg" ? 0.2 : 0.15;
  if (oracle != "sdg") o.weight_select = 30;
  o.foreign_keys = oracle == "troc";  // the Troc suite's keys (properties/troc/troc_suite.cpp)
  // The Adya suites' keys (properties/adya/adya_suite.cpp): their actions' writes only where triggers record them.
  if (oracle == "adya") o.foreign_keys = o.foreign_key_writes_recorded_only = true;
  // Foreign keys as the Sdg suite has them (properties/sdg/sdg_suite.cpp): where writes read a snapshot and reads take
  // no SIREAD locks, their actions' writes only where the engine's triggers record them.
  const auto& ssi = o.engine.predicate_lock_levels;
  if (oracle == "sdg" && o.engine.writes_read_snapshot && std::find(ssi.begin(), ssi.end(), level) == ssi.end())
    o.foreign_keys = o.foreign_key_writes_recorded_only = true;
  return o;
}

std::string reason_key(std::string why) {
  static const std::regex statement("'s (SELECT|UPDATE|DELETE|INSERT)[^;]*? (reads|waited)");
  // Index names (t0_u, txp_t1_u) too: one reason, whichever table's index it names.
  static const std::regex names("\\b(T\\d+|t\\d+|row \\d+)\\b|\\b(txp_)?t\\d+_(\\w+)");
  why = std::regex_replace(why, statement, "'s <$1> $2");  // the kind kept: which statements a reason holds
  why = std::regex_replace(why, names, "_");
  return why.size() > 220 ? why.substr(0, 220) + "..." : why;
}

// A broken Assumption A3, or an unchanged row SDG's version key wrote, counts by its tag: the note names rows.
std::string reason_of(const Judgement& j) {
  for (const std::string& tag : j.verdict.tags) {
    if (tag.rfind("sdg-no-verdict: A3", 0) == 0) return tag;
    if (tag == "sdg-no-verdict: unchanged row written")  // which reason of unchanged_rows_written
      for (const char* why : {"changed no other row", "would fail", "a plain read after it"})
        if (j.verdict.note.find(why) != std::string::npos) return tag + ": " + why;
  }
  return reason_key(j.refused.empty() ? j.verdict.note : j.refused);
}

void run_cell(const TargetConfig& config, IsolationLevel level, const std::string& oracle_name, int cases) {
  std::unique_ptr<Target> target = Target::open(config);
  const Oracle& oracle = txprop::oracle(oracle_name);
  rc::Random random(2121);
  const auto g = gen::test_case(suite_options(oracle_name, config, level));
  std::map<std::string, int> reasons;
  int none = 0;
  // TXPROP_NO_VERDICT_SHOW=<n>: the first n cases without a verdict in full (reason and history), to find out why.
  const char* show_env = std::getenv("TXPROP_NO_VERDICT_SHOW");
  int show = show_env ? std::atoi(show_env) : 0;
  for (int i = 0; i < cases; ++i) {
    const TestCase c = g(random.split(), i % 100).value();
    const Judgement j = judge_case(oracle, *target, c, [&](const TestCase& p) { return target->run(p); });
    if (!j.verdict.inconclusive) continue;
    ++none;
    ++reasons[reason_of(j)];
    if (show-- > 0)
      fmt::print("case {} without a verdict: {}\n{}\n", i, j.refused.empty() ? j.verdict.note : j.refused,
                 j.refused.empty() ? describe(j.history) : describe(c));
  }
  fmt::print("no-verdict {} {} {}: {} of {} cases ({:.1f}%)\n", oracle_name, config.name, sql_name(level), none, cases,
             100.0 * none / cases);
  for (const auto& [why, n] : reasons) fmt::print("    {:4} {}\n", n, why);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const int cases = argc > 1 ? std::atoi(argv[1]) : 300;
  std::vector<std::string> oracles;
  for (int i = 2; i < argc; ++i) oracles.push_back(argv[i]);
  if (oracles.empty()) oracles = {"adya", "sdg"};
  return for_each_configured_target([&](const TargetConfig& config) {
    for (IsolationLevel level : config.levels)
      for (const std::string& o : oracles) run_cell(config, level, o, cases);
  });
}
