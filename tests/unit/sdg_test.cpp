// The SDG oracle without a server: the inference rules on TxCheck's Figure 3 examples (one per dependency kind),
// decycling, the topological replay order, the instrumentation and its inverse, blocking re-planning.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>

#include "../../properties/sdg/sdg.hpp"
#include "txprop/oracle.hpp"
#include "txprop/sql.hpp"
#include "txprop/target.hpp"
#include "txprop/target_config.hpp"
#include "tests/support/planted.hpp"

namespace txprop::sdg {
namespace {

// Figure 3: t(id, value) = (0, 0); the row is txp_pk 1, its initial version txp_vk 0.
Version v(std::int64_t version, std::int64_t row = 1) { return Version{"t", row, version}; }

// S_i: UPDATE t SET value = 1  -- (0,0) -> (0,1), installing version 1
Node update_to_1() {
  Node n;
  n.txn = 0, n.stmt = 0, n.kind = StatementKind::Update, n.table = "t", n.text = "UPDATE t SET value = 1", n.position = 1;
  n.version_set = {v(0)};
  n.scanned = {"t"};
  n.before = {v(0)};
  n.after = {v(1)};
  return n;
}

Node node(StatementKind kind, std::string text, int txn = 1) {
  Node n;
  n.txn = txn, n.stmt = 0, n.kind = kind, n.table = "t", n.text = std::move(text), n.position = 2;
  n.scanned = {"t"};
  return n;
}

TEST(SdgInference, ItemReadFigure3a) {
  Node j = node(StatementKind::Select, "SELECT * FROM t");  // --- (0, 1)
  j.reads = {v(1)};
  j.version_set = {v(1)};
  const Graph g = Graph::infer({update_to_1(), j});
  EXPECT_TRUE(g.has_edge(0, 1, DepKind::ItemRead));
  EXPECT_FALSE(g.has_edge(1, 0, DepKind::ItemAnti));
  EXPECT_EQ(g.topological_order(), (std::vector<int>{0, 1}));
}

TEST(SdgInference, ItemWriteFigure3b) {
  Node j = node(StatementKind::Update, "UPDATE t SET value = 2");  // (0, 1) -> (0, 2)
  j.version_set = {v(1)};
  j.before = {v(1)};
  j.after = {v(2)};
  const Graph g = Graph::infer({update_to_1(), j});
  EXPECT_TRUE(g.has_edge(0, 1, DepKind::ItemWrite));
  EXPECT_FALSE(g.cycle());
}

TEST(SdgInference, ItemAntiFigure3c) {
  Node j = node(StatementKind::Select, "SELECT * FROM t");  // --- (0, 0): saw the old version
  j.reads = {v(0)};
  j.version_set = {v(0)};
  const Graph g = Graph::infer({update_to_1(), j});
  EXPECT_TRUE(g.has_edge(1, 0, DepKind::ItemAnti));  // the update depends on the read
  EXPECT_EQ(g.topological_order(), (std::vector<int>{1, 0}));
}

TEST(SdgInference, PredicateReadFigure3d) {
  Node j = node(StatementKind::Select, "SELECT * FROM t WHERE value = 0");  // --- empty
  j.version_set = {v(1)};
  const Graph g = Graph::infer({update_to_1(), j});
  EXPECT_TRUE(g.has_edge(0, 1, DepKind::PredicateRead));
  EXPECT_EQ(g.edges().size(), 1u);
}

TEST(SdgInference, PredicateWriteFigure3e) {
  Node j = node(StatementKind::Update, "UPDATE t SET value = 2 WHERE value = 0");  // changes nothing
  j.version_set = {v(1)};
  const Graph g = Graph::infer({update_to_1(), j});
  EXPECT_TRUE(g.has_edge(0, 1, DepKind::PredicateWrite));
}

TEST(SdgInference, PredicateAntiFigure3f) {
  Node j = node(StatementKind::Select, "SELECT * FROM t WHERE value = 1");  // --- empty: saw the old version
  j.version_set = {v(0)};
  const Graph g = Graph::infer({update_to_1(), j});
  EXPECT_TRUE(g.has_edge(1, 0, DepKind::PredicateAnti));
  EXPECT_FALSE(g.has_edge(0, 1, DepKind::PredicateRead));
}

TEST(SdgInference, ValueWriteFigure3g) {
  // INSERT INTO t VALUES (1, (SELECT min(value) FROM t)) --- inserts (1, 1), as row 1000000 with version 2
  Node j = node(StatementKind::Insert, "INSERT INTO t VALUES (1, (SELECT MIN(value) FROM t))");
  j.version_set = {v(1)};
  j.after = {Version{"t", kInsertedRowKeys, 2}};
  const Graph g = Graph::infer({update_to_1(), j});
  EXPECT_TRUE(g.has_edge(0, 1, DepKind::ValueWrite));
  EXPECT_FALSE(g.cycle());
}

TEST(SdgInference, RowsAVersionSetReadMissed) {
  // A scan that missed a row inserted later runs before the insert; one that missed a deleted row after the delete.
  Node ins = node(StatementKind::Insert, "INSERT INTO t VALUES (5, 5)", 0);
  ins.after = {Version{"t", kInsertedRowKeys, 1}};
  ins.position = 5;
  Node del = node(StatementKind::Delete, "DELETE FROM t WHERE id = 0", 1);
  del.before = {v(0)};
  del.version_set = {v(0)};
  del.position = 1;
  Node scan = node(StatementKind::Select, "SELECT * FROM t", 2);
  scan.position = 3;  // saw neither row
  const Graph g = Graph::infer({ins, del, scan});
  EXPECT_TRUE(g.has_edge(2, 0, DepKind::PredicateAnti));
  EXPECT_TRUE(g.has_edge(1, 2, DepKind::PredicateRead));
  EXPECT_FALSE(g.cycle());
}

TEST(SdgDecycling, WriteSkewIsACycleAndOneStatementBreaksIt) {
  // T0 reads row 1 and updates row 2; T1 reads row 2 and updates row 1; both saw the initial versions.
  Node r0 = node(StatementKind::Select, "SELECT * FROM t WHERE id = 0", 0);
  r0.reads = {v(0, 1)};
  r0.version_set = {v(0, 1), v(0, 2)};
  r0.position = 1;
  Node w0 = node(StatementKind::Update, "UPDATE t SET value = 1 WHERE id = 1", 0);
  w0.stmt = 1, w0.before = {v(0, 2)}, w0.after = {v(1, 2)}, w0.version_set = {v(0, 1), v(0, 2)}, w0.position = 3;
  Node r1 = node(StatementKind::Select, "SELECT * FROM t WHERE id = 1", 1);
  r1.reads = {v(0, 2)};
  r1.version_set = {v(0, 1), v(0, 2)};
  r1.position = 2;
  Node w1 = node(StatementKind::Update, "UPDATE t SET value = 1 WHERE id = 0", 1);
  w1.stmt = 1, w1.before = {v(0, 1)}, w1.after = {v(2, 1)}, w1.version_set = {v(0, 1), v(0, 2)}, w1.position = 4;
  const Graph g = Graph::infer({r0, w0, r1, w1});
  const auto cycle = g.cycle();
  ASSERT_TRUE(cycle);
  EXPECT_TRUE(g.topological_order().empty());
  // Removing the picked statement (what the oracle does before running again) leaves an acyclic graph.
  const int victim = g.pick_for_removal(*cycle);
  std::vector<Node> rest;
  for (std::size_t i = 0; i < g.nodes().size(); ++i)
    if (static_cast<int>(i) != victim) rest.push_back(g.nodes()[i]);
  // Without the removed statement its versions were never installed: drop them from the others' observations.
  const Node& gone = g.nodes()[static_cast<std::size_t>(victim)];
  for (Node& n : rest)
    for (const Version& x : gone.after) std::erase(n.version_set, x);
  EXPECT_FALSE(Graph::infer(rest).cycle());
}

TEST(SdgOrder, TopologicalOrderFollowsDependenciesThenTheActualOrder) {
  // Fig 9 in miniature: a read that saw the old version goes before the update; independent statements keep the
  // order in which they completed.
  Node u = update_to_1();  // position 1
  Node old_read = node(StatementKind::Select, "SELECT * FROM t", 1);
  old_read.reads = {v(0)}, old_read.version_set = {v(0)}, old_read.position = 4;
  Node other = node(StatementKind::Select, "SELECT * FROM u", 2);
  other.table = "u", other.scanned = {"u"}, other.position = 2;
  Node new_read = node(StatementKind::Select, "SELECT * FROM t", 3);
  new_read.reads = {v(1)}, new_read.version_set = {v(1)}, new_read.position = 3;
  const Graph g = Graph::infer({u, old_read, other, new_read});
  EXPECT_EQ(g.topological_order(), (std::vector<int>{2, 1, 0, 3}));
  EXPECT_NE(g.path_to(3, g.topological_order()).find("item-read"), std::string::npos);
  EXPECT_NE(g.dot().find("item-anti"), std::string::npos);
}

TestCase two_transactions() {
  TestCase c;
  Table t;
  t.name = "t0";
  t.columns = {Column{"c0", ColumnType::Integer, true}, Column{"c1", ColumnType::Integer, false}};
  t.primary_key = {"c0"};
  t.rows = {{Value(1), Value(0)}, {Value(2), Value(5)}};
  c.schema.tables.push_back(t);
  Transaction a, b;
  a.statements = {Statement::select("t0", Expr::binary(BinaryOp::Eq, Expr::col("c0"), Expr::lit(Value(1)))),
                  Statement::update("t0", {Assignment{"c1", Expr::lit(Value(7))}},
                                    Expr::binary(BinaryOp::Gt, Expr::col("c1"), Expr::lit(Value(1))))};
  b.statements = {Statement::insert("t0", {"c0", "c1"}, {Expr::lit(Value(3)), Expr::lit(Value(3))}),
                  Statement::delete_("t0", Expr::binary(BinaryOp::Eq, Expr::col("c0"), Expr::lit(Value(1))))};
  c.transactions = {a, b};
  c.order = {0, 1, 0, 1, 1, 0, 0, 1};
  return c;
}

TEST(SdgInstrumentation, GroupsAndTheirInverse) {
  const TestCase c = two_transactions();
  const TestCase p = instrument(c);
  ASSERT_TRUE(is_instrumented(p));
  EXPECT_EQ(p.validate(), "");
  const Layout l = layout(p);
  // T0: VSR, SELECT | VSR, BWR, UPDATE, AWR ; T1: VSR, INSERT, AWR | VSR, BWR, DELETE
  std::vector<Role> t0, t1;
  for (const StepRole& r : l[0]) t0.push_back(r.role);
  for (const StepRole& r : l[1]) t1.push_back(r.role);
  using R = Role;
  EXPECT_EQ(t0, (std::vector<R>{R::Control, R::VersionSetRead, R::Statement, R::VersionSetRead, R::BeforeWriteRead,
                                R::Statement, R::AfterWriteRead, R::Control}));
  EXPECT_EQ(t1, (std::vector<R>{R::Control, R::VersionSetRead, R::Statement, R::AfterWriteRead, R::VersionSetRead,
                                R::BeforeWriteRead, R::Statement, R::Control}));
  EXPECT_EQ(strip(p), c);
  EXPECT_EQ(sdg::remove_statement(c, 0, 0).order, (std::vector<int>{0, 1, 1, 1, 0, 0, 1}));
  EXPECT_EQ(find_oracle("sdg")->strip(find_oracle("sdg")->prepare(c, *find_engine("sqlite"))), c);
}

TEST(SdgScheduling, ReplanGluesEachGroupToWhereItsStatementCompleted) {
  // T1's before-write read ran, then its UPDATE waited until T0 committed: the re-planned order runs T1's whole
  // group after T0's commit.
  TestCase c;
  Table t;
  t.name = "t0";
  t.columns = {Column{"c0", ColumnType::Integer, true}};
  t.rows = {{Value(1)}};
  c.schema.tables.push_back(t);
  Transaction a, b;
  a.statements = {Statement::update("t0", {Assignment{"c0", Expr::lit(Value(2))}})};
  b.statements = {Statement::update("t0", {Assignment{"c0", Expr::lit(Value(3))}})};
  c.transactions = {a, b};
  c.order = {0, 1, 0, 1, 0, 1};
  const TestCase p = instrument(c);
  History h;
  h.test_case = p;
  h.transactions.resize(2);
  for (TxnResult& r : h.transactions) r.fate = TxnFate::Committed;
  // Steps: T0: BEGIN, VSR, BWR, UPDATE, AWR, COMMIT (6); T1 the same.
  auto done = [&](int txn, int step) { h.events.push_back(Event{Event::Kind::Completed, StepRef{txn, step}}); };
  done(0, 0), done(1, 0), done(0, 1), done(0, 2), done(0, 3), done(0, 4), done(1, 1), done(1, 2);
  h.events.push_back(Event{Event::Kind::Blocked, StepRef{1, 3}});
  done(0, 5), done(1, 3), done(1, 4), done(1, 5);
  const Layout l = layout(p);
  EXPECT_FALSE(groups_contiguous(h, l));
  const std::vector<int> order = replan(h, l);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1}));
}

// A multi-table UPDATE (MariaDB's UPDATE t0 JOIN t1 ... SET t0.c1 = 5, t1.c1 = 6) writes rows of both tables: it gets
// a before-write read of each (the join as a correlated EXISTS), sets the version key in both, and gets an after-write
// read of each; the graph then sees the versions it installed in either table.
TestCase joined_update_case() {
  TestCase c;
  for (const char* name : {"t0", "t1"}) {
    Table t;
    t.name = name;
    t.columns = {Column{"c0", ColumnType::Integer, true}, Column{"c1", ColumnType::Integer, false}};
    t.primary_key = {"c0"};
    t.rows = {{Value(1), Value(0)}};
    c.schema.tables.push_back(t);
  }
  Statement u = Statement::update("t0", {Assignment{"c1", Expr::lit(Value(5))}, Assignment{"c1", Expr::lit(Value(6)), "t1"}},
                                  Expr::binary(BinaryOp::Eq, Expr::qcol("t0", "c1"), Expr::lit(Value(0))));
  u.joins.push_back(Join{false, "t1", Expr::binary(BinaryOp::Eq, Expr::qcol("t0", "c0"), Expr::qcol("t1", "c0"))});
  Transaction a, b;
  a.statements = {u};
  b.statements = {Statement::select("t1")};
  c.transactions = {a, b};
  c.order = {0, 0, 0, 1, 1, 1};
  return c;
}

Outcome rows(std::vector<Row> r) { return test::rows_outcome({"txp_pk", "txp_vk", "c0", "c1"}, std::move(r)); }

TEST(SdgInstrumentation, MultiTableUpdateHasReadsForEveryWrittenTable) {
  const TestCase c = joined_update_case();
  ASSERT_EQ(c.validate(), "");
  const TestCase p = instrument(c);
  ASSERT_EQ(p.validate(), "");
  const Layout l = layout(p);
  std::vector<Role> t0;
  for (const StepRole& r : l[0]) t0.push_back(r.role);
  using R = Role;
  EXPECT_EQ(t0, (std::vector<R>{R::Control, R::VersionSetRead, R::VersionSetRead, R::BeforeWriteRead, R::BeforeWriteRead,
                                R::Statement, R::AfterWriteRead, R::AfterWriteRead, R::Control}));
  const auto& steps = p.transactions[0].statements;
  EXPECT_EQ(render(steps[3], Dialect::Portable),
            "SELECT txp_pk, txp_vk, c0, c1 FROM t1 WHERE EXISTS (SELECT 1 FROM t0 WHERE t0.c0 = t1.c0 AND t0.c1 = 0)");
  EXPECT_EQ(render(steps[4], Dialect::Portable),
            "UPDATE t0 INNER JOIN t1 ON t0.c0 = t1.c0 SET t0.c1 = 5, t1.c1 = 6, t0.txp_vk = 1, t1.txp_vk = 1 WHERE t0.c1 = 0");
  EXPECT_EQ(strip(p), c);
}

// A history of that case: the UPDATE installed (row 1, version 1) in t0 and (row 2, version 1) in t1, committed; T1's
// SELECT of t1 then saw either the new version (an item read of the joined table's write) or, planted, the old one
// (an item anti-dependency: the SELECT must come first).
History joined_update_history(std::int64_t version_seen) {
  History h;
  h.test_case = instrument(joined_update_case());
  h.transactions.resize(2);
  for (TxnResult& r : h.transactions) r.fate = TxnFate::Committed;
  h.outcomes = {{Outcome{}, rows({{Value(1), Value(0), Value(1), Value(0)}}), rows({{Value(2), Value(0), Value(1), Value(0)}}),
                 rows({{Value(1), Value(0), Value(1), Value(0)}}), rows({{Value(2), Value(0), Value(1), Value(0)}}), Outcome{},
                 rows({{Value(1), Value(1), Value(1), Value(5)}}), rows({{Value(2), Value(1), Value(1), Value(6)}}), Outcome{}},
                {Outcome{}, rows({{Value(2), Value(version_seen), Value(1), Value(version_seen ? 6 : 0)}}),
                 rows({{Value(2), Value(version_seen), Value(1), Value(version_seen ? 6 : 0)}}), Outcome{}}};
  h.outcomes[0][5].affected = 2;
  for (int step = 0; step < 9; ++step) h.events.push_back(Event{Event::Kind::Completed, StepRef{0, step}});
  for (int step = 0; step < 4; ++step) h.events.push_back(Event{Event::Kind::Completed, StepRef{1, step}});
  return h;
}

TEST(SdgInference, MultiTableUpdateInstallsVersionsInBothTables) {
  const History h = joined_update_history(1);
  const std::vector<Node> nodes = extract_nodes(h, layout(h.test_case));
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].written, (std::set<std::string>{"t0", "t1"}));
  EXPECT_EQ(nodes[0].before.size(), 2u);
  EXPECT_EQ(nodes[0].after, (std::vector<Version>{Version{"t0", 1, 1}, Version{"t1", 2, 1}}));
  const Graph g = Graph::infer(nodes);
  EXPECT_TRUE(g.has_edge(0, 1, DepKind::ItemRead));  // the SELECT of t1 read the joined table's new version
  EXPECT_FALSE(g.cycle());
  // Planted: the SELECT saw t1's old version although it ran after the UPDATE committed: the graph puts it first.
  const History stale = joined_update_history(0);
  const Graph planted = Graph::infer(extract_nodes(stale, layout(stale.test_case)));
  EXPECT_TRUE(planted.has_edge(1, 0, DepKind::ItemAnti));
  EXPECT_EQ(planted.topological_order(), (std::vector<int>{1, 0}));
}

}  // namespace
}  // namespace txprop::sdg

// ------------------------------------------------------------------------------------------- standing by level
// SDG's isolation findings judged with PostgreSQL's profile (issue 24: standing rules without a server; the replays
// and decycling runs go to embedded SQLite through Target::open_judged_as). A planted lost update, instrumented as
// TxCheck's SDG: T0 and T1 read row 1 (version 0); T0 writes it and commits; T1 writes over T0's version and commits;
// T2 then reads the last version, whose writer list (initial, T0, T1) reveals the version order. T1 -rw-> T0 -ww->
// T1, and T1, the reader of the anti-dependency, decides: with T1 at READ COMMITTED the lost update is documented even
// though T0 runs at SERIALIZABLE; with T1 at SERIALIZABLE it fails (tests/mutation: sdg-first-involved).
namespace txprop::sdg {
namespace {

std::int64_t version_set_by(const ::txprop::Statement& s) {
  for (const Assignment& a : s.assignments)
    if (a.column == kVersionKey) return a.value.literal.as_int();
  return -1;
}

History planted_lost_update(IsolationLevel t0, IsolationLevel t1) {
  TestCase c;
  c.schema.tables = {test::table_ab({{1, 0}})};
  const Expr a_is_1 = Expr::binary(BinaryOp::Eq, Expr::col("a"), Expr::lit(1));
  c.transactions = {
      Transaction{t0, {Statement::select("t", a_is_1), Statement::update("t", {{"b", Expr::lit(1)}}, a_is_1)}, TxnEnd::Commit},
      Transaction{t1, {Statement::select("t", a_is_1), Statement::update("t", {{"b", Expr::lit(2)}}, a_is_1)}, TxnEnd::Commit},
      Transaction{IsolationLevel::Serializable, {Statement::select("t", a_is_1)}, TxnEnd::Commit}};
  const TestCase prepared = instrument(c);
  // Both read, then T0 writes and commits, then T1 writes and commits, then T2 reads: each group contiguous.
  TestCase run = prepared;
  run.order.clear();
  const Layout roles = layout(prepared);
  auto group_steps = [&](int t, int group) {
    for (const StepRole& role : roles[static_cast<std::size_t>(t)])
      if (role.group == group) run.order.push_back(t);
  };
  run.order.push_back(0), group_steps(0, 0), run.order.push_back(1), group_steps(1, 0);
  group_steps(0, 1), run.order.push_back(0), group_steps(1, 1), run.order.push_back(1);
  run.order.push_back(2), group_steps(2, 0), run.order.push_back(2);
  History h = test::completed_in_order(run);
  // What each step saw: the first reads of T0 and T1 the initial version (txp_vk 0), every later read the version
  // last installed.
  std::int64_t installed = 0, b = 0;
  for (int t : {0, 1, 2}) {
    const Transaction& tx = run.transactions[static_cast<std::size_t>(t)];
    for (std::size_t step = 1; step <= tx.statements.size(); ++step) {
      const StepRole& role = roles[static_cast<std::size_t>(t)][step];
      Outcome& o = h.outcomes[static_cast<std::size_t>(t)][step];
      if (role.role == Role::Statement && tx.statements[step - 1].kind == StatementKind::Update) {
        o.affected = 1;
        installed = version_set_by(tx.statements[step - 1]);
        b = t + 1;
        continue;
      }
      const bool initial = t < 2 && role.group == 0;
      o.columns = {kRowKey, kVersionKey, "a", "b"};
      o.rows = {initial ? Row{1, 0, 1, 0} : Row{1, installed, 1, b}};
    }
  }
  h.final_state["t"] = {{1, installed, 1, 2}};
  return h;
}

std::string lost_update_standing(IsolationLevel t0, IsolationLevel t1) {
  static std::unique_ptr<Target> target =
      Target::open_judged_as(parse_target_uri("sqlite:"), parse_target_uri("postgresql://u@127.0.0.1/db"));
  SdgOptions options;
  options.assume_a3 = true;  // judge the graph's standing, not the assumption's
  const Verdict v = check_sdg(*target, planted_lost_update(t0, t1), options);
  for (const Finding& f : v.findings)
    if (f.kind == "lost-update" || f.kind == "G-single") return std::string(to_string(f.standing));
  return "absent: " + v.explain() + v.note;
}

}  // namespace

TEST(SdgStanding, TheReaderOfTheAntiDependencyDecides) {
  EXPECT_EQ(lost_update_standing(IsolationLevel::Serializable, IsolationLevel::ReadCommitted), "documented");
  EXPECT_EQ(lost_update_standing(IsolationLevel::ReadCommitted, IsolationLevel::Serializable), "fails");
  EXPECT_EQ(lost_update_standing(IsolationLevel::Serializable, IsolationLevel::Serializable), "fails");
}

}  // namespace txprop::sdg

// A broken Assumption A3 is no verdict, never a finding (issue 21 item 5): T1's UPDATE, planted, affected no row where
// its before-write read returned one. With PostgreSQL's profile (A3 holds) the tag says it is not documented; with
// MariaDB's REPEATABLE READ (A3 documented not to hold) it says documented and gives the source. The summary counts
// both tags.
namespace txprop::sdg {
namespace {

Verdict a3_broken_judged_as(const char* uri) {
  static std::map<std::string, std::unique_ptr<Target>> targets;
  auto& target = targets[uri];
  if (!target) target = Target::open_judged_as(parse_target_uri("sqlite:"), parse_target_uri(uri));
  History h = planted_lost_update(IsolationLevel::RepeatableRead, IsolationLevel::RepeatableRead);
  const Layout roles = layout(h.test_case);
  for (std::size_t step = 1; step < roles[1].size(); ++step)
    if (roles[1][step].role == Role::Statement && roles[1][step].group == 1) h.outcomes[1][step].affected = 0;
  return check_sdg(*target, h);
}

bool has_tag(const Verdict& v, const std::string& tag) {
  return std::find(v.tags.begin(), v.tags.end(), tag) != v.tags.end();
}

}  // namespace

TEST(SdgAssumptionA3, ABrokenA3IsNoVerdictWithItsReason) {
  const Verdict pg = a3_broken_judged_as("postgresql://u@127.0.0.1/db");
  EXPECT_TRUE(pg.inconclusive) << pg.explain();
  EXPECT_TRUE(pg.findings.empty()) << pg.explain();
  EXPECT_TRUE(has_tag(pg, "sdg-no-verdict: A3 broken, not documented")) << pg.note;
  EXPECT_NE(pg.note.find("T1.2 UPDATE"), std::string::npos) << pg.note;
  EXPECT_NE(pg.note.find("affected 0 row(s), but its"), std::string::npos) << pg.note;
  const Verdict mariadb = a3_broken_judged_as("mariadb://u@127.0.0.1/db");
  EXPECT_TRUE(mariadb.inconclusive && mariadb.findings.empty()) << mariadb.explain();
  EXPECT_TRUE(has_tag(mariadb, "sdg-no-verdict: A3 broken, documented")) << mariadb.note;
  EXPECT_NE(mariadb.note.find("The level documents that A3 does not hold"), std::string::npos) << mariadb.note;
}

}  // namespace txprop::sdg
