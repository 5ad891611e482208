// The versions: header of scenario files (issue 19): ranges of server versions a scenario applies to, parsed and
// validated (a bad range is one file:line error), written back, and the reason a target is skipped.
#include <gtest/gtest.h>

#include <string>

#include "txprop/scenario.hpp"

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
