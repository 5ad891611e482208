// A planted violation for the troc oracle: a copy of an engine profile with one wrong visibility row (used only here)
// makes the oracle expect what the engine never does; random generation must catch it and shrink it to at most 2
// transactions. The wrong row: plain SELECTs read the latest committed version (READ COMMITTED's rule) where the
// engine reads the transaction's snapshot.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "../../properties/troc/troc.hpp"
#include "support/engine_targets.hpp"
#include "txprop/oracle.hpp"
#include "txprop/property.hpp"
#include "txprop/sql.hpp"

using namespace txprop;

namespace {

// Everything as `base` says, except the visibility row of plain SELECTs.
class WrongSelectRow final : public EngineProfile {
 public:
  explicit WrongSelectRow(const EngineProfile& base) : base_(base) {}
  std::string name() const override { return base_.name(); }
  std::vector<std::string> schemes() const override { return base_.schemes(); }
  Dialect dialect() const override { return base_.dialect(); }
  std::vector<IsolationLevel> levels() const override { return base_.levels(); }
  EngineCapabilities capabilities() const override { return base_.capabilities(); }
  DocumentedBehaviour documented(IsolationLevel l, const TargetConfig& c) const override { return base_.documented(l, c); }
  VisibilityRules visibility(IsolationLevel l, const TargetConfig& c) const override {
    VisibilityRules v = base_.visibility(l, c);
    v.select.view = ViewRule::LatestCommitted;  // planted: wrong
    v.select.source = "planted by troc_planted_test";
    return v;
  }
  std::unique_ptr<drivers::Driver> open(const TargetConfig& c) const override { return base_.open(c); }

 private:
  const EngineProfile& base_;
};

class PlantedTroc final : public Oracle {
 public:
  PlantedTroc(std::string name, const EngineProfile& wrong) : name_(std::move(name)), wrong_(wrong) {}
  std::string name() const override { return name_; }
  std::vector<std::string> finding_kinds() const override { return oracle("troc").finding_kinds(); }
  TestCase prepare(const TestCase& c, const EngineProfile&) const override { return troc::prepare(c); }
  TestCase strip(const TestCase& prepared) const override { return troc::strip(prepared); }
  Verdict judge(Target& target, const History& h) const override {
    return troc::check_troc(target, h, {.profile = &wrong_});
  }

 private:
  std::string name_;
  const EngineProfile& wrong_;
};

void planted_snapshot_row(Target& target, IsolationLevel level, const std::string& name) {
  static std::vector<std::unique_ptr<WrongSelectRow>> profiles;
  profiles.push_back(std::make_unique<WrongSelectRow>(target.engine()));
  if (!find_oracle(name)) register_oracle(std::make_unique<PlantedTroc>(name, *profiles.back()));
  const Oracle& o = oracle(name);
  SuiteParam suite{target.config(), level, {}};
  PropertySettings s = settings_for(name, suite);
  s.cases = 2000;
  if (!s.seed) s.seed = 20261126;
  PropertyRunner runner(name, target, suite, s);
  const PropertyResult r = runner.check([&](const TestCase& c) {
    const Verdict v = runner.run_oracle(o, c);
    if (runner.judge(v, runner.last_history())) RC_FAIL(v.explain());
  });
  ASSERT_TRUE(r.failed) << "no violation in " << r.cases << " cases";
  ASSERT_TRUE(r.history) << r.message;
  ASSERT_TRUE(r.verdict);
  std::size_t statements = 0;
  for (const auto& t : r.history->test_case.transactions) statements += t.statements.size();
  std::cout << fmt::format("[planted] troc, wrong SELECT row on {} at {}: found after {} cases in {:.2f} s, shrunk in "
                           "{} steps to {} transactions, {} statements: {}\n",
                           target.name(), sql_name(level), r.cases, r.seconds_to_first_finding, r.shrink_steps,
                           r.history->test_case.transactions.size(), statements, r.verdict->summary())
            << describe(troc::strip(r.history->test_case));
  EXPECT_EQ(r.verdict->findings.front().kind, "incorrect-result");
  EXPECT_LE(r.history->test_case.transactions.size(), 2u);
}

}  // namespace

// SQLite (embedded, always available): reads keep the snapshot of their first statement.
TEST(TrocPlanted, WrongSelectRowOnSqlite) {
  TXPROP_USE_ENGINE(target, "sqlite", false);
  planted_snapshot_row(*target, IsolationLevel::Serializable, "plantedtrocsqlite");
}

// PostgreSQL REPEATABLE READ: the snapshot of the first statement.
TEST(TrocPlanted, WrongSelectRowOnPostgresqlRepeatableRead) {
  TXPROP_USE_ENGINE(target, "postgresql", false);
  planted_snapshot_row(*target, IsolationLevel::RepeatableRead, "plantedtrocpg");
}
