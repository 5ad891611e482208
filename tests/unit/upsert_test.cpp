// Upserts (issue 17) without a server: each form rendered per dialect (and refused where the dialect lacks it), read
// back from the spellings people write (PostgreSQL's and SQLite's ON CONFLICT, MariaDB's INSERT IGNORE, ON DUPLICATE
// KEY UPDATE with VALUES(c) and REPLACE INTO, SQLite's INSERT OR IGNORE / OR REPLACE), validated, generated only
// where a suite turns them on and only in the forms the engine has, and shrunk toward the plain INSERT.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <map>
#include <stdexcept>

#include "txprop/engine.hpp"
#include "txprop/generators.hpp"
#include "txprop/property.hpp"
#include "txprop/sql.hpp"
#include "txprop/sql_parser.hpp"

using namespace txprop;

namespace {

Schema counter_schema() {
  Schema s;
  s.tables = {Table{"t", {Column{"k", ColumnType::Integer, true}, Column{"v"}}, {"k"}, {}, {{1, 10}}}};
  return s;
}

std::string check(const Statement& s) {
  TestCase c;
  c.schema = counter_schema();
  Transaction t;
  t.statements = {s};
  c.transactions = {t};
  c.order = TestCase::serial_order(c.transactions);
  return c.validate();
}

}  // namespace

TEST(Upsert, RenderedPerDialect) {
  const Statement update = parse_statement("INSERT INTO t (k, v) VALUES (1, 5) ON CONFLICT (k) DO UPDATE SET v = t.v + EXCLUDED.v");
  EXPECT_EQ(update.upsert, Upsert::DoUpdate);
  EXPECT_EQ(render(update, Dialect::Portable), "INSERT INTO t (k, v) VALUES (1, 5) ON CONFLICT (k) DO UPDATE SET v = t.v + EXCLUDED.v");
  EXPECT_EQ(render(update, Dialect::PostgreSql),
            R"(INSERT INTO "t" ("k", "v") VALUES (1, 5) ON CONFLICT ("k") DO UPDATE SET "v" = "t"."v" + EXCLUDED."v")");
  EXPECT_EQ(render(update, Dialect::Sqlite),
            R"(INSERT INTO "t" ("k", "v") VALUES (1, 5) ON CONFLICT ("k") DO UPDATE SET "v" = "t"."v" + EXCLUDED."v")");
  EXPECT_EQ(render(update, Dialect::MySql),
            "INSERT INTO `t` (`k`, `v`) VALUES (1, 5) ON DUPLICATE KEY UPDATE `v` = `t`.`v` + VALUES(`v`)");

  const Statement where = parse_statement("INSERT INTO t (k, v) VALUES (1, 5) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v WHERE t.v < EXCLUDED.v");
  EXPECT_EQ(render(where, Dialect::PostgreSql),
            R"(INSERT INTO "t" ("k", "v") VALUES (1, 5) ON CONFLICT ("k") DO UPDATE SET "v" = EXCLUDED."v" WHERE "t"."v" < EXCLUDED."v")");
  EXPECT_THROW(render(where, Dialect::MySql), std::invalid_argument);  // ON DUPLICATE KEY UPDATE has no WHERE

  const Statement nothing = parse_statement("INSERT INTO t (k, v) VALUES (1, 5) ON CONFLICT (k) DO NOTHING");
  EXPECT_EQ(render(nothing, Dialect::PostgreSql), R"(INSERT INTO "t" ("k", "v") VALUES (1, 5) ON CONFLICT ("k") DO NOTHING)");
  EXPECT_THROW(render(nothing, Dialect::MySql), std::invalid_argument);

  const Statement ignore = parse_statement("INSERT IGNORE INTO t (k, v) VALUES (1, 5)");
  EXPECT_EQ(render(ignore, Dialect::MySql), "INSERT IGNORE INTO `t` (`k`, `v`) VALUES (1, 5)");
  EXPECT_EQ(render(ignore, Dialect::Sqlite), R"(INSERT OR IGNORE INTO "t" ("k", "v") VALUES (1, 5))");
  EXPECT_THROW(render(ignore, Dialect::PostgreSql), std::invalid_argument);

  const Statement replace = parse_statement("REPLACE INTO t (k, v) VALUES (1, 5)");
  EXPECT_EQ(render(replace, Dialect::MySql), "REPLACE INTO `t` (`k`, `v`) VALUES (1, 5)");
  EXPECT_EQ(render(replace, Dialect::Sqlite), R"(INSERT OR REPLACE INTO "t" ("k", "v") VALUES (1, 5))");
  EXPECT_EQ(render(replace, Dialect::Portable), "REPLACE INTO t (k, v) VALUES (1, 5)");
  EXPECT_THROW(render(replace, Dialect::PostgreSql), std::invalid_argument);
  // A plain INSERT is printed as before.
  EXPECT_EQ(render(parse_statement("INSERT INTO t (k, v) VALUES (1, 5)"), Dialect::MySql), "INSERT INTO `t` (`k`, `v`) VALUES (1, 5)");
}

TEST(Upsert, ReadFromEverySpelling) {
  // MariaDB's spelling: no target, VALUES(c) for the proposed value; printed back the same way.
  const Statement odku = parse_statement("INSERT INTO t (k, v) VALUES (1, 5) ON DUPLICATE KEY UPDATE v = t.v + VALUES(v)");
  EXPECT_EQ(odku.upsert, Upsert::DoUpdate);
  EXPECT_TRUE(odku.conflict_target.empty());
  ASSERT_EQ(odku.assignments.size(), 1u);
  EXPECT_EQ(odku.assignments[0].value.args[1], Expr::excluded("v"));
  EXPECT_EQ(render(odku, Dialect::Portable), "INSERT INTO t (k, v) VALUES (1, 5) ON DUPLICATE KEY UPDATE v = t.v + EXCLUDED.v");
  EXPECT_EQ(parse_statement(render(odku, Dialect::Portable)), odku);
  EXPECT_EQ(parse_statement("insert or ignore into t (k, v) values (1, 5)").upsert, Upsert::Ignore);
  EXPECT_EQ(parse_statement("INSERT OR REPLACE INTO t (k, v) VALUES (1, 5)").upsert, Upsert::Replace);
  EXPECT_EQ(parse_statement("INSERT INTO t (k, v) VALUES (1, 5) ON CONFLICT DO NOTHING").conflict_target.size(), 0u);
  // Every form prints back to itself.
  for (const char* sql : {"INSERT INTO t (k, v) VALUES (1, 5) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v WHERE t.v <> 3",
                          "INSERT INTO t (k, v) VALUES (1, 5), (2, 6) ON CONFLICT (k) DO NOTHING",
                          "INSERT IGNORE INTO t (k) VALUES (1)", "REPLACE INTO t (k, v) VALUES (1, NULL)"}) {
    const Statement s = parse_statement(sql);
    EXPECT_EQ(render(s, Dialect::Portable), sql);
    EXPECT_EQ(parse_statement(render(s, Dialect::Portable)), s);
  }
  // EXCLUDED and VALUES(c) mean the proposed row only inside the upsert clause.
  EXPECT_EQ(parse_statement("UPDATE t SET v = excluded.v").assignments[0].value, Expr::qcol("excluded", "v"));
  EXPECT_THROW(parse_statement("INSERT IGNORE INTO t (k) VALUES (1) ON DUPLICATE KEY UPDATE v = 1"), SyntaxError);
  EXPECT_THROW(parse_statement("INSERT INTO t (k) VALUES (1) ON CONFLICT (k) DO"), SyntaxError);
  EXPECT_THROW(parse_statement("INSERT OR FAIL INTO t (k) VALUES (1)"), SyntaxError);
}

TEST(Upsert, Validated) {
  EXPECT_EQ(check(parse_statement("INSERT INTO t (k, v) VALUES (1, 5) ON CONFLICT (k) DO UPDATE SET v = t.v + EXCLUDED.v")), "");
  EXPECT_EQ(check(parse_statement("INSERT INTO t (k, v) VALUES (1, 5) ON DUPLICATE KEY UPDATE v = VALUES(v)")), "");
  EXPECT_NE(check(parse_statement("INSERT INTO t (k, v) VALUES (1, 5) ON CONFLICT (v) DO NOTHING")).find("not the primary key or a unique index"),
            std::string::npos);
  EXPECT_NE(check(parse_statement("INSERT INTO t (k, v) VALUES (1, 5) ON CONFLICT (k) DO UPDATE SET w = 1")).find("column w"),
            std::string::npos);
  EXPECT_NE(check(parse_statement("INSERT INTO t (k, v) VALUES (1, 5) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.w")).find("EXCLUDED.w"),
            std::string::npos);
  Statement outside = parse_statement("UPDATE t SET v = 1");
  outside.assignments[0].value = Expr::excluded("v");
  EXPECT_NE(check(outside).find("only for the SET and WHERE of an upsert"), std::string::npos);
  Statement ignore_with_set = parse_statement("INSERT IGNORE INTO t (k) VALUES (1)");
  ignore_with_set.assignments = {Assignment{"v", Expr::lit(1), {}}};
  EXPECT_NE(check(ignore_with_set).find("has no SET or WHERE"), std::string::npos);
}

TEST(Upsert, GeneratedOnlyWhereTurnedOnAndInTheEngineForms) {
  for (const char* engine : {"sqlite", "postgresql", "mariadb"}) {
    const EngineCapabilities caps = find_engine(engine)->capabilities();
    gen::Options o;
    o.engine = caps;
    rc::Random random(7);
    const auto off = gen::test_case(o);
    o.upserts = true;
    const auto on = gen::test_case(o);
    std::map<std::string, int> forms;
    int inserts = 0;
    for (int i = 0; i < 400; ++i) {
      const rc::Random r = random.split();
      for (const auto& t : off(r, i % 100).value().transactions)
        for (const auto& s : t.statements) EXPECT_FALSE(s.is_upsert()) << engine;
      const TestCase c = on(r, i % 100).value();
      ASSERT_EQ(c.validate(), "") << engine << describe(c);
      for (const auto& t : c.transactions)
        for (const auto& s : t.statements) {
          inserts += s.kind == StatementKind::Insert;
          if (!s.is_upsert()) continue;
          ++forms[upsert_form(s)];
          EXPECT_NE(std::find(caps.upserts.begin(), caps.upserts.end(), s.upsert), caps.upserts.end()) << engine;
          EXPECT_NO_THROW(render(s, find_engine(engine)->dialect())) << engine << " " << s;
        }
    }
    int upserts = 0;
    for (const auto& [form, n] : forms) upserts += n;
    std::cout << "[upserts] " << engine << ": " << upserts << " of " << inserts << " INSERTs";
    for (const auto& [form, n] : forms) std::cout << ", " << form << " " << n;
    std::cout << "\n";
    for (Upsert form : caps.upserts) {
      Statement probe;
      probe.kind = StatementKind::Insert;
      probe.upsert = form;
      EXPECT_GT(forms[upsert_form(probe)] + (form == Upsert::DoUpdate ? forms["ON CONFLICT DO UPDATE ... WHERE"] : 0), 0)
          << engine << " " << upsert_form(probe);
    }
    EXPECT_EQ(forms["ON CONFLICT DO UPDATE ... WHERE"] > 0, caps.upsert_update_where) << engine;
  }
}

TEST(Upsert, ShrinksTowardThePlainInsert) {
  TestCase c;
  c.schema = counter_schema();
  Transaction t;
  t.statements = {parse_statement("INSERT INTO t (k, v) VALUES (1, 5) ON CONFLICT (k) DO UPDATE SET v = t.v + EXCLUDED.v WHERE t.v < 9")};
  c.transactions = {t, t};
  c.order = TestCase::serial_order(c.transactions);
  ASSERT_EQ(c.validate(), "");
  bool plain = false, without_where = false;
  for (const TestCase& s : gen::shrink_test_case(c)) {
    if (s.transactions.size() != 2) continue;
    const Statement& first = s.transactions[0].statements.empty() ? Statement{} : s.transactions[0].statements[0];
    plain = plain || (first.kind == StatementKind::Insert && !first.is_upsert() && first.assignments.empty() &&
                      !first.where && first.conflict_target.empty());
    without_where = without_where || (first.is_upsert() && !first.where);
  }
  EXPECT_TRUE(plain);
  EXPECT_TRUE(without_where);
}
