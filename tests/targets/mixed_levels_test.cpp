// Every transaction is judged at its own level. Each mixed-level scenario is run once per oracle; the finding it
// expects is documented behaviour at the level of the transaction that decides it, and the same history, with that
// transaction relabelled as SERIALIZABLE, fails: the standing comes from each transaction's level, not from the
// first transaction's.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "support/engine_targets.hpp"
#include "txprop/oracle.hpp"
#include "txprop/scenario.hpp"
#include "txprop/internal/scenario_runner.hpp"

using namespace txprop;

namespace {

std::string scenario_path(const std::string& file) { return std::string(TXPROP_SCENARIO_DIR) + "/" + file; }

// Runs `oracle` on the scenario's case and checks the standing of `kind`, then judges the same history again with
// transaction `relabelled` at SERIALIZABLE.
void expect_standing(Target& target, const std::string& file, const std::string& oracle_name, const std::string& kind,
                     int relabelled) {
  const Scenario s = load_scenario(scenario_path(file), registered_vocabulary());
  const Oracle& o = oracle(oracle_name);
  const TestCase c = s.test_case(IsolationLevel::Serializable);
  const History h = target.run(o.prepare(c, target.engine()));
  const Verdict v = o.judge(target, h);
  std::cout << fmt::format("[mixed] {} {} on {}: {}\n", file, oracle_name, target.name(), v.summary());
  ASSERT_TRUE(v.has(kind)) << v.explain() << describe(h);
  EXPECT_FALSE(v.fails()) << v.explain();
  for (const Finding& f : v.findings)
    if (f.kind == kind) {
      EXPECT_NE(f.standing, Standing::Fails) << f.explanation;
      EXPECT_FALSE(f.source.empty()) << f.explanation;
    }
  History all_serializable = h;
  all_serializable.test_case.transactions[static_cast<std::size_t>(relabelled)].isolation = IsolationLevel::Serializable;
  const Verdict strict = o.judge(target, all_serializable);
  EXPECT_TRUE(strict.fails()) << "with T" << relabelled << " judged at SERIALIZABLE: " << strict.explain();
}

}  // namespace

TEST(MixedLevels, ReadUncommittedReaderBesideSerializableWriterOnMariadb) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  expect_standing(*target, "mixed_levels_dirty_read.txn", "adya", "G1a", 1);
  expect_standing(*target, "mixed_levels_dirty_read.txn", "adyaclaimed", "G1a", 1);
  expect_standing(*target, "mixed_levels_dirty_read.txn", "atomicity", "aborted-effect", 1);
}

TEST(MixedLevels, SemiConsistentReadBesideSerializableWriterOnMariadb) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  expect_standing(*target, "mixed_levels_semi_consistent_read.txn", "wss", "final-state-mismatch", 1);
}

TEST(MixedLevels, WriteSkewBetweenSerializableAndRepeatableReadOnPostgresql) {
  TXPROP_USE_ENGINE(target, "postgresql", false);
  expect_standing(*target, "mixed_levels_write_skew.txn", "adya", "write-skew", 1);
}
