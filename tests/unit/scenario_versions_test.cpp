// The versions: header of scenario files (issue 19): ranges of server versions a scenario applies to, parsed and
// validated (a bad range is one file:line error), written back, and the reason a target is skipped; expectations keyed
// by version, the run oracle, and how a bug that no longer reproduces is reported.
#include <gtest/gtest.h>

#include <string>

#include "txprop/scenario.hpp"
#include "txprop/internal/scenario_runner.hpp"
#include "txprop/target.hpp"
#include "txprop/target_config.hpp"

using namespace txprop;

namespace {

Scenario with_versions(const std::string& versions) {
  return parse_scenario("name: v\napplies: postgresql\nversions: " + versions +
                            "\n\nsetup:\nCREATE TABLE t (k INTEGER);\n\nsteps:\nT0: BEGIN;\nT0: SELECT * FROM t;\n"
                            "T0: COMMIT;\n",
                        "v.txn");
}

std::string error_of(const std::string& versions) {
  try {
    with_versions(versions);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(ScenarioVersions, RangesSelectServerVersions) {
  const Scenario s = with_versions("12.0-15.17, 16.2, 18");
  EXPECT_EQ(s.version_mismatch(120000), "");
  EXPECT_EQ(s.version_mismatch(150017), "");
  EXPECT_EQ(s.version_mismatch(160002), "");
  EXPECT_EQ(s.version_mismatch(180004), "");
  EXPECT_EQ(s.version_mismatch(150018), "the scenario applies to versions 12.0-15.17, 16.2, 18, the server is 15.18");
  EXPECT_NE(s.version_mismatch(160001), "");
  EXPECT_NE(s.version_mismatch(110022), "");
  EXPECT_NE(s.version_mismatch(170010), "");
  EXPECT_NE(s.version_mismatch(0).find("does not report its version"), std::string::npos);
}

TEST(ScenarioVersions, OpenRanges) {
  const Scenario later = with_versions("16.3-");
  EXPECT_NE(later.version_mismatch(160002), "");
  EXPECT_EQ(later.version_mismatch(160003), "");
  EXPECT_EQ(later.version_mismatch(990000), "");
  const Scenario earlier = with_versions("-13");
  EXPECT_EQ(earlier.version_mismatch(100023), "");
  EXPECT_EQ(earlier.version_mismatch(130023), "");
  EXPECT_NE(earlier.version_mismatch(140000), "");
}

TEST(ScenarioVersions, NoVersionsMeansEveryVersion) {
  const Scenario s = parse_scenario("name: v\n\nsetup:\nCREATE TABLE t (k INTEGER);\n\nsteps:\nT0: BEGIN;\nT0: COMMIT;\n");
  EXPECT_EQ(s.version_mismatch(0), "");
  EXPECT_EQ(s.version_mismatch(150018), "");
}

TEST(ScenarioVersions, BadRangesAreOneLineWithTheLine) {
  EXPECT_EQ(error_of("15.17-12.0"), "v.txn:3: version range '15.17-12.0' starts after it ends");
  EXPECT_EQ(error_of("12.x"), "v.txn:3: bad version '12.x' in '12.x' (write MAJOR.MINOR, e.g. versions: 12.0-15.17, 16)");
  EXPECT_NE(error_of("12.0-15.1.2").find("v.txn:3: bad version '15.1.2'"), std::string::npos);
  EXPECT_NE(error_of("-").find("v.txn:3: bad version range '-'"), std::string::npos);
}

TEST(ScenarioVersions, WrittenBack) {
  const Scenario s = with_versions("12.0-15.17, 16.2");
  const Scenario again = parse_scenario(write_scenario(s), "again.txn");
  EXPECT_EQ(again.versions_text, "12.0-15.17, 16.2");
  ASSERT_EQ(again.versions.size(), 2u);
  EXPECT_EQ(again.versions[0].from, 120000);
  EXPECT_EQ(again.versions[0].to, 150017);
  EXPECT_EQ(again.versions[1].from, 160002);
  EXPECT_EQ(again.versions[1].to, 160002);
}

// Expectations keyed by version ('<kind>@<versions>') and the run's own findings ('run ... crash'): issue 19.
namespace {

const std::string kBody =
    "name: e\napplies: postgresql, sqlite\n\nsetup:\nCREATE TABLE t (k INTEGER NOT NULL, v INTEGER, PRIMARY KEY (k));\n"
    "INSERT INTO t (k, v) VALUES (1, 0);\n\nsteps:\nT0: BEGIN;\nT0: UPDATE t SET v = 1 WHERE k = 1;\nT0: COMMIT;\n\n"
    "expect:\n";  // the first expectation is on line 14

std::string expect_error(const std::string& lines) {
  try {
    parse_scenario(kBody + lines, "e.txn", registered_vocabulary());
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(ScenarioVersions, ExpectationsKeyedByVersion) {
  const Scenario s = parse_scenario(kBody +
                                        "wss postgresql@-15.19,16-18.4 serializable result-mismatch\n"
                                        "wss postgresql@15.20-15 serializable ok\n"
                                        "wss sqlite * ok\n",
                                    "e.txn", registered_vocabulary());
  ASSERT_EQ(s.expectations.size(), 3u);
  const Expectation& bug = s.expectations[0];
  EXPECT_EQ(bug.target, "postgresql");
  EXPECT_EQ(bug.versions_text, "-15.19,16-18.4");
  const auto ser = IsolationLevel::Serializable;
  EXPECT_TRUE(bug.applies("postgresql", ser, 120022));
  EXPECT_TRUE(bug.applies("postgresql", ser, 150019));
  EXPECT_FALSE(bug.applies("postgresql", ser, 150020));
  EXPECT_TRUE(bug.applies("postgresql", ser, 180004));
  EXPECT_FALSE(bug.applies("postgresql", ser, 180005));
  EXPECT_FALSE(bug.applies("postgresql", ser, 0)) << "a server of unknown version meets no versioned expectation";
  EXPECT_FALSE(bug.applies("postgresql", IsolationLevel::ReadCommitted, 150018));
  EXPECT_FALSE(bug.applies("sqlite", ser, 150018));
  EXPECT_TRUE(s.expectations[2].applies("sqlite", ser, 0)) << "no versions: every version, known or not";
  EXPECT_EQ(s.expectations_for("wss", "postgresql", ser, 150020).size(), 1u);
  EXPECT_EQ(s.expectations_for("wss", "postgresql", ser, 150020)[0].verdict, "ok");
  EXPECT_EQ(s.expectations_for("wss", "postgresql", ser, 150018)[0].verdict, "result-mismatch");
  // Written back as read.
  const Scenario again = parse_scenario(write_scenario(s), "again.txn", registered_vocabulary());
  ASSERT_EQ(again.expectations.size(), 3u);
  EXPECT_EQ(again.expectations[0].versions_text, "-15.19,16-18.4");
  EXPECT_TRUE(again.expectations[0].applies("postgresql", ser, 160001));
  EXPECT_TRUE(again.expectations[2].versions.empty());
}

TEST(ScenarioVersions, BadExpectationVersionsAreOneLineWithTheLine) {
  EXPECT_EQ(expect_error("wss postgresql@ serializable ok\n"),
            "e.txn:14: 'postgresql@' names no versions after '@' (write e.g. postgresql@12.0-15.17,16)");
  EXPECT_EQ(expect_error("wss postgresql@15.20-15.1 serializable ok\n"),
            "e.txn:14: version range '15.20-15.1' starts after it ends");
  EXPECT_NE(expect_error("wss postgres@15 serializable ok\n").find("e.txn:14: unknown target kind 'postgres'"),
            std::string::npos);
}

TEST(ScenarioVersions, RunExpectationsNameTheRunsOwnFindings) {
  const Scenario s = parse_scenario(kBody + "run postgresql * crash\nrun sqlite serializable ok\n", "e.txn",
                                    registered_vocabulary());
  ASSERT_EQ(s.expectations.size(), 2u);
  EXPECT_EQ(s.expectations[0].property, "run");
  EXPECT_EQ(s.expectations[0].verdict, "crash");
  EXPECT_NE(expect_error("run sqlite * lost-update\n").find("e.txn:14: unknown verdict 'lost-update' for run (use ok, "
                                                            "no-verdict or a finding kind: crash, hang, divergence, "
                                                            "invalid-statement)"),
            std::string::npos)
      << expect_error("run sqlite * lost-update\n");
}

// On the embedded SQLite target: the run oracle judges the run itself, and an expected finding the run does not show
// fails as "no longer reproduces" (what a fixed engine looks like), never as a silent pass.
TEST(ScenarioVersions, ReplayReportsABugThatNoLongerReproduces) {
  auto target = Target::open(parse_target_uri("sqlite:"));
  const Scenario clean =
      parse_scenario(kBody + "run sqlite serializable ok\nwss sqlite serializable ok\n", "e.txn", registered_vocabulary());
  EXPECT_EQ(replay_scenario(clean, *target), "");
  const Scenario bug = parse_scenario(kBody + "run sqlite serializable crash\nwss sqlite serializable result-mismatch\n",
                                      "e.txn", registered_vocabulary());
  const std::string problems = replay_scenario(bug, *target);
  EXPECT_NE(problems.find("e.txn:14: expected run crash at SERIALIZABLE on sqlite (version unknown), got ok: the bug no "
                          "longer reproduces here"),
            std::string::npos)
      << problems;
  EXPECT_NE(problems.find("e.txn:15: expected wss result-mismatch at SERIALIZABLE on sqlite"), std::string::npos)
      << problems;
}
