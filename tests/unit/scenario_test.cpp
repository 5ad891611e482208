#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "txprop/scenario.hpp"
#include "txprop/internal/scenario_runner.hpp"
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
            (std::vector<std::string>{"sqlite", "sqlite_journal", "postgresql", "mariadb", "mariadb_si", "mysql", "galera",
                                      "galera_si"}));
  EXPECT_EQ(parse_target_uri("sqlite:").kind, "sqlite");
  EXPECT_EQ(parse_target_uri("sqlite:?journal_mode=delete").kind, "sqlite_journal");
  EXPECT_EQ(parse_target_uri("sqlite:?journal_mode=wal").kind, "sqlite");
  EXPECT_EQ(parse_target_uri("postgresql://u@h/db?name=pg15").kind, "postgresql");
  EXPECT_EQ(parse_target_uri("mariadb://u@h/db").kind, "mariadb");
  EXPECT_EQ(parse_target_uri("mariadb://u@h/db?innodb_snapshot_isolation=ON").kind, "mariadb_si");
  EXPECT_EQ(parse_target_uri("mariadb://u@h/db?innodb_snapshot_isolation=1&name=x").kind, "mariadb_si");
  EXPECT_EQ(parse_target_uri("mariadb://u@h/db?innodb_snapshot_isolation=off").kind, "mariadb");
  EXPECT_EQ(parse_target_uri("mysql://u@h/db").kind, "mysql");
  EXPECT_EQ(parse_target_uri("galera://u@h1:1,h2:2/db").kind, "galera");
  EXPECT_EQ(parse_target_uri("galera://u@h1:1,h2:2/db?innodb_snapshot_isolation=ON").kind, "galera_si");
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
            "tests/scenarios/bad.txn:2: unknown header field 'owner' (known: name, source, link, applies, levels, versions, "
            "level <transaction>, node <session>)");
  EXPECT_EQ(scenario_error("levels: serializable, repeatable-reed\n" + kSetup + steps),
            "tests/scenarios/bad.txn:1: unknown isolation level 'repeatable-reed' (use read uncommitted, read "
            "committed, repeatable read, serializable)");
  EXPECT_EQ(scenario_error("\napplies: postgres, mariadb\n" + kSetup + steps),
            "tests/scenarios/bad.txn:2: unknown target kind 'postgres' (known: sqlite, sqlite_journal, postgresql, "
            "mariadb, mariadb_si, mysql, galera, galera_si)");
  EXPECT_EQ(scenario_error("level T3: read committed\n" + kSetup + steps),
            "tests/scenarios/bad.txn:1: level for T3, which names no session or transaction with steps (sessions: T0; the k-th transaction of session s is s[k])");
  EXPECT_EQ(scenario_error("level T0: read committed\nlevel T0: serializable\n" + kSetup + steps),
            "tests/scenarios/bad.txn:2: duplicate header field 'level T0' (first on line 1)");
  EXPECT_EQ(scenario_error("just some words\n" + kSetup + steps),
            "tests/scenarios/bad.txn:1: expected a header field 'name: value' or a section (setup:, steps:, "
            "expect:), found 'just some words'");
  EXPECT_EQ(scenario_error("name:\n" + kSetup + steps), "tests/scenarios/bad.txn:1: header field 'name' has no value");
}

TEST(Scenario, SectionErrors) {
  EXPECT_EQ(scenario_error("name: x\n" + kSetup + "\nexpect:\nwss * * ok\n"),
            "tests/scenarios/bad.txn:7: missing 'steps:' section (lines '<session>: <statement>;')");
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
            "DOUBLE, FLOAT, NUMERIC, DECIMAL, TEXT, VARCHAR(n), CHAR(n) or BOOLEAN)");
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
            "tests/scenarios/bad.txn:8: T1 has no COMMIT or ROLLBACK (BEGIN on line 6)");
  EXPECT_EQ(scenario_error(kSetup + "steps:\nT0: BEGIN;\nT1: BEGIN;\nT1: UPDATE u SET v = 1;\nT0: COMMIT;\n"),
            "tests/scenarios/bad.txn:7: T1: unknown table u");
  EXPECT_EQ(scenario_error(kSetup + "steps:\nT0: BEGIN;\nT0: SELECT * FROM t WHERE x = 1;\nT0: COMMIT;\n"),
            "tests/scenarios/bad.txn:6: T0: column x is not in table t");
  EXPECT_EQ(scenario_error(kSetup + "steps:\nT0: BEGIN;\nT0: UPDATE t SET v = (SELECT MAX(v) FROM u);\nT0: COMMIT;\n"),
            "tests/scenarios/bad.txn:6: T0: subquery reads unknown table u");
  // A statement outside BEGIN ... COMMIT is an autocommit statement: a COMMIT after it has nothing to end.
  EXPECT_EQ(scenario_error(kSetup + "steps:\nT0: SELECT * FROM t;\nT0: COMMIT;\n"),
            "tests/scenarios/bad.txn:6: T0 has no transaction to COMMIT: it is in autocommit mode (no BEGIN since its "
            "last transaction ended), where each statement commits by itself");
  EXPECT_EQ(scenario_error(kSetup + "steps:\ns1: ROLLBACK;\n"),
            "tests/scenarios/bad.txn:5: s1 has no transaction to ROLLBACK: it is in autocommit mode (no BEGIN since it "
            "started), where each statement commits by itself");
  EXPECT_EQ(scenario_error(kSetup + "steps:\nT0: BEGIN;\nT0: START TRANSACTION;\nT0: COMMIT;\n"),
            "tests/scenarios/bad.txn:6: T0 is already in a transaction (BEGIN on line 5); it needs COMMIT or "
            "ROLLBACK before another BEGIN");
  // A second transaction on a connection after the first ended is fine; one left open is not.
  EXPECT_EQ(scenario_error(kSetup + "steps:\nT0: BEGIN;\nT0: ROLLBACK;\nT0: SELECT * FROM t;\n"), "");
  EXPECT_EQ(scenario_error(kSetup + "steps:\ns1: BEGIN;\ns1: COMMIT;\ns1: UPDATE t SET v = 2;\ns1: BEGIN;\n"
                                    "s1: SELECT * FROM t;\n"),
            "tests/scenarios/bad.txn:9: s1 has no COMMIT or ROLLBACK (BEGIN on line 8)");
  EXPECT_EQ(scenario_error(kSetup + "steps:\ns1: UPDATE t SET w = 2;\n"),
            "tests/scenarios/bad.txn:5: s1: column w is not in table t");
  EXPECT_EQ(scenario_error(kSetup + "steps:\nSELECT * FROM t;\n"),
            "tests/scenarios/bad.txn:5: expected a step '<session>: <statement>;', found 'SELECT * FROM t;'");
  // A step without its ';' and a statement cut short are reported on their own line, not the next step's.
  EXPECT_EQ(scenario_error(kSetup + "steps:\nT0: BEGIN;\nT0: SELECT * FROM t WHERE\nT0: COMMIT;\n"),
            "tests/scenarios/bad.txn:6: expected an expression, found end of input");
}

TEST(Scenario, ExpectErrors) {
  const std::string body = kSetup + "steps:\nT0: BEGIN;\nT0: COMMIT;\nexpect:\n";  // expectations start on line 8
  EXPECT_EQ(scenario_error(body + "wss * serializable ok\nadya postgres serializable ok\n"),
            "tests/scenarios/bad.txn:9: unknown target kind 'postgres' (known: sqlite, sqlite_journal, postgresql, "
            "mariadb, mariadb_si, mysql, galera, galera_si)");
  EXPECT_EQ(scenario_error(body + "adya mariadb repeatable-reed lost-update\n"),
            "tests/scenarios/bad.txn:8: unknown isolation level 'repeatable-reed' (use read uncommitted, read "
            "committed, repeatable read, serializable)");
  const std::string unknown_verdict = scenario_error(body + "adya mariadb rr lost-updates\n");
  EXPECT_TRUE(
      unknown_verdict.starts_with("tests/scenarios/bad.txn:8: unknown verdict 'lost-updates' for adya (use "
                                  "ok, no-verdict or a finding kind: "))
      << unknown_verdict;
  EXPECT_EQ(scenario_error(body + "adya mariadb ok\n"),
            "tests/scenarios/bad.txn:8: expected '<property> <target kind or *> <level or *> <verdict>', e.g. 'adya "
            "mariadb repeatable read lost-update', found 'adya mariadb ok'");
}

namespace {

// A Hermitage-style lost update with the forms hand-written isolation tests use: s1 checks the result on the same
// connection after its COMMIT, and s3 writes in autocommit mode.
const char* const kSessions = R"(name: sessions
levels: read committed
level s2: repeatable read

setup:
CREATE TABLE t (k INTEGER NOT NULL, v INTEGER, PRIMARY KEY (k));
INSERT INTO t (k, v) VALUES (1, 10);

steps:
s1: BEGIN;
s2: BEGIN;
s1: SELECT * FROM t WHERE k = 1;
s2: SELECT * FROM t WHERE k = 1;
s1: UPDATE t SET v = 11 WHERE k = 1;
s1: COMMIT;
s2: UPDATE t SET v = 12 WHERE k = 1;
s2: COMMIT;
s1: SELECT * FROM t;
s3: INSERT INTO t (k, v) VALUES (2, 20);
s1: BEGIN;
s1: DELETE FROM t WHERE k = 2;
s1: ROLLBACK;

expect:
adya postgresql read committed lost-update
)";

}  // namespace

TEST(ScenarioSessions, ParsesSessionsAndAutocommitStatements) {
  const Scenario s = parse_scenario(kSessions, "sessions.txn", registered_vocabulary());
  EXPECT_EQ(s.session_names, (std::vector<std::string>{"s1", "s2", "s3"}));
  // Transactions in the order they start: s1's first, s2's, s1's autocommit SELECT, s3's INSERT, s1's last.
  EXPECT_EQ(s.transaction_names, (std::vector<std::string>{"s1[1]", "s2", "s1[2]", "s3", "s1[3]"}));
  ASSERT_EQ(s.transactions.size(), 5u);
  EXPECT_EQ(s.transactions[0].session, 0);
  EXPECT_EQ(s.transactions[1].session, -1);  // alone on its connection, like every transaction of an older file
  EXPECT_EQ(s.transactions[2].session, 0);
  EXPECT_EQ(s.transactions[3].session, -1);
  EXPECT_EQ(s.transactions[4].session, 0);
  EXPECT_FALSE(s.transactions[0].autocommit);
  EXPECT_TRUE(s.transactions[2].is_autocommit_statement());
  EXPECT_TRUE(s.transactions[3].is_autocommit_statement());
  EXPECT_EQ(s.transactions[3].statements[0].kind, StatementKind::Insert);
  EXPECT_EQ(s.transactions[4].end, TxnEnd::Rollback);
  // An autocommit statement's BEGIN, statement and end steps are submitted together.
  EXPECT_EQ(s.order, (std::vector<int>{0, 1, 0, 1, 0, 0, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4}));
  EXPECT_EQ(s.fixed_levels, (std::map<int, IsolationLevel>{{1, IsolationLevel::RepeatableRead}}));

  const TestCase c = s.test_case(IsolationLevel::ReadCommitted);
  EXPECT_EQ(c.validate(), "");
  EXPECT_EQ(c.sessions(), (std::vector<std::vector<int>>{{0, 2, 4}, {1}, {3}}));
  EXPECT_EQ(c.connection_of(), (std::vector<int>{0, 1, 0, 2, 0}));
  EXPECT_TRUE(c.has_shared_sessions());
  EXPECT_TRUE(c.has_autocommit_statements());
  EXPECT_EQ(c.transactions[2].isolation, IsolationLevel::ReadCommitted);
}

TEST(ScenarioSessions, LevelsBySessionOrByTransaction) {
  const std::string body = kSetup +
                           "steps:\ns1: BEGIN;\ns1: COMMIT;\ns1: SELECT * FROM t;\ns2: UPDATE t SET v = 1;\n";
  // Header lines 1.., then kSetup; parse with a level line first.
  const Scenario whole = parse_scenario("level s1: serializable\n" + body, "a.txn");
  EXPECT_EQ(whole.fixed_levels, (std::map<int, IsolationLevel>{{0, IsolationLevel::Serializable},
                                                               {1, IsolationLevel::Serializable}}));
  const Scenario one = parse_scenario("level s1[2]: read committed\n" + body, "b.txn");
  EXPECT_EQ(one.fixed_levels, (std::map<int, IsolationLevel>{{1, IsolationLevel::ReadCommitted}}));
  EXPECT_EQ(scenario_error("level s1[3]: read committed\n" + body),
            "tests/scenarios/bad.txn:1: level for s1[3], which names no session or transaction with steps (sessions: "
            "s1, s2; the k-th transaction of session s is s[k])");
  EXPECT_EQ(scenario_error("level s1: read committed\nlevel s1[1]: serializable\n" + body),
            "tests/scenarios/bad.txn:2: level for s1[1] fixes s1[1] again (its level is fixed on line 1)");
  EXPECT_EQ(scenario_error("level s1[x]: read committed\n" + body),
            "tests/scenarios/bad.txn:1: level for s1[x], which names no session or transaction with steps (sessions: "
            "s1, s2; the k-th transaction of session s is s[k])");
}

TEST(ScenarioSessions, RoundTrips) {
  const Scenario s = parse_scenario(kSessions, "sessions.txn", registered_vocabulary());
  const std::string text = write_scenario(s);
  // The autocommit statements are written alone, on their session; the level of s2 once, for the session.
  EXPECT_NE(text.find("s1: COMMIT;\ns2: UPDATE t SET v = 12 WHERE k = 1;\ns2: COMMIT;\ns1: SELECT * FROM t;\n"
                      "s3: INSERT INTO t (k, v) VALUES (2, 20);\ns1: BEGIN;\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("level s2: repeatable read\n"), std::string::npos) << text;
  const Scenario back = parse_scenario(text, "back.txn", registered_vocabulary());
  expect_same_scenario(back, s);
  EXPECT_EQ(back.session_names, s.session_names);
  EXPECT_EQ(back.test_case(IsolationLevel::ReadCommitted), s.test_case(IsolationLevel::ReadCommitted));
  EXPECT_EQ(write_scenario(back), text);

  // A level fixed for one transaction of a session is written for that transaction.
  Scenario one = s;
  one.fixed_levels = {{2, IsolationLevel::Serializable}};
  one.transactions[1].isolation = Transaction{}.isolation;
  one.transactions[2].isolation = IsolationLevel::Serializable;
  const std::string one_text = write_scenario(one);
  EXPECT_NE(one_text.find("level s1[2]: serializable\n"), std::string::npos) << one_text;
  expect_same_scenario(parse_scenario(one_text, "one.txn"), one);
}

TEST(ScenarioSessions, FromTestCaseRoundTrips) {
  // A counterexample report's scenario.txn of a case with shared connections and autocommit statements.
  TestCase c = parse_scenario(kSessions, "sessions.txn").test_case(IsolationLevel::ReadCommitted);
  // Session numbers are only labels: any numbering of the same grouping writes the same file.
  for (Transaction& t : c.transactions)
    if (t.session == 0) t.session = 7;
  c.transactions[1].isolation = IsolationLevel::RepeatableRead;
  ASSERT_EQ(c.validate(), "");
  const Scenario s = scenario_from_test_case(c, "counterexample");
  EXPECT_EQ(s.session_names, (std::vector<std::string>{"s1", "s2", "s3"}));
  EXPECT_EQ(s.transaction_names, (std::vector<std::string>{"s1[1]", "s2", "s1[2]", "s3", "s1[3]"}));
  const std::string text = write_scenario(s);
  const Scenario back = parse_scenario(text, "counterexample.txn");
  expect_same_scenario(back, s);
  TestCase expected = c;
  for (Transaction& t : expected.transactions)
    if (t.session == 7) t.session = 0;
  EXPECT_EQ(back.test_case(IsolationLevel::Serializable), expected);
  EXPECT_EQ(write_scenario(back), text);
}

// A session's node on a cluster: read, written back once per session, and kept by a counterexample's scenario.
TEST(ScenarioSessions, NodeLinesPlaceSessions) {
  const std::string text = "node s2: 2\n" + kSetup +
                           "steps:\ns1: BEGIN;\ns1: SELECT * FROM t;\ns2: BEGIN;\ns2: UPDATE t SET v = 1 WHERE k = 1;\n"
                           "s1: COMMIT;\ns2: COMMIT;\ns2: SELECT * FROM t;\n";
  const Scenario s = parse_scenario(text, "nodes.txn");
  ASSERT_EQ(s.transactions.size(), 3u);
  EXPECT_EQ(s.transactions[0].node, -1);
  EXPECT_EQ(s.transactions[1].node, 1);  // 1-based in the file
  EXPECT_EQ(s.transactions[2].node, 1);  // every transaction of s2
  const TestCase c = s.replay_case(IsolationLevel::RepeatableRead);
  EXPECT_EQ(c.placement(3), (std::vector<int>{0, 1}));  // s1 unplaced: connection 0 -> node 0
  const std::string written = write_scenario(s);
  EXPECT_NE(written.find("node s2: 2\n"), std::string::npos) << written;
  EXPECT_EQ(written.find("node s1"), std::string::npos) << written;
  expect_same_scenario(parse_scenario(written, "back.txn"), s);
  EXPECT_EQ(write_scenario(scenario_from_test_case(c, "x")).find("node s2: 2\n") != std::string::npos, true);

  // Without node lines a file was written for one server: every session on the first node. A generated case with no
  // placement spreads its connections over the nodes.
  const Scenario plain = parse_scenario(kSetup + "steps:\nT0: BEGIN;\nT0: COMMIT;\nT1: BEGIN;\nT1: COMMIT;\n", "p.txn");
  EXPECT_EQ(plain.replay_case(IsolationLevel::Serializable).placement(3), (std::vector<int>{0, 0}));
  EXPECT_EQ(plain.test_case(IsolationLevel::Serializable).placement(3), (std::vector<int>{0, 1}));
  EXPECT_EQ(plain.test_case(IsolationLevel::Serializable).placement(1), (std::vector<int>{0, 0}));

  EXPECT_EQ(scenario_error("node s1: 0\n" + kSetup + "steps:\ns1: BEGIN;\ns1: COMMIT;\n"),
            "tests/scenarios/bad.txn:1: node for s1 must be a node number from 1, found '0'");
  EXPECT_EQ(scenario_error("node s9: 2\n" + kSetup + "steps:\ns1: BEGIN;\ns1: COMMIT;\n"),
            "tests/scenarios/bad.txn:1: node for s9, which names no session with steps (sessions: s1)");
}

TEST(ScenarioSessions, ValidateRejectsOverlappingTransactionsOnAConnection) {
  TestCase c = parse_scenario(kSessions, "sessions.txn").test_case(IsolationLevel::ReadCommitted);
  ASSERT_EQ(c.validate(), "");
  // s1's autocommit SELECT (T2) submitted before s1's first transaction (T0) ended.
  std::vector<int> order = c.order;
  const auto t2 = std::find(order.begin(), order.end(), 2);
  order.erase(t2, t2 + 3);
  order.insert(order.begin() + 2, {2, 2, 2});
  c.order = order;
  EXPECT_EQ(c.validate(), "T2 starts on the connection of T0 before T0 ended (step 2 of the order is before its step 8)");
  c = parse_scenario(kSessions, "sessions.txn").test_case(IsolationLevel::ReadCommitted);
  c.transactions[1].session = -4;
  EXPECT_EQ(c.validate(), "T1 has session -4; a session is -1 (its own) or a connection number >= 0");
}

// Every scenario file of tests/scenarios/ reads, writes and reads back to the same test case.
TEST(ScenarioSessions, EveryShippedScenarioRoundTrips) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(TXPROP_SOURCE_DIR) + "/tests/scenarios")) {
    if (entry.path().extension() != ".txn") continue;
    ++files;
    const Scenario s = load_scenario(entry.path().string(), registered_vocabulary());
    const Scenario back = parse_scenario(write_scenario(s), entry.path().string(), registered_vocabulary());
    SCOPED_TRACE(entry.path().string());
    expect_same_scenario(back, s);
    EXPECT_EQ(back.test_case(IsolationLevel::ReadCommitted), s.test_case(IsolationLevel::ReadCommitted));
  }
  EXPECT_GE(files, 20);
}
