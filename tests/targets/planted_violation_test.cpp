// Planted violations: a property told that something must hold where the engine documents that it does not is
// caught from random generation, shrunk to a small case, and the scenario file it writes replays to the same
// verdict. This is the end-to-end test of generation, shrinking, reporting and scenario replay.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "support/engine_targets.hpp"
#include "txprop/atomicity.hpp"
#include "txprop/oracle.hpp"
#include "txprop/property.hpp"
#include "txprop/scenario.hpp"
#include "txprop/internal/scenario_runner.hpp"
#include "txprop/sql.hpp"
#include "txprop/wss.hpp"

using namespace txprop;

namespace {

struct Shape {
  std::size_t transactions = 0, statements = 0;
};

Shape shape(const TestCase& c) {
  Shape s{c.transactions.size(), 0};
  for (const auto& t : c.transactions) s.statements += t.statements.size();
  return s;
}

// An oracle told that something must hold where the engine documents that it does not. Registered like any oracle,
// so that the scenario file its counterexample writes replays with it.
class PlantedOracle final : public Oracle {
 public:
  using Judge = std::function<Verdict(Target&, const History&)>;
  PlantedOracle(std::string name, std::vector<std::string> kinds, Judge judge)
      : name_(std::move(name)), kinds_(std::move(kinds)), judge_(std::move(judge)) {}
  std::string name() const override { return name_; }
  std::vector<std::string> finding_kinds() const override { return kinds_; }
  Verdict judge(Target& target, const History& h) const override { return judge_(target, h); }

 private:
  std::string name_;
  std::vector<std::string> kinds_;
  Judge judge_;
};

const Oracle& planted(const std::string& name, std::vector<std::string> kinds, PlantedOracle::Judge judge) {
  if (!find_oracle(name)) register_oracle(std::make_unique<PlantedOracle>(name, std::move(kinds), std::move(judge)));
  return oracle(name);
}

// Runs `oracle` as a property on `target` at `level` and returns what it found.
PropertyResult check_planted(Target& target, IsolationLevel level, const std::string& name, const Oracle& oracle,
                             double rollbacks) {
  SuiteParam suite{target.config(), level, {}};
  PropertySettings s = settings_for(name, suite);
  s.cases = 3000;
  if (!s.seed) s.seed = 20261125;
  s.generator.rollback_probability = rollbacks;
  PropertyRunner runner(name, target, suite, s);
  return runner.check([&](const TestCase& c) {
    const Verdict v = runner.run_oracle(oracle, c);
    if (runner.judge(v, runner.last_history())) RC_FAIL(v.explain());
  });
}

void print_found(const std::string& what, const PropertyResult& r) {
  const Shape sh = shape(r.history->test_case);
  std::cout << fmt::format("[planted] {}: found after {} cases in {:.2f} s, shrunk in {} steps / {} attempts ({:.2f} s "
                           "in all) to {} transactions, {} statements\n",
                           what, r.cases, r.seconds_to_first_finding, r.shrink_steps, r.shrink_attempts, r.seconds,
                           sh.transactions, sh.statements)
            << describe(r.history->test_case);
}

// The written scenario replays to the verdict found (the property is registered for scenario files under the
// name the report uses).
void expect_scenario_reproduces(const PropertyResult& r, Target& target) {
  ASSERT_FALSE(r.report_dir.empty()) << r.message;
  const Scenario s = load_scenario(r.report_dir + "/scenario.txn", registered_vocabulary());
  ASSERT_EQ(s.expectations.size(), 1u);
  EXPECT_EQ(s.expectations[0].verdict, r.verdict->findings.front().kind);
  EXPECT_EQ(replay_scenario(s, target), "");
}

}  // namespace

// Atomicity assumed at READ UNCOMMITTED on MariaDB, where dirty reads are documented: a committed transaction
// that read an aborted one's write is caught and shrunk to at most 2 transactions and 6 statements.
TEST(PlantedViolation, AtomicityAtReadUncommittedOnMariadb) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  const Oracle& o = planted("plantedatomicity", {"aborted-effect"}, [](Target& t, const History& h) {
    return check_atomicity(t, h, {.ignore_documentation = true});
  });
  const PropertyResult r = check_planted(*target, IsolationLevel::ReadUncommitted, "PlantedAtomicity", o, 0.5);
  ASSERT_TRUE(r.failed) << "no violation in " << r.cases << " cases";
  ASSERT_TRUE(r.history) << r.message;
  print_found("atomicity at READ UNCOMMITTED", r);
  const Shape sh = shape(r.history->test_case);
  EXPECT_EQ(r.verdict->findings.front().kind, "aborted-effect");
  EXPECT_LE(sh.transactions, 2u);
  EXPECT_LE(sh.statements, 6u);
  expect_scenario_reproduces(r, *target);
}

// WSS told it must hold at MariaDB READ COMMITTED (semi-consistent reads, no gap locks): caught and shrunk to at
// most 3 transactions and 8 statements.
TEST(PlantedViolation, WssAtReadCommittedOnMariadb) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  const WssBehaviour strict = target->engine().documented(IsolationLevel::RepeatableRead, target->config()).wss;
  const Oracle& o = planted("plantedwss", oracle("wss").finding_kinds(), [strict](Target& t, const History& h) {
    return check_wss(t, h, {.documented = strict});
  });
  const PropertyResult r = check_planted(*target, IsolationLevel::ReadCommitted, "PlantedWss", o, 0.3);
  ASSERT_TRUE(r.failed) << "no violation in " << r.cases << " cases";
  ASSERT_TRUE(r.history) << r.message;
  print_found("WSS at READ COMMITTED", r);
  const Shape sh = shape(r.history->test_case);
  EXPECT_LE(sh.transactions, 3u);
  EXPECT_LE(sh.statements, 8u);
  expect_scenario_reproduces(r, *target);
}
