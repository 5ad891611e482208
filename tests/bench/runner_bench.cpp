// Runner benchmark, per configured engine (TXPROP_TARGETS; SQLite when unset):
//  (a) blocking detection latency: from sending a statement that waits on a row lock to the runner declaring it
//      blocked (median and p95), against 100 ms for TxCheck's polling and 2 s for Troc/WriteCheck's timeout;
//  (b) the runner's cost per generated test case divided by the raw cost of the same SQL statements, including
//      the reset and the final-state read, executed with the same driver in one session.
// (b) runs with every reset recreating the tables and with kept tables (bench_support.hpp, for_each_reset_mode).
// Usage: txprop_runner_bench [cases=300]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench_support.hpp"
#include "txprop/driver.hpp"
#include "txprop/generators.hpp"
#include "txprop/sql.hpp"
#include "txprop/target.hpp"

using namespace txprop;
using namespace txprop::bench;

namespace {

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t i = std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5));
  return v[i];
}

TestCase blocked_update_case(IsolationLevel level) {
  Table t;
  t.name = "t";
  t.columns = {{"k", ColumnType::Integer, true}, {"v", ColumnType::Integer, false}};
  t.primary_key = {"k"};
  t.rows = {{1, 10}, {2, 20}};
  auto upd = [](int v) {
    return Statement::update("t", {{"v", Expr::lit(v)}}, Expr::binary(BinaryOp::Eq, Expr::col("k"), Expr::lit(1)));
  };
  TestCase c;
  c.schema.tables = {t};
  c.transactions = {Transaction{level, {upd(11)}, TxnEnd::Commit}, Transaction{level, {upd(12)}, TxnEnd::Commit}};
  c.order = {0, 1, 0, 1, 0, 1};
  return c;
}

void detection_latency(Target& target, const TargetConfig& config, IsolationLevel level) {
  target.metrics() = {};
  for (int i = 0; i < 200; ++i)
    target.run(blocked_update_case(config.profile().name() == "sqlite" ? level : IsolationLevel::ReadCommitted));
  const auto& lat = target.metrics().detection_latency_us;
  fmt::print("  (a) blocking detection over {} blocked statements: median {:.2f} ms, p95 {:.2f} ms "
             "(TxCheck polls every 100 ms; Troc/WriteCheck wait 2000 ms)\n",
             lat.size(), percentile(lat, 0.5) / 1000, percentile(lat, 0.95) / 1000);
}

void run_bench(const TargetConfig& config, int cases, bool keep) {
  std::unique_ptr<Target> target = Target::open(config);
  if (const char* us = std::getenv("TXPROP_FIRST_PROBE_US")) target->options().first_probe_after = std::chrono::microseconds(std::atoi(us));
  const IsolationLevel level = config.levels.back();
  fmt::print("== {} ({}) at {}, reset: {}\n", config.name, target->server_version(), sql_name(level),
             reset_mode_name(keep));

  // (a) detection latency, once per target (the reset mode does not change it)
  if (!keep) detection_latency(*target, config, level);

  // (b) cost ratio on generated cases
  gen::Options o;
  o.engine.locking_reads = config.profile().capabilities().locking_reads;
  o.isolation = level;
  rc::Random random(20261125);
  const auto g = gen::test_case(o);
  std::unique_ptr<drivers::Session> session = target->driver().open_session();
  std::vector<double> ratios, runner_s, raw_s;
  int blocked_cases = 0;
  target->metrics() = {};
  double runner_total = 0, raw_total = 0, runner_clean = 0, raw_clean = 0;
  for (int i = 0; i < cases; ++i) {
    const TestCase c = g(random.split(), 50).value();
    const auto start = Clock::now();
    const History h = target->run(c);
    const double runner = seconds_since(start);
    const double raw = raw_cost(target->driver(), *session, c);
    runner_total += runner;
    raw_total += raw;
    // Deadlocks cost the engine's own detection time (PostgreSQL: deadlock_timeout), not the runner's.
    const bool deadlocked = std::any_of(h.transactions.begin(), h.transactions.end(), [](const TxnResult& r) {
      return r.fate == TxnFate::Aborted && r.abort_reason.cls == ErrorClass::Deadlock;
    });
    if (!deadlocked) {
      runner_clean += runner;
      raw_clean += raw;
    }
    blocked_cases += h.any_blocked();
    ratios.push_back(runner / raw);
  }
  fmt::print("  (b) {} generated cases ({} with a blocked statement): runner {:.2f} ms/case, raw {:.2f} ms/case, "
             "ratio of totals {:.2f}, median per-case ratio {:.2f}, p95 {:.2f}; without deadlocked cases: ratio {:.2f}\n",
             cases, blocked_cases, 1000 * runner_total / cases, 1000 * raw_total / cases, runner_total / raw_total,
             percentile(ratios, 0.5), percentile(ratios, 0.95), runner_clean / raw_clean);
  const RunMetrics& m = target->metrics();
  fmt::print("      runner time: reset {:.2f} ms ({:.0f}% of the runner's time), schedule {:.2f} ms, final state "
             "{:.2f} ms per case; {:.1f} statements, {:.2f} probes and {:.2f} blocked statements per case\n",
             1000 * m.reset_seconds / cases, 100 * m.reset_seconds / runner_total, 1000 * m.schedule_seconds / cases, 1000 * m.state_seconds / cases,
             1.0 * m.statements / cases, 1.0 * m.probes / cases, 1.0 * m.blocked / cases);
}

}  // namespace

int main(int argc, char** argv) {
  const int cases = argc > 1 ? std::atoi(argv[1]) : 300;
  return for_each_configured_target([&](const TargetConfig& config) {
    for_each_reset_mode([&](bool keep) { run_bench(config, cases, keep); });
  });
}
