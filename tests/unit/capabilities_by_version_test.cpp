// Capabilities keyed by server version (issue 19): the PostgreSQL profile, asked with a target's server_version_num,
// has MERGE and NULLS NOT DISTINCT from 15 on, and not on 14 or on a server of unknown version; engines without
// version-keyed capabilities answer the same for every version.
#include <gtest/gtest.h>

#include "txprop/engine.hpp"
#include "txprop/target_config.hpp"

using namespace txprop;

namespace {

EngineCapabilities asked_at(const std::string& uri, int server_version_num) {
  TargetConfig c = parse_target_uri(uri);
  c.server_version_num = server_version_num;
  return c.profile().capabilities(c);
}

}  // namespace

TEST(CapabilitiesByVersion, PostgresqlHasMergeAndNullsNotDistinctFrom15) {
  const std::string pg = "postgresql://postgres@127.0.0.1:5432/txtest";
  const EngineCapabilities at14 = asked_at(pg, 140023), at15 = asked_at(pg, 150000), at18 = asked_at(pg, 180004);
  EXPECT_FALSE(at14.merge);
  EXPECT_FALSE(at14.unique_nulls_not_distinct);
  EXPECT_TRUE(at15.merge);
  EXPECT_TRUE(at15.unique_nulls_not_distinct);
  EXPECT_TRUE(at18.merge);
  EXPECT_FALSE(asked_at(pg, 0).merge) << "a server of unknown version gets only what every version has";
  EXPECT_FALSE(asked_at(pg, 149999).merge);
  // What every version has is the same at 14 and 15.
  EXPECT_EQ(at14.upserts, at15.upserts);
  EXPECT_EQ(at14.update_join, at15.update_join);
  EXPECT_EQ(at14.locking_reads, at15.locking_reads);
}

TEST(CapabilitiesByVersion, OtherEnginesAnswerTheSameForEveryVersion) {
  for (const std::string uri : {"sqlite:", "mariadb://txtest:pw@127.0.0.1:3306/txtest"}) {
    const EngineCapabilities old = asked_at(uri, 100000), unknown = asked_at(uri, 0);
    EXPECT_FALSE(old.merge) << uri;
    EXPECT_EQ(old.upserts, unknown.upserts) << uri;
    EXPECT_EQ(old.update_join, unknown.update_join) << uri;
  }
}
