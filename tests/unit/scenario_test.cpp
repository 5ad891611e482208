#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "txprop/scenario.hpp"
#include "txprop/scenario_runner.hpp"
#include "txprop/sql.hpp"
#include "txprop/target_config.hpp"

using namespace txprop;

namespace {

Expr col(const char* name) { return Expr::col(name); }
Expr eq(Expr a, Expr b) { return Expr::binary(BinaryOp::Eq, std::move(a), std::move(b)); }

// The example of include/txprop/scenario.hpp, as a file.
const char* const kLostUpdate = R"(# Lost update: T1's write is overwritten by T0, which read before it.
name: lost-update
source: IsoRel LU-1 (shared/notes/seed-isorel.md section 9.3)
link: https://jepsen.io/analyses/mysql-8.0.34#lost-update
applies: mariadb, mariadb_si, postgresql, sqlite
levels: repeatable read, serializable
level T1: read committed

setup:
CREATE TABLE t (k INTEGER NOT NULL, v INTEGER, PRIMARY KEY (k));
INSERT INTO t (k, v) VALUES (1, 10);

steps:
T0: BEGIN;
T0: SELECT * FROM t WHERE k = 1;
T1: BEGIN;
T1: UPDATE t SET v = 11 WHERE k = 1;
T1: COMMIT;
T0: UPDATE t SET v = 11 WHERE k = 1;
T0: COMMIT;

expect:
adya  mariadb     repeatable read  lost-update
adya  mariadb_si  repeatable_read  ok   # snapshot isolation aborts T0
wss   *           serializable     ok
wss   postgresql  *                ok
)";

TestCase lost_update_case(IsolationLevel t0_level) {
  TestCase c;
  Table t;
  t.name = "t";
  t.columns = {{"k", ColumnType::Integer, true}, {"v", ColumnType::Integer, false}};
  t.primary_key = {"k"};
  t.rows = {{1, 10}};
  c.schema.tables = {t};
  const Statement write = Statement::update("t", {{"v", Expr::lit(11)}}, eq(col("k"), Expr::lit(1)));
  Transaction t0;
  t0.isolation = t0_level;
  t0.statements = {Statement::select("t", eq(col("k"), Expr::lit(1))), write};
  Transaction t1;
  t1.isolation = IsolationLevel::ReadCommitted;
  t1.statements = {write};
  c.transactions = {t0, t1};
  c.order = {0, 0, 1, 1, 1, 0, 0};
  return c;
}

// Everything but where the scenario was read from (path, expectation lines).
void expect_same_scenario(const Scenario& a, const Scenario& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.link, b.link);
  EXPECT_EQ(a.applies, b.applies);
  EXPECT_EQ(a.levels, b.levels);
  EXPECT_EQ(a.fixed_levels, b.fixed_levels);
  EXPECT_EQ(a.schema, b.schema);
  EXPECT_EQ(a.transaction_names, b.transaction_names);
  EXPECT_EQ(a.transactions, b.transactions);
  EXPECT_EQ(a.order, b.order);
  ASSERT_EQ(a.expectations.size(), b.expectations.size());
  for (std::size_t i = 0; i < a.expectations.size(); ++i) {
    EXPECT_EQ(a.expectations[i].property, b.expectations[i].property);
    EXPECT_EQ(a.expectations[i].target, b.expectations[i].target);
    EXPECT_EQ(a.expectations[i].level, b.expectations[i].level);
    EXPECT_EQ(a.expectations[i].verdict, b.expectations[i].verdict);
  }
}

// parse_scenario's error message for `text` read as file "bad.txn", or "" if it parses.
std::string scenario_error(const std::string& text) {
  try {
    parse_scenario(text, "tests/scenarios/bad.txn", registered_vocabulary());
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.path(), "tests/scenarios/bad.txn");
    EXPECT_TRUE(std::string(e.what()).starts_with("tests/scenarios/bad.txn:" + std::to_string(e.line()) + ": "))
        << e.what();
    return e.what();
  }
  return "";
}

const std::string kSetup =
    "setup:\nCREATE TABLE t (k INTEGER NOT NULL, v INTEGER, PRIMARY KEY (k));\n"
    "INSERT INTO t (k, v) VALUES (1, 10);\n";

}  // namespace

TEST(Scenario, ParsesTheLostUpdateExample) {
  const Scenario s = parse_scenario(kLostUpdate, "tests/scenarios/lost_update.txn");
  EXPECT_EQ(s.path, "tests/scenarios/lost_update.txn");
  EXPECT_EQ(s.name, "lost-update");
  EXPECT_EQ(s.source, "IsoRel LU-1 (shared/notes/seed-isorel.md section 9.3)");
  EXPECT_EQ(s.link, "https://jepsen.io/analyses/mysql-8.0.34#lost-update");
  EXPECT_EQ(s.applies, (std::vector<std::string>{"mariadb", "mariadb_si", "postgresql", "sqlite"}));
  EXPECT_EQ(s.levels, (std::vector<IsolationLevel>{IsolationLevel::RepeatableRead, IsolationLevel::Serializable}));
  EXPECT_EQ(s.fixed_levels, (std::map<int, IsolationLevel>{{1, IsolationLevel::ReadCommitted}}));
  EXPECT_EQ(s.transaction_names, (std::vector<std::string>{"T0", "T1"}));

  EXPECT_EQ(s.test_case(IsolationLevel::RepeatableRead), lost_update_case(IsolationLevel::RepeatableRead));
  EXPECT_EQ(s.test_case(IsolationLevel::Serializable), lost_update_case(IsolationLevel::Serializable));
  EXPECT_EQ(s.test_case(IsolationLevel::Serializable).validate(), "");

  ASSERT_EQ(s.expectations.size(), 4u);
  EXPECT_EQ(s.expectations[0].property, "adya");
  EXPECT_EQ(s.expectations[0].target, "mariadb");
  EXPECT_EQ(s.expectations[0].level, IsolationLevel::RepeatableRead);
  EXPECT_EQ(s.expectations[0].verdict, "lost-update");
  EXPECT_EQ(s.expectations[0].line, 23);
  EXPECT_EQ(s.expectations[1].verdict, "ok");
  EXPECT_EQ(s.expectations[1].level, IsolationLevel::RepeatableRead);
  EXPECT_EQ(s.expectations[3].level, std::nullopt);

  const auto rr_mariadb = s.expectations_for("adya", "mariadb", IsolationLevel::RepeatableRead);
  ASSERT_EQ(rr_mariadb.size(), 1u);
  EXPECT_EQ(rr_mariadb[0].verdict, "lost-update");
  EXPECT_TRUE(s.expectations_for("adya", "mariadb", IsolationLevel::Serializable).empty());
  EXPECT_EQ(s.expectations_for("wss", "sqlite", IsolationLevel::Serializable).size(), 1u);
  EXPECT_EQ(s.expectations_for("wss", "postgresql", IsolationLevel::Serializable).size(), 2u);
  EXPECT_EQ(s.expectations_for("wss", "postgresql", IsolationLevel::ReadCommitted).size(), 1u);

  EXPECT_TRUE(s.applies_to("mariadb_si"));
  EXPECT_FALSE(s.applies_to("mysql"));
  EXPECT_TRUE(Scenario{}.applies_to("mysql"));
}

TEST(Scenario, WritesWhatItReadsBack) {
  const Scenario s = parse_scenario(kLostUpdate, "a.txn");
  const std::string text = write_scenario(s);
  EXPECT_NE(text.find("level T1: read committed\n"), std::string::npos) << text;
  EXPECT_NE(text.find("T1: UPDATE t SET v = 11 WHERE k = 1;\n"), std::string::npos) << text;
  EXPECT_NE(text.find("adya mariadb repeatable read lost-update\n"), std::string::npos) << text;
  EXPECT_NE(text.find("wss postgresql * ok\n"), std::string::npos) << text;
  const Scenario back = parse_scenario(text, "b.txn");
  expect_same_scenario(back, s);
  EXPECT_EQ(write_scenario(back), text);  // the written form is a fixed point
}

TEST(Scenario, FromTestCase) {
  // Every transaction at one level: the scenario runs at that level.
  TestCase c = lost_update_case(IsolationLevel::RepeatableRead);
  c.transactions[1].isolation = IsolationLevel::RepeatableRead;
  c.transactions[1].end = TxnEnd::Rollback;
  Table u;
  u.name = "u";
  u.columns = {{"id", ColumnType::Integer, true}, {"w", ColumnType::Text, false}, {"r", ColumnType::Real, false}};
  u.indexes = {{"u_w", {"w"}, true}, {"u_r", {"r"}, false}};
  u.rows = {{1, "it's", 2.5}, {2, Value(), -1.0}, {-3, "#x -- y", Value()}};
  c.schema.tables.push_back(u);
  c.transactions[0].statements.push_back(
      Statement::update("u", {{"w", Expr::binary(BinaryOp::Concat, col("w"), Expr::lit(",T0"))}},
                        Expr::in_subquery(col("id"), "t", "k", Expr::binary(BinaryOp::Gt, col("v"), Expr::lit(-1)))));
  c.order = {0, 0, 1, 1, 1, 0, 0, 0};
  ASSERT_EQ(c.validate(), "");

  const Scenario s = scenario_from_test_case(c, "counterexample-1");
  EXPECT_EQ(s.name, "counterexample-1");
  EXPECT_EQ(s.transaction_names, (std::vector<std::string>{"T0", "T1"}));
  EXPECT_EQ(s.levels, std::vector<IsolationLevel>{IsolationLevel::RepeatableRead});
  EXPECT_TRUE(s.fixed_levels.empty());
  EXPECT_EQ(s.test_case(IsolationLevel::RepeatableRead), c);
  const Scenario back = parse_scenario(write_scenario(s), "c.txn");
  expect_same_scenario(back, s);
  EXPECT_EQ(back.test_case(IsolationLevel::RepeatableRead), c);

  // Different levels: each transaction keeps its own, whatever level the scenario is run at.
  c.transactions[1].isolation = IsolationLevel::ReadCommitted;
  const Scenario mixed = scenario_from_test_case(c, "mixed");
  EXPECT_TRUE(mixed.levels.empty());
  EXPECT_EQ(mixed.fixed_levels,
            (std::map<int, IsolationLevel>{{0, IsolationLevel::RepeatableRead}, {1, IsolationLevel::ReadCommitted}}));
  const Scenario mixed_back = parse_scenario(write_scenario(mixed), "d.txn");
  expect_same_scenario(mixed_back, mixed);
  EXPECT_EQ(mixed_back.test_case(IsolationLevel::Serializable), c);
}

// The schema the renderer prints in any dialect reads back equal.
TEST(Scenario, SetupRoundTripsInEveryDialect) {
  Schema schema;
  Table t;
  t.name = "t";
  t.columns = {{"k", ColumnType::Integer, true}, {"v", ColumnType::Real, false}, {"w", ColumnType::Text, true}};
  t.primary_key = {"k", "w"};
  t.indexes = {{"t_v", {"v"}, false}, {"t_vw", {"v", "w"}, true}};
  t.rows = {{1, 1.5, "a"}, {2, Value(), "b'c"}, {-5, 1e20, ""}};
  Table u;
  u.name = "u";
  u.columns = {{"id", ColumnType::Integer, false}};
  schema.tables = {t, u};
  for (Dialect d : {Dialect::Portable, Dialect::Sqlite, Dialect::PostgreSql, Dialect::MySql}) {
    std::string text = "setup:\n";
    for (const auto& sql : render_setup(schema, d)) text += sql + ";\n";
    text += "steps:\nT0: BEGIN;\nT0: COMMIT;\n";
    EXPECT_EQ(parse_scenario(text).schema, schema) << text;
  }
}

TEST(Scenario, ReadsLenientSpellings) {
  const Scenario s = parse_scenario(
      "# a comment before the header\n"
      "Name: spelled loosely\n"
      "levels: rr, READ COMMITTED, serializable\n"
      "applies: postgresql mysql\n"
      "\n"
      "setup:\n"
      "CREATE TABLE acct (\n"
      "  id INT PRIMARY KEY,\n"
      "  owner VARCHAR(20) UNIQUE,   # a comment inside a statement\n"
      "  balance BIGINT NOT NULL\n"
      ");\n"
      "INSERT INTO acct VALUES (1, 'ann', 100), (2, 'bob', -5);\n"
      "INSERT INTO acct (balance, id) VALUES (0, 3);\n"
      "steps:\n"
      "  s1: start transaction;\n"
      "  s2: BEGIN\n"
      "  s1: UPDATE acct\n"
      "        SET balance = balance - 10\n"
      "      WHERE id = 1;\n"
      "  # s2 waits here on some engines\n"
      "  s2: INSERT INTO acct VALUES (4, 'cy', 1);\n"
      "  s2: rollback\n"
      "  s1: COMMIT;\n"
      "expect:\n"
      "  troc * read uncommitted G1a\n");
  EXPECT_EQ(s.name, "spelled loosely");
  EXPECT_EQ(s.levels, (std::vector<IsolationLevel>{IsolationLevel::RepeatableRead, IsolationLevel::ReadCommitted,
                                                   IsolationLevel::Serializable}));
  EXPECT_EQ(s.applies, (std::vector<std::string>{"postgresql", "mysql"}));
  ASSERT_EQ(s.schema.tables.size(), 1u);
  const Table& acct = s.schema.tables[0];
  EXPECT_EQ(acct.primary_key, std::vector<std::string>{"id"});
  EXPECT_EQ(acct.indexes, (std::vector<Index>{{"acct_owner_key", {"owner"}, true}}));
  EXPECT_EQ(acct.rows, (std::vector<Row>{{1, "ann", 100}, {2, "bob", -5}, {3, Value(), 0}}));
  EXPECT_EQ(acct.rows[1][2].type(), ValueType::Integer);
  EXPECT_EQ(s.transaction_names, (std::vector<std::string>{"s1", "s2"}));
  EXPECT_EQ(s.order, (std::vector<int>{0, 1, 0, 1, 1, 0}));
  ASSERT_EQ(s.transactions.size(), 2u);
  EXPECT_EQ(s.transactions[0].end, TxnEnd::Commit);
  EXPECT_EQ(s.transactions[1].end, TxnEnd::Rollback);
  ASSERT_EQ(s.transactions[0].statements.size(), 1u);
  EXPECT_EQ(render(s.transactions[0].statements[0], Dialect::Portable),
            "UPDATE acct SET balance = balance - 10 WHERE id = 1");
  ASSERT_EQ(s.transactions[1].statements.size(), 1u);
  EXPECT_EQ(s.transactions[1].statements[0].columns, (std::vector<std::string>{"id", "owner", "balance"}));
  ASSERT_EQ(s.expectations.size(), 1u);
  EXPECT_EQ(s.expectations[0].property, "troc");
  EXPECT_EQ(s.expectations[0].target, "*");
  EXPECT_EQ(s.expectations[0].level, IsolationLevel::ReadUncommitted);
  EXPECT_EQ(s.expectations[0].verdict, "G1a");
  EXPECT_EQ(s.expectations[0].line, 25);
}

TEST(Scenario, TargetKinds) {
  EXPECT_EQ(known_target_kinds(),
            (std::vector<std::string>{"sqlite", "sqlite_journal", "postgresql", "mariadb", "mariadb_si", "mysql"}));
  EXPECT_EQ(parse_target_uri("sqlite:").kind, "sqlite");
  EXPECT_EQ(parse_target_uri("sqlite:?journal_mode=delete").kind, "sqlite_journal");
  EXPECT_EQ(parse_target_uri("sqlite:?journal_mode=wal").kind, "sqlite");
  EXPECT_EQ(parse_target_uri("postgresql://u@h/db?name=pg15").kind, "postgresql");
  EXPECT_EQ(parse_target_uri("mariadb://u@h/db").kind, "mariadb");
  EXPECT_EQ(parse_target_uri("mariadb://u@h/db?innodb_snapshot_isolation=ON").kind, "mariadb_si");
  EXPECT_EQ(parse_target_uri("mariadb://u@h/db?innodb_snapshot_isolation=1&name=x").kind, "mariadb_si");
  EXPECT_EQ(parse_target_uri("mariadb://u@h/db?innodb_snapshot_isolation=off").kind, "mariadb");
  EXPECT_EQ(parse_target_uri("mysql://u@h/db").kind, "mysql");
}

TEST(Scenario, LoadsFiles) {
  const auto path = std::filesystem::temp_directory_path() / "txprop_scenario_test_lost_update.txn";
  {
    std::ofstream out(path);
    out << kLostUpdate;
  }
  const Scenario s = load_scenario(path.string());
  std::filesystem::remove(path);
  EXPECT_EQ(s.path, path.string());
  EXPECT_EQ(s.test_case(IsolationLevel::RepeatableRead), lost_update_case(IsolationLevel::RepeatableRead));

  try {
    load_scenario("/nonexistent/dir/x.txn");
    FAIL() << "no error for a missing file";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()),
              "/nonexistent/dir/x.txn: cannot read the scenario file (No such file or directory)");
  }
}

TEST(Scenario, HeaderErrors) {
  const std::string steps = "steps:\nT0: BEGIN;\nT0: COMMIT;\n";
  EXPECT_EQ(scenario_error("name: a\nname: b\n" + kSetup + steps),
            "tests/scenarios/bad.txn:2: duplicate header field 'name' (first on line 1)");
  EXPECT_EQ(scenario_error("name: a\nowner: me\n" + kSetup + steps),
            "tests/scenarios/bad.txn:2: unknown header field 'owner' (known: name, source, link, applies, levels, "
            "level <transaction>)");
  EXPECT_EQ(scenario_error("levels: serializable, repeatable-reed\n" + kSetup + steps),
            "tests/scenarios/bad.txn:1: unknown isolation level 'repeatable-reed' (use read uncommitted, read "
            "committed, repeatable read, serializable)");
  EXPECT_EQ(scenario_error("\napplies: postgres, mariadb\n" + kSetup + steps),
            "tests/scenarios/bad.txn:2: unknown target kind 'postgres' (known: sqlite, sqlite_journal, postgresql, "
            "mariadb, mariadb_si, mysql)");
  EXPECT_EQ(scenario_error("level T3: read committed\n" + kSetup + steps),
            "tests/scenarios/bad.txn:1: level for T3, which has no steps (transactions: T0)");
  EXPECT_EQ(scenario_error("level T0: read committed\nlevel T0: serializable\n" + kSetup + steps),
            "tests/scenarios/bad.txn:2: duplicate header field 'level T0' (first on line 1)");
  EXPECT_EQ(scenario_error("just some words\n" + kSetup + steps),
            "tests/scenarios/bad.txn:1: expected a header field 'name: value' or a section (setup:, steps:, "
            "expect:), found 'just some words'");
  EXPECT_EQ(scenario_error("name:\n" + kSetup + steps), "tests/scenarios/bad.txn:1: header field 'name' has no value");
}

TEST(Scenario, SectionErrors) {
  EXPECT_EQ(scenario_error("name: x\n" + kSetup + "\nexpect:\nwss * * ok\n"),
            "tests/scenarios/bad.txn:7: missing 'steps:' section (lines '<transaction>: <statement>;')");
  EXPECT_EQ(scenario_error("steps:\nT0: BEGIN;\nT0: COMMIT;\n"),
            "tests/scenarios/bad.txn:3: missing 'setup:' section (the SQL that creates the tables and rows)");
  EXPECT_EQ(scenario_error(kSetup + "steps:\n\n# nothing yet\n"),
            "tests/scenarios/bad.txn:4: the steps section has no steps");
  EXPECT_EQ(scenario_error(kSetup + "steps:\nT0: BEGIN;\nsteps:\nT0: COMMIT;\n"),
            "tests/scenarios/bad.txn:6: duplicate section 'steps:' (first on line 4)");
}

TEST(Scenario, SetupErrors) {
  const std::string steps = "steps:\nT0: BEGIN;\nT0: COMMIT;\n";
  // The statement starts on line 4; the error is reported on the line it is on.
  EXPECT_EQ(scenario_error("name: x\n\nsetup:\nCREATE TABLE t (\n  k INTEGER,\n  v INTEGR\n);\n" + steps),
            "tests/scenarios/bad.txn:6: unknown column type 'INTEGR' (use INTEGER, INT, BIGINT, SMALLINT, REAL, "
            "DOUBLE, FLOAT, NUMERIC, DECIMAL, TEXT, VARCHAR(n) or CHAR(n))");
  EXPECT_EQ(scenario_error(kSetup + "INSERT INTO t (k, v) VALUES (2, 1 + 1);\n" + steps),
            "tests/scenarios/bad.txn:4: setup INSERT values must be literals, found 1 + 1");
  EXPECT_EQ(scenario_error(kSetup + "INSERT INTO u (k) VALUES (2);\n" + steps),
            "tests/scenarios/bad.txn:4: INSERT into unknown table u");
  EXPECT_EQ(scenario_error(kSetup + "INSERT INTO t (k, x) VALUES (2, 3);\n" + steps),
            "tests/scenarios/bad.txn:4: column x is not in table t");
  EXPECT_EQ(scenario_error(kSetup + "INSERT INTO t (v) VALUES (3);\n" + steps),
            "tests/scenarios/bad.txn:4: column k of table t is NOT NULL but this row gives it no value");
  EXPECT_EQ(scenario_error(kSetup + "CREATE TABLE t (a INTEGER);\n" + steps),
            "tests/scenarios/bad.txn:4: table t is created twice");
  EXPECT_EQ(scenario_error(kSetup + "CREATE INDEX i ON u (k);\n" + steps),
            "tests/scenarios/bad.txn:4: CREATE INDEX i on unknown table u");
  EXPECT_EQ(scenario_error(kSetup + "CREATE INDEX i ON t (x);\n" + steps),
            "tests/scenarios/bad.txn:4: index i names column x, which is not in table t");
  EXPECT_EQ(scenario_error(kSetup + "UPDATE t SET v = 1;\n" + steps),
            "tests/scenarios/bad.txn:4: the setup section holds CREATE TABLE, CREATE INDEX and INSERT, found UPDATE");
}

TEST(Scenario, StepErrors) {
  // kSetup is lines 1-3, "steps:" line 4, so the first step is line 5.
  EXPECT_EQ(scenario_error(kSetup + "steps:\nT0: BEGIN;\nT0: SELECT * FORM t;\nT0: COMMIT;\n"),
            "tests/scenarios/bad.txn:6: expected FROM, found 'FORM'");
  EXPECT_EQ(scenario_error(kSetup + "steps:\nT0: BEGIN;\nT1: BEGIN;\nT0: COMMIT;\nT1: UPDATE t SET v = 1;\n"),
            "tests/scenarios/bad.txn:8: T1 has no COMMIT or ROLLBACK");
  EXPECT_EQ(scenario_error(kSetup + "steps:\nT0: BEGIN;\nT1: BEGIN;\nT1: UPDATE u SET v = 1;\nT0: COMMIT;\n"),
            "tests/scenarios/bad.txn:7: T1: unknown table u");
  EXPECT_EQ(scenario_error(kSetup + "steps:\nT0: BEGIN;\nT0: SELECT * FROM t WHERE x = 1;\nT0: COMMIT;\n"),
            "tests/scenarios/bad.txn:6: T0: column x is not in table t");
  EXPECT_EQ(scenario_error(kSetup + "steps:\nT0: BEGIN;\nT0: UPDATE t SET v = (SELECT MAX(v) FROM u);\nT0: COMMIT;\n"),
            "tests/scenarios/bad.txn:6: T0: subquery reads unknown table u");
  EXPECT_EQ(scenario_error(kSetup + "steps:\nT0: SELECT * FROM t;\nT0: COMMIT;\n"),
            "tests/scenarios/bad.txn:5: T0's first step must be BEGIN or START TRANSACTION, found SELECT * FROM t");
  EXPECT_EQ(scenario_error(kSetup + "steps:\nT0: BEGIN;\nT0: START TRANSACTION;\nT0: COMMIT;\n"),
            "tests/scenarios/bad.txn:6: T0 is already in a transaction (BEGIN on line 5); it needs COMMIT or "
            "ROLLBACK before another BEGIN, under a new name");
  EXPECT_EQ(scenario_error(kSetup + "steps:\nT0: BEGIN;\nT0: ROLLBACK;\nT0: SELECT * FROM t;\n"),
            "tests/scenarios/bad.txn:7: T0 already ended with ROLLBACK on line 6; name a new transaction differently");
  EXPECT_EQ(scenario_error(kSetup + "steps:\nSELECT * FROM t;\n"),
            "tests/scenarios/bad.txn:5: expected a step '<transaction>: <statement>;', found 'SELECT * FROM t;'");
  // A step without its ';' and a statement cut short are reported on their own line, not the next step's.
  EXPECT_EQ(scenario_error(kSetup + "steps:\nT0: BEGIN;\nT0: SELECT * FROM t WHERE\nT0: COMMIT;\n"),
            "tests/scenarios/bad.txn:6: expected an expression, found end of input");
}

TEST(Scenario, ExpectErrors) {
  const std::string body = kSetup + "steps:\nT0: BEGIN;\nT0: COMMIT;\nexpect:\n";  // expectations start on line 8
  EXPECT_EQ(scenario_error(body + "wss * serializable ok\nadya postgres serializable ok\n"),
            "tests/scenarios/bad.txn:9: unknown target kind 'postgres' (known: sqlite, sqlite_journal, postgresql, "
            "mariadb, mariadb_si, mysql)");
  EXPECT_EQ(scenario_error(body + "adya mariadb repeatable-reed lost-update\n"),
            "tests/scenarios/bad.txn:8: unknown isolation level 'repeatable-reed' (use read uncommitted, read "
            "committed, repeatable read, serializable)");
  const std::string unknown_verdict = scenario_error(body + "adya mariadb rr lost-updates\n");
  EXPECT_TRUE(
      unknown_verdict.starts_with("tests/scenarios/bad.txn:8: unknown verdict 'lost-updates' for adya (use "
                                  "ok or a finding kind: "))
      << unknown_verdict;
  EXPECT_EQ(scenario_error(body + "adya mariadb ok\n"),
            "tests/scenarios/bad.txn:8: expected '<property> <target kind or *> <level or *> <verdict>', e.g. 'adya "
            "mariadb repeatable read lost-update', found 'adya mariadb ok'");
}
