// The version-set reads the Adya instrumentation adds before predicate reads (properties/adya/instrumentation.hpp)
// must not change the schedule: the same generated cases, instrumented with and without them, block at the same
// steps and end with the same fates. They are plain reads, the next step of the same transaction; where plain reads
// lock (InnoDB SERIALIZABLE) none is added, which this test also shows.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <fmt/format.h>

#include "txprop/adya_instrumentation.hpp"
#include "support/engine_targets.hpp"
#include "txprop/generators.hpp"
#include "txprop/target.hpp"

using namespace txprop;

namespace {

// Per original step of each transaction: blocked? Version-set steps are dropped by mapping the instrumented case's
// statements back (a step is a version-set read iff its statement is one); a wait of one counts as the wait of the
// statement after it (at InnoDB REPEATABLE READ it is a locking read that takes the statement's locks first, as the
// differential check counts it: instrumentation_diff.hpp).
std::vector<std::vector<bool>> blocked_original_steps(const History& h) {
  std::vector<std::vector<bool>> out;
  for (std::size_t t = 0; t < h.test_case.transactions.size(); ++t) {
    const auto& st = h.test_case.transactions[t].statements;
    std::vector<bool> steps;
    bool read_waited = false;
    for (std::size_t i = 0; i < h.was_blocked[t].size(); ++i) {
      if (i >= 1 && i <= st.size() && adya::is_version_set_read(st[i - 1])) {
        read_waited = read_waited || h.was_blocked[t][i];
        continue;
      }
      steps.push_back(h.was_blocked[t][i] || read_waited);
      read_waited = false;
    }
    out.push_back(std::move(steps));
  }
  return out;
}

std::vector<TxnFate> fates(const History& h) {
  std::vector<TxnFate> out;
  for (const auto& r : h.transactions) out.push_back(r.fate);
  return out;
}

void compare(Target& target, const EngineProfile& engine, IsolationLevel level, int cases, const std::string& name) {
  gen::Options o;
  o.engine.locking_reads = engine.capabilities().locking_reads;
  o.isolation = level;
  o.rollback_probability = 0.15;
  rc::Random random(1313);
  const auto g = gen::test_case(o);
  adya::InstrumentationOptions with{.engine = engine.capabilities()};
  adya::InstrumentationOptions without = with;
  without.version_sets = false;
  int same = 0, any_blocked = 0, version_sets = 0;
  std::string first_difference;
  for (int i = 0; i < cases; ++i) {
    const TestCase c = g(random.split(), i % 60).value();
    const TestCase a = adya::instrument(c, without), b = adya::instrument(c, with);
    if (a.order.size() != b.order.size()) ++version_sets;
    const History ha = target.run(a), hb = target.run(b);
    const bool blocked = ha.any_blocked() || hb.any_blocked();
    any_blocked += blocked;
    if (blocked_original_steps(ha) == blocked_original_steps(hb) && fates(ha) == fates(hb)) {
      ++same;
    } else if (first_difference.empty()) {
      first_difference = fmt::format("without version-set reads:\n{}\nwith:\n{}", describe(ha), describe(hb));
    }
  }
  std::cout << fmt::format("{} {}: {} of {} cases block at the same steps with the same fates ({} cases with a "
                           "blocked step, {} with version-set reads)\n",
                           name, sql_name(level), same, cases, any_blocked, version_sets);
  // Lock waits resolved by deadlock detection can pick another victim from run to run; allow that, not more.
  EXPECT_GE(same, cases * 97 / 100) << first_difference;
}

}  // namespace

TEST(VersionSetReads, PostgresqlSameBlockedSteps) {
  TXPROP_USE_ENGINE(target, "postgresql", false);
  for (IsolationLevel l : {IsolationLevel::ReadCommitted, IsolationLevel::RepeatableRead, IsolationLevel::Serializable})
    compare(*target, target->engine(), l, 100, "postgresql");
}

TEST(VersionSetReads, MariadbSameBlockedSteps) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  for (IsolationLevel l : {IsolationLevel::ReadCommitted, IsolationLevel::RepeatableRead, IsolationLevel::Serializable})
    compare(*target, target->engine(), l, 100, "mariadb");
}
