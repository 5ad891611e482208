// Property-harness benchmark: the atomicity property's cases per second per configured engine (generation, run
// on a fresh database, replay, comparison), and on MariaDB the time to find and to shrink a planted failure
// (atomicity assumed at READ UNCOMMITTED) over several seeds, median and range, with the shrink candidates judged by
// one process and by several (PropertySettings::shrink_jobs, framework/gtest/shrink_helpers.hpp), and whether both
// shrank every seed's failure to the same case.
// Usage: txprop_harness_bench [cases=300] [seeds=5] [shrink_jobs... = 1 4]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "txprop/atomicity.hpp"
#include "txprop/property.hpp"
#include "txprop/sql.hpp"

using namespace txprop;

namespace {

PropertyResult run_atomicity(Target& target, IsolationLevel level, int cases, std::uint64_t seed, bool strict,
                             int shrink_jobs = 1) {
  SuiteParam suite{target.config(), level, {}};
  PropertySettings s;
  s.generator.engine.locking_reads = target.engine().capabilities().locking_reads;
  s.generator.isolation = level;
  s.generator.rollback_probability = 0.5;
  s.cases = cases;
  s.seed = seed;
  s.shrink_jobs = shrink_jobs;
  s.report_dir = "txprop-reports/bench";
  PropertyRunner runner("BenchAtomicity", target, suite, s);
  return runner.check([&](const TestCase& c) {
    const History h = runner.run(c);
    const Verdict v = check_atomicity(runner.target(), h, {.ignore_documentation = strict});
    if (runner.judge(v, h)) RC_FAIL(v.explain());
  });
}

std::size_t rows(const TestCase& c) {
  std::size_t n = 0;
  for (const Table& t : c.schema.tables) n += t.rows.size();
  return n;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// The planted failure (atomicity assumed at READ UNCOMMITTED) found and shrunk once per seed, shrink candidates
// judged by `jobs` processes (PropertySettings::shrink_jobs); the shrunk cases are kept for comparison.
void planted(Target& target, int seeds, int jobs, std::vector<TestCase>& shrunk) {
  std::vector<double> find, shrink;
  std::vector<std::size_t> statements;
  for (int seed = 1; seed <= seeds; ++seed) {
    const PropertyResult p =
        run_atomicity(target, IsolationLevel::ReadUncommitted, 3000, 100 + seed, true, jobs);
    if (!p.failed || !p.history) continue;
    find.push_back(p.seconds_to_first_finding);
    shrink.push_back(p.seconds - p.seconds_to_first_finding);
    std::size_t n = 0;
    for (const auto& t : p.history->test_case.transactions) n += t.statements.size();
    statements.push_back(n);
    shrunk.push_back(p.history->test_case);
    fmt::print("   seed {}: found after {} cases in {:.2f} s, shrunk in {:.2f} s ({} steps, {} attempts) to {} "
               "transactions, {} statements, {} rows\n",
               100 + seed, p.cases, p.seconds_to_first_finding, shrink.back(), p.shrink_steps, p.shrink_attempts,
               p.history->test_case.transactions.size(), n, rows(p.history->test_case));
  }
  if (find.empty()) {
    fmt::print("   planted failure not found in {} seeds\n", seeds);
    return;
  }
  fmt::print("   planted failure (atomicity assumed at READ UNCOMMITTED), shrink_jobs={}, {} seeds: found in median "
             "{:.2f} s ({:.2f}..{:.2f}), shrunk in median {:.2f} s ({:.2f}..{:.2f}), to {}..{} statements\n",
             jobs, find.size(), median(find), *std::min_element(find.begin(), find.end()),
             *std::max_element(find.begin(), find.end()), median(shrink),
             *std::min_element(shrink.begin(), shrink.end()), *std::max_element(shrink.begin(), shrink.end()),
             *std::min_element(statements.begin(), statements.end()),
             *std::max_element(statements.begin(), statements.end()));
}


}  // namespace

int main(int argc, char** argv) {
  const int cases = argc > 1 ? std::atoi(argv[1]) : 300;
  const int seeds = argc > 2 ? std::atoi(argv[2]) : 5;
  std::vector<int> shrink_jobs;
  for (int i = 3; i < argc; ++i) shrink_jobs.push_back(std::max(1, std::atoi(argv[i])));
  if (shrink_jobs.empty()) shrink_jobs = {1, 4};
  try {
    for (const TargetConfig& config : configured_targets()) {
      auto target = Target::open(config);
      const IsolationLevel level = config.levels.back();
      const PropertyResult r = run_atomicity(*target, level, cases, 1, false);
      fmt::print("== {} at {}: atomicity {} cases in {:.1f} s = {:.1f} cases/s{}\n", config.name, sql_name(level),
                 r.cases, r.seconds, r.cases / r.seconds, r.failed ? " (FAILED)" : "");
      if (config.profile().name() != "mariadb" || config.flag("innodb_snapshot_isolation").value_or(false)) continue;
      std::map<int, std::vector<TestCase>> shrunk;  // per shrink_jobs, per seed
      for (const int jobs : shrink_jobs) planted(*target, seeds, jobs, shrunk[jobs]);
      for (const int jobs : shrink_jobs)
        if (jobs != shrink_jobs.front())
          fmt::print("   shrink_jobs={} gave the same shrunk cases as shrink_jobs={}: {}\n", jobs, shrink_jobs.front(),
                     shrunk[jobs] == shrunk[shrink_jobs.front()] ? "yes" : "NO");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
