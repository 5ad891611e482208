// SDG benchmark, per configured engine at every level the target is configured with (default: its last level):
// cases per second for the whole SDG property (instrumented run, blocking-scheduling re-runs, decycling re-runs,
// replay, comparison, the Adya classification of the item graph), and the instrumentation overhead: the instrumented
// run of a case against the plain run of the same case (same engine, same fresh-database reset), and the extra
// statements instrumentation sends. Anchor: TxCheck (OSDI'23) ran 27.5 cases/min (0.46 cases/s) on MariaDB with a
// 5 s statement cap. Usage: txprop_sdg_bench [cases=200]
#include <cstdlib>

#include <fmt/format.h>

#include "bench_support.hpp"
#include "properties/sdg/sdg.hpp"
#include "txprop/engine.hpp"
#include "txprop/generators.hpp"
#include "txprop/property.hpp"
#include "txprop/sql.hpp"
#include "txprop/target.hpp"

using namespace txprop;
using namespace txprop::bench;

namespace {

std::size_t statements(const TestCase& c) {
  std::size_t n = 0;
  for (const Transaction& t : c.transactions) n += t.statements.size();
  return n;
}

void run_bench(const TargetConfig& config, IsolationLevel level, int cases) {
  std::unique_ptr<Target> target = Target::open(config);
  gen::Options o;
  o.engine = config.profile().capabilities();  // as the harness does
  o.isolation = level;
  o.rich_statements = true;  // as the Sdg suite generates them
  o.derived_inner_forms = true;
  o.rollback_probability = 0.2;
  rc::Random random(4242);
  const auto g = gen::test_case(o);
  double sdg_total = 0, plain_total = 0, instrumented_total = 0;
  std::size_t plain_statements = 0, instrumented_statements = 0;
  int inconclusive = 0, failing = 0, documented = 0, decycled = 0, replanned = 0;
  std::uint64_t runs = 0;
  for (int i = 0; i < cases; ++i) {
    const TestCase c = g(random.split(), 50).value();
    const TestCase p = sdg::instrument(c);
    plain_statements += statements(c);
    instrumented_statements += statements(p);
    auto start = Clock::now();
    (void)target->run(c);
    plain_total += seconds_since(start);
    const std::uint64_t runs_before = target->metrics().runs;
    start = Clock::now();
    const History h = target->run(p);
    instrumented_total += seconds_since(start);
    const Verdict v = sdg::check_sdg(*target, h);
    sdg_total += seconds_since(start);
    runs += target->metrics().runs - runs_before;
    inconclusive += v.inconclusive;
    failing += v.fails();
    documented += !v.findings.empty() && !v.fails();
    for (const std::string& t : v.tags) {
      decycled += t == "sdg-decycled";
      replanned += t == "sdg-replanned";
    }
  }
  fmt::print("== {} ({}) at {}: {} cases in {:.1f} s = {:.2f} cases/s = {:.0f} cases/min ({:.1f}x TxCheck's 27.5/min on "
             "MariaDB); {:.2f} runs per case; instrumentation overhead: {:.2f}x time per run, {:.2f}x statements; "
             "re-planned {} ({:.1f}%), decycled {} ({:.1f}%), without a verdict {} ({:.1f}%), failing {}, documented {}\n",
             config.name, target->server_version(), sql_name(level), cases, sdg_total, cases / sdg_total,
             60 * cases / sdg_total, 60 * cases / sdg_total / 27.5, static_cast<double>(runs) / cases,
             instrumented_total / plain_total, static_cast<double>(instrumented_statements) / static_cast<double>(plain_statements),
             replanned, 100.0 * replanned / cases, decycled, 100.0 * decycled / cases, inconclusive,
             100.0 * inconclusive / cases, failing, documented);
}

}  // namespace

int main(int argc, char** argv) {
  const int cases = argc > 1 ? std::atoi(argv[1]) : 200;
  return for_each_configured_target([&](const TargetConfig& config) {
    if (!config.param("levels").empty())
      for (IsolationLevel level : config.levels) run_bench(config, level, cases);
    else
      run_bench(config, config.levels.back(), cases);
  });
}
