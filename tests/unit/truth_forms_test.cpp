// Truth values, casts and NULL-safe comparison (issue 17 item 5) without a server: TRUE / FALSE, IS [NOT] TRUE | FALSE,
// CAST(x AS type), IS [NOT] DISTINCT FROM (MariaDB's <=>) and MariaDB's IF(c, a, b), read in the spellings users and
// bug reports write, rendered per dialect, generated with a small share where a suite turns them on, judged by every
// oracle, and evaluated by txprop's one predicate evaluator (properties/adya/predicate_eval) as the engines evaluate them
// (checked against the engines by tests/targets/truth_value_oracles_test.cpp).
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <iostream>

#include "../../properties/adya/predicate_eval.hpp"
#include "txprop/engine.hpp"
#include "txprop/generators.hpp"
#include "txprop/oracle.hpp"
#include "txprop/property.hpp"
#include "txprop/sql.hpp"
#include "txprop/sql_parser.hpp"

using namespace txprop;

namespace {

std::string pg(const char* sql) { return render(parse_statement(sql), Dialect::PostgreSql); }
std::string my(const char* sql) { return render(parse_statement(sql), Dialect::MySql); }
std::string lite(const char* sql) { return render(parse_statement(sql), Dialect::Sqlite); }

TestCase one_statement_case(const char* sql) {
  TestCase c;
  c.schema.tables = {Table{"t", {Column{"k", ColumnType::Integer, true}, Column{"v"}}, {"k"}, {}, {{1, 10}}}};
  Transaction t;
  t.statements = {parse_statement(sql)};
  c.transactions = {t, t};
  c.order = TestCase::serial_order(c.transactions);
  return c;
}

}  // namespace

TEST(TruthForms, ReadAndRenderedPerDialect) {
  EXPECT_EQ(pg("SELECT * FROM t WHERE (v > 3) = TRUE"), R"(SELECT * FROM "t" WHERE ("v" > 3) = TRUE)");
  EXPECT_EQ(my("SELECT * FROM t WHERE (v > 3) = FALSE"), "SELECT * FROM `t` WHERE (`v` > 3) = FALSE");
  EXPECT_EQ(pg("SELECT * FROM t WHERE (v > 3) IS NOT TRUE"), R"(SELECT * FROM "t" WHERE ("v" > 3) IS NOT TRUE)");
  EXPECT_EQ(lite("SELECT * FROM t WHERE (v = 1) IS FALSE"), R"(SELECT * FROM "t" WHERE ("v" = 1) IS FALSE)");
  EXPECT_EQ(pg("SELECT * FROM t WHERE CAST(k AS TEXT) = '1'"), R"(SELECT * FROM "t" WHERE CAST("k" AS TEXT) = '1')");
  EXPECT_EQ(my("SELECT * FROM t WHERE CAST(k AS TEXT) = '1'"), "SELECT * FROM `t` WHERE CAST(`k` AS CHAR) = '1'");
  EXPECT_EQ(my("SELECT * FROM t WHERE CAST(v AS SIGNED) = 1"), "SELECT * FROM `t` WHERE CAST(`v` AS SIGNED) = 1");
  EXPECT_EQ(pg("SELECT * FROM t WHERE CAST(v AS SIGNED INTEGER) = 1"), R"(SELECT * FROM "t" WHERE CAST("v" AS BIGINT) = 1)");
  EXPECT_EQ(pg("SELECT * FROM t WHERE CAST(v AS DOUBLE) > 1.5"), R"(SELECT * FROM "t" WHERE CAST("v" AS DOUBLE PRECISION) > 1.5)");
  EXPECT_EQ(lite("SELECT * FROM t WHERE CAST(v AS REAL) > 1.5"), R"(SELECT * FROM "t" WHERE CAST("v" AS REAL) > 1.5)");
  // IS [NOT] DISTINCT FROM and MariaDB's <=> are one form.
  EXPECT_EQ(pg("SELECT * FROM t WHERE v IS NOT DISTINCT FROM NULL"), R"(SELECT * FROM "t" WHERE "v" IS NOT DISTINCT FROM NULL)");
  EXPECT_EQ(my("SELECT * FROM t WHERE v IS NOT DISTINCT FROM NULL"), "SELECT * FROM `t` WHERE `v` <=> NULL");
  EXPECT_EQ(my("SELECT * FROM t WHERE v IS DISTINCT FROM 3"), "SELECT * FROM `t` WHERE NOT (`v` <=> 3)");
  EXPECT_EQ(parse_statement("SELECT * FROM t WHERE v <=> 3"), parse_statement("SELECT * FROM t WHERE v IS NOT DISTINCT FROM 3"));
  EXPECT_EQ(lite("SELECT * FROM t WHERE v IS DISTINCT FROM 3"), R"(SELECT * FROM "t" WHERE "v" IS DISTINCT FROM 3)");
  // MariaDB's IF(c, a, b) is CASE WHEN c THEN a ELSE b END, which every engine has.
  EXPECT_EQ(parse_statement("UPDATE t SET v = IF(v > 3, 1, 2)"), parse_statement("UPDATE t SET v = CASE WHEN v > 3 THEN 1 ELSE 2 END"));
  // The portable text reads back the same.
  for (const char* sql : {"SELECT * FROM t WHERE (v > 3) = TRUE AND v IS NOT DISTINCT FROM 2",
                          "DELETE FROM t WHERE (k = 1) IS NOT FALSE OR CAST(v AS TEXT) = 'x'"}) {
    const Statement s = parse_statement(sql);
    EXPECT_EQ(parse_statement(render(s, Dialect::Portable)), s) << sql;
  }
  EXPECT_THROW(parse_statement("SELECT * FROM t WHERE v IS MAYBE"), SyntaxError);
}

TEST(TruthForms, GeneratedWithASmallShareWhereTurnedOn) {
  gen::Options o;
  o.engine = find_engine("postgresql")->capabilities();
  o.rich_statements = true;
  rc::Random random(11);
  const auto off = gen::test_case(o);
  o.truth_forms = true;
  const auto on = gen::test_case(o);
  int statements = 0, with = 0;
  std::map<std::string, int> forms;
  for (int i = 0; i < 300; ++i) {
    const rc::Random r = random.split();
    EXPECT_EQ(off(r, i % 100).value().first_truth_form(), "");
    const TestCase c = on(r, i % 100).value();
    ASSERT_EQ(c.validate(), "") << describe(c);
    for (const auto& f : rich_forms(c))
      if (f == "form: truth value" || f == "form: CAST" || f == "form: IS [NOT] DISTINCT FROM") ++forms[f];
    for (const Transaction& t : c.transactions)
      for (const Statement& s : t.statements) {
        ++statements;
        TestCase one;
        one.schema = c.schema;
        one.transactions = {Transaction{}};
        one.transactions[0].statements = {s};
        with += !one.first_truth_form().empty();
        for (Dialect d : {Dialect::PostgreSql, Dialect::MySql, Dialect::Sqlite})
          if (!s.is_merge()) EXPECT_NO_THROW(render(s, d));
      }
  }
  std::cout << "[truth forms] " << with << " of " << statements << " statements";
  for (const auto& [f, n] : forms) std::cout << ", " << f << " in " << n << " cases";
  std::cout << "\n";
  EXPECT_GT(with, 0);
  EXPECT_LT(with * 10, statements);  // a small share
}

TEST(TruthForms, JudgedByEveryOracle) {
  const TestCase c = one_statement_case("UPDATE t SET v = 1 WHERE (v > 3) IS TRUE AND CAST(k AS TEXT) = '1'");
  for (const char* name : {"adya", "adyaclaimed", "troc", "sdg", "wss", "atomicity"})
    EXPECT_EQ(oracle(name).cannot_judge(c, *find_engine("postgresql")), "") << name;
}

// What PostgreSQL 15, MariaDB 10.11 and SQLite 3.40 answer (checked by hand and by TruthValueOracles.*): IS [NOT]
// TRUE | FALSE and IS [NOT] DISTINCT FROM are never NULL; a non-zero integer IS TRUE but is not = TRUE (MariaDB, SQLite:
// 2 IS TRUE is 1, 2 = TRUE is 0); CAST is known only where the engines agree.
TEST(TruthForms, EvaluatedAsTheEnginesDo) {
  Table t;
  t.name = "t";
  t.columns = {{"k", ColumnType::Integer, true}, {"b", ColumnType::Boolean, false}, {"v", ColumnType::Real, false}};
  auto m = [&](const char* where, const Row& row) { return adya::matches(parse_statement(std::string("SELECT * FROM t WHERE ") + where).where, t, row); };
  using adya::Match;
  const Row on{1, 1, 2.5}, off{2, 0, Value()}, unknown{3, Value(), 4.0}, two{4, 2, -1.0};
  EXPECT_EQ(m("b = TRUE", on), Match::Yes);
  EXPECT_EQ(m("b = TRUE", two), Match::No);
  EXPECT_EQ(m("b IS TRUE", two), Match::Yes);
  EXPECT_EQ(m("NOT b", two), Match::No);
  EXPECT_EQ(m("b IS TRUE", unknown), Match::No);
  EXPECT_EQ(m("b IS NOT TRUE", unknown), Match::Yes);
  EXPECT_EQ(m("b IS NOT FALSE", unknown), Match::Yes);
  EXPECT_EQ(m("b IS FALSE", off), Match::Yes);
  EXPECT_EQ(m("b = FALSE", unknown), Match::No);  // NULL = FALSE is NULL
  EXPECT_EQ(m("NOT (b = FALSE)", unknown), Match::No);
  EXPECT_EQ(m("(k > 1) IS TRUE", off), Match::Yes);
  EXPECT_EQ(m("(v > 1) IS NOT TRUE", off), Match::Yes);  // NULL > 1 is NULL, which IS NOT TRUE
  EXPECT_EQ(m("v IS DISTINCT FROM NULL", off), Match::No);
  EXPECT_EQ(m("v IS NOT DISTINCT FROM NULL", off), Match::Yes);
  EXPECT_EQ(m("k IS DISTINCT FROM 2", off), Match::No);
  EXPECT_EQ(m("k IS DISTINCT FROM 2", on), Match::Yes);
  EXPECT_EQ(m("TRUE", off), Match::Yes);
  EXPECT_EQ(m("FALSE OR b", on), Match::Yes);
  EXPECT_EQ(m("CAST(k AS TEXT) = '4'", two), Match::Yes);
  EXPECT_EQ(m("CAST(k AS REAL) > 3", two), Match::Yes);
  EXPECT_EQ(m("CAST(v AS INTEGER) = 2", on), Match::Unknown);  // 2.5 rounds to 3 on PostgreSQL, truncates to 2 on SQLite
  EXPECT_EQ(m("CAST(v AS REAL) = -1", two), Match::Yes);
  // A multiple of 1/16 is exact as float4, double and decimal (checked by hand on the three engines): compared as is.
  EXPECT_EQ(m("v IS DISTINCT FROM 2.5", on), Match::No);
  EXPECT_EQ(m("v < 2.75 AND v > k", on), Match::Yes);
  EXPECT_EQ(m("v IS DISTINCT FROM 0.1", on), Match::Unknown);  // 0.1 rounds differently as float4, double, decimal
}
