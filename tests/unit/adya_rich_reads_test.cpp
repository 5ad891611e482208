// The Adya property on reads through joins, derived tables and SELECT-list subqueries (issue 11 item 5): a join read
// records the versions of every table's rows it returned (a LEFT JOIN's missing side none), a derived table's SELECT *
// its table's rows, a scalar subquery in the SELECT list nothing of the table it reads; none of them is a predicate
// read. Planted histories: a cycle that needs the join's second-table read is caught, a serial history is not flagged.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "txprop/adya.hpp"
#include "txprop/adya_checker.hpp"
#include "txprop/adya_instrumentation.hpp"
#include "txprop/engine.hpp"
#include "txprop/internal/test_hooks.hpp"
#include "txprop/sql.hpp"
#include "txprop/sql_parser.hpp"
#include "tests/support/adya_planted_history.hpp"

using namespace txprop;
using namespace txprop::test;

namespace {

Expr key1(const std::string& table = "") {
  return Expr::binary(BinaryOp::Eq, table.empty() ? Expr::col("k") : Expr::qcol(table, "k"), Expr::lit(1));
}

Statement join(const std::string& a, const std::string& b, bool left = false) {
  Statement s = Statement::select(a);
  s.joins.push_back(Join{left, b, Expr::binary(BinaryOp::Eq, Expr::qcol(a, "k"), Expr::qcol(b, "k"))});
  return s;
}

Statement derived(const std::string& t) {
  Statement s = Statement::select(t, key1());
  s.derived.push_back(Statement::select(t));
  s.alias = "d";
  return s;
}

Statement with_select_subquery(const std::string& t, const std::string& other) {
  Statement s = Statement::select(t);
  s.select_exprs.push_back(Expr::subquery(Aggregate::Max, other, "v", std::nullopt));
  return s;
}

// `c` instrumented without version-set reads, with the results the test plants.
struct Planted : PlantedHistory {
  explicit Planted(const TestCase& c) : PlantedHistory(c, without_version_sets()) {}
  static adya::InstrumentationOptions without_version_sets() {
    adya::InstrumentationOptions options;
    options.version_sets = false;
    return options;
  }
};

void updated(Outcome& o, std::int64_t rid, const std::string& wl) {
  o.columns = kReturning;
  o.rows = {{rid, wl, 1, 1}};
  o.affected = 1;
}

// Write skew through a join: T0 and T1 both read t JOIN u (t's row id 1, u's row id 2); T0 updates t, T1 updates u.
// T0 -rw-> T1 exists only through T0's read of u, the join's second table. With `t0_left_join_misses_u`, T0's LEFT
// JOIN found no partner (u's side NULL): it read no row of u, and there is no cycle.
History write_skew_through_a_join(bool t0_left_join_misses_u) {
  TestCase c;
  c.schema.tables = {one_row_table("t"), one_row_table("u")};
  c.transactions = {
      Transaction{IsolationLevel::RepeatableRead,
                  {join("t", "u", t0_left_join_misses_u), Statement::update("t", {{"v", Expr::lit(1)}}, key1())},
                  TxnEnd::Commit},
      Transaction{IsolationLevel::RepeatableRead,
                  {join("t", "u"), Statement::update("u", {{"v", Expr::lit(1)}}, key1())}, TxnEnd::Commit}};
  c.order = {0, 0, 1, 1, 0, 1, 0, 1};
  Planted p(c);
  p.at(0, 1).columns = kJoinColumns;
  p.at(0, 1).rows = {t0_left_join_misses_u ? Row{1, 0, 1, "0", Value(), Value(), Value(), Value()}
                                           : Row{1, 0, 1, "0", 1, 0, 2, "0"}};
  p.at(1, 1).columns = kJoinColumns;
  p.at(1, 1).rows = {{1, 0, 1, "0", 1, 0, 2, "0"}};
  updated(p.at(0, 2), 1, "0,1");
  updated(p.at(1, 2), 2, "0,2");
  p.observed(0, {{1, 1, 1, "0,1"}});
  p.observed(1, {{1, 1, 2, "0,2"}});
  return p.h;
}

}  // namespace

TEST(AdyaRichReads, WriteSkewThroughAJoinIsCaughtByItsSecondTableRead) {
  const adya::ObservedHistory o = adya::observe(write_skew_through_a_join(false));
  const Verdict v = adya::check(o, adya::adya_kinds());
  EXPECT_TRUE(has_kind(v, "write-skew") || has_kind(v, "G2-item")) << v.explain();
  EXPECT_NE(edges_of(o).find("1-rw->2"), std::string::npos) << edges_of(o);  // T0 read u, T1 overwrote it
  EXPECT_NE(edges_of(o).find("2-rw->1"), std::string::npos) << edges_of(o);
}

TEST(AdyaRichReads, ALeftJoinsMissingSideIsNoRead) {
  const adya::ObservedHistory o = adya::observe(write_skew_through_a_join(true));
  const Verdict v = adya::check(o, adya::adya_kinds());
  EXPECT_TRUE(v.ok()) << v.explain();
  EXPECT_EQ(edges_of(o).find("1-rw->2"), std::string::npos) << edges_of(o);
}

// Read skew (G-single) through a join: T0 reads u (row 2) before T1 updates u and t and commits; then T0's
// SELECT * FROM w JOIN t reads T1's version of t (row 1), the join's second table. T0 -rw-> T1 -wr-> T0.
TEST(AdyaRichReads, ReadSkewThroughAJoinsSecondTableIsGSingle) {
  TestCase c;
  c.schema.tables = {one_row_table("t"), one_row_table("u"), one_row_table("w")};
  c.transactions = {
      Transaction{IsolationLevel::ReadCommitted, {Statement::select("u"), join("w", "t")}, TxnEnd::Commit},
      Transaction{IsolationLevel::ReadCommitted,
                  {Statement::update("u", {{"v", Expr::lit(1)}}, key1()), Statement::update("t", {{"v", Expr::lit(1)}}, key1())},
                  TxnEnd::Commit}};
  c.order = {0, 0, 1, 1, 1, 1, 0, 0};
  Planted p(c);
  p.at(0, 1).columns = kTableColumns;
  p.at(0, 1).rows = {{1, 0, 2, "0"}};
  updated(p.at(1, 1), 2, "0,2");
  updated(p.at(1, 2), 1, "0,2");
  p.at(0, 2).columns = kJoinColumns;
  p.at(0, 2).rows = {{1, 0, 3, "0", 1, 1, 1, "0,2"}};
  p.observed(0, {{1, 1, 1, "0,2"}});
  p.observed(1, {{1, 1, 2, "0,2"}});
  p.observed(2, {{1, 0, 3, "0"}});
  const adya::ObservedHistory o = adya::observe(p.h);
  const Verdict v = adya::check(o, adya::adya_kinds());
  EXPECT_TRUE(has_kind(v, "read-skew") || has_kind(v, "G-single")) << v.explain();  // read skew is the G-single class
  EXPECT_NE(edges_of(o).find("2-wr->1"), std::string::npos) << edges_of(o);
}

// A serial history of joins (inner and left, a row joined twice), a derived table and a SELECT-list subquery: the
// reads are recorded (T0 -wr-> T1 through the derived table, T0 -rw-> T1 through T0's join read of u) and nothing is
// flagged.
TEST(AdyaRichReads, ASerialHistoryOfJoinsAndDerivedTablesIsNotFlagged) {
  TestCase c;
  Table u = one_row_table("u");
  u.rows = {{1, 0}, {2, 0}};
  c.schema.tables = {one_row_table("t"), u};
  Statement t_join_u_twice = Statement::select("t");
  t_join_u_twice.joins.push_back(Join{false, "u", Expr::binary(BinaryOp::Le, Expr::qcol("t", "k"), Expr::qcol("u", "k"))});
  Statement left_with_subquery = join("t", "u", true);
  left_with_subquery.select_exprs.push_back(Expr::subquery(Aggregate::Count, "u", "k", std::nullopt));
  c.transactions = {
      Transaction{IsolationLevel::Serializable, {t_join_u_twice, Statement::update("t", {{"v", Expr::lit(1)}}, key1())},
                  TxnEnd::Commit},
      Transaction{IsolationLevel::Serializable,
                  {derived("t"), left_with_subquery, with_select_subquery("t", "u"),
                   Statement::update("u", {{"v", Expr::lit(1)}}, key1())},
                  TxnEnd::Commit}};
  c.order = {0, 0, 0, 0, 1, 1, 1, 1, 1, 1};
  Planted p(c);
  // t has row id 1, u rows 2 and 3 (k = 1, 2): t.k <= u.k joins t's row to both.
  p.at(0, 1).columns = kJoinColumns;
  p.at(0, 1).rows = {{1, 0, 1, "0", 1, 0, 2, "0"}, {1, 0, 1, "0", 2, 0, 3, "0"}};
  updated(p.at(0, 2), 1, "0,1");
  p.at(1, 1).columns = kTableColumns;
  p.at(1, 1).rows = {{1, 1, 1, "0,1"}};
  p.at(1, 2).columns = kJoinColumns;
  p.at(1, 2).columns.push_back("count");
  p.at(1, 2).rows = {{1, 1, 1, "0,1", 1, 0, 2, "0", 2}};
  p.at(1, 3).columns = {"k", "v", "txp_rid", "txp_wl", "max"};
  p.at(1, 3).rows = {{1, 1, 1, "0,1", 0}};
  updated(p.at(1, 4), 2, "0,2");
  p.observed(0, {{1, 1, 1, "0,1"}});
  p.observed(1, {{1, 1, 2, "0,2"}, {2, 0, 3, "0"}});
  const adya::ObservedHistory o = adya::observe(p.h);
  const Verdict v = adya::check(o, adya::adya_kinds());
  EXPECT_TRUE(v.ok()) << v.explain();
  const std::string edges = edges_of(o);
  EXPECT_NE(edges.find("1-wr->2"), std::string::npos) << edges;
  EXPECT_NE(edges.find("1-rw->2"), std::string::npos) << edges;
  // Reads (the observer's left out): T0's join 3 (t's row once, u's two rows), T1's derived table 1, its left join 2, its subquery select 1.
  std::size_t reads = 0;
  for (const adya::Observation& ob : o.observations()) reads += ob.is_read() && o.txn_of(ob) <= 2 ? 1 : 0;
  EXPECT_EQ(reads, 7u);
}

// A join whose result is not laid out as SELECT * over its tables (an aggregate) records no read; a derived table whose
// outer SELECT aggregates neither.
TEST(AdyaRichReads, ShapesWithoutRowIdsRecordNoRead) {
  TestCase c;
  c.schema.tables = {one_row_table("t"), one_row_table("u")};
  Statement counted = join("t", "u");
  counted.items = {SelectItem{Aggregate::Count, "k"}};
  Statement derived_count = derived("t");
  derived_count.items = {SelectItem{Aggregate::Count, "k"}};
  c.transactions = {Transaction{IsolationLevel::Serializable, {counted, derived_count}, TxnEnd::Commit}};
  c.order = {0, 0, 0, 0};
  Planted p(c);
  p.at(0, 1).columns = {"count"};
  p.at(0, 1).rows = {{1}};
  p.at(0, 2).columns = {"count"};
  p.at(0, 2).rows = {{1}};
  const adya::ObservedHistory o = adya::observe(p.h);
  for (const adya::Observation& ob : o.observations()) EXPECT_FALSE(ob.is_read());
}

// Instrumented rich reads, rendered for every dialect: a join's SELECT * gets no appended columns (each table brings
// its own pair), a derived table none either, a SELECT-list subquery keeps its place after *; none gets a version-set
// read; a column-listed SELECT without join still gets the pair appended. The portable rendering parses back.
TEST(AdyaRichReads, InstrumentedRichReadsRenderPerDialectAndParseBack) {
  TestCase c;
  c.schema.tables = {one_row_table("t"), one_row_table("u")};
  Statement listed = Statement::select("t", key1(), LockMode::None, {"v"});
  c.transactions = {Transaction{IsolationLevel::RepeatableRead,
                                {join("t", "u", true), derived("t"), with_select_subquery("t", "u"), listed},
                                TxnEnd::Commit}};
  c.order = std::vector<int>(6, 0);
  ASSERT_EQ(c.validate(), "");
  const TestCase ic = adya::instrument(c, adya::InstrumentationOptions{.engine = find_engine("postgresql")->capabilities()});
  const auto& st = ic.transactions[0].statements;
  // Version-set reads only before the subquery select and the column-listed select.
  ASSERT_EQ(st.size(), 6u);
  EXPECT_FALSE(adya::is_version_set_read(st[0]));
  EXPECT_FALSE(adya::is_version_set_read(st[1]));
  EXPECT_TRUE(adya::is_version_set_read(st[2]));
  EXPECT_TRUE(adya::is_version_set_read(st[4]));
  EXPECT_EQ(render(st[0], Dialect::PostgreSql),
            "SELECT * FROM \"t\" LEFT JOIN \"u\" ON \"t\".\"k\" = \"u\".\"k\"");
  EXPECT_EQ(render(st[0], Dialect::MySql), "SELECT * FROM `t` LEFT JOIN `u` ON `t`.`k` = `u`.`k`");
  EXPECT_EQ(render(st[0], Dialect::Sqlite), "SELECT * FROM \"t\" LEFT JOIN \"u\" ON \"t\".\"k\" = \"u\".\"k\"");
  EXPECT_EQ(render(st[1], Dialect::MySql), "SELECT * FROM (SELECT * FROM `t`) AS `d` WHERE `k` = 1");
  EXPECT_EQ(render(st[1], Dialect::PostgreSql), "SELECT * FROM (SELECT * FROM \"t\") AS \"d\" WHERE \"k\" = 1");
  EXPECT_EQ(render(st[3], Dialect::Sqlite), "SELECT *, (SELECT MAX(\"v\") FROM \"u\") FROM \"t\"");
  EXPECT_EQ(render(st[5], Dialect::MySql), "SELECT `v`, `txp_rid`, `txp_wl` FROM `t` WHERE `k` = 1");
  for (const Statement& s : st) EXPECT_EQ(parse_statement(render(s, Dialect::Portable)), s) << render(s, Dialect::Portable);
  EXPECT_EQ(adya::strip_instrumentation(adya::instrument(c, {})), c);
}
