// A stale read on a Galera cluster (issue 18), replayed with the real results: an autocommit UPDATE of every row of a
// table on node 1 commits, then an autocommit SELECT on node 2 asks for the rows it changed. A Galera COMMIT returns on
// its node once the write set is certified, before the other nodes applied it ("virtually synchronous"), so with
// wsrep_sync_wait=0 node 2 can answer from its state before the UPDATE: a stale read, which MariaDB's "Galera Cluster
// Known Limitations" lists and the profile documents. With wsrep_sync_wait=1 the SELECT first waits until node 2
// applied every write set the cluster ordered before it (MariaDB's wsrep_sync_wait page), so it never is.
//
// The UPDATE writes kRows rows: a large write set takes node 2 long enough to apply that the SELECT, sent right after
// the COMMIT returned, usually meets it unapplied (../shared/notes/galera.md: 62-74% of 2,000-row transactions stale
// with 0, 0% with 1; here, 2,000 rows: 9-15 stale of 20 runs with 0 and 0 of 20 with 1, in each of 5 executions of this
// test, about 6 s each). Runs in CI's Galera stage; skipped without a cluster (failed when CI is set).
#include <gtest/gtest.h>

#include <optional>

#include <fmt/format.h>

#include "support/engine_targets.hpp"
#include "txprop/behaviours.hpp"
#include "txprop/oracle.hpp"
#include "txprop/scenario.hpp"

using namespace txprop;

namespace {

constexpr int kRows = 2000;
constexpr int kRuns = 20;

// `steps` after the setup of t(k, v) with kRows rows (k, 0), T0 on node 1, T1 on node 2.
TestCase on_two_nodes(const std::string& steps) {
  std::string text = "name: read on node 2 right after a commit on node 1\nnode T0: 1\nnode T1: 2\nsetup:\n"
                     "CREATE TABLE t (k INTEGER NOT NULL, v INTEGER, PRIMARY KEY (k));\nINSERT INTO t (k, v) VALUES ";
  for (int k = 1; k <= kRows; ++k) text += fmt::format("{}({}, 0)", k == 1 ? "" : ", ", k);
  return parse_scenario(text + ";\nsteps:\n" + steps).replay_case(IsolationLevel::RepeatableRead);
}

TestCase update_then_read() { return on_two_nodes("T0: UPDATE t SET v = 1;\nT1: SELECT * FROM t WHERE v = 0;\n"); }

// The cluster of `cluster` with every session at this wsrep_sync_wait.
std::unique_ptr<Target> with_sync_wait(const Target& cluster, int wait) {
  TargetConfig c = cluster.config();
  c.params["wsrep_sync_wait"] = std::to_string(wait);
  return Target::open(c);
}

struct Counts {
  int stale = 0, fresh = 0;
};

// Runs the case kRuns times; a run is stale when T1's SELECT returned any row T0's committed UPDATE had changed.
Counts replay(Target& target, const TestCase& c) {
  Counts n;
  for (int run = 0; run < kRuns; ++run) {
    const History h = target.run(c);
    // Step 0 of a transaction is its BEGIN (implicit for an autocommit statement), step 1 its statement.
    const Outcome& update = h.outcomes[0][1];
    const Outcome& read = h.outcomes[1][1];
    EXPECT_FALSE(h.finding) << (h.finding ? h.finding->detail : "");
    EXPECT_EQ(update.affected, kRows) << summary(update);
    EXPECT_TRUE(read.ok()) << summary(read);
    EXPECT_TRUE(read.rows.empty() || read.rows.size() == static_cast<std::size_t>(kRows))
        << "node 2 applied part of a write set: " << read.rows.size() << " rows";
    ++(read.rows.empty() ? n.fresh : n.stale);
  }
  return n;
}

}  // namespace

TEST(StaleRead, galera_read_on_node_2_after_commit_on_node_1) {
  TXPROP_USE_ENGINE(cluster, "galera", false);
  const TestCase c = update_then_read();
  const std::unique_ptr<Target> unsynced = with_sync_wait(*cluster, 0), synced = with_sync_wait(*cluster, 1);
  const Counts at0 = replay(*unsynced, c), at1 = replay(*synced, c);
  std::cout << fmt::format("[stale read] {}-row UPDATE on node 1, then SELECT on node 2: stale in {} of {} runs with "
                           "wsrep_sync_wait=0, {} of {} with wsrep_sync_wait=1\n",
                           kRows, at0.stale, kRuns, at1.stale, kRuns);
  EXPECT_EQ(at1.stale, 0);
  // Not a promise of the engine but what it does on loopback (45-75% per run here): none in kRuns runs would
  // mean the SELECT no longer reaches node 2 before its applier, and this test no longer shows the stale read.
  EXPECT_GT(at0.stale, 0);
}

// The same shape as transactions, judged by the Adya oracle: T0 commits its UPDATE on node 1, then T1 begins on node
// 2 and reads row 1. A stale T1 read the version T0 overwrote although T0 had ended before T1 started: the oracle names
// it a stale read, documented with MariaDB's sources (galera_profile.cpp), and fails nothing. With wsrep_sync_wait=1
// T1's BEGIN waits for node 2 to apply T0, so no run may show one. The instrumentation's observer reads on node 1,
// where T0 committed (on another node it could itself read stale and hide T0's version). At most kRuns runs with 0
// (usually the first is stale), kRuns / 2 with 1.
TEST(StaleRead, galera_adya_names_a_stale_read_with_its_sources) {
  TXPROP_USE_ENGINE(cluster, "galera", false);
  const TestCase c = on_two_nodes("T0: BEGIN;\nT0: UPDATE t SET v = 1;\nT0: COMMIT;\nT1: BEGIN;\n"
                                  "T1: SELECT * FROM t WHERE k = 1;\nT1: COMMIT;\n");
  const Oracle& adya = oracle("adya");
  auto judge = [&](Target& target) {
    return judge_case(adya, target, c, [&](const TestCase& prepared) {
             TestCase on_node_1 = prepared;
             on_node_1.transactions.back().node = 0;
             return target.run(on_node_1);
           }).verdict;
  };
  const std::unique_ptr<Target> unsynced = with_sync_wait(*cluster, 0), synced = with_sync_wait(*cluster, 1);
  std::optional<Finding> stale;
  int runs = 0;
  while (!stale && runs++ < kRuns) {
    const Verdict v = judge(*unsynced);
    EXPECT_FALSE(v.fails()) << v.explain();
    for (const Finding& f : v.findings)
      if (f.kind == behaviour::kStaleRead) stale = f;
  }
  std::cout << fmt::format("[stale read] Adya: a stale read after {} run(s) with wsrep_sync_wait=0\n", runs);
  ASSERT_TRUE(stale) << "no stale read in " << kRuns << " runs with wsrep_sync_wait=0";
  EXPECT_EQ(stale->standing, Standing::Documented);
  EXPECT_NE(stale->source.find("Known Limitations"), std::string::npos) << stale->source;
  EXPECT_NE(stale->explanation.find("T1 ran on node 2 and began after T0, on node 1, had committed"), std::string::npos)
      << stale->explanation;
  for (int run = 0; run < kRuns / 2; ++run) {
    const Verdict v = judge(*synced);
    EXPECT_TRUE(v.findings.empty()) << v.explain();
  }
}
