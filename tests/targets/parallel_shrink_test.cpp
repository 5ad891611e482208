// Shrink candidates judged by helper processes (PropertySettings::shrink_jobs, TXPROP_SHRINK_JOBS;
// framework/gtest/shrink_helpers.hpp) must shrink a failure to the case one process shrinks it to, in the same steps
// and attempts, with some of the attempts answered by the helpers. The property fails when three committed transactions
// changed the number of rows, on each engine configured (SQLite always). The helpers start with the suite; SQLite's
// whole shrink can end before they are ready, so there only the result is compared.
#include <gtest/gtest.h>

#include <string>

#include "support/engine_targets.hpp"
#include "txprop/property.hpp"

using namespace txprop;

namespace {

std::size_t row_count(const Schema& s) {
  std::size_t n = 0;
  for (const Table& t : s.tables) n += t.rows.size();
  return n;
}

std::size_t row_count(const DatabaseState& state) {
  std::size_t n = 0;
  for (const auto& [table, rows] : state) n += rows.size();
  return n;
}

PropertyResult check_with(Target& target, int shrink_jobs) {
  SuiteParam suite{target.config(), target.config().levels.back(), {}};
  PropertySettings s;
  s.generator.engine = target.config().profile().capabilities(target.config());
  s.generator.isolation = suite.level;
  s.cases = 500;
  s.seed = 20261127;
  s.shrink_jobs = shrink_jobs;
  s.report_dir = "txprop-reports/parallel-shrink";
  PropertyRunner runner("ParallelShrink", target, suite, s);
  return runner.check([&](const TestCase& c) {
    const History h = runner.run(c);
    RC_ASSERT(h.committed().size() < 3 || h.final_state.empty() || row_count(h.final_state) == row_count(c.schema));
  });
}

void expect_same_shrink(const std::string& engine) {
  TXPROP_USE_ENGINE(target, engine, false);
  const PropertyResult one = check_with(*target, 1), three = check_with(*target, 3);
  ASSERT_TRUE(one.failed && one.history) << "no failure in " << one.cases << " cases: " << one.message;
  ASSERT_TRUE(three.failed && three.history) << three.message;
  EXPECT_EQ(three.history->test_case, one.history->test_case);
  EXPECT_EQ(three.shrink_steps, one.shrink_steps);
  EXPECT_EQ(three.shrink_attempts, one.shrink_attempts);
  EXPECT_EQ(one.shrink_attempts_answered_ahead, 0);
  if (engine != "sqlite")
    EXPECT_GT(three.shrink_attempts_answered_ahead, 0) << "no shrink attempt was answered by a helper";
  std::cout << "[parallel shrink] " << engine << ": found after " << one.cases << " cases, " << one.shrink_steps << " steps, " << one.shrink_attempts
            << " attempts; with 3 processes " << three.shrink_attempts_answered_ahead
            << " answered by helpers; shrinking took " << one.seconds - one.seconds_to_first_finding << " s and "
            << three.seconds - three.seconds_to_first_finding << " s\n";
}

}  // namespace

TEST(ParallelShrink, SameShrunkCaseAsOneProcessSqlite) { expect_same_shrink("sqlite"); }
TEST(ParallelShrink, SameShrunkCaseAsOneProcessMariadb) { expect_same_shrink("mariadb"); }
TEST(ParallelShrink, SameShrunkCaseAsOneProcessPostgresql) { expect_same_shrink("postgresql"); }
