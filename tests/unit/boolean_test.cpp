// BOOLEAN columns (issue 17 item 2) without a server: BOOLEAN / BOOL read from scenario files with TRUE / FALSE rows
// (held as 1 / 0, as every engine reads them back), rendered per dialect with TRUE / FALSE literals, and generated only
// where a suite turns them on, with a share this test prints, every generated statement comparing a BOOLEAN column
// only with TRUE / FALSE (or IS [NOT] TRUE | FALSE | NULL) and setting it only to TRUE, FALSE, NULL or NOT itself.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <functional>
#include <iostream>

#include <fmt/format.h>

#include "txprop/engine.hpp"
#include "txprop/generators.hpp"
#include "txprop/oracle.hpp"
#include "txprop/property.hpp"
#include "txprop/scenario.hpp"
#include "txprop/sql.hpp"
#include "txprop/target_config.hpp"

using namespace txprop;

TEST(Booleans, ReadAndRenderedWithTruthLiterals) {
  const Scenario s = parse_scenario(
      "setup:\nCREATE TABLE t (k INTEGER PRIMARY KEY, b BOOLEAN, c BOOL NOT NULL);\n"
      "INSERT INTO t VALUES (1, TRUE, FALSE), (2, NULL, TRUE);\n"
      "steps:\ns1: BEGIN;\ns1: UPDATE t SET b = NOT b WHERE c = TRUE;\ns1: COMMIT;\nexpect:\nwss * * ok\n");
  const Table& t = s.schema.tables[0];
  EXPECT_EQ(t.columns[1].type, ColumnType::Boolean);
  EXPECT_EQ(t.columns[2].type, ColumnType::Boolean);
  EXPECT_EQ(t.rows, (std::vector<Row>{{1, 1, 0}, {2, Value(), 1}}));
  EXPECT_EQ(render_insert_rows(t, Dialect::PostgreSql), "INSERT INTO \"t\" (\"k\", \"b\", \"c\") VALUES (1, TRUE, FALSE), (2, NULL, TRUE)");
  EXPECT_EQ(render_create_table(t, Dialect::MySql),
            "CREATE TABLE `t` (`k` BIGINT NOT NULL, `b` BOOLEAN, `c` BOOLEAN NOT NULL, PRIMARY KEY (`k`)) ENGINE=InnoDB");
  std::string setup = "setup:\n";
  for (const auto& line : render_setup(s.schema, Dialect::Portable)) setup += line + ";\n";
  EXPECT_EQ(parse_scenario(setup + "steps:\ns1: SELECT * FROM t;\nexpect:\nwss * * ok\n").schema, s.schema) << setup;
  EXPECT_THROW(parse_scenario("setup:\nCREATE TABLE t (k INTEGER);\nsteps:\ns1: SELECT CAST(k AS BOOLEAN) FROM t;\n"
                              "expect:\nwss * * ok\n"),
               SyntaxError);
}

namespace {

// Why `e` uses a BOOLEAN column of `t` other than with TRUE / FALSE, "" if it does not.
std::string misuse(const Expr& e, const Table& t) {
  auto boolean = [&](const Expr& x) {
    const Column* c = x.kind == Expr::Kind::Column ? t.find_column(x.column) : nullptr;
    return c && c->type == ColumnType::Boolean;
  };
  if (e.kind == Expr::Kind::IsTruth || e.kind == Expr::Kind::IsNull) return {};  // b IS [NOT] TRUE | FALSE | NULL
  // A subquery's columns are its own table's (the generator draws them without BOOLEAN columns too); IN's operand is ours.
  if (e.kind == Expr::Kind::Subquery || e.kind == Expr::Kind::Exists) return {};
  if (e.kind == Expr::Kind::InSubquery)
    return e.args[0].kind == Expr::Kind::Column && t.find_column(e.args[0].column) &&
                   t.find_column(e.args[0].column)->type == ColumnType::Boolean
               ? render(e, Dialect::Portable)
               : misuse(e.args[0], t);
  if (e.kind == Expr::Kind::Not && boolean(e.args[0])) return {};
  if (e.kind == Expr::Kind::Binary && (e.op == BinaryOp::Eq || e.op == BinaryOp::Ne) && boolean(e.args[0]))
    return e.args[1].kind == Expr::Kind::Boolean ? "" : render(e, Dialect::Portable);
  for (const Expr& a : e.args) {
    if (boolean(a)) return render(e, Dialect::Portable);
    if (auto why = misuse(a, t); !why.empty()) return why;
  }
  return {};
}

}  // namespace

TEST(Booleans, GeneratedOnlyWithTheirOwnValues) {
  gen::Options o;
  o.rich_statements = true;
  o.truth_forms = o.upserts = true;
  o.engine = find_engine("postgresql")->capabilities();
  rc::Random random(19);
  const auto off = gen::test_case(o);
  o.booleans = true;
  const auto on = gen::test_case(o);
  int with = 0, statements = 0, naming = 0;
  const int n = 400;
  for (int i = 0; i < n; ++i) {
    const rc::Random r = random.split();
    for (const Table& t : off(r, i % 100).value().schema.tables)
      for (const Column& c : t.columns) EXPECT_NE(c.type, ColumnType::Boolean);
    const TestCase c = on(r, i % 100).value();
    ASSERT_EQ(c.validate(), "") << describe(c);
    with += rich_forms(c).count("form: BOOLEAN column");
    for (const Transaction& tx : c.transactions)
      for (const Statement& s : tx.statements) {
        ++statements;
        const Table* t = c.schema.find_table(s.table);
        if (!t) continue;
        const std::string sql = render(s, Dialect::Portable);
        bool names = false;
        for (const Column& col : t->columns) names = names || (col.type == ColumnType::Boolean && sql.find(col.name) != std::string::npos);
        naming += names;
        if (s.where) EXPECT_EQ(misuse(*s.where, *t), "") << sql;
        for (const Assignment& a : s.assignments) {
          const Column* col = t->find_column(a.column);
          if (!col || col->type != ColumnType::Boolean) {
            EXPECT_EQ(misuse(a.value, *t), "") << sql;
            continue;
          }
          EXPECT_TRUE(a.value.kind == Expr::Kind::Boolean || a.value.kind == Expr::Kind::Not) << sql;
        }
        for (const auto& values : s.values)
          for (std::size_t k = 0; k < values.size() && k < s.columns.size(); ++k)
            if (const Column* col = t->find_column(s.columns[k]); col && col->type == ColumnType::Boolean)
              EXPECT_TRUE(values[k].kind == Expr::Kind::Boolean || (values[k].kind == Expr::Kind::Literal && values[k].literal.is_null())) << sql;
        for (const auto& g : s.group_by)
          if (const Column* col = t->find_column(g)) EXPECT_NE(col->type, ColumnType::Boolean) << sql;
        for (const auto& item : s.items)
          if (const Column* col = t->find_column(item.column)) EXPECT_NE(col->type, ColumnType::Boolean) << sql;
      }
  }
  std::cout << fmt::format("[booleans] {} of {} cases ({:.1f}%) have a BOOLEAN column; {} of {} statements ({:.1f}%) name one\n",
                           with, n, 100.0 * with / n, naming, statements, 100.0 * naming / std::max(1, statements));
  EXPECT_GT(with, n / 10);
  EXPECT_GT(naming, 0);
}

// Every oracle judges a case with a BOOLEAN column and truth values: WSS and atomicity replay it
// (tests/targets/boolean_planted_test.cpp); Adya evaluates its predicates as the engines do, Troc and SDG re-run them on
// the engine (tests/targets/truth_value_oracles_test.cpp).
TEST(Booleans, EveryOracleJudgesThem) {
  const Scenario s = parse_scenario("setup:\nCREATE TABLE t (k INTEGER PRIMARY KEY, b BOOLEAN);\nINSERT INTO t VALUES (1, TRUE);\n"
                                    "steps:\ns1: BEGIN;\ns1: UPDATE t SET k = 2 WHERE b IS NOT FALSE AND k IS DISTINCT FROM 3;\n"
                                    "s1: COMMIT;\nexpect:\nwss * * ok\n");
  const TestCase c = s.replay_case(IsolationLevel::RepeatableRead);
  for (const char* uri : {"postgresql://p@127.0.0.1:5432/x", "mariadb://u@127.0.0.1:3306/x", "sqlite:"}) {
    const TargetConfig target = parse_target_uri(uri);
    for (const char* name : {"adya", "adyaclaimed", "troc", "sdg", "wss", "atomicity"})
      EXPECT_EQ(txprop::oracle(name).cannot_judge(c, target.profile()), "") << name << " on " << uri;
  }
}
