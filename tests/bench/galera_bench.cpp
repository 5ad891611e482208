// Galera benchmark (issue 18): cases per second of each oracle's suite on a Galera cluster against a single MariaDB
// server, in one run, as a ratio. The same seeds and settings as the suites (settings_for), REPEATABLE READ, every
// verdict ignored (no shrinking: a failing case would otherwise spend the time on shrink attempts).
// Needs a galera:// and a mariadb:// target (innodb_snapshot_isolation as you like, the first of each is used), e.g.
//   eval "$(scripts/servers.sh start mariadb galera)"; build/tests/bench/txprop_galera_bench [cases=100]
// Measured 2026-11-26, 50 cases, load average 12 on 2 cores (other runs on the machine): galera/mariadb = wss 1.71,
// adya 1.29, atomicity 1.47, sdg 2.15 (1.86 in a second run), troc 1.79 (1.73): the cluster ran more cases per second
// than the single server in every oracle; why (both servers run with innodb_flush_log_at_trx_commit=0) is not known.
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>

#include "txprop/oracle.hpp"
#include "txprop/property.hpp"

using namespace txprop;

namespace {

// Cases per second of `oracle` on `target`: generated, prepared, run on a reset database, judged.
double cases_per_second(Target& target, const Oracle& oracle, int cases) {
  SuiteParam suite{target.config(), IsolationLevel::RepeatableRead, {}};
  PropertySettings s = settings_for("BenchGalera", suite);
  s.cases = cases;
  s.seed = 1;
  PropertyRunner runner("BenchGalera", target, suite, s);
  const PropertyResult r = runner.check([&](const TestCase& c) { (void)runner.run_oracle(oracle, c); });
  return r.cases / r.seconds;
}

std::optional<TargetConfig> first_of(const std::string& engine) {
  return find_configured_target([&](const TargetConfig& c) { return c.profile().name() == engine; });
}

}  // namespace

int main(int argc, char** argv) {
  const int cases = argc > 1 ? std::atoi(argv[1]) : 100;
  try {
    const auto galera = first_of("galera"), mariadb = first_of("mariadb");
    if (!galera || !mariadb) {
      std::fprintf(stderr, "txprop_galera_bench: needs a galera:// and a mariadb:// target in TXPROP_TARGETS\n");
      return 1;
    }
    auto cluster = Target::open(*galera), single = Target::open(*mariadb);
    fmt::print("== {} ({}) vs {} ({}), REPEATABLE READ, {} cases per oracle\n", galera->name,
               cluster->server_version(), mariadb->name, single->server_version(), cases);
    for (const char* name : {"wss", "adya", "atomicity", "sdg", "troc"}) {
      const Oracle& o = oracle(name);
      const double on_cluster = cases_per_second(*cluster, o, cases), on_single = cases_per_second(*single, o, cases);
      fmt::print("{:<10} galera {:6.1f} cases/s, mariadb {:6.1f} cases/s: galera/mariadb = {:.2f}\n", name, on_cluster,
                 on_single, on_cluster / on_single);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
