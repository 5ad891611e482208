// Richer statement forms (issue 11): [NOT] EXISTS subqueries (correlated through qualified columns, and not) and
// CASE, end to end without a server: model, rendering per dialect, the portable parser reading them back, validation,
// generation (only when asked for) and shrinking toward simple forms.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "txprop/generators.hpp"
#include "txprop/sql.hpp"
#include "txprop/sql_parser.hpp"

namespace txprop {
namespace {

const Dialect kDialects[] = {Dialect::Portable, Dialect::Sqlite, Dialect::PostgreSql, Dialect::MySql};

Expr eq(Expr a, Expr b) { return Expr::binary(BinaryOp::Eq, std::move(a), std::move(b)); }

void expect_round_trip(const Statement& s) {
  for (Dialect d : kDialects) {
    const std::string sql = render(s, d);
    Statement back;
    ASSERT_NO_THROW(back = parse_statement(sql)) << sql;
    EXPECT_EQ(back, s) << to_string(d) << ": " << sql << "\n  read back as: " << render(back, Dialect::Portable);
  }
}

TEST(RichStatements, ExistsAndCaseRenderPerDialectAndReadBack) {
  const Expr correlated = Expr::exists("t1", eq(Expr::qcol("t1", "k"), Expr::qcol("t0", "v")));
  const Statement del = Statement::delete_("t0", correlated);
  EXPECT_EQ(render(del, Dialect::Portable), "DELETE FROM t0 WHERE EXISTS (SELECT 1 FROM t1 WHERE t1.k = t0.v)");
  EXPECT_EQ(render(del, Dialect::MySql), "DELETE FROM `t0` WHERE EXISTS (SELECT 1 FROM `t1` WHERE `t1`.`k` = `t0`.`v`)");
  EXPECT_EQ(render(del, Dialect::PostgreSql),
            "DELETE FROM \"t0\" WHERE EXISTS (SELECT 1 FROM \"t1\" WHERE \"t1\".\"k\" = \"t0\".\"v\")");
  expect_round_trip(del);
  expect_round_trip(Statement::select("t0", Expr::exists("t1", std::nullopt, true)));
  expect_round_trip(Statement::select("t0", Expr::exists("t1", eq(Expr::qcol("t1", "k"), Expr::lit(Value(3))), true) ||
                                                Expr::not_(Expr::exists("t1", std::nullopt))));
  const Statement upd = Statement::update(
      "t0", {Assignment{"v", Expr::case_(Expr::exists("t1", std::nullopt, true), Expr::lit(Value(1)), Expr::col("v"))}},
      eq(Expr::col("k"), Expr::lit(Value(2))));
  EXPECT_EQ(render(upd, Dialect::Portable),
            "UPDATE t0 SET v = CASE WHEN NOT EXISTS (SELECT 1 FROM t1) THEN 1 ELSE v END WHERE k = 2");
  expect_round_trip(upd);
}

TEST(RichStatements, ValidationKnowsTheScopes) {
  TestCase c;
  Table t0{"t0", {Column{"k"}, Column{"v"}}, {}, {}, {}};
  Table t1{"t1", {Column{"k"}}, {}, {}, {}};
  c.schema.tables = {t0, t1};
  Transaction tx;
  tx.statements = {Statement::select("t0", Expr::exists("t1", eq(Expr::qcol("t1", "k"), Expr::qcol("t0", "v"))))};
  c.transactions = {tx};
  c.order = TestCase::serial_order(c.transactions);
  EXPECT_EQ(c.validate(), "");
  c.transactions[0].statements[0].where = Expr::exists("t1", eq(Expr::col("v"), Expr::lit(Value(1))));  // t1 has no v
  EXPECT_NE(c.validate(), "");
  c.transactions[0].statements[0].where = Expr::exists("t9", std::nullopt);
  EXPECT_NE(c.validate(), "");
  EXPECT_EQ(Statement::select("t0", Expr::exists("t1", std::nullopt)).tables(), (std::vector<std::string>{"t0", "t1"}));
}

TEST(RichStatements, GeneratedOnlyWhenAskedForAndShrunkTowardSimpleForms) {
  auto count = [](bool rich) {
    gen::Options o;
    o.rich_statements = rich;
    o.min_tables = 2;
    int exists = 0, cases = 0;
    const auto g = gen::test_case(o);
    rc::Random random(99);
    for (int i = 0; i < 300; ++i) {
      const TestCase c = g(random.split(), 50).value();
      EXPECT_EQ(c.validate(), "");
      for (const auto& t : c.transactions)
        for (const auto& s : t.statements) {
          const std::string sql = render(s, Dialect::Portable);
          exists += sql.find("EXISTS") != std::string::npos;
          cases += sql.find("CASE WHEN") != std::string::npos;
          EXPECT_NO_THROW((void)parse_statement(sql)) << sql;
        }
    }
    return std::pair{exists, cases};
  };
  EXPECT_EQ(count(false), (std::pair{0, 0}));
  const auto [exists, cases] = count(true);
  EXPECT_GT(exists, 20);
  EXPECT_GT(cases, 20);

  // Shrinking offers the uncorrelated EXISTS and the CASE branches alone.
  TestCase c;
  c.schema.tables = {Table{"t0", {Column{"k"}, Column{"v"}}, {}, {}, {}}, Table{"t1", {Column{"k"}}, {}, {}, {}}};
  Transaction tx;
  tx.statements = {Statement::update(
      "t0", {Assignment{"v", Expr::case_(eq(Expr::col("k"), Expr::lit(Value(1))), Expr::lit(Value(5)), Expr::col("v"))}},
      Expr::exists("t1", eq(Expr::qcol("t1", "k"), Expr::qcol("t0", "k"))))};
  c.transactions = {tx};
  c.order = TestCase::serial_order(c.transactions);
  bool uncorrelated = false, branch = false;
  for (const TestCase& s : gen::shrink_test_case(c)) {
    if (s.transactions.empty() || s.transactions[0].statements.empty()) continue;
    const Statement& st = s.transactions[0].statements[0];
    uncorrelated = uncorrelated || (st.where && st.where->kind == Expr::Kind::Exists && !st.where->has_where);
    branch = branch || (!st.assignments.empty() && st.assignments[0].value.kind != Expr::Kind::Case);
  }
  EXPECT_TRUE(uncorrelated);
  EXPECT_TRUE(branch);
}

}  // namespace
}  // namespace txprop

namespace txprop {
namespace {

TEST(RichStatements, AggregatesGroupByHavingOrderByLimit) {
  Statement agg = Statement::select("t0", Expr::binary(BinaryOp::Gt, Expr::col("v"), Expr::lit(Value(0))));
  agg.items = {SelectItem{Aggregate::None, "k"}, SelectItem{Aggregate::Count, "v"}, SelectItem{Aggregate::Sum, "v"}};
  agg.group_by = {"k"};
  agg.having = Expr::binary(BinaryOp::Gt, Expr::aggregate_of(Aggregate::Count, "v"), Expr::lit(Value(1)));
  agg.order_by = {OrderItem{"k", true}};
  agg.limit = 2;
  EXPECT_EQ(render(agg, Dialect::Portable),
            "SELECT k, COUNT(v), SUM(v) FROM t0 WHERE v > 0 GROUP BY k HAVING COUNT(v) > 1 ORDER BY k DESC LIMIT 2");
  EXPECT_EQ(render(agg, Dialect::MySql),
            "SELECT `k`, COUNT(`v`), SUM(`v`) FROM `t0` WHERE `v` > 0 GROUP BY `k` HAVING COUNT(`v`) > 1 ORDER BY `k` DESC LIMIT 2");
  expect_round_trip(agg);
  Statement ordered = Statement::select("t0");
  ordered.order_by = {OrderItem{"v", false}, OrderItem{"k", false}};
  ordered.limit = 1;
  expect_round_trip(ordered);

  TestCase c;
  c.schema.tables = {Table{"t0", {Column{"k"}, Column{"v"}}, {}, {}, {}}};
  Transaction tx;
  tx.statements = {agg};
  c.transactions = {tx};
  c.order = TestCase::serial_order(c.transactions);
  EXPECT_EQ(c.validate(), "");
  bool plain = false;
  for (const TestCase& s : gen::shrink_test_case(c))
    if (!s.transactions.empty() && !s.transactions[0].statements.empty())
      plain = plain || (s.transactions[0].statements[0].items.empty() && s.transactions[0].statements[0].group_by.empty());
  EXPECT_TRUE(plain);

  // Generated, they parse back and validate.
  gen::Options o;
  o.rich_statements = true;
  const auto g = gen::test_case(o);
  rc::Random random(5);
  int aggregates = 0, limits = 0;
  for (int i = 0; i < 300; ++i) {
    const TestCase tc = g(random.split(), 50).value();
    EXPECT_EQ(tc.validate(), "");
    for (const auto& t : tc.transactions)
      for (const auto& s : t.statements) {
        aggregates += !s.items.empty();
        limits += s.limit.has_value();
        const std::string sql = render(s, Dialect::Portable);
        Statement back;
        ASSERT_NO_THROW(back = parse_statement(sql)) << sql;
        EXPECT_EQ(back, s) << sql;
      }
  }
  EXPECT_GT(aggregates, 20);
  EXPECT_GT(limits, 20);
}

}  // namespace
}  // namespace txprop

namespace txprop {
namespace {

TEST(RichStatements, JoinsRenderReadBackAndShrinkToOneTable) {
  Statement j = Statement::select("t0", Expr::binary(BinaryOp::Gt, Expr::qcol("t0", "v"), Expr::lit(Value(1))));
  j.joins.push_back(Join{true, "t1", Expr::binary(BinaryOp::Eq, Expr::qcol("t0", "k"), Expr::qcol("t1", "k"))});
  EXPECT_EQ(render(j, Dialect::Portable), "SELECT * FROM t0 LEFT JOIN t1 ON t0.k = t1.k WHERE t0.v > 1");
  EXPECT_EQ(render(j, Dialect::PostgreSql),
            "SELECT * FROM \"t0\" LEFT JOIN \"t1\" ON \"t0\".\"k\" = \"t1\".\"k\" WHERE \"t0\".\"v\" > 1");
  expect_round_trip(j);
  j.joins[0].left = false;
  expect_round_trip(j);
  EXPECT_EQ(j.tables(), (std::vector<std::string>{"t0", "t1"}));
  EXPECT_EQ(parse_statement("SELECT * FROM t0 LEFT OUTER JOIN t1 ON t0.k = t1.k").joins.size(), 1u);

  TestCase c;
  c.schema.tables = {Table{"t0", {Column{"k"}, Column{"v"}}, {}, {}, {}}, Table{"t1", {Column{"k"}}, {}, {}, {}}};
  Transaction tx;
  tx.statements = {j};
  c.transactions = {tx};
  c.order = TestCase::serial_order(c.transactions);
  EXPECT_EQ(c.validate(), "");
  c.transactions[0].statements[0].joins[0].table = "t9";
  EXPECT_NE(c.validate(), "");
  c.transactions[0].statements[0] = j;
  bool one_table = false;
  for (const TestCase& s : gen::shrink_test_case(c))
    if (!s.transactions.empty() && !s.transactions[0].statements.empty())
      one_table = one_table || s.transactions[0].statements[0].joins.empty();
  EXPECT_TRUE(one_table);

  gen::Options o;
  o.rich_statements = true;
  o.min_tables = 2;
  const auto g = gen::test_case(o);
  rc::Random random(17);
  int joins = 0;
  for (int i = 0; i < 300; ++i) {
    const TestCase tc = g(random.split(), 50).value();
    EXPECT_EQ(tc.validate(), "");
    for (const auto& t : tc.transactions)
      for (const auto& s : t.statements) {
        joins += !s.joins.empty();
        const std::string sql = render(s, Dialect::Portable);
        Statement back;
        ASSERT_NO_THROW(back = parse_statement(sql)) << sql;
        EXPECT_EQ(back, s) << sql;
      }
  }
  EXPECT_GT(joins, 20);
}

}  // namespace
}  // namespace txprop

namespace txprop {
namespace {

TestCase two_table_case(Statement s) {
  TestCase c;
  c.schema.tables = {Table{"t0", {Column{"k"}, Column{"v"}}, {}, {}, {}}, Table{"t1", {Column{"k"}, Column{"w"}}, {}, {}, {}}};
  Transaction tx;
  tx.statements = {std::move(s)};
  c.transactions = {tx};
  c.order = TestCase::serial_order(c.transactions);
  return c;
}

// Derived tables and scalar subqueries in the SELECT list: rendered per dialect, read back, validated, shrunk.
TEST(RichStatements, DerivedTablesAndSelectListSubqueries) {
  Statement inner = Statement::select("t0", Expr::binary(BinaryOp::Gt, Expr::col("v"), Expr::lit(Value(1))));
  inner.order_by = {OrderItem{"v", true}, OrderItem{"k", false}};
  inner.limit = 2;
  Statement d = Statement::select("t0", Expr::binary(BinaryOp::Ne, Expr::col("k"), Expr::lit(Value(3))));
  d.derived.push_back(inner);
  d.alias = "d";
  EXPECT_EQ(render(d, Dialect::Portable),
            "SELECT * FROM (SELECT * FROM t0 WHERE v > 1 ORDER BY v DESC, k LIMIT 2) AS d WHERE k <> 3");
  EXPECT_EQ(render(d, Dialect::MySql),
            "SELECT * FROM (SELECT * FROM `t0` WHERE `v` > 1 ORDER BY `v` DESC, `k` LIMIT 2) AS `d` WHERE `k` <> 3");
  expect_round_trip(d);
  EXPECT_EQ(d.tables(), (std::vector<std::string>{"t0"}));
  EXPECT_EQ(two_table_case(d).validate(), "");

  Statement sq = Statement::select("t0");
  sq.select_exprs.push_back(Expr::subquery(Aggregate::Max, "t1", "w", Expr::binary(BinaryOp::Eq, Expr::qcol("t1", "k"), Expr::qcol("t0", "k"))));
  EXPECT_EQ(render(sq, Dialect::Portable), "SELECT *, (SELECT MAX(w) FROM t1 WHERE t1.k = t0.k) FROM t0");
  expect_round_trip(sq);
  sq.columns = {"v"};
  EXPECT_EQ(render(sq, Dialect::PostgreSql), "SELECT \"v\", (SELECT MAX(\"w\") FROM \"t1\" WHERE \"t1\".\"k\" = \"t0\".\"k\") FROM \"t0\"");
  expect_round_trip(sq);
  EXPECT_EQ(sq.tables(), (std::vector<std::string>{"t0", "t1"}));
  EXPECT_EQ(two_table_case(sq).validate(), "");

  // Bad input gets one line.
  EXPECT_THROW((void)parse_statement("SELECT *, v FROM t0"), SyntaxError);
  EXPECT_THROW((void)parse_statement("SELECT * FROM (SELECT * FROM t0)"), SyntaxError);  // no alias
  Statement bad = d;
  bad.derived[0].table = "t1";
  EXPECT_NE(two_table_case(bad).validate(), "");
  bad = sq;
  bad.select_exprs[0] = Expr::lit(Value(1));
  EXPECT_NE(two_table_case(bad).validate(), "");

  // Shrinking: the derived table toward its table, the subquery dropped or uncorrelated.
  bool plain_table = false, uncorrelated = false, dropped = false;
  for (const TestCase& s : gen::shrink_test_case(two_table_case(d)))
    if (!s.transactions[0].statements.empty()) plain_table = plain_table || s.transactions[0].statements[0].derived.empty();
  for (const TestCase& s : gen::shrink_test_case(two_table_case(sq)))
    if (!s.transactions[0].statements.empty()) {
      const Statement& x = s.transactions[0].statements[0];
      dropped = dropped || x.select_exprs.empty();
      uncorrelated = uncorrelated || (!x.select_exprs.empty() && !x.select_exprs[0].has_where);
    }
  EXPECT_TRUE(plain_table);
  EXPECT_TRUE(dropped);
  EXPECT_TRUE(uncorrelated);
}

// Joined writes: MariaDB's multi-table UPDATE/DELETE and PostgreSQL's UPDATE ... FROM / DELETE ... USING, one model.
TEST(RichStatements, JoinedWritesRenderPerDialectAndReadBack) {
  const Expr on = Expr::binary(BinaryOp::Eq, Expr::qcol("t0", "k"), Expr::qcol("t1", "k"));
  const Expr where = Expr::binary(BinaryOp::Gt, Expr::qcol("t0", "v"), Expr::lit(Value(1)));
  Statement u = Statement::update("t0", {Assignment{"v", Expr::binary(BinaryOp::Add, Expr::qcol("t0", "v"), Expr::lit(Value(1)))}}, where);
  u.joins.push_back(Join{false, "t1", on});
  EXPECT_EQ(render(u, Dialect::Portable), "UPDATE t0 INNER JOIN t1 ON t0.k = t1.k SET t0.v = t0.v + 1 WHERE t0.v > 1");
  EXPECT_EQ(render(u, Dialect::MySql),
            "UPDATE `t0` INNER JOIN `t1` ON `t0`.`k` = `t1`.`k` SET `t0`.`v` = `t0`.`v` + 1 WHERE `t0`.`v` > 1");
  EXPECT_EQ(render(u, Dialect::PostgreSql),
            "UPDATE \"t0\" SET \"v\" = \"t0\".\"v\" + 1 FROM \"t1\" WHERE \"t0\".\"k\" = \"t1\".\"k\" AND \"t0\".\"v\" > 1");
  EXPECT_EQ(render(u, Dialect::Sqlite), render(u, Dialect::PostgreSql));
  EXPECT_EQ(parse_statement(render(u, Dialect::Portable)), u);
  EXPECT_EQ(parse_statement(render(u, Dialect::MySql)), u);
  // The FROM form reads back as the same join with its whole WHERE as the condition: it prints back identically.
  const Statement from_form = parse_statement(render(u, Dialect::PostgreSql));
  EXPECT_EQ(render(from_form, Dialect::PostgreSql), render(u, Dialect::PostgreSql));
  EXPECT_EQ(from_form.joins.size(), 1u);
  EXPECT_EQ(u.written_tables(), (std::vector<std::string>{"t0"}));
  EXPECT_EQ(two_table_case(u).validate(), "");

  Statement both = u;
  both.assignments.push_back(Assignment{"w", Expr::lit(Value(7)), "t1"});
  EXPECT_EQ(render(both, Dialect::Portable), "UPDATE t0 INNER JOIN t1 ON t0.k = t1.k SET t0.v = t0.v + 1, t1.w = 7 WHERE t0.v > 1");
  EXPECT_EQ(parse_statement(render(both, Dialect::MySql)), both);
  EXPECT_EQ(both.written_tables(), (std::vector<std::string>{"t0", "t1"}));
  EXPECT_EQ(two_table_case(both).validate(), "");

  Statement del = Statement::delete_("t0", where);
  del.joins.push_back(Join{false, "t1", on});
  EXPECT_EQ(render(del, Dialect::Portable), "DELETE t0 FROM t0 INNER JOIN t1 ON t0.k = t1.k WHERE t0.v > 1");
  EXPECT_EQ(render(del, Dialect::PostgreSql),
            "DELETE FROM \"t0\" USING \"t1\" WHERE \"t0\".\"k\" = \"t1\".\"k\" AND \"t0\".\"v\" > 1");
  EXPECT_EQ(parse_statement(render(del, Dialect::MySql)), del);
  EXPECT_EQ(render(parse_statement(render(del, Dialect::PostgreSql)), Dialect::PostgreSql), render(del, Dialect::PostgreSql));
  EXPECT_EQ(two_table_case(del).validate(), "");

  // Bad input: one clear line each.
  EXPECT_THROW((void)parse_statement("DELETE t1 FROM t0 INNER JOIN t1 ON t0.k = t1.k"), SyntaxError);
  EXPECT_THROW((void)parse_statement("UPDATE t0 SET v = 1 FROM t1"), SyntaxError);
  Statement left = u;
  left.joins[0].left = true;
  EXPECT_NE(two_table_case(left).validate(), "");
  Statement stranger = u;
  stranger.assignments[0].table = "t2";
  EXPECT_NE(two_table_case(stranger).validate(), "");
  Statement only_other = u;
  only_other.assignments = {Assignment{"w", Expr::lit(Value(1)), "t1"}};
  EXPECT_NE(two_table_case(only_other).validate(), "");

  // Shrinking toward one table and one written table.
  bool one_table = false, one_written = false;
  for (const TestCase& s : gen::shrink_test_case(two_table_case(both)))
    if (!s.transactions[0].statements.empty()) {
      const Statement& x = s.transactions[0].statements[0];
      one_table = one_table || (x.joins.empty() && x.written_tables().size() == 1);
      one_written = one_written || (!x.joins.empty() && x.written_tables().size() == 1);
    }
  EXPECT_TRUE(one_table);
  EXPECT_TRUE(one_written);
}

// Generated only where the options (set from the profile's capabilities) allow, always valid, read back exactly.
TEST(RichStatements, NewFormsGeneratedWhereTheEngineHasThem) {
  auto generate = [](bool update_join, bool delete_join, bool joined_table) {
    gen::Options o;
    o.rich_statements = true;
    o.min_tables = 2;
    o.engine.update_join = update_join;
    o.engine.delete_join = delete_join;
    o.engine.update_joined_table = joined_table;
    const auto g = gen::test_case(o);
    rc::Random random(23);
    std::map<std::string, int> n;
    for (int i = 0; i < 300; ++i) {
      const TestCase tc = g(random.split(), 50).value();
      EXPECT_EQ(tc.validate(), "");
      for (const auto& t : tc.transactions)
        for (const auto& s : t.statements) {
          n["derived"] += !s.derived.empty();
          n["select list subquery"] += !s.select_exprs.empty();
          n["update join"] += s.is_multi_table_write() && s.kind == StatementKind::Update;
          n["delete join"] += s.is_multi_table_write() && s.kind == StatementKind::Delete;
          n["two tables"] += s.written_tables().size() > 1;
          const std::string sql = render(s, Dialect::Portable);
          Statement back;
          EXPECT_NO_THROW(back = parse_statement(sql)) << sql;
          EXPECT_EQ(back, s) << sql;
        }
    }
    return n;
  };
  auto mariadb = generate(true, true, true);
  EXPECT_GT(mariadb["derived"], 20);
  EXPECT_GT(mariadb["select list subquery"], 20);
  EXPECT_GT(mariadb["update join"], 20);
  EXPECT_GT(mariadb["delete join"], 10);
  EXPECT_GT(mariadb["two tables"], 5);
  auto sqlite = generate(true, false, false);
  EXPECT_GT(sqlite["update join"], 20);
  EXPECT_EQ(sqlite["delete join"], 0);
  EXPECT_EQ(sqlite["two tables"], 0);
  auto none = generate(false, false, false);
  EXPECT_EQ(none["update join"] + none["delete join"], 0);
}

}  // namespace
}  // namespace txprop

// Rich statements with joined writes turned off although the engine has them (gen::Options::joined_writes, for a
// suite whose oracle cannot judge them): joins, derived tables and SELECT-list subqueries appear, joined writes never.
namespace txprop {
namespace {
TEST(RichStatements, JoinedWritesCanBeLeftOutOfRichStatements) {
  gen::Options o;
  o.rich_statements = true;
  o.engine.update_join = o.engine.delete_join = o.engine.update_joined_table = true;
  o.joined_writes = false;
  o.min_tables = 2;
  int joins = 0, derived = 0, select_subqueries = 0;
  const auto g = gen::test_case(o);
  rc::Random random(7);
  for (int i = 0; i < 300; ++i) {
    const TestCase c = g(random.split(), 50).value();
    for (const auto& t : c.transactions)
      for (const auto& s : t.statements) {
        EXPECT_FALSE(s.is_multi_table_write()) << render(s, Dialect::Portable);
        joins += s.kind == StatementKind::Select && !s.joins.empty();
        derived += !s.derived.empty();
        select_subqueries += !s.select_exprs.empty();
      }
  }
  EXPECT_GT(joins, 20);
  EXPECT_GT(derived, 10);
  EXPECT_GT(select_subqueries, 20);
}
}  // namespace
}  // namespace txprop
