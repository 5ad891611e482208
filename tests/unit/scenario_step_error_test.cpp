// A scenario step that fails on purpose (issue 17 item 6): 'error <target kind or *> <level or *> <code or class> at
// <session>:<n>' in the expect: section names the n-th step line of a session; it is read, checked (a step that does
// not exist is one file:line error), written back, and replayed: the replay fails when that step does not fail with
// that code or class, and an invalid statement expected this way is not a run problem. On embedded SQLite (no server).
#include <gtest/gtest.h>

#include <string>

#include "txprop/scenario.hpp"
#include "txprop/internal/scenario_runner.hpp"
#include "txprop/target_config.hpp"
#include "txprop/target.hpp"

using namespace txprop;

namespace {

// s1's INSERT of key 1 breaks the primary key (s1:3, its third step line), s2's autocommit SELECT is fine.
std::string file(const std::string& expect) {
  return "name: e\n\nsetup:\nCREATE TABLE t (k INTEGER NOT NULL, v INTEGER, PRIMARY KEY (k));\n"
         "INSERT INTO t (k, v) VALUES (1, 10);\n\nsteps:\ns1: BEGIN;\ns2: SELECT * FROM t;\n"
         "s1: UPDATE t SET v = 11 WHERE k = 1;\ns1: INSERT INTO t (k, v) VALUES (1, 12);\ns1: COMMIT;\n\nexpect:\n" +
         expect;
}

std::string error_of(const std::string& expect) {
  try {
    parse_scenario(file(expect), "e.txn");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(ScenarioStepError, ReadAndWrittenBack) {
  const Scenario s = parse_scenario(file("error * * constraint-violation at s1:3\nerror sqlite read committed 1555 at s1:4\n"
                                         "atomicity * * ok\n"),
                                    "e.txn");
  ASSERT_EQ(s.step_errors.size(), 2u);
  // s1 is the first transaction (T0): BEGIN is step 0, the UPDATE 1, the INSERT 2, COMMIT 3.
  EXPECT_EQ(s.step_errors[0].txn, 0);
  EXPECT_EQ(s.step_errors[0].step, 2);
  EXPECT_EQ(s.step_errors[0].error, "constraint-violation");
  EXPECT_EQ(s.step_errors[0].target, "*");
  EXPECT_FALSE(s.step_errors[0].level);
  EXPECT_EQ(s.step_errors[1].step, 3);
  EXPECT_EQ(s.step_errors[1].level, IsolationLevel::ReadCommitted);
  ASSERT_EQ(s.expectations.size(), 1u);  // the verdict expectations are read as before
  const Scenario again = parse_scenario(write_scenario(s), "again.txn");
  ASSERT_EQ(again.step_errors.size(), 2u);
  EXPECT_EQ(again.step_errors[0].step_name, "s1:3");
  EXPECT_EQ(again.step_errors[1].error, "1555");
  EXPECT_EQ(again.step_errors[1].txn, 0);
  // An autocommit statement is its own transaction's step 1.
  const Scenario autocommit = parse_scenario(file("error * * lock-timeout at s2:1\n"), "e.txn");
  EXPECT_EQ(autocommit.step_errors[0].txn, 1);
  EXPECT_EQ(autocommit.step_errors[0].step, 1);
}

TEST(ScenarioStepError, AStepThatDoesNotExistIsOneLine) {
  EXPECT_NE(error_of("error * * 23505 at s1:6\n").find("e.txn:15: 's1:6' names no step"), std::string::npos)
      << error_of("error * * 23505 at s1:6\n");
  EXPECT_NE(error_of("error * * 23505 at s3:1\n").find("names no step"), std::string::npos);
  EXPECT_NE(error_of("error * * 23505 at s1\n").find("names no step"), std::string::npos);
  EXPECT_NE(error_of("error * * 23505 s1:1\n").find("expected 'error <target kind or *>"), std::string::npos);
}

TEST(ScenarioStepError, ReplayedOnSqlite) {
  auto target = Target::open(parse_target_uri("sqlite:?levels=serializable"));
  // The INSERT fails with a constraint violation: met by its class and by SQLite's extended code
  // (SQLITE_CONSTRAINT_PRIMARYKEY).
  for (const char* error : {"constraint-violation", "1555"}) {
    const Scenario s = parse_scenario(file(std::string("error * * ") + error + " at s1:3\natomicity * * ok\n"), "e.txn");
    EXPECT_EQ(replay_scenario(s, *target), "") << error;
  }
  // The UPDATE does not fail: the replay says so, naming the line, the step and what the step gave.
  const Scenario wrong = parse_scenario(file("error * * constraint-violation at s1:2\n"), "e.txn");
  const std::string problems = replay_scenario(wrong, *target);
  EXPECT_NE(problems.find("e.txn:15: expected error constraint-violation at s1:2 at SERIALIZABLE on sqlite, got 1 row(s) affected"),
            std::string::npos)
      << problems;
  // A wrong class is not met either.
  EXPECT_NE(replay_scenario(parse_scenario(file("error * * lock-timeout at s1:3\n"), "e.txn"), *target), "");
  // Expectations for another target kind are not checked here.
  EXPECT_EQ(replay_scenario(parse_scenario(file("error postgresql * 23505 at s1:3\n"), "e.txn"), *target), "");
}
