// Expectations keyed by target parameters, '<kind>[<name>=<value>,...]' (include/txprop/scenario.hpp; issue 18: a
// Galera stale read is deterministic only with wsrep_sync_wait's bit 1 set): parsed and validated (a bad spelling is
// one file:line error), written back, and applied only to a target whose URI gives the parameter that value.
#include <gtest/gtest.h>

#include <string>

#include "txprop/internal/scenario_runner.hpp"
#include "txprop/scenario.hpp"
#include "txprop/target_config.hpp"

using namespace txprop;

namespace {

const std::string kBody =
    "name: p\napplies: galera, galera_si\n\nsetup:\nCREATE TABLE t (k INTEGER NOT NULL, v INTEGER, PRIMARY KEY (k));\n"
    "INSERT INTO t (k, v) VALUES (1, 0);\n\nsteps:\nT0: BEGIN;\nT0: UPDATE t SET v = 1 WHERE k = 1;\nT0: COMMIT;\n\n"
    "expect:\n";  // the first expectation is on line 14

Scenario with_expectations(const std::string& lines) {
  return parse_scenario(kBody + lines, "p.txn", registered_vocabulary());
}

std::string expect_error(const std::string& lines) {
  try {
    with_expectations(lines);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "no error";
}

// The parameters of a parsed galera:// URI (canonical values, as Target::open keeps them).
std::map<std::string, std::string> params_of(const std::string& query) {
  return parse_target_uri("galera://u@127.0.0.1:3306,127.0.0.1:3307/db" + query).params;
}

}  // namespace

TEST(ScenarioTargetParams, Parsed) {
  const Scenario s = with_expectations("adya galera[wsrep_sync_wait=3] repeatable read ok\n"
                                       "adya galera_si[WSREP_SYNC_WAIT=1,innodb_snapshot_isolation=ON]@10.11- * "
                                       "not stale-read\n"
                                       "adya galera * ok\n");
  ASSERT_EQ(s.expectations.size(), 3u);
  EXPECT_EQ(s.expectations[0].target, "galera");
  EXPECT_EQ(s.expectations[0].params, (std::map<std::string, std::string>{{"wsrep_sync_wait", "3"}}));
  EXPECT_TRUE(s.expectations[0].versions.empty());
  EXPECT_EQ(s.expectations[1].target, "galera_si");
  EXPECT_EQ(s.expectations[1].params, (std::map<std::string, std::string>{{"innodb_snapshot_isolation", "ON"},
                                                                          {"wsrep_sync_wait", "1"}}));
  EXPECT_EQ(s.expectations[1].versions_text, "10.11-");
  EXPECT_TRUE(s.expectations[1].negated);
  EXPECT_TRUE(s.expectations[2].params.empty());
  // Written back as read.
  const Scenario again = parse_scenario(write_scenario(s), "again.txn", registered_vocabulary());
  ASSERT_EQ(again.expectations.size(), 3u);
  EXPECT_EQ(again.expectations[0].params, s.expectations[0].params);
  EXPECT_EQ(again.expectations[1].params, s.expectations[1].params);
  EXPECT_EQ(again.expectations[1].versions_text, "10.11-");
}

TEST(ScenarioTargetParams, AppliesOnlyWithThatValue) {
  const Scenario s = with_expectations("adya galera[wsrep_sync_wait=3] repeatable read ok\n"
                                       "adya galera_si[innodb_snapshot_isolation=ON,wsrep_sync_wait=3]@10.11- * ok\n"
                                       "adya galera * not G-single\n");
  const auto rr = IsolationLevel::RepeatableRead;
  const Expectation& synced = s.expectations[0];
  EXPECT_TRUE(synced.applies("galera", rr, 101119, params_of("?wsrep_sync_wait=3")));
  EXPECT_TRUE(synced.applies("galera", rr, 0, params_of("?wsrep_sync_wait=3&levels=rr")));
  EXPECT_FALSE(synced.applies("galera", rr, 101119, params_of("?wsrep_sync_wait=0")));
  EXPECT_FALSE(synced.applies("galera", rr, 101119, params_of("?wsrep_sync_wait=1")));
  EXPECT_FALSE(synced.applies("galera", rr, 101119, params_of(""))) << "not given: the server's setting, unknown";
  EXPECT_FALSE(synced.applies("galera", rr, 101119)) << "no parameters passed";
  EXPECT_FALSE(synced.applies("galera", IsolationLevel::Serializable, 101119, params_of("?wsrep_sync_wait=3")));
  EXPECT_FALSE(synced.applies("galera_si", rr, 101119, params_of("?wsrep_sync_wait=3&innodb_snapshot_isolation=ON")));
  // Every parameter must match, values without case (the URI's flag is canonical "on"), versions still apply.
  const Expectation& both = s.expectations[1];
  EXPECT_TRUE(both.applies("galera_si", rr, 101119, params_of("?innodb_snapshot_isolation=ON&wsrep_sync_wait=3")));
  EXPECT_FALSE(both.applies("galera_si", rr, 101119, params_of("?innodb_snapshot_isolation=ON")));
  EXPECT_FALSE(both.applies("galera_si", rr, 100006, params_of("?innodb_snapshot_isolation=ON&wsrep_sync_wait=3")));
  // Without parameters: every configuration of the kind, as before.
  EXPECT_TRUE(s.expectations[2].applies("galera", rr, 0));
  EXPECT_TRUE(s.expectations[2].applies("galera", rr, 0, params_of("?wsrep_sync_wait=0")));
  EXPECT_EQ(s.expectations_for("adya", "galera", rr, 101119, params_of("?wsrep_sync_wait=3")).size(), 2u);
  EXPECT_EQ(s.expectations_for("adya", "galera", rr, 101119, params_of("?wsrep_sync_wait=0")).size(), 1u);
}

TEST(ScenarioTargetParams, BadSpellingsAreOneLineWithTheLine) {
  EXPECT_EQ(expect_error("adya galera[wsrep_sync_wait=3 repeatable read ok\n"),
            "p.txn:14: 'galera[wsrep_sync_wait=3': expected <kind>[<parameter>=<value>,...] with nothing but "
            "@<versions> after ']', e.g. galera[wsrep_sync_wait=3]");
  EXPECT_EQ(expect_error("adya galera[wsrep_sync_wait=3]x repeatable read ok\n"),
            "p.txn:14: 'galera[wsrep_sync_wait=3]x': expected <kind>[<parameter>=<value>,...] with nothing but "
            "@<versions> after ']', e.g. galera[wsrep_sync_wait=3]");
  EXPECT_EQ(expect_error("adya galera[] repeatable read ok\n"),
            "p.txn:14: 'galera[]' names no parameter between the brackets (write e.g. galera[wsrep_sync_wait=3])");
  EXPECT_EQ(expect_error("adya galera[wsrep_sync_wait] repeatable read ok\n"),
            "p.txn:14: 'galera[wsrep_sync_wait]': expected <parameter>=<value> between the brackets, e.g. "
            "galera[wsrep_sync_wait=3], found 'wsrep_sync_wait'");
  EXPECT_EQ(expect_error("adya galera[=3] repeatable read ok\n"),
            "p.txn:14: 'galera[=3]': expected <parameter>=<value> between the brackets, e.g. "
            "galera[wsrep_sync_wait=3], found '=3'");
  EXPECT_EQ(expect_error("adya galera[wsrep_sync_wait=3,wsrep_sync_wait=1] repeatable read ok\n"),
            "p.txn:14: 'galera[wsrep_sync_wait=3,wsrep_sync_wait=1]': parameter 'wsrep_sync_wait' named twice");
  EXPECT_EQ(expect_error("adya galera[wsrep_sync_wait=3]@ repeatable read ok\n"),
            "p.txn:14: 'galera[wsrep_sync_wait=3]@' names no versions after '@' (write e.g. postgresql@12.0-15.17,16)");
  const std::string unknown = expect_error("adya galera[sync_wait=3] repeatable read ok\n");
  EXPECT_EQ(unknown.rfind("p.txn:14: 'galera[sync_wait=3]': unknown target parameter 'sync_wait' (known: ", 0), 0u)
      << unknown;
  EXPECT_NE(unknown.find("wsrep_sync_wait"), std::string::npos) << unknown;
  EXPECT_EQ(unknown.find('\n'), std::string::npos) << unknown;
  EXPECT_NE(expect_error("adya galeria[wsrep_sync_wait=3] repeatable read ok\n")
                .find("p.txn:14: unknown target kind 'galeria'"),
            std::string::npos);
}
