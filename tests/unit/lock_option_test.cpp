// Row-lock options (issue 17 item 2) without a server: PostgreSQL's four strengths and NOWAIT / SKIP LOCKED rendered
// per dialect (and refused where the dialect lacks them), read back from the spellings people write (MariaDB's LOCK IN
// SHARE MODE [NOWAIT | SKIP LOCKED] too), validated, generated only where a suite turns them on and only in the
// engine's forms (never on SQLite), shrunk toward FOR UPDATE / FOR SHARE that waits, and refused with a reason by the
// oracles that do not model them.
#include <fmt/format.h>
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

using namespace txprop;

namespace {

Schema queue_schema() {
  Schema s;
  s.tables = {Table{"t", {Column{"k", ColumnType::Integer, true}, Column{"v"}}, {"k"}, {}, {{1, 10}, {2, 20}}}};
  return s;
}

TestCase one_statement_case(const Statement& s) {
  TestCase c;
  c.schema = queue_schema();
  Transaction t;
  t.statements = {s};
  c.transactions = {t, t};
  c.order = TestCase::serial_order(c.transactions);
  return c;
}

}  // namespace

TEST(LockOption, RenderedPerDialect) {
  const Statement skip = parse_statement("SELECT * FROM t WHERE k = 1 FOR UPDATE SKIP LOCKED");
  EXPECT_EQ(skip.lock, LockMode::Update);
  EXPECT_EQ(skip.lock_wait, LockWait::SkipLocked);
  EXPECT_EQ(render(skip, Dialect::PostgreSql), R"(SELECT * FROM "t" WHERE "k" = 1 FOR UPDATE SKIP LOCKED)");
  EXPECT_EQ(render(skip, Dialect::MySql), "SELECT * FROM `t` WHERE `k` = 1 FOR UPDATE SKIP LOCKED");
  const Statement share = parse_statement("SELECT * FROM t FOR SHARE NOWAIT");
  EXPECT_EQ(render(share, Dialect::MySql), "SELECT * FROM `t` LOCK IN SHARE MODE NOWAIT");
  EXPECT_EQ(render(share, Dialect::PostgreSql), R"(SELECT * FROM "t" FOR SHARE NOWAIT)");
  const Statement key_share = parse_statement("SELECT * FROM t FOR KEY SHARE");
  EXPECT_EQ(key_share.lock, LockMode::KeyShare);
  EXPECT_EQ(render(key_share, Dialect::PostgreSql), R"(SELECT * FROM "t" FOR KEY SHARE)");
  EXPECT_THROW(render(key_share, Dialect::MySql), std::invalid_argument);  // PostgreSQL's own strengths
  const Statement no_key = parse_statement("SELECT * FROM t FOR NO KEY UPDATE NOWAIT");
  EXPECT_EQ(no_key.lock, LockMode::NoKeyUpdate);
  EXPECT_EQ(no_key.lock_wait, LockWait::NoWait);
  EXPECT_THROW(render(no_key, Dialect::MySql), std::invalid_argument);
  // Without an option a locking read prints as before.
  EXPECT_EQ(render(parse_statement("SELECT * FROM t FOR SHARE"), Dialect::MySql), "SELECT * FROM `t` LOCK IN SHARE MODE");
}

TEST(LockOption, ReadFromEverySpelling) {
  EXPECT_EQ(parse_statement("select * from t lock in share mode skip locked").lock_wait, LockWait::SkipLocked);
  EXPECT_EQ(parse_statement("SELECT * FROM t LOCK IN SHARE MODE NOWAIT").lock, LockMode::Share);
  for (const char* sql : {"SELECT * FROM t FOR UPDATE NOWAIT", "SELECT * FROM t FOR NO KEY UPDATE SKIP LOCKED",
                          "SELECT * FROM t FOR KEY SHARE NOWAIT", "SELECT * FROM t WHERE k = 1 FOR SHARE SKIP LOCKED",
                          "SELECT * FROM t ORDER BY k, v LIMIT 1 FOR UPDATE SKIP LOCKED"}) {
    const Statement s = parse_statement(sql);
    EXPECT_EQ(render(s, Dialect::Portable), sql);
    EXPECT_EQ(parse_statement(render(s, Dialect::Portable)), s);
  }
  EXPECT_THROW(parse_statement("SELECT * FROM t FOR KEY UPDATE"), SyntaxError);
  EXPECT_THROW(parse_statement("SELECT * FROM t FOR UPDATE SKIP"), SyntaxError);
  EXPECT_THROW(parse_statement("SELECT * FROM t FOR NO UPDATE"), SyntaxError);
}

TEST(LockOption, Validated) {
  EXPECT_EQ(one_statement_case(parse_statement("SELECT * FROM t FOR UPDATE SKIP LOCKED")).validate(), "");
  Statement wait_only = parse_statement("SELECT * FROM t");
  wait_only.lock_wait = LockWait::NoWait;
  EXPECT_NE(one_statement_case(wait_only).validate().find("NOWAIT and SKIP LOCKED follow a locking clause"), std::string::npos);
  Statement locked_update = parse_statement("UPDATE t SET v = 1");
  locked_update.lock = LockMode::Update;
  EXPECT_NE(one_statement_case(locked_update).validate().find("has no locking clause"), std::string::npos);
}

TEST(LockOption, GeneratedOnlyWhereTurnedOnAndInTheEngineForms) {
  for (const char* engine : {"sqlite", "postgresql", "mariadb"}) {
    const EngineCapabilities caps = find_engine(engine)->capabilities();
    gen::Options o;
    o.engine = caps;
    rc::Random random(11);
    const auto off = gen::test_case(o);
    o.lock_options = true;
    const auto on = gen::test_case(o);
    std::map<std::string, int> forms;
    int locking = 0, options = 0;
    for (int i = 0; i < 400; ++i) {
      const rc::Random r = random.split();
      for (const auto& t : off(r, i % 100).value().transactions)
        for (const auto& s : t.statements) EXPECT_FALSE(s.has_lock_option()) << engine;
      const TestCase c = on(r, i % 100).value();
      ASSERT_EQ(c.validate(), "") << engine << describe(c);
      for (const auto& t : c.transactions)
        for (const auto& s : t.statements) {
          if (s.lock == LockMode::None) continue;
          ++locking;
          if (!s.has_lock_option()) continue;
          ++options;
          ++forms[lock_clause(s)];
          EXPECT_NO_THROW(render(s, find_engine(engine)->dialect())) << engine << " " << s;
          if (s.lock_wait != LockWait::Wait)
            EXPECT_NE(std::find(caps.lock_waits.begin(), caps.lock_waits.end(), s.lock_wait), caps.lock_waits.end());
        }
    }
    std::cout << "[lock options] " << engine << ": " << options << " of " << locking << " locking reads";
    for (const auto& [form, n] : forms) std::cout << ", " << form << " " << n;
    std::cout << "\n";
    if (!caps.locking_reads) EXPECT_EQ(locking, 0) << engine;
    EXPECT_EQ(options > 0, !caps.lock_waits.empty() || !caps.lock_strengths.empty()) << engine;
    EXPECT_EQ(forms.count("FOR KEY SHARE") > 0, !caps.lock_strengths.empty()) << engine;
    EXPECT_EQ(forms.count("FOR UPDATE SKIP LOCKED") > 0, !caps.lock_waits.empty()) << engine;
    EXPECT_EQ(forms.count("FOR SHARE NOWAIT") > 0, !caps.lock_waits.empty()) << engine;
  }
}

TEST(LockOption, ShrinksTowardAWaitingForUpdate) {
  TestCase c = one_statement_case(parse_statement("SELECT * FROM t WHERE k = 1 FOR NO KEY UPDATE SKIP LOCKED"));
  ASSERT_EQ(c.validate(), "");
  bool waits = false, strong = false, none = false;
  for (const TestCase& s : gen::shrink_test_case(c)) {
    if (s.transactions.size() != 2 || s.transactions[0].statements.empty()) continue;
    ASSERT_EQ(s.validate(), "");
    const Statement& first = s.transactions[0].statements[0];
    waits = waits || (first.lock == LockMode::NoKeyUpdate && first.lock_wait == LockWait::Wait);
    strong = strong || (first.lock == LockMode::Update && first.lock_wait == LockWait::SkipLocked);
    none = none || (first.lock == LockMode::None && first.lock_wait == LockWait::Wait && first.where);
  }
  EXPECT_TRUE(waits);
  EXPECT_TRUE(strong);
  EXPECT_TRUE(none);
}

// Adya, Troc and Sdg do not model these clauses: each refuses with the reason, and the summary counts it. WSS and
// Atomicity judge them (tests/targets/lock_option_planted_test.cpp).
TEST(LockOption, RefusedByTheOraclesThatDoNotModelThem) {
  for (const char* sql : {"SELECT * FROM t FOR UPDATE SKIP LOCKED", "SELECT * FROM t FOR SHARE NOWAIT", "SELECT * FROM t FOR KEY SHARE"}) {
    const TestCase c = one_statement_case(parse_statement(sql));
    for (const char* name : {"adya", "adyaclaimed", "troc", "sdg"}) {
      const std::string why = oracle(name).cannot_judge(c, *find_engine("postgresql"));
      EXPECT_EQ(why.rfind("T0.1 is SELECT ... FOR ", 0), 0u) << name << ": " << why;
    }
    for (const char* name : {"wss", "atomicity"}) EXPECT_EQ(oracle(name).cannot_judge(c, *find_engine("postgresql")), "") << name;
  }
  // A waiting FOR UPDATE stays what every oracle judges.
  const TestCase plain = one_statement_case(parse_statement("SELECT * FROM t FOR UPDATE"));
  for (const char* name : {"adya", "troc", "sdg"}) EXPECT_EQ(oracle(name).cannot_judge(plain, *find_engine("postgresql")), "") << name;
}

// LOCK TABLE (PostgreSQL): parsed in its spellings, rendered for PostgreSQL only, only inside BEGIN ... COMMIT, and
// refused by the oracles that do not model table locks.
TEST(LockTable, ReadRenderedAndValidated) {
  const Statement share = parse_statement("lock table t in share mode nowait");
  EXPECT_EQ(share.kind, StatementKind::LockTable);
  EXPECT_EQ(share.table_lock_mode, "SHARE");
  EXPECT_EQ(share.lock_wait, LockWait::NoWait);
  EXPECT_TRUE(share.depends_on_locks());
  EXPECT_EQ(render(share, Dialect::PostgreSql), R"(LOCK TABLE "t" IN SHARE MODE NOWAIT)");
  EXPECT_EQ(parse_statement(render(share, Dialect::Portable)), share);
  EXPECT_THROW(render(share, Dialect::MySql), std::invalid_argument);
  EXPECT_THROW(render(share, Dialect::Sqlite), std::invalid_argument);
  // No mode: ACCESS EXCLUSIVE (PostgreSQL 15 manual, LOCK); TABLE and ONLY are optional words.
  EXPECT_EQ(parse_statement("LOCK t").table_lock_mode, "ACCESS EXCLUSIVE");
  EXPECT_EQ(parse_statement("LOCK TABLE ONLY t IN SHARE ROW EXCLUSIVE MODE").table_lock_mode, "SHARE ROW EXCLUSIVE");
  EXPECT_FALSE(parse_statement("LOCK TABLE t IN ROW EXCLUSIVE MODE").depends_on_locks());
  EXPECT_THROW(parse_statement("LOCK TABLE t IN ROW UPDATE MODE"), SyntaxError);
  EXPECT_THROW(parse_statement("LOCK TABLE t IN SHARE"), SyntaxError);

  TestCase c = one_statement_case(share);
  EXPECT_EQ(c.validate(), "");
  c.transactions[1].autocommit = true;
  EXPECT_NE(c.validate().find("LOCK TABLE t IN SHARE MODE NOWAIT outside BEGIN ... COMMIT"), std::string::npos) << c.validate();
  Statement unknown = share;
  unknown.table = "u";
  EXPECT_NE(one_statement_case(unknown).validate().find("unknown table u"), std::string::npos);

  // Judged by every oracle but Troc, whose lock model has no table locks (tests/targets/lock_table_oracles_test.cpp).
  for (const char* sql : {"LOCK TABLE t IN EXCLUSIVE MODE", "LOCK TABLE t IN ACCESS SHARE MODE NOWAIT"}) {
    const TestCase locked = one_statement_case(parse_statement(sql));
    EXPECT_EQ(oracle("troc").cannot_judge(locked, *find_engine("postgresql")),
              fmt::format("T0.1 is {}, and Troc's lock model has row locks only, no table locks", sql));
    for (const char* name : {"wss", "atomicity", "adya", "adyaclaimed", "sdg"})
      EXPECT_EQ(oracle(name).cannot_judge(locked, *find_engine("postgresql")), "") << name << ": " << sql;
  }
  EXPECT_TRUE(find_engine("postgresql")->capabilities().lock_table);
  EXPECT_FALSE(find_engine("mariadb")->capabilities().lock_table);
  EXPECT_FALSE(find_engine("sqlite")->capabilities().lock_table);
}

// LOCK TABLE is generated only where a suite turns it on and the profile has it (PostgreSQL), inside transactions, in
// every mode, mostly first; shrinking drops it, and a NOWAIT one also becomes one that waits.
TEST(LockTable, GeneratedOnlyWhereTheEngineHasItAndShrunkAway) {
  for (const char* engine : {"sqlite", "postgresql", "mariadb"}) {
    const EngineCapabilities caps = find_engine(engine)->capabilities();
    gen::Options o;
    o.engine = caps;
    o.lock_tables = true;
    const auto g = gen::test_case(o);
    rc::Random random(7);
    std::map<std::string, int> modes;
    int statements = 0, first = 0, nowait = 0;
    for (int i = 0; i < 300; ++i) {
      const TestCase c = g(random.split(), i % 100).value();
      ASSERT_EQ(c.validate(), "") << engine << describe(c);
      for (const Transaction& t : c.transactions)
        for (std::size_t k = 0; k < t.statements.size(); ++k) {
          ++statements;
          const Statement& s = t.statements[k];
          if (s.kind != StatementKind::LockTable) continue;
          ++modes[s.table_lock_mode];
          first += k == 0;
          nowait += s.lock_wait == LockWait::NoWait;
          EXPECT_FALSE(t.autocommit);
          EXPECT_NO_THROW(render(s, find_engine(engine)->dialect())) << engine << " " << s;
        }
    }
    int n = 0;
    for (const auto& [mode, k] : modes) n += k;
    std::cout << fmt::format("[lock table] {}: {} of {} statements, {} first in their transaction, {} NOWAIT\n", engine, n,
                             statements, first, nowait);
    EXPECT_EQ(n > 0, caps.lock_table) << engine;
    if (caps.lock_table) {
      EXPECT_EQ(modes.size(), table_lock_modes().size()) << engine;
      EXPECT_GT(first, n / 2) << engine;
      EXPECT_GT(nowait, 0) << engine;
    }
  }
  TestCase c = one_statement_case(parse_statement("LOCK TABLE t IN SHARE MODE NOWAIT"));
  c.transactions[0].statements.push_back(parse_statement("UPDATE t SET v = 1 WHERE k = 1"));
  c.order = TestCase::serial_order(c.transactions);
  ASSERT_EQ(c.validate(), "");
  bool dropped = false, waits = false;
  for (const TestCase& s : gen::shrink_test_case(c)) {
    ASSERT_EQ(s.validate(), "");
    if (s.transactions.size() != 2) continue;
    const auto& st = s.transactions[0].statements;
    dropped = dropped || (st.size() == 1 && st[0].kind == StatementKind::Update);
    waits = waits || (st.size() == 2 && st[0].kind == StatementKind::LockTable && st[0].lock_wait == LockWait::Wait);
  }
  EXPECT_TRUE(dropped);
  EXPECT_TRUE(waits);
}
