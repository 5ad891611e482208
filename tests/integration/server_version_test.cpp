// A target knows its server version (issue 19): Target::open asks the server for server_version_num, and the
// PostgreSQL profile then cites the manual of that major version (docs/<major>/) in every documented behaviour. Runs on
// every configured PostgreSQL target, Debian's and the npm builds started by scripts/servers.sh start postgresql@17.
#include <gtest/gtest.h>

#include <string>

#include "txprop/engine.hpp"
#include "txprop/property.hpp"
#include "txprop/internal/targets.hpp"

using namespace txprop;

namespace {

// "PostgreSQL 17.10" -> 170010; "PostgreSQL 15.18 (Debian 15.18-0+deb12u1)" -> 150018.
int version_number(const std::string& server_version) {
  const std::size_t start = server_version.find_first_of("0123456789");
  const std::string v = server_version.substr(start);
  const std::size_t dot = v.find('.');
  return std::stoi(v.substr(0, dot)) * 10000 + std::stoi(v.substr(dot + 1));
}

}  // namespace

TEST(ServerVersion, PostgresqlTargetsKnowTheirVersionAndCiteTheirManual) {
  int checked = 0;
  for (const TargetConfig& config : configured_targets()) {
    if (config.profile().name() != "postgresql") continue;
    EXPECT_EQ(config.server_version_num, 0) << "not connected yet";
    Target& target = shared_target(config);
    const int num = target.config().server_version_num;
    EXPECT_EQ(num, version_number(target.server_version())) << config.name << ": " << target.server_version();
    const std::string docs = "https://www.postgresql.org/docs/" + std::to_string(num / 10000) + "/";
    for (IsolationLevel level : target.config().levels) {
      const DocumentedBehaviour d = target.engine().documented(level, target.config());
      EXPECT_NE(d.source.find(docs), std::string::npos) << config.name << " " << sql_name(level) << ": " << d.source;
      EXPECT_NE(d.source.find("PostgreSQL " + std::to_string(num / 10000) + " manual"), std::string::npos) << d.source;
      const VisibilityRules v = target.engine().visibility(level, target.config());
      EXPECT_NE(v.lock_source.find(docs), std::string::npos) << v.lock_source;
    }
    ++checked;
  }
  if (checked == 0) {
    if (running_in_ci()) FAIL() << "no postgresql target in TXPROP_TARGETS (CI is set: a configured engine is required)";
    GTEST_SKIP() << "no postgresql target in TXPROP_TARGETS";
  }
}

// Asked before any connection (txprop check of a saved history), the profile cites the current manual rather than
// guess a version.
TEST(ServerVersion, UnknownVersionCitesTheCurrentManual) {
  const TargetConfig config = parse_target_uri("postgresql://postgres@127.0.0.1:1/txtest");
  const DocumentedBehaviour d = config.profile().documented(IsolationLevel::RepeatableRead, config);
  EXPECT_NE(d.source.find("https://www.postgresql.org/docs/current/"), std::string::npos) << d.source;
  TargetConfig v12 = config;
  v12.server_version_num = 120022;
  const DocumentedBehaviour d12 = v12.profile().documented(IsolationLevel::RepeatableRead, v12);
  EXPECT_NE(d12.source.find("PostgreSQL 12 manual 13.2.2"), std::string::npos) << d12.source;
  EXPECT_NE(d12.source.find("https://www.postgresql.org/docs/12/"), std::string::npos) << d12.source;
}
