// Generated savepoints (issue 17 item 4): with gen::Options::savepoints a transaction sometimes gets SAVEPOINT sp before
// one of its statements and ROLLBACK TO SAVEPOINT sp or RELEASE SAVEPOINT sp after a later one; every case stays valid,
// generation without them is what it was, and shrinking drops the pair as one step (savepoint_simplifications).
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <iostream>

#include "txprop/engine.hpp"
#include "txprop/generators.hpp"
#include "txprop/property.hpp"

using namespace txprop;

TEST(GeneratedSavepoints, OnlyWhereTurnedOnAndShrunkToNothing) {
  gen::Options o;
  o.engine = find_engine("mariadb")->capabilities();
  rc::Random random(11);
  const auto off = gen::test_case(o);
  o.savepoints = true;
  const auto on = gen::test_case(o);
  int transactions = 0, rollback_to = 0, release = 0, with = 0, shrunk_away = 0;
  for (int i = 0; i < 300; ++i) {
    const rc::Random r = random.split();
    EXPECT_EQ(off(r, i % 100).value().first_savepoint(), "");
    const TestCase c = on(r, i % 100).value();
    ASSERT_EQ(c.validate(), "") << describe(c);
    for (const Transaction& t : c.transactions) {
      ++transactions;
      for (const Statement& s : t.statements) {
        rollback_to += s.kind == StatementKind::RollbackToSavepoint;
        release += s.kind == StatementKind::ReleaseSavepoint;
      }
    }
    if (c.first_savepoint().empty()) continue;
    ++with;
    const auto simpler = gen::shrink_test_case(c);
    auto pairs = [](const TestCase& x) {
      int n = 0;
      for (const Transaction& t : x.transactions)
        for (const Statement& s : t.statements) n += s.is_savepoint();
      return n;
    };
    shrunk_away += std::any_of(simpler.begin(), simpler.end(), [&](const TestCase& s) {
      return pairs(s) == pairs(c) - 2 && s.transactions.size() == c.transactions.size();
    });
  }
  std::cout << "[savepoints] " << rollback_to + release << " savepoint pairs in " << transactions << " transactions of " << with << " of 300 cases ("
            << rollback_to << " ROLLBACK TO, " << release << " RELEASE)\n";
  EXPECT_GT(rollback_to, 0);
  EXPECT_GT(release, 0);
  EXPECT_GT(with, 0);
  EXPECT_EQ(shrunk_away, with) << "every case with a savepoint pair shrinks to one with a pair fewer in one step";
}
