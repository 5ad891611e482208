// A stale read judged without a server (issue 18): T0 on node 1 updates row 1 and commits; then T1 on node 2 begins
// and reads row 1 at the version T0 overwrote. Adya finds a G-SIb through a start-dependency (T1 -rw-> T0, T0 ended
// before T1 started); check_adya names it a stale read where the engine is a cluster and the two transactions ran on
// different nodes, with the standing the profile gives it: documented on Galera (MariaDB's "Known Limitations",
// wsrep_sync_wait), failing on a cluster whose profile promises one copy. On one server the same history stays the
// G-SIb it is (a real violation where the level promises snapshot isolation: PostgreSQL REPEATABLE READ).
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "txprop/adya.hpp"
#include "txprop/adya_instrumentation.hpp"
#include "txprop/behaviours.hpp"
#include "txprop/engine.hpp"
#include "txprop/target.hpp"
#include "txprop/target_config.hpp"
#include "tests/support/adya_planted_history.hpp"

using namespace txprop;

namespace {

constexpr IsolationLevel RR = IsolationLevel::RepeatableRead;

// Galera's profile in everything but one promise: one copy, no stale read at any level (what Galera's own "Isolation
// Levels" page suggests, and what MariaDB's "Known Limitations" page denies). Not registered: only this test's target
// uses it (set on the parsed galera:// configuration).
class OneCopyCluster final : public EngineProfile {
 public:
  std::string name() const override { return "onecopycluster"; }
  std::vector<std::string> schemes() const override { return {"onecopycluster"}; }
  Dialect dialect() const override { return galera().dialect(); }
  std::vector<IsolationLevel> levels() const override { return galera().levels(); }
  bool multi_host() const override { return true; }
  EngineCapabilities capabilities() const override { return galera().capabilities(); }
  DocumentedBehaviour documented(IsolationLevel level, const TargetConfig& config) const override {
    DocumentedBehaviour d = galera().documented(level, config);
    d.allowed.erase(behaviour::kStaleRead);
    return d;
  }
  VisibilityRules visibility(IsolationLevel level, const TargetConfig& config) const override {
    return galera().visibility(level, config);
  }
  std::unique_ptr<drivers::Driver> open(const TargetConfig& config) const override { return galera().open(config); }

 private:
  static const EngineProfile& galera() { return *find_engine("galera"); }
};

constexpr const char* kGalera = "galera://u@127.0.0.1:1,127.0.0.1:2/db";
constexpr const char* kOneCopy = "one copy";  // kGalera judged with OneCopyCluster

Target& judged_as(const std::string& uri) {
  static const OneCopyCluster one_copy;
  static std::map<std::string, std::unique_ptr<Target>> targets;
  auto& t = targets[uri];
  if (t) return *t;
  TargetConfig config = parse_target_uri(uri == kOneCopy ? kGalera : uri);
  if (uri == kOneCopy) config.engine = &one_copy;
  t = Target::open_judged_as(parse_target_uri("sqlite:"), config);
  return *t;
}

const Finding* first_of(const Verdict& v, const std::string& kind) {
  for (const Finding& f : v.findings)
    if (f.kind == kind) return &f;
  return nullptr;
}

// T0 (node `n0`) UPDATE t SET v = 1 WHERE k = 1; COMMIT; then T1 (node `n1`) SELECT * FROM t WHERE k = 1; COMMIT,
// every step of T0 before T1's BEGIN. T1's SELECT returns the version `t1_saw` ("0": the initial one, stale; "0,1":
// T0's). The observer reads T0's version.
History read_after_commit(int n0, int n1, const char* t1_saw) {
  TestCase c;
  c.schema.tables = {test::one_row_table("t")};
  const Expr k_is_1 = Expr::binary(BinaryOp::Eq, Expr::col("k"), Expr::lit(1));
  c.transactions = {Transaction{RR, {Statement::update("t", {{"v", Expr::lit(1)}}, k_is_1)}, TxnEnd::Commit},
                    Transaction{RR, {Statement::select("t", k_is_1)}, TxnEnd::Commit}};
  c.transactions[0].node = n0;
  c.transactions[1].node = n1;
  c.order = {0, 0, 0, 1, 1, 1};
  adya::InstrumentationOptions options;
  options.version_sets = false;
  test::PlantedHistory p(c, options);
  p.at(0, 1).columns = test::kReturning;
  p.at(0, 1).rows = {{1, "0,1", 1, 1}};
  p.at(0, 1).affected = 1;
  p.at(1, 1).columns = test::kTableColumns;
  p.at(1, 1).rows = {{1, std::string(t1_saw) == "0" ? 0 : 1, 1, t1_saw}};
  p.observed(0, {{1, 1, 1, "0,1"}});
  return p.h;
}

}  // namespace

TEST(StaleReadStanding, GaleraDocumentsAReadOnAnotherNodeThatMissedACommit) {
  const History h = read_after_commit(0, 1, "0");
  const Verdict documented = check_adya(judged_as(kGalera), h, AdyaMode::Documented);
  const Finding* f = first_of(documented, behaviour::kStaleRead);
  ASSERT_NE(f, nullptr) << documented.explain();
  EXPECT_EQ(f->standing, Standing::Documented);
  EXPECT_NE(f->source.find("Known Limitations"), std::string::npos) << f->source;
  EXPECT_NE(f->source.find("wsrep_sync_wait"), std::string::npos) << f->source;
  EXPECT_NE(f->explanation.find("T1 ran on node 2 and began after T0, on node 1, had committed"), std::string::npos)
      << f->explanation;
  EXPECT_NE(f->explanation.find("T0 -start-> T1"), std::string::npos) << f->explanation;
  EXPECT_EQ(first_of(documented, "G-SIb"), nullptr) << "one finding, under its most specific name";
  EXPECT_FALSE(documented.fails());
  // The level's ANSI name read as Adya's level: a deviation, shrunk and shown, never hidden.
  const Verdict claimed = check_adya(judged_as(kGalera), h, AdyaMode::Claimed);
  ASSERT_NE(first_of(claimed, behaviour::kStaleRead), nullptr) << claimed.explain();
  EXPECT_EQ(first_of(claimed, behaviour::kStaleRead)->standing, Standing::Deviation);
}

TEST(StaleReadStanding, FailsOnAClusterThatPromisesOneCopy) {
  const Verdict v = check_adya(judged_as(kOneCopy), read_after_commit(0, 1, "0"),
                               AdyaMode::Documented);
  const Finding* f = first_of(v, behaviour::kStaleRead);
  ASSERT_NE(f, nullptr) << v.explain();
  EXPECT_EQ(f->standing, Standing::Fails);
  EXPECT_TRUE(v.fails());
}

// The correct case: T1 saw T0's write. Nothing to report, on the cluster or on one server.
TEST(StaleReadStanding, AReadThatSawTheCommitPasses) {
  for (const char* uri : {kGalera, kOneCopy, "mariadb://u@127.0.0.1/db"}) {
    const Verdict v = check_adya(judged_as(uri), read_after_commit(0, 1, "0,1"), AdyaMode::Documented);
    EXPECT_TRUE(v.findings.empty()) << uri << "\n" << v.explain();
  }
}

// On one node of the cluster, and on one server, the missed commit stays a G-SIb judged by the level: allowed by
// Adya's PL-2.99 (MariaDB REPEATABLE READ), failing where the level promises snapshot isolation (PostgreSQL
// REPEATABLE READ, PL-SI). A node named in a case run on one server changes nothing.
TEST(StaleReadStanding, OnOneServerOrOneNodeItStaysAGSIb) {
  struct Row {
    const char* uri;
    int n1;
    Standing standing;
  };
  for (const Row& r : {Row{kGalera, 0, Standing::Allowed}, Row{"mariadb://u@127.0.0.1/db", 1, Standing::Allowed},
                       Row{"postgresql://u@127.0.0.1/db", 1, Standing::Fails}}) {
    SCOPED_TRACE(r.uri);
    const Verdict v = check_adya(judged_as(r.uri), read_after_commit(0, r.n1, "0"), AdyaMode::Documented);
    EXPECT_EQ(first_of(v, behaviour::kStaleRead), nullptr) << v.explain();
    const Finding* f = first_of(v, "G-SIb");
    ASSERT_NE(f, nullptr) << v.explain();
    EXPECT_EQ(f->standing, r.standing) << v.explain();
  }
}
