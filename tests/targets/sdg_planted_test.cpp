// Planted SDG violation: the SDG oracle told that TxCheck's Assumption A3 holds at MariaDB REPEATABLE READ with
// innodb_snapshot_isolation=OFF, where the profile documents that it does not (a plain SELECT reads the snapshot,
// UPDATE/DELETE read the latest committed version: the MDEV-29565 class). Random generation finds a statement whose
// result differs from the replay without transactions, and shrinking brings it to at most 2 transactions.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "../../properties/sdg/sdg.hpp"
#include "support/engine_targets.hpp"
#include "txprop/oracle.hpp"
#include "txprop/property.hpp"

using namespace txprop;

namespace {

class PlantedSdg final : public Oracle {
 public:
  std::string name() const override { return "plantedsdg"; }
  std::vector<std::string> finding_kinds() const override { return {"result-mismatch", "final-state-mismatch"}; }
  TestCase prepare(const TestCase& c, const EngineProfile&) const override { return sdg::instrument(c); }
  TestCase strip(const TestCase& prepared) const override { return sdg::strip(prepared); }
  Verdict judge(Target& target, const History& h) const override {
    return sdg::check_sdg(target, h, {.isolation = false, .assume_a3 = true, .a3_check = false});
  }
};

}  // namespace

TEST(PlantedViolation, SdgAssumingA3AtRepeatableReadOnMariadb) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  if (!find_oracle("plantedsdg")) register_oracle(std::make_unique<PlantedSdg>());
  const Oracle& o = oracle("plantedsdg");
  SuiteParam suite{target->config(), IsolationLevel::RepeatableRead, {}};
  PropertySettings s = settings_for("PlantedSdg", suite);
  s.cases = 2000;
  if (!s.seed) s.seed = 20261126;
  s.generator.rollback_probability = 0.1;
  PropertyRunner runner("PlantedSdg", *target, suite, s);
  const PropertyResult r = runner.check([&](const TestCase& c) {
    const Verdict v = runner.run_oracle(o, c);
    if (runner.judge(v, runner.last_history())) RC_FAIL(v.explain());
  });
  ASSERT_TRUE(r.failed) << "no violation in " << r.cases << " cases";
  ASSERT_TRUE(r.history && r.verdict) << r.message;
  const TestCase shrunk = sdg::strip(r.history->test_case);
  std::size_t statements = 0;
  for (const auto& t : shrunk.transactions) statements += t.statements.size();
  std::cout << fmt::format("[planted] SDG assuming A3 at MariaDB REPEATABLE READ: found after {} cases in {:.2f} s, "
                           "shrunk in {} steps / {} attempts to {} transactions, {} statements\n",
                           r.cases, r.seconds_to_first_finding, r.shrink_steps, r.shrink_attempts,
                           shrunk.transactions.size(), statements)
            << r.verdict->explain();
  EXPECT_LE(shrunk.transactions.size(), 2u);
  EXPECT_TRUE(r.verdict->has("result-mismatch") || r.verdict->has("final-state-mismatch"));
}
