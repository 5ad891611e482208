// WSS benchmark, per configured engine at SERIALIZABLE (or the target's last level): cases per second for the
// whole property (concurrent run, serial replays, resets, comparison), the share of cases without a verdict, and
// the ratio to the raw cost of the same work: every run WSS made for a case, each costed as the case's
// statements plus a reset and a state read executed with the same driver in one session.
// Anchors (one MariaDB 10.11 on this kind of machine): WriteCheck 0.55 schedules/s, TxCheck 0.46 cases/s,
// Troc 0.35 schedules/s. Where a case's time goes: resetting, scheduling the steps, reading the final state (the rest
// is the oracle's own work). Each target is measured with every reset recreating the tables and with kept tables
// (bench_support.hpp, for_each_reset_mode). Usage: txprop_wss_bench [cases=300]
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "bench_support.hpp"
#include "txprop/driver.hpp"
#include "txprop/generators.hpp"
#include "txprop/sql.hpp"
#include "txprop/target.hpp"
#include "txprop/wss.hpp"

using namespace txprop;
using namespace txprop::bench;

namespace {


void run_bench(const TargetConfig& config, int cases, bool keep) {
  std::unique_ptr<Target> target = Target::open(config);
  const IsolationLevel level = config.levels.back();
  gen::Options o;
  o.engine.locking_reads = config.profile().capabilities().locking_reads;
  o.isolation = level;
  rc::Random random(777);
  const auto g = gen::test_case(o);
  auto session = target->driver().open_session();
  double wss_total = 0, raw_total = 0;
  int inconclusive = 0, violations = 0, documented = 0, other_order = 0;
  std::uint64_t runs = 0;
  for (int i = 0; i < cases; ++i) {
    const TestCase c = g(random.split(), 50).value();
    const std::uint64_t runs_before = target->metrics().runs;
    const auto start = Clock::now();
    const Verdict v = check_wss(*target, target->run(c));
    wss_total += seconds_since(start);
    const std::uint64_t made = target->metrics().runs - runs_before;
    runs += made;
    raw_total += static_cast<double>(made) * raw_cost(target->driver(), *session, c);
    inconclusive += v.inconclusive;
    violations += v.fails();
    documented += !v.findings.empty() && !v.fails();
    other_order += !v.tags.empty();
  }
  fmt::print("== {} ({}) at {}, reset: {}: {} cases in {:.1f} s = {:.1f} cases/s ({:.0f}x WriteCheck's 0.55/s); "
             "reset {:.0f}%, schedule {:.0f}%, state read {:.0f}% of the time; {:.2f} runs per case; ratio to raw cost "
             "{:.2f}; without a verdict {} ({:.1f}%); violations {}; documented {}; non-commit serial order {}\n",
             config.name, target->server_version(), sql_name(level), reset_mode_name(keep), cases, wss_total,
             cases / wss_total, cases / wss_total / 0.55, 100 * target->metrics().reset_seconds / wss_total,
             100 * target->metrics().schedule_seconds / wss_total, 100 * target->metrics().state_seconds / wss_total,
             static_cast<double>(runs) / cases, wss_total / raw_total, inconclusive,
             100.0 * inconclusive / cases, violations, documented, other_order);
}

}  // namespace

int main(int argc, char** argv) {
  const int cases = argc > 1 ? std::atoi(argv[1]) : 300;
  return for_each_configured_target([&](const TargetConfig& config) {
    for_each_reset_mode([&](bool keep) { run_bench(config, cases, keep); });
  });
}
