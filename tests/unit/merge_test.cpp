// MERGE (issue 17 item 1) without a server: PostgreSQL 15's MERGE INTO ... USING ... ON ... WHEN ... read from the
// spellings people write, rendered for PostgreSQL (and refused for MariaDB and SQLite, which have none), validated
// with one line per mistake, generated only where a suite turns it on and the server's version has it, shrunk toward
// the plain INSERT / UPDATE / DELETE it does, refused with a reason by the oracles that do not model it, and refused
// by a target whose server lacks it before anything is sent.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <iostream>
#include <map>
#include <stdexcept>

#include "txprop/engine.hpp"
#include "txprop/generators.hpp"
#include "txprop/oracle.hpp"
#include "txprop/property.hpp"
#include "txprop/sql.hpp"
#include "txprop/sql_parser.hpp"
#include "txprop/target_config.hpp"

using namespace txprop;

namespace {

const char* kUpsertMerge =
    "MERGE INTO t USING (VALUES (1, 5), (3, 7)) AS s(k, v) ON t.k = s.k "
    "WHEN MATCHED AND t.v > 10 THEN UPDATE SET v = t.v + s.v WHEN MATCHED THEN DELETE "
    "WHEN NOT MATCHED THEN INSERT (k, v) VALUES (s.k, s.v)";

Schema two_tables() {
  Schema s;
  s.tables = {Table{"t", {Column{"k", ColumnType::Integer, true}, Column{"v"}}, {"k"}, {}, {{1, 10}, {2, 20}}},
              Table{"u", {Column{"k", ColumnType::Integer, true}, Column{"w"}}, {"k"}, {}, {{1, 1}}}};
  return s;
}

TestCase one_statement_case(const Statement& s) {
  TestCase c;
  c.schema = two_tables();
  Transaction t;
  t.statements = {s};
  c.transactions = {t, t};
  c.order = TestCase::serial_order(c.transactions);
  return c;
}

EngineCapabilities asked_at(const std::string& uri, int server_version_num) {
  TargetConfig c = parse_target_uri(uri);
  c.server_version_num = server_version_num;
  return c.profile().capabilities(c);
}

}  // namespace

TEST(Merge, ReadAndRenderedForPostgresql) {
  const Statement m = parse_statement(kUpsertMerge);
  ASSERT_EQ(m.kind, StatementKind::Merge);
  EXPECT_EQ(m.alias, "s");
  EXPECT_EQ(m.columns, (std::vector<std::string>{"k", "v"}));
  EXPECT_EQ(m.values.size(), 2u);
  ASSERT_EQ(m.merge_whens.size(), 3u);
  EXPECT_EQ(m.merge_whens[0].action, MergeAction::Update);
  EXPECT_TRUE(m.merge_whens[0].condition);
  EXPECT_EQ(m.merge_whens[1].action, MergeAction::Delete);
  EXPECT_FALSE(m.merge_whens[2].matched);
  EXPECT_EQ(m.merge_whens[2].action, MergeAction::Insert);
  EXPECT_EQ(render(m, Dialect::PostgreSql),
            R"(MERGE INTO "t" USING (VALUES (1, 5), (3, 7)) AS "s"("k", "v") ON "t"."k" = "s"."k" WHEN MATCHED AND "t"."v" > 10 )"
            R"(THEN UPDATE SET "v" = "t"."v" + "s"."v" WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT ("k", "v") VALUES ("s"."k", "s"."v"))");
  // The portable text reads back as the same statement.
  EXPECT_EQ(parse_statement(render(m, Dialect::Portable)), m);
  EXPECT_EQ(merge_form(m), "MERGE (MATCHED AND ... UPDATE, MATCHED DELETE, NOT MATCHED INSERT)");
  // A table as the source, with or without an alias; DO NOTHING on either side.
  const Statement from_table = parse_statement("MERGE INTO t USING u AS x ON t.k = x.k WHEN MATCHED THEN DO NOTHING "
                                               "WHEN NOT MATCHED AND x.w > 0 THEN INSERT (k, v) VALUES (x.k, x.w)");
  EXPECT_EQ(from_table.merge_source, "u");
  EXPECT_EQ(from_table.alias, "x");
  EXPECT_EQ(parse_statement(render(from_table, Dialect::Portable)), from_table);
  const Statement bare = parse_statement("MERGE INTO t USING u ON t.k = u.k WHEN NOT MATCHED THEN DO NOTHING");
  EXPECT_EQ(bare.merge_source, "u");
  EXPECT_EQ(bare.alias, "");
  EXPECT_EQ(render(bare, Dialect::PostgreSql), R"(MERGE INTO "t" USING "u" ON "t"."k" = "u"."k" WHEN NOT MATCHED THEN DO NOTHING)");
  // MariaDB 10.11 and SQLite 3.40 have no MERGE: the renderer says so.
  for (Dialect d : {Dialect::MySql, Dialect::Sqlite}) {
    try {
      render(m, d);
      ADD_FAILURE() << to_string(d);
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("MERGE is PostgreSQL's"), std::string::npos) << e.what();
    }
  }
}

TEST(Merge, MistakesAreOneLine) {
  auto syntax = [](const char* sql) {
    try {
      parse_statement(sql);
    } catch (const SyntaxError& e) {
      return std::string(e.what());
    }
    return std::string("parsed");
  };
  EXPECT_NE(syntax("MERGE INTO t USING u ON t.k = u.k").find("expected WHEN [NOT] MATCHED"), std::string::npos);
  EXPECT_NE(syntax("MERGE INTO t USING (SELECT 1) AS s ON true WHEN MATCHED THEN DELETE").find("VALUES"), std::string::npos);
  EXPECT_NE(syntax("MERGE INTO t USING u ON t.k = u.k WHEN NOT MATCHED THEN INSERT VALUES (1, 2)").find("names its columns"),
            std::string::npos);
  auto invalid = [](const char* sql) { return one_statement_case(parse_statement(sql)).validate(); };
  EXPECT_EQ(invalid(kUpsertMerge), "");
  EXPECT_NE(invalid("MERGE INTO t USING u ON t.k = u.k WHEN MATCHED THEN INSERT (k) VALUES (u.k)").find("WHEN MATCHED cannot INSERT"),
            std::string::npos);
  EXPECT_NE(invalid("MERGE INTO t USING u ON t.k = u.k WHEN NOT MATCHED THEN DELETE").find("WHEN NOT MATCHED cannot DELETE"),
            std::string::npos);
  EXPECT_NE(invalid("MERGE INTO t USING nope ON t.k = nope.k WHEN MATCHED THEN DELETE").find("unknown table nope"), std::string::npos);
  EXPECT_NE(invalid("MERGE INTO t USING u ON t.k = u.zz WHEN MATCHED THEN DELETE").find("column zz is not in table u"),
            std::string::npos);
  EXPECT_NE(invalid("MERGE INTO t USING (VALUES (1)) AS s(k) ON t.k = s.k WHEN NOT MATCHED THEN INSERT (k, v) VALUES (s.k, s.v)")
                .find("column v is not in table s"),
            std::string::npos);
  EXPECT_NE(invalid("MERGE INTO t USING t ON t.k = t.k WHEN MATCHED THEN DELETE").find("source named apart"), std::string::npos);
}

TEST(Merge, GeneratedOnlyWhereTurnedOnAndTheServerHasIt) {
  struct Where {
    const char* uri;
    int version;
  };
  for (const Where w : {Where{"postgresql://p@127.0.0.1:5432/x", 150018}, Where{"postgresql://p@127.0.0.1:5432/x", 140023},
                        Where{"mariadb://u:pw@127.0.0.1:3306/x", 0}, Where{"sqlite:", 0}}) {
    const EngineCapabilities caps = asked_at(w.uri, w.version);
    gen::Options o;
    o.engine = caps;
    rc::Random random(11);
    const auto off = gen::test_case(o);
    o.merge = true;
    o.rich_statements = true;
    const auto on = gen::test_case(o);
    int statements = 0, merges = 0;
    std::map<std::string, int> actions;
    for (int i = 0; i < 300; ++i) {
      const rc::Random r = random.split();
      for (const auto& t : off(r, i % 100).value().transactions)
        for (const auto& s : t.statements) EXPECT_FALSE(s.is_merge()) << w.uri;
      const TestCase c = on(r, i % 100).value();
      ASSERT_EQ(c.validate(), "") << w.uri << describe(c);
      for (const auto& t : c.transactions)
        for (const auto& s : t.statements) {
          ++statements;
          if (!s.is_merge()) continue;
          ++merges;
          for (const MergeWhen& when : s.merge_whens)
            ++actions[std::string(when.matched ? "MATCHED " : "NOT MATCHED ") + (when.condition ? "AND ... " : "") +
                      (when.action == MergeAction::Update   ? "UPDATE"
                       : when.action == MergeAction::Delete ? "DELETE"
                       : when.action == MergeAction::Insert ? "INSERT"
                                                            : "DO NOTHING")];
          EXPECT_NO_THROW(render(s, Dialect::PostgreSql)) << s;
        }
    }
    std::cout << "[merge] " << w.uri << " at " << w.version << ": " << merges << " of " << statements << " statements";
    for (const auto& [a, n] : actions) std::cout << ", " << a << " " << n;
    std::cout << "\n";
    EXPECT_EQ(merges > 0, caps.merge) << w.uri << " " << w.version;
  }
}

TEST(Merge, ShrinksTowardThePlainStatementsItDoes) {
  const TestCase c = one_statement_case(parse_statement(kUpsertMerge));
  ASSERT_EQ(c.validate(), "");
  bool insert = false, update = false, delete_ = false, fewer_whens = false, fewer_rows = false, no_condition = false;
  for (const TestCase& s : gen::shrink_test_case(c)) {
    if (s.transactions.size() != 2 || s.transactions[0].statements.empty()) continue;
    ASSERT_EQ(s.validate(), "") << describe(s);
    const Statement& first = s.transactions[0].statements[0];
    insert = insert || first == parse_statement("INSERT INTO t (k, v) VALUES (1, 5)");
    update = update || first == parse_statement("UPDATE t SET v = t.v + 5 WHERE t.k = 1 AND t.v > 10");
    delete_ = delete_ || first == parse_statement("DELETE FROM t WHERE t.k = 1");
    if (!first.is_merge()) continue;
    fewer_whens = fewer_whens || first.merge_whens.size() == 2;
    fewer_rows = fewer_rows || first.values.size() == 1;
    no_condition = no_condition || (first.merge_whens.size() == 3 && !first.merge_whens[0].condition);
  }
  EXPECT_TRUE(insert);
  EXPECT_TRUE(update);
  EXPECT_TRUE(delete_);
  EXPECT_TRUE(fewer_whens);
  EXPECT_TRUE(fewer_rows);
  EXPECT_TRUE(no_condition);
}

// Adya, Troc and Sdg do not record which rows a MERGE inserted, updated or deleted: each refuses with the reason, and
// the summary counts it. WSS and Atomicity judge it by replaying it (tests/targets/merge_planted_test.cpp).
TEST(Merge, RefusedByTheOraclesThatDoNotModelIt) {
  const TestCase c = one_statement_case(parse_statement(kUpsertMerge));
  for (const char* name : {"adya", "adyaclaimed", "troc", "sdg"}) {
    const std::string why = oracle(name).cannot_judge(c, *find_engine("postgresql"));
    EXPECT_EQ(why.rfind("T0.1 is MERGE (MATCHED AND ... UPDATE", 0), 0u) << name << ": " << why;
  }
  for (const char* name : {"wss", "atomicity"}) EXPECT_EQ(oracle(name).cannot_judge(c, *find_engine("postgresql")), "") << name;
}

// A target whose server has no MERGE (PostgreSQL before 15, MariaDB, SQLite) refuses a case with one before sending it.
TEST(Merge, ATargetWithoutItSaysSo) {
  const TestCase c = one_statement_case(parse_statement(kUpsertMerge));
  EXPECT_EQ(missing_capability(c, asked_at("postgresql://p@127.0.0.1:5432/x", 150000), "postgresql 15.0"), "");
  EXPECT_EQ(missing_capability(c, asked_at("postgresql://p@127.0.0.1:5432/x", 140023), "postgresql 14.23"),
            "T0.1 is MERGE (MATCHED AND ... UPDATE, MATCHED DELETE, NOT MATCHED INSERT), which postgresql 14.23 does not "
            "have (MERGE is PostgreSQL's, from 15)");
  EXPECT_NE(missing_capability(c, asked_at("mariadb://u:pw@127.0.0.1:3306/x", 0), "mariadb"), "");
  EXPECT_NE(missing_capability(c, asked_at("sqlite:", 0), "sqlite"), "");
  EXPECT_EQ(missing_capability(one_statement_case(parse_statement("DELETE FROM t")), asked_at("sqlite:", 0), "sqlite"), "");
}
