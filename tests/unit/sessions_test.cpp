// Shared connections and autocommit statements (the shapes of hand-written isolation tests) as the oracles see them,
// without a server: which oracles refuse what, and Adya's history of a transaction queued behind the previous one on
// its connection.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

// tests/ have framework/ on their include path, not the project root; the adya headers include each other relatively.
#include "txprop/adya.hpp"
#include "txprop/adya_checker.hpp"
#include "txprop/adya_instrumentation.hpp"
#include "report/counterexample_report.hpp"
#include "txprop/engine.hpp"
#include "txprop/internal/test_hooks.hpp"
#include "txprop/oracle.hpp"
#include "txprop/scenario.hpp"
#include "txprop/internal/scenario_runner.hpp"
#include "txprop/target_config.hpp"

using namespace txprop;

namespace {

const char* const kSetup =
    "setup:\nCREATE TABLE t (k INTEGER NOT NULL, v INTEGER, PRIMARY KEY (k));\nINSERT INTO t (k, v) VALUES (1, 10);\n";

TestCase case_of(const std::string& steps, IsolationLevel level) {
  return parse_scenario(std::string(kSetup) + "steps:\n" + steps, "sessions.txn").test_case(level);
}

const EngineProfile& engine(const char* name) {
  const EngineProfile* e = find_engine(name);
  EXPECT_NE(e, nullptr) << name;
  return *e;
}

// s1 commits a write and checks it after COMMIT; s2 writes in autocommit mode.
const char* const kAutocommit =
    "s1: BEGIN;\ns1: UPDATE t SET v = 11 WHERE k = 1;\ns1: COMMIT;\ns1: SELECT * FROM t;\ns2: UPDATE t SET v = 12 WHERE "
    "k = 1;\n";
// Two transactions on one connection, none in autocommit mode.
const char* const kSharedOnly =
    "s1: BEGIN;\ns1: UPDATE t SET v = 11 WHERE k = 1;\ns1: COMMIT;\ns1: BEGIN;\ns1: SELECT * FROM t;\ns1: COMMIT;\n";

}  // namespace

TEST(SessionsOracles, SdgRefusesAutocommitStatementsWithTheReason) {
  const Oracle& sdg = oracle("sdg");
  const std::string why = sdg.cannot_judge(case_of(kAutocommit, IsolationLevel::ReadCommitted), engine("postgresql"));
  EXPECT_EQ(why,
            "it has autocommit statements (outside BEGIN ... COMMIT), and TxCheck's instrumentation reads must run in "
            "the statement's own transaction");
  // Several transactions on one connection, each with BEGIN ... COMMIT, it judges.
  EXPECT_EQ(sdg.cannot_judge(case_of(kSharedOnly, IsolationLevel::ReadCommitted), engine("postgresql")), "");
}

TEST(SessionsOracles, TrocRefusesAnAutocommitSelectOnlyWhereTheLevelsPlainReadsLock) {
  const Oracle& troc = oracle("troc");
  const std::string select = "s1: BEGIN;\ns1: UPDATE t SET v = 11 WHERE k = 1;\ns1: COMMIT;\ns2: SELECT * FROM t;\n";
  // InnoDB SERIALIZABLE turns plain SELECTs into locking reads only when autocommit is off.
  EXPECT_EQ(troc.cannot_judge(case_of(select, IsolationLevel::Serializable), engine("mariadb")),
            "T1 is an autocommit SELECT at SERIALIZABLE, where mariadb's plain reads lock only inside transactions, and "
            "Troc's lock rules for that level assume they lock");
  EXPECT_EQ(troc.cannot_judge(case_of(select, IsolationLevel::RepeatableRead), engine("mariadb")), "");
  EXPECT_EQ(troc.cannot_judge(case_of(select, IsolationLevel::Serializable), engine("postgresql")), "");
  // An autocommit write is modelled as the one-statement transaction it is.
  const std::string write = "s1: BEGIN;\ns1: SELECT * FROM t;\ns1: COMMIT;\ns2: UPDATE t SET v = 12 WHERE k = 1;\n";
  EXPECT_EQ(troc.cannot_judge(case_of(write, IsolationLevel::Serializable), engine("mariadb")), "");
}

TEST(SessionsOracles, TheOthersJudgeBothShapes) {
  for (const char* name : {"adya", "adyaclaimed", "wss", "atomicity"})
    for (const char* e : {"postgresql", "mariadb", "sqlite"}) {
      EXPECT_EQ(oracle(name).cannot_judge(case_of(kAutocommit, IsolationLevel::Serializable), engine(e)), "") << name;
      EXPECT_EQ(oracle(name).cannot_judge(case_of(kSharedOnly, IsolationLevel::Serializable), engine(e)), "") << name;
    }
}

namespace {

// T1 reads row 1 with SELECT ... FOR UPDATE; T0 (connection A) updates row 1 and waits for T1's lock; T0's COMMIT
// and then an autocommit SELECT (T2) are submitted meanwhile. T1 commits, T0's UPDATE resumes and T0 commits, then
// T2 reads T0's version. (T1 -rw-> T0 -wr-> T2: serializable, and no snapshot interference either.)
// `t2_shares_t0s_connection`: T2 is on T0's connection (so it was queued behind T0, and started after T0 ended);
// otherwise on one of its own, submitted (and started) before T0 committed: reading T0's version is then interference.
History queued_read_history(bool t2_shares_t0s_connection) {
  TestCase c;
  Table t;
  t.name = "t";
  t.columns = {{"k", ColumnType::Integer, true}, {"v", ColumnType::Integer, false}};
  t.primary_key = {"k"};
  t.rows = {{1, 10}};
  c.schema.tables = {t};
  auto key1 = Expr::binary(BinaryOp::Eq, Expr::col("k"), Expr::lit(1));
  Transaction t0, t1, t2;
  t0.statements = {Statement::update("t", {{"v", Expr::lit(11)}}, key1)};
  t1.statements = {Statement::select("t", key1, LockMode::Update)};
  t2.statements = {Statement::select("t", key1)};
  t2.autocommit = true;
  if (t2_shares_t0s_connection) t0.session = t2.session = 0;
  c.transactions = {t0, t1, t2};
  c.order = {1, 1, 0, 0, 0, 2, 2, 2, 1};
  EXPECT_EQ(c.validate(), "");
  adya::InstrumentationOptions options;
  options.observer = false;
  options.version_sets = false;
  History h;
  h.test_case = adya::instrument(c, options);
  EXPECT_EQ(h.test_case.transactions[2].session, c.transactions[2].session);
  const auto done = [](int txn, int index) { return Event{Event::Kind::Completed, StepRef{txn, index}}; };
  h.events = {done(1, 0), done(1, 1), done(0, 0), Event{Event::Kind::Blocked, StepRef{0, 1}},
              done(1, 2), done(0, 1), done(0, 2), done(2, 0), done(2, 1), done(2, 2)};
  // Everything after T0's UPDATE was submitted while it waited (4 events recorded), T1's COMMIT last.
  h.submitted_at = {{2, 3, 4}, {0, 1, 4}, {4, 4, 4}};
  h.was_blocked = {{false, true, false}, {false, false, false}, {false, false, false}};
  const std::vector<std::string> written = {"txp_rid", "txp_wl", "k", "v"};
  h.outcomes.resize(3);
  for (auto& o : h.outcomes) o.resize(3);
  h.outcomes[1][1].columns = {"k", "v", "txp_rid", "txp_wl"};
  h.outcomes[1][1].rows = {{1, 10, 1, "0"}};
  h.outcomes[0][1].columns = written;
  h.outcomes[0][1].rows = {{1, "0,1", 1, 11}};
  h.outcomes[0][1].affected = 1;
  h.outcomes[2][1].columns = {"k", "v", "txp_rid", "txp_wl"};
  h.outcomes[2][1].rows = {{1, 11, 1, "0,1"}};
  h.transactions.resize(3);
  for (auto& r : h.transactions) r.fate = TxnFate::Committed;
  h.transactions[0].end_event = 6;
  h.transactions[1].end_event = 4;
  h.transactions[2].end_event = 9;
  return h;
}

bool has_kind(const Verdict& v, const std::string& kind) {
  return std::any_of(v.findings.begin(), v.findings.end(), [&](const Finding& f) { return f.kind == kind; });
}

}  // namespace

TEST(SessionsAdya, AReadQueuedBehindTheWriterOnItsConnectionIsNoInterference) {
  const Verdict v = adya::check(adya::observe(queued_read_history(true)), adya::adya_kinds());
  EXPECT_FALSE(has_kind(v, "G-SIa")) << v.explain();
  EXPECT_TRUE(v.ok()) << v.explain();
}

TEST(SessionsAdya, TheSameReadStartedBeforeTheWriterCommittedIsInterference) {
  const Verdict v = adya::check(adya::observe(queued_read_history(false)), adya::adya_kinds());
  EXPECT_TRUE(has_kind(v, "G-SIa")) << v.explain();
}

TEST(SessionsAdya, AutocommitStatementsAreTransactionsOfTheirOwn) {
  // The autocommit SELECT is transaction 3 of the history (id = index + 1), reading T0's version (id 1); T1 (id 2)
  // read the version T0 overwrote: edges T1 -rw-> T0 -wr-> T2, no cycle.
  const adya::ObservedHistory o = adya::observe(queued_read_history(true));
  const Verdict v = adya::check(o, adya::adya_kinds());
  EXPECT_TRUE(v.ok()) << v.explain();
  const adya::DependencyGraph g = adya::DependencyGraph::build(o);
  std::string edges;
  for (adya::TxnId from = 0; from < g.node_count(); ++from)
    for (const adya::Edge& e : g.out_edges(from))
      edges += std::to_string(from) + "-" + adya::to_string(e.type()) + "->" + std::to_string(e.to) + " ";
  EXPECT_NE(edges.find("2-rw->1"), std::string::npos) << edges;
  EXPECT_NE(edges.find("1-wr->3"), std::string::npos) << edges;
}

// A counterexample report of a case with a shared connection and autocommit statements: its scenario.txn reads back
// to the same case, and the connection's script runs its transactions one after the other, the autocommit statements
// without BEGIN and COMMIT.
TEST(SessionsReport, ScenarioFileAndConnectionScriptsRoundTrip) {
  const TestCase c = case_of(kAutocommit, IsolationLevel::ReadCommitted);
  History h;
  h.test_case = c;
  for (const Transaction& t : c.transactions) {
    h.outcomes.emplace_back(t.step_count());
    h.was_blocked.emplace_back(t.step_count(), false);
    h.submitted_at.emplace_back(t.step_count(), 0);
    h.transactions.push_back(TxnResult{TxnFate::Committed, std::nullopt, {}, 0});
  }
  report::Counterexample x;
  x.property = "Adya";
  x.oracle = "adya";
  x.suite = "postgresql_read_committed";
  x.target = parse_target_uri("postgresql://u:p@127.0.0.1:5432/db");
  x.level = IsolationLevel::ReadCommitted;
  x.history = h;
  x.verdict = Verdict::pass("adya");
  const auto base = std::filesystem::temp_directory_path() / ("txprop-sessions-report-" + std::to_string(::getpid()));
  const std::filesystem::path dir = report::write_report(x, base.string());
  auto read = [&](const char* name) {
    std::ifstream in(dir / name);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string scenario = read("scenario.txn");
  EXPECT_NE(scenario.find("s1: COMMIT;\ns1: SELECT * FROM t;\ns2: UPDATE t SET v = 12 WHERE k = 1;\n"), std::string::npos)
      << scenario;
  const Scenario back = parse_scenario(scenario, "scenario.txn", registered_vocabulary());
  EXPECT_EQ(back.test_case(IsolationLevel::ReadCommitted), c);
  // s1 runs T0 and T1 (C0.sql); s2 runs T2 alone (T2.sql).
  const std::string s1 = read("C0.sql");
  EXPECT_NE(s1.find("-- T0, T1 of Adya"), std::string::npos) << s1;
  EXPECT_NE(s1.find("/* step  3 */ COMMIT;  -- ok\n/* step  5 */ SELECT * FROM \"t\";  -- ok\n"), std::string::npos) << s1;
  const std::string s2 = read("T2.sql");
  EXPECT_EQ(s2.find("BEGIN"), std::string::npos) << s2;
  EXPECT_NE(s2.find("/* step  8 */ UPDATE \"t\" SET \"v\" = 12 WHERE \"k\" = 1;  -- ok\n"), std::string::npos) << s2;
  std::filesystem::remove_all(base);
}
