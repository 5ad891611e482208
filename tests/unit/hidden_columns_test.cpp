// The one hidden-column scheme (txprop/hidden_columns.hpp) the Adya, Troc and SDG oracles add and strip their columns
// with: what it adds to a schema, what it strips from a schema, a statement and a result, and that each oracle's
// preparation is undone by its strip.
#include <gtest/gtest.h>

#include "txprop/adya_instrumentation.hpp"
#include "txprop/hidden_columns.hpp"
#include "txprop/oracle.hpp"

using namespace txprop;

namespace {

const HiddenColumns& scheme() {
  static const HiddenColumns h({Column{"h1", ColumnType::Integer, false}, Column{"h2", ColumnType::Text, true}});
  return h;
}

Schema two_tables() {
  Table t;
  t.name = "t";
  t.columns = {{"k", ColumnType::Integer, false}, {"v", ColumnType::Integer, true}};
  t.primary_key = {"k"};
  t.rows = {{1, 10}, {2, 20}};
  Table u = t;
  u.name = "u";
  u.rows = {{7, 70}};
  Schema s;
  s.tables = {t, u};
  return s;
}

TEST(HiddenColumns, AddsToEveryTableNumberingRowsAcrossTablesAndStripsAgain) {
  Schema s = two_tables();
  EXPECT_FALSE(scheme().in(s));
  scheme().add_to(s, [](std::int64_t n) { return Row{Value(n), Value("0")}; });
  ASSERT_TRUE(scheme().in(s));
  ASSERT_EQ(s.tables[0].column_names(), (std::vector<std::string>{"k", "v", "h1", "h2"}));
  EXPECT_EQ(s.tables[0].rows[1], (Row{2, 20, std::int64_t{2}, "0"}));
  EXPECT_EQ(s.tables[1].rows[0], (Row{7, 70, std::int64_t{3}, "0"})) << "row numbers count across tables";
  EXPECT_EQ(scheme().leading(&s.tables[1]), (std::vector<std::string>{"h1", "h2", "k", "v"}));
  EXPECT_EQ(scheme().visible(s.tables[1], s.tables[1].rows[0]), (Row{7, 70}));
  scheme().strip_from(s);
  EXPECT_EQ(s, two_tables());
}

TEST(HiddenColumns, StripsAssignmentsOrderItemsAndInsertColumnsWithTheirValues) {
  Statement ins = Statement::insert("t", {"k", "h1", "v", "h2"}, {Expr::lit(3), Expr::lit(9), Expr::lit(30), Expr::lit("x")});
  scheme().strip_from(ins);
  EXPECT_EQ(ins, Statement::insert("t", {"k", "v"}, {Expr::lit(3), Expr::lit(30)}));
  Statement upd = Statement::update("t", {{"v", Expr::lit(1)}, {"h2", Expr::lit("y")}});
  scheme().strip_from(upd);
  EXPECT_EQ(upd, Statement::update("t", {{"v", Expr::lit(1)}}));
  Statement sel = Statement::select("t");
  sel.order_by = {OrderItem{"v", false}, OrderItem{"h1", false}};
  scheme().strip_from(sel);
  ASSERT_EQ(sel.order_by.size(), 1u);
  EXPECT_EQ(sel.order_by[0].column, "v");
}

TEST(HiddenColumns, AResultWithoutThem) {
  Outcome o;
  o.columns = {"h1", "k", "h2", "v"};
  o.rows = {{1, 10, "0", 100}, {2, 20, "0,1", 200}};
  const Outcome v = scheme().visible(o);
  EXPECT_EQ(v.columns, (std::vector<std::string>{"k", "v"}));
  EXPECT_EQ(v.rows, (std::vector<Row>{{10, 100}, {20, 200}}));
}

// Each oracle that adds hidden columns strips exactly what it added: the case as it was generated comes back.
TEST(HiddenColumns, EveryOraclesStripUndoesItsPreparation) {
  TestCase c;
  c.schema = two_tables();
  const Expr k1 = Expr::binary(BinaryOp::Eq, Expr::col("k"), Expr::lit(1));
  c.transactions = {Transaction{IsolationLevel::Serializable, {Statement::select("t", k1), Statement::update("t", {{"v", Expr::lit(11)}}, k1)},
                                TxnEnd::Commit},
                    Transaction{IsolationLevel::Serializable, {Statement::insert("u", {"k", "v"}, {Expr::lit(8), Expr::lit(80)})},
                                TxnEnd::Rollback}};
  c.order = {0, 1, 0, 1, 0, 1};
  for (const char* name : {"adya", "troc", "sdg"}) {
    const Oracle& o = oracle(name);
    const TestCase prepared = o.prepare(c, *find_engine("postgresql"));
    EXPECT_NE(prepared.schema, c.schema) << name << " adds hidden columns";
    EXPECT_EQ(o.strip(prepared), c) << name;
  }
}

}  // namespace
