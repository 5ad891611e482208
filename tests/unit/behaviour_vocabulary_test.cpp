// Every name an engine profile documents or promises to prevent belongs to txprop/behaviours.hpp's vocabulary
// (issue 20: a misspelt name in a profile would otherwise never match an oracle's lookup and silently drop a
// documented behaviour or a promise). Checked for every shipped profile, at every level it offers, under the
// configurations that change what it documents, and at old and new server versions.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "txprop/adya_levels.hpp"
#include "txprop/behaviours.hpp"
#include "txprop/engine.hpp"
#include "txprop/target_config.hpp"

using namespace txprop;

namespace {

// URIs whose parameters change a profile's documented behaviour; each engine gets at least one.
const std::vector<std::string> kUris = {
    "sqlite:",
    "sqlite:?journal_mode=wal",
    "postgresql://u@127.0.0.1/db",
    "mariadb://u@127.0.0.1/db",
    "mariadb://u@127.0.0.1/db?innodb_snapshot_isolation=ON",
    "mysql://u@127.0.0.1/db",
    "galera://u@127.0.0.1:1,127.0.0.1:2/db",
    "galera://u@127.0.0.1:1,127.0.0.1:2/db?innodb_snapshot_isolation=ON&wsrep_sync_wait=3",
};

TEST(BehaviourVocabulary, EveryProfileNamesKnownPhenomena) {
  std::set<std::string> engines_seen;
  for (const std::string& uri : kUris)
    for (int version : {0, 100023, 150018, 180004}) {
      TargetConfig config = parse_target_uri(uri);
      config.server_version_num = version;
      const EngineProfile& profile = config.profile();
      engines_seen.insert(profile.name());
      for (IsolationLevel level : profile.levels()) {
        const DocumentedBehaviour d = profile.documented(level, config);
        for (const auto& [name, source] : d.allowed) {
          EXPECT_TRUE(behaviour::is_known(name)) << uri << " " << sql_name(level) << " allows unknown '" << name << "'";
          EXPECT_FALSE(source.empty()) << uri << " " << sql_name(level) << " allows '" << name << "' without a source";
        }
        for (const std::string& name : d.prevented)
          EXPECT_TRUE(behaviour::is_known(name)) << uri << " " << sql_name(level) << " prevents unknown '" << name << "'";
      }
    }
  for (const EngineProfile* p : registered_engines()) EXPECT_TRUE(engines_seen.count(p->name())) << p->name();
}

TEST(BehaviourVocabulary, AdyaClassifiesIntoTheVocabulary) {
  for (const std::string& kind : adya::adya_kinds()) EXPECT_TRUE(behaviour::is_known(kind)) << kind;
  EXPECT_EQ(adya::adya_kinds().size(), behaviour::kAdyaPhenomena.size());
  EXPECT_TRUE(behaviour::is_known(behaviour::kStaleRead));
  EXPECT_FALSE(behaviour::is_known("stale_read"));  // a misspelling is not a name
}

}  // namespace
