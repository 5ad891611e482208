// Planted violations through a Galera cluster (issue 18), one per oracle that judges Galera cases: each runs a fixed
// case on the cluster's nodes, shows that an oracle told something must hold where the profile documents that it does
// not catches it, and that a case where it does hold passes. They run in CI's Galera stage (scripts/test_galera.sh,
// names with "galera"); without a cluster in TXPROP_TARGETS they are skipped (failed when CI is set).
//
// Fixed cases, not generated ones: a generated search on the cluster costs minutes per oracle (CI's Galera stage has
// about 3), and the cross-node shapes are races unless the case itself orders them (see kLostUpdate).
#include <gtest/gtest.h>

#include <algorithm>

#include <fmt/format.h>

#include "../../properties/sdg/sdg.hpp"
#include "../../properties/troc/troc.hpp"
#include "support/engine_targets.hpp"
#include "txprop/adya.hpp"
#include "txprop/atomicity.hpp"
#include "txprop/internal/scenario_runner.hpp"
#include "txprop/oracle.hpp"
#include "txprop/property.hpp"
#include "txprop/scenario.hpp"
#include "txprop/wss.hpp"

using namespace txprop;

namespace {

// The cross-node lost update (tests/scenarios/galera_cross_node_lost_update.txn), with T2 on node 2 between T0's
// COMMIT and T1's UPDATE: T2's BEGIN waits until node 2 applied every write set the cluster ordered before it
// (wsrep_sync_wait bit 1, MariaDB's wsrep_sync_wait page), so T1's UPDATE always meets T0's applied write. With
// innodb_snapshot_isolation=OFF it overwrites it and passes certification (T1's write set was certified after T0's):
// the update T1 read for is lost, 10 of 10 with `txprop replay --repeat 10`; without T2 it was a race (7/20). With ON
// T1's UPDATE gets 1020 (snapshot-conflict) every time. T1's SET clause is `{}`: v = 12 WHERE k = 1, except in the
// SDG test, v = 12 WHERE v = 10 (the row T1 read matches, the version its UPDATE meets does not).
constexpr const char* kLostUpdate = R"(
name: cross-node lost update, node 2 synced before the second write
node T0: 1
node T1: 2
node T2: 2
setup:
CREATE TABLE t (k INTEGER NOT NULL, v INTEGER, PRIMARY KEY (k));
INSERT INTO t (k, v) VALUES (1, 10);
steps:
T0: BEGIN;
T0: SELECT * FROM t WHERE k = 1;
T1: BEGIN;
T1: SELECT * FROM t WHERE k = 1;
T0: UPDATE t SET v = 11 WHERE k = 1;
T0: COMMIT;
T2: BEGIN;
T2: SELECT * FROM t WHERE k = 1;
T2: COMMIT;
T1: UPDATE t SET {};
T1: COMMIT;
)";

// The same two writers one after the other: T1 begins on node 2 after T0 committed on node 1, and its BEGIN waits for
// T0's write set (wsrep_sync_wait bit 1), so it reads T0's version: serializable in commit order.
constexpr const char* kSerial = R"(
name: cross-node writers one after the other
node T0: 1
node T1: 2
setup:
CREATE TABLE t (k INTEGER NOT NULL, v INTEGER, PRIMARY KEY (k));
INSERT INTO t (k, v) VALUES (1, 10);
steps:
T0: BEGIN;
T0: SELECT * FROM t WHERE k = 1;
T0: UPDATE t SET v = 11 WHERE k = 1;
T0: COMMIT;
T1: BEGIN;
T1: SELECT * FROM t WHERE k = 1;
T1: UPDATE t SET v = 12 WHERE k = 1;
T1: COMMIT;
)";

// A dirty read at READ UNCOMMITTED and then a rollback. On one node InnoDB shows T1 the uncommitted write (documented
// for READ UNCOMMITTED); across nodes a write set leaves its node only at COMMIT (Galera replicates at commit time), so
// T1 on another node can never see it.
constexpr const char* kDirtyReadOnNodes = R"(
name: dirty read of a write rolled back
node T0: {}
node T1: 2
setup:
CREATE TABLE t (k INTEGER NOT NULL, v INTEGER, PRIMARY KEY (k));
INSERT INTO t (k, v) VALUES (1, 10);
steps:
T0: BEGIN;
T1: BEGIN;
T0: UPDATE t SET v = 11 WHERE k = 1;
T1: SELECT * FROM t WHERE k = 1;
T0: ROLLBACK;
T1: COMMIT;
)";

// A repeated read on node 2 around a commit of another session on node {}: at REPEATABLE READ both reads of T0 return
// its snapshot.
constexpr const char* kRepeatedRead = R"(
name: repeated read around another session's commit
node T0: 2
node T1: {}
setup:
CREATE TABLE t (k INTEGER NOT NULL, v INTEGER, PRIMARY KEY (k));
INSERT INTO t (k, v) VALUES (1, 10);
steps:
T0: BEGIN;
T0: SELECT * FROM t WHERE k = 1;
T1: BEGIN;
T1: UPDATE t SET v = 11 WHERE k = 1;
T1: COMMIT;
T0: SELECT * FROM t WHERE k = 1;
T0: COMMIT;
)";

TestCase case_at(const std::string& text, IsolationLevel level) { return parse_scenario(text).replay_case(level); }

// kLostUpdate at REPEATABLE READ, T1's UPDATE t SET `set`.
TestCase lost_update(const char* set) { return case_at(fmt::format(kLostUpdate, set), IsolationLevel::RepeatableRead); }

// The run of `c` as `o` prepares it (instrumentation), on the cluster.
History run_for(Target& target, const Oracle& o, const TestCase& c) { return target.run(o.prepare(c, target.engine())); }

// The Galera profile, except that it follows the claim of Galera's "Isolation Levels" page that first committer wins
// "eliminates the lost update anomaly" (the claim codership-documentation issue #355 withdrew; the real profile
// follows MariaDB's Known Limitations), and optionally with Troc's SELECT row wrong (READ COMMITTED's latest committed
// version instead of the snapshot). Used only here, to plant a violation.
class PlantedGaleraProfile final : public EngineProfile {
 public:
  PlantedGaleraProfile(const EngineProfile& base, bool wrong_select_row) : base_(base), wrong_select_(wrong_select_row) {}
  std::string name() const override { return "plantedgalera"; }
  std::vector<std::string> schemes() const override { return {"plantedgalera"}; }
  Dialect dialect() const override { return base_.dialect(); }
  std::vector<IsolationLevel> levels() const override { return base_.levels(); }
  bool multi_host() const override { return true; }
  std::vector<EngineParameter> parameters() const override { return base_.parameters(); }
  std::string kind(const TargetConfig& c) const override { return base_.kind(c); }
  std::string configuration(const TargetConfig& c) const override { return base_.configuration(c); }
  EngineCapabilities capabilities() const override { return base_.capabilities(); }
  DocumentedBehaviour documented(IsolationLevel level, const TargetConfig& c) const override {
    DocumentedBehaviour d = base_.documented(level, c);
    for (const char* kind : {"lost-update", "G-single", "read-skew"}) d.allowed.erase(kind);  // planted: wrong
    d.prevented.insert("G-single");
    return d;
  }
  VisibilityRules visibility(IsolationLevel level, const TargetConfig& c) const override {
    VisibilityRules v = base_.visibility(level, c);
    if (wrong_select_) {
      v.select.view = ViewRule::LatestCommitted;  // planted: wrong
      v.select.source = "planted by galera_planted_test";
    }
    return v;
  }
  std::optional<bool> statement_reads_tables(drivers::Session& s, const std::string& sql) const override {
    return base_.statement_reads_tables(s, sql);
  }
  std::unique_ptr<drivers::Driver> open(const TargetConfig& c) const override { return base_.open(c); }

 private:
  const EngineProfile& base_;
  bool wrong_select_;
};

// The cluster's configuration judged by the planted profile, with no server: Target::open_judged_as runs whatever the
// judge re-runs on embedded SQLite (Adya re-runs nothing).
Target& judged_by_planted_profile(const Target& cluster) {
  static PlantedGaleraProfile profile(cluster.engine(), false);
  static TargetConfig planted;
  static std::unique_ptr<Target> target;
  if (!target) {
    planted = cluster.config();
    planted.engine = &profile;
    target = Target::open_judged_as(parse_target_uri("sqlite:"), planted);
  }
  return *target;
}

// The fixed cases need T2's BEGIN to wait for node 2 to apply T0's write set (wsrep_sync_wait bit 1).
#define TXPROP_NEED_SYNCED_BEGIN(target)                                                                          \
  if ((std::stoi((target)->config().param("wsrep_sync_wait", "0")) & 1) == 0) {                                   \
    const std::string why_ = (target)->config().masked_uri() + " has no wsrep_sync_wait bit 1 (these fixed cases " \
                             "need BEGIN to wait for the node's applier)";                                          \
    if (running_in_ci()) FAIL() << why_;                                                                          \
    GTEST_SKIP() << why_;                                                                                          \
  }

void print(const std::string& what, const Verdict& v) {
  std::cout << fmt::format("[galera planted] {}: {}\n", what, v.summary());
}

const Finding* finding(const Verdict& v, const std::string& kind) {
  for (const Finding& f : v.findings)
    if (f.kind == kind) return &f;
  return nullptr;
}

}  // namespace

// Adya: the cross-node lost update is found and counted as documented with both sources (MariaDB's Known
// Limitations, followed; Galera's withdrawn claim); judged by a profile that follows the withdrawn claim, it fails.
TEST(PlantedViolation, galera_adya_cross_node_lost_update) {
  TXPROP_USE_ENGINE(target, "galera", false);
  TXPROP_NEED_SYNCED_BEGIN(target);
  const History h = run_for(*target, oracle("adya"), lost_update("v = 12 WHERE k = 1"));
  const Verdict real = oracle("adya").judge(*target, h);
  print("adya, galera profile", real);
  const Finding* lost = finding(real, "lost-update");
  ASSERT_NE(lost, nullptr) << real.explain();
  EXPECT_FALSE(real.fails()) << real.explain();
  EXPECT_TRUE(lost->documented());
  EXPECT_NE(lost->source.find("Known Limitations"), std::string::npos) << lost->source;
  EXPECT_NE(lost->source.find("issue #355"), std::string::npos) << lost->source;
  const Verdict planted = oracle("adya").judge(judged_by_planted_profile(*target), h);
  print("adya, profile following the withdrawn claim", planted);
  EXPECT_TRUE(planted.fails()) << planted.explain();
  EXPECT_TRUE(planted.has("lost-update")) << planted.explain();
}

// Adya, correct case: with innodb_snapshot_isolation=ON the second writer gets 1020 and no G-single remains.
TEST(PlantedViolation, galera_adya_no_lost_update_with_snapshot_isolation) {
  TXPROP_USE_ENGINE(target, "galera", true);
  TXPROP_NEED_SYNCED_BEGIN(target);
  const History h = run_for(*target, oracle("adya"), lost_update("v = 12 WHERE k = 1"));
  ASSERT_EQ(h.transactions[1].fate, TxnFate::Aborted) << "T1 did not abort";
  EXPECT_EQ(h.transactions[1].abort_reason.cls, ErrorClass::SnapshotConflict) << h.transactions[1].abort_reason.message;
  const Verdict v = oracle("adya").judge(judged_by_planted_profile(*target), h);
  print("adya with snapshot isolation, strict profile", v);
  EXPECT_TRUE(v.ok()) << v.explain();
}

// WSS told that reads are serializable in commit order across nodes (the profile documents stale and non-repeatable
// reads there): T1's read before T0's commit is caught; the writers one after the other pass.
TEST(PlantedViolation, galera_wss_reads_across_nodes) {
  TXPROP_USE_ENGINE(target, "galera", false);
  TXPROP_NEED_SYNCED_BEGIN(target);
  const WssBehaviour strict{
      .write_serializable = true, .reads_serializable = true, .source = "planted by galera_planted_test"};
  const History lost = run_for(*target, oracle("wss"), lost_update("v = 12 WHERE k = 1"));
  const Verdict real = oracle("wss").judge(*target, lost);
  print("wss, galera profile, lost update", real);
  EXPECT_FALSE(real.fails()) << real.explain();
  const Verdict planted = check_wss(*target, lost, {.documented = strict});
  print("wss, reads told serializable, lost update", planted);
  EXPECT_TRUE(planted.fails()) << planted.explain();
  const History serial = run_for(*target, oracle("wss"), case_at(kSerial, IsolationLevel::RepeatableRead));
  const Verdict correct = check_wss(*target, serial, {.documented = strict});
  print("wss, reads told serializable, serial writers", correct);
  EXPECT_TRUE(correct.ok()) << correct.explain();
}

// SDG told that Assumption A3 holds across nodes (the profile documents that it does not, for stale reads): T1's
// before-write read returns its snapshot (v = 10) but its UPDATE ... WHERE v = 10 meets node 2's newer version (v = 11,
// T0's) and writes nothing: A3 broke, so no verdict (issue 21 item 5), tagged documented with the profile's source,
// and not documented when A3 is assumed; the writers one after the other pass.
TEST(PlantedViolation, galera_sdg_assuming_a3_across_nodes) {
  TXPROP_USE_ENGINE(target, "galera", false);
  TXPROP_NEED_SYNCED_BEGIN(target);
  const sdg::SdgOptions planted_a3{.isolation = false, .assume_a3 = true};
  const History stale = run_for(*target, oracle("sdg"), lost_update("v = 12 WHERE v = 10"));
  const Verdict real = oracle("sdg").judge(*target, stale);
  print("sdg, galera profile, T1's UPDATE misses the row it read", real);
  EXPECT_FALSE(real.fails()) << real.explain();
  EXPECT_TRUE(real.inconclusive && real.findings.empty()) << real.explain();
  EXPECT_NE(std::find(real.tags.begin(), real.tags.end(), "sdg-no-verdict: A3 broken, documented"), real.tags.end());
  EXPECT_NE(real.note.find("wsrep_sync_wait"), std::string::npos) << real.note;
  const Verdict planted = sdg::check_sdg(*target, stale, planted_a3);
  print("sdg assuming A3, T1's UPDATE misses the row it read", planted);
  EXPECT_TRUE(planted.inconclusive && planted.findings.empty()) << planted.explain();
  EXPECT_NE(std::find(planted.tags.begin(), planted.tags.end(), "sdg-no-verdict: A3 broken, not documented"),
            planted.tags.end());
  const History serial = run_for(*target, oracle("sdg"), case_at(kSerial, IsolationLevel::RepeatableRead));
  const Verdict correct = sdg::check_sdg(*target, serial, planted_a3);
  print("sdg assuming A3, serial writers", correct);
  EXPECT_TRUE(correct.ok()) << correct.explain();
}

// Atomicity told to hold at READ UNCOMMITTED: a dirty read of a rolled-back write by a session on the same node is
// caught; with the writer on another node there is nothing to read (write sets leave their node at COMMIT) and the
// case passes.
TEST(PlantedViolation, galera_atomicity_dirty_read_on_one_node_only) {
  TXPROP_USE_ENGINE(target, "galera", false);
  const AtomicityOptions planted{.ignore_documentation = true};
  const std::string same_node = fmt::format(kDirtyReadOnNodes, 2), other_node = fmt::format(kDirtyReadOnNodes, 1);
  const History dirty = run_for(*target, oracle("atomicity"), case_at(same_node, IsolationLevel::ReadUncommitted));
  const Verdict real = oracle("atomicity").judge(*target, dirty);
  print("atomicity, galera profile, same node", real);
  EXPECT_FALSE(real.fails()) << real.explain();
  const Verdict caught = check_atomicity(*target, dirty, planted);
  print("atomicity ignoring documentation, same node", caught);
  EXPECT_TRUE(caught.fails()) << caught.explain();
  EXPECT_TRUE(caught.has("aborted-effect")) << caught.explain();
  const History clean = run_for(*target, oracle("atomicity"), case_at(other_node, IsolationLevel::ReadUncommitted));
  const Verdict passed = check_atomicity(*target, clean, planted);
  print("atomicity ignoring documentation, nodes 1 and 2", passed);
  EXPECT_TRUE(passed.ok()) << passed.explain();
}

// Troc on one node of the cluster with a wrong SELECT row (latest committed instead of the snapshot): T0's repeated
// read is caught as an incorrect result; with the real rows it passes; with the sessions on two nodes Troc says it
// cannot judge (its lock model is one node's), never passes.
TEST(PlantedViolation, galera_troc_wrong_select_row_on_one_node) {
  TXPROP_USE_ENGINE(target, "galera", false);
  static const PlantedGaleraProfile wrong(target->engine(), true);
  const History h = run_for(*target, oracle("troc"), case_at(fmt::format(kRepeatedRead, 2), IsolationLevel::RepeatableRead));
  const Verdict planted = troc::check_troc(*target, h, {.profile = &wrong});
  print("troc, wrong SELECT row, one node", planted);
  EXPECT_TRUE(planted.fails()) << planted.explain();
  EXPECT_TRUE(planted.has("incorrect-result")) << planted.explain();
  const Verdict real = oracle("troc").judge(*target, h);
  print("troc, galera profile, one node", real);
  EXPECT_TRUE(real.ok()) << real.explain();
  const Verdict across = oracle("troc").check(*target, case_at(fmt::format(kRepeatedRead, 1), IsolationLevel::RepeatableRead));
  print("troc, two nodes", across);
  EXPECT_TRUE(across.inconclusive) << across.explain();
  EXPECT_FALSE(across.fails()) << across.explain();
}

// Nodes that diverge (the engine bug of tests/scenarios/engine_bugs/galera_failed_multi_table_update_diverges_nodes.txn:
// a multi-table UPDATE that fails with a duplicate key on node 1 still replicates its rolled-back changes) fail a
// property with a divergence, the run's own finding, and the harness treats it as a failing case (judged, then shrunk:
// here the body runs the one fixed case whatever it is given, so every attempt fails again; 3 attempts suffice), not
// as a crash re-run once and left unshrunk.
TEST(PlantedViolation, galera_diverging_nodes_are_a_divergence) {
  TXPROP_USE_ENGINE(target, "galera", false);
  const Scenario bug = load_scenario(
      std::string(TXPROP_SCENARIO_DIR) + "/engine_bugs/galera_failed_multi_table_update_diverges_nodes.txn",
      registered_vocabulary());
  const TestCase c = bug.replay_case(IsolationLevel::Serializable);
  PropertySettings s;
  s.cases = 3;
  s.seed = 1;
  s.shrink_attempts = 3;
  PropertyRunner runner("PlantedDivergence", *target, SuiteParam{target->config(), IsolationLevel::Serializable, {}}, s);
  const PropertyResult r = runner.check([&](const TestCase&) { (void)runner.run(c); });
  ASSERT_TRUE(r.failed) << "the nodes did not diverge: " << r.summary();
  ASSERT_TRUE(r.verdict) << r.message;
  ASSERT_EQ(r.verdict->findings.size(), 1u) << r.verdict->explain();
  EXPECT_EQ(r.verdict->findings[0].kind, "divergence") << r.verdict->explain();
  EXPECT_NE(r.verdict->findings[0].explanation.find("nodes diverge: node 2's applied state differs from node 1's"),
            std::string::npos)
      << r.verdict->explain();
  EXPECT_EQ(r.message.find("not shrunk"), std::string::npos) << r.message;
  EXPECT_GT(r.shrink_attempts, 0) << r.message;
  EXPECT_TRUE(r.transient_crashes.empty());
}
