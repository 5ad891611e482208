#include <gtest/gtest.h>

#include "txprop/sql.hpp"

using namespace txprop;

TEST(SqlRender, QuotesIdentifiersPerDialect) {
  EXPECT_EQ(quote_identifier("t0", Dialect::PostgreSql), "\"t0\"");
  EXPECT_EQ(quote_identifier("t0", Dialect::MySql), "`t0`");
  EXPECT_EQ(quote_identifier("a\"b", Dialect::Sqlite), "\"a\"\"b\"");
}

TEST(SqlRender, EscapesLiterals) {
  EXPECT_EQ(render_literal(Value("it's"), Dialect::PostgreSql), "'it''s'");
  EXPECT_EQ(render_literal(Value("a\\b"), Dialect::MySql), "'a\\\\b'");
  EXPECT_EQ(render_literal(Value("a\\b"), Dialect::PostgreSql), "'a\\b'");
  EXPECT_EQ(render_literal(Value(2.0), Dialect::PostgreSql), "2.0");
  EXPECT_EQ(render_literal(Value(), Dialect::MySql), "NULL");
}

TEST(SqlRender, StatementsPerDialect) {
  const Statement upd = Statement::update(
      "t", {{"v", Expr::binary(BinaryOp::Add, Expr::col("v"), Expr::lit(1))}},
      Expr::binary(BinaryOp::Eq, Expr::col("k"), Expr::lit(1)) && Expr::is_null(Expr::col("w"), true));
  EXPECT_EQ(render(upd, Dialect::Portable), "UPDATE t SET v = v + 1 WHERE k = 1 AND w IS NOT NULL");
  EXPECT_EQ(render(upd, Dialect::MySql), "UPDATE `t` SET `v` = `v` + 1 WHERE `k` = 1 AND `w` IS NOT NULL");
  const Statement share = Statement::select("t", std::nullopt, LockMode::Share);
  EXPECT_EQ(render(share, Dialect::MySql), "SELECT * FROM `t` LOCK IN SHARE MODE");
  EXPECT_EQ(render(share, Dialect::PostgreSql), "SELECT * FROM \"t\" FOR SHARE");
  EXPECT_EQ(render(Statement::begin(), Dialect::MySql), "START TRANSACTION");
  const Expr concat = Expr::binary(BinaryOp::Concat, Expr::col("w"), Expr::lit(",T1"));
  EXPECT_EQ(render(concat, Dialect::MySql), "CONCAT(`w`, ',T1')");
  EXPECT_EQ(render(concat, Dialect::Sqlite), "\"w\" || ',T1'");
}

TEST(SqlRender, ParenthesisesByPrecedence) {
  const Expr e = Expr::binary(BinaryOp::Mul, Expr::binary(BinaryOp::Add, Expr::col("a"), Expr::lit(1)),
                              Expr::binary(BinaryOp::Sub, Expr::col("b"), Expr::lit(2)));
  EXPECT_EQ(render(e, Dialect::Portable), "(a + 1) * (b - 2)");
  const Expr orand = (Expr::col("a") || Expr::col("b")) && Expr::col("c");
  EXPECT_EQ(render(orand, Dialect::Portable), "(a OR b) AND c");
  EXPECT_EQ(render(Expr::neg(Expr::lit(-3)), Dialect::Portable), "-(-3)");
  const Expr sub = Expr::binary(BinaryOp::Sub, Expr::col("a"), Expr::binary(BinaryOp::Sub, Expr::col("b"), Expr::lit(1)));
  EXPECT_EQ(render(sub, Dialect::Portable), "a - (b - 1)");
}

TEST(SqlRender, SetupCreatesTablesIndexesAndRows) {
  Schema s;
  Table t;
  t.name = "t";
  t.columns = {{"k", ColumnType::Integer, true}, {"v", ColumnType::Text, false}};
  t.primary_key = {"k"};
  t.indexes = {{"t_v", {"v"}, true}};
  t.rows = {{1, "a"}, {2, Value()}};
  s.tables.push_back(t);
  const auto sql = render_setup(s, Dialect::PostgreSql);
  ASSERT_EQ(sql.size(), 3u);
  EXPECT_EQ(sql[0], "CREATE TABLE \"t\" (\"k\" BIGINT NOT NULL, \"v\" TEXT, PRIMARY KEY (\"k\"))");
  EXPECT_EQ(sql[1], "CREATE UNIQUE INDEX \"t_v\" ON \"t\" (\"v\")");
  EXPECT_EQ(sql[2], "INSERT INTO \"t\" (\"k\", \"v\") VALUES (1, 'a'), (2, NULL)");
}
