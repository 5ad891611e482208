// Truth values, casts and NULL-safe comparison (issue 17 item 5) without a server: TRUE / FALSE, IS [NOT] TRUE | FALSE,
// CAST(x AS type), IS [NOT] DISTINCT FROM (MariaDB's <=>) and MariaDB's IF(c, a, b), read in the spellings users and
// bug reports write, rendered per dialect, generated with a small share where a suite turns them on, and refused by the
// oracles that evaluate predicates themselves (Adya, Troc) or are not checked on them (Sdg).
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <iostream>

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

TEST(TruthForms, RefusedByTheOraclesThatEvaluatePredicates) {
  const TestCase c = one_statement_case("UPDATE t SET v = 1 WHERE (v > 3) IS TRUE");
  for (const char* name : {"adya", "adyaclaimed", "troc", "sdg"}) {
    const std::string why = oracle(name).cannot_judge(c, *find_engine("postgresql"));
    EXPECT_EQ(why.rfind("T0.1 uses TRUE / FALSE, IS [NOT] TRUE, CAST or IS [NOT] DISTINCT FROM", 0), 0u) << name << ": " << why;
  }
  for (const char* name : {"wss", "atomicity"}) EXPECT_EQ(oracle(name).cannot_judge(c, *find_engine("postgresql")), "") << name;
}
