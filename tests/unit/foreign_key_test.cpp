// Foreign keys (issue 17 item 3) without a server: FOREIGN KEY / REFERENCES read in the spellings people write in
// isolation tests and bug reports, rendered per dialect as a table constraint and read back the same, validated (one
// clear line per mistake), generated only where a suite turns them on with a share this test prints, shrunk toward no
// key, and refused by the oracles that cannot see the writes and reads a foreign key makes (Adya, AdyaClaimed, Troc,
// SDG) while WSS and atomicity judge them.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <iostream>
#include <map>

#include <fmt/format.h>

#include "txprop/engine.hpp"
#include "txprop/foreign_key_checks.hpp"
#include "txprop/generators.hpp"
#include "txprop/oracle.hpp"
#include "txprop/property.hpp"
#include "txprop/scenario.hpp"
#include "txprop/sql.hpp"
#include "txprop/sql_parser.hpp"
#include "txprop/target_config.hpp"

using namespace txprop;

namespace {

// As PostgreSQL's isolation specs (fk-contention, fk-deadlock) and MySQL bug reports write them.
const char* kSetup = R"(setup:
CREATE TABLE parent (id INT PRIMARY KEY, v INT);
CREATE TABLE child (id INT PRIMARY KEY, pid INT REFERENCES parent ON DELETE CASCADE ON UPDATE RESTRICT);
CREATE TABLE other (id INT NOT NULL, pid INT, qid INT, PRIMARY KEY (id),
  CONSTRAINT other_fk FOREIGN KEY (pid) REFERENCES parent (id) ON DELETE SET NULL,
  FOREIGN KEY (qid) REFERENCES child (id));
INSERT INTO parent VALUES (1, 10), (2, 20);
INSERT INTO child VALUES (1, 1), (2, NULL);
INSERT INTO other VALUES (1, 2, 1);
)";

Scenario with_steps(const std::string& setup) {
  return parse_scenario(setup + "steps:\ns1: BEGIN;\ns1: DELETE FROM parent WHERE id = 1;\ns1: COMMIT;\nexpect:\nwss * * ok\n");
}

std::string setup_error(const std::string& setup) {
  try {
    with_steps(setup);
  } catch (const SyntaxError& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST(ForeignKeys, ReadInThePeoplesSpellings) {
  const Scenario s = with_steps(kSetup);
  const Table& child = *s.schema.find_table("child");
  ASSERT_EQ(child.foreign_keys.size(), 1u);
  EXPECT_EQ(child.foreign_keys[0], (ForeignKey{{"pid"}, "parent", {"id"}, ReferentialAction::Cascade, ReferentialAction::Restrict}));
  const Table& other = *s.schema.find_table("other");
  ASSERT_EQ(other.foreign_keys.size(), 2u);
  EXPECT_EQ(other.foreign_keys[0], (ForeignKey{{"pid"}, "parent", {"id"}, ReferentialAction::SetNull, ReferentialAction::NoAction}));
  EXPECT_EQ(other.foreign_keys[1], (ForeignKey{{"qid"}, "child", {"id"}, ReferentialAction::NoAction, ReferentialAction::NoAction}));
  EXPECT_EQ(s.schema.first_foreign_key(), "table child has FOREIGN KEY (pid) REFERENCES parent (id) ON DELETE CASCADE ON UPDATE RESTRICT");
}

TEST(ForeignKeys, RenderedAsATableConstraintAndReadBack) {
  const Schema schema = with_steps(kSetup).schema;
  EXPECT_EQ(render_create_table(*schema.find_table("child"), Dialect::PostgreSql),
            "CREATE TABLE \"child\" (\"id\" BIGINT NOT NULL, \"pid\" BIGINT, PRIMARY KEY (\"id\"), FOREIGN KEY (\"pid\") "
            "REFERENCES \"parent\" (\"id\") ON DELETE CASCADE ON UPDATE RESTRICT)");
  EXPECT_EQ(render_create_table(*schema.find_table("other"), Dialect::MySql),
            "CREATE TABLE `other` (`id` BIGINT NOT NULL, `pid` BIGINT, `qid` BIGINT, PRIMARY KEY (`id`), FOREIGN KEY (`pid`) "
            "REFERENCES `parent` (`id`) ON DELETE SET NULL, FOREIGN KEY (`qid`) REFERENCES `child` (`id`)) ENGINE=InnoDB");
  for (Dialect d : {Dialect::Portable, Dialect::Sqlite}) {
    std::string setup = "setup:\n";
    for (const auto& line : render_setup(schema, d)) setup += line + ";\n";
    EXPECT_EQ(with_steps(setup).schema, schema) << setup;
  }
}

TEST(ForeignKeys, BadInputIsOneClearLine) {
  const std::string parent = "setup:\nCREATE TABLE p (id INT PRIMARY KEY, u INT);\n";
  const std::map<std::string, std::string> cases = {
      {"CREATE TABLE c (id INT, pid INT REFERENCES q (id));", "but there is no table q"},
      {"CREATE TABLE c (id INT, pid INT REFERENCES p (u));", "(u) is not the primary key or a UNIQUE key of p"},
      {"CREATE TABLE c (id INT, pid INT NOT NULL REFERENCES p ON DELETE SET NULL);", "SET NULL cannot set NOT NULL column pid"},
      {"CREATE TABLE c (id INT, pid TEXT REFERENCES p);", "differ in type"},
      {"CREATE TABLE c (id INT, pid INT REFERENCES p ON DELETE SET DEFAULT);", "SET DEFAULT is not supported"},
      {"CREATE TABLE c (id INT, pid INT REFERENCES p ON DELETE NOTHING);", "CASCADE, RESTRICT, NO ACTION or SET NULL"},
      {"CREATE TABLE c (id INT, FOREIGN KEY (pid) REFERENCES p);", "c has no column pid"},
      {"CREATE TABLE c (id INT, pid INT REFERENCES p);\nINSERT INTO c VALUES (1, 7);", "an initial row of c references no row of p"},
  };
  for (const auto& [sql, why] : cases) {
    const std::string error = setup_error(parent + sql + "\n");
    EXPECT_NE(error.find(why), std::string::npos) << sql << "\n  gave: " << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
  // A referenced table declared after the referencing one (a schema is created and filled parents first).
  Schema later = with_steps(kSetup).schema;
  std::swap(later.tables[0], later.tables[1]);
  EXPECT_NE(later.check_foreign_keys().find("parent is not declared before child"), std::string::npos)
      << later.check_foreign_keys();
}

// Generated only where turned on; every case valid; the share of cases with a key and of each action (ON DELETE and
// ON UPDATE) printed; every case with a key shrinks to one without it in one step, and each action that is not NO
// ACTION to NO ACTION in one step (the key kept); no candidate leaves a reference dangling.
TEST(ForeignKeys, GeneratedWithAShareAndShrunkToNone) {
  gen::Options o;
  o.engine = find_engine("postgresql")->capabilities();
  rc::Random random(17);
  const auto off = gen::test_case(o);
  o.foreign_keys = true;
  const auto on = gen::test_case(o);
  int with = 0, two_tables = 0, dropped = 0, acting = 0, to_no_action = 0;
  std::map<ReferentialAction, int> actions, update_actions;
  const int n = 400;
  for (int i = 0; i < n; ++i) {
    const rc::Random r = random.split();
    EXPECT_FALSE(off(r, i % 100).value().schema.has_foreign_keys());
    const TestCase c = on(r, i % 100).value();
    ASSERT_EQ(c.validate(), "") << describe(c);
    two_tables += c.schema.tables.size() > 1;
    if (!c.schema.has_foreign_keys()) continue;
    ++with;
    for (const Table& t : c.schema.tables)
      for (const ForeignKey& fk : t.foreign_keys) {
        ++actions[fk.on_delete];
        ++update_actions[fk.on_update];
      }
    const auto simpler = gen::shrink_test_case(c);
    auto keys = [](const TestCase& x) {
      std::size_t k = 0;
      for (const Table& t : x.schema.tables) k += t.foreign_keys.size();
      return k;
    };
    dropped += std::any_of(simpler.begin(), simpler.end(), [&](const TestCase& s) {
      return keys(s) + 1 == keys(c) && s.transactions == c.transactions && s.order == c.order;
    });
    for (const TestCase& s : simpler) EXPECT_EQ(s.schema.check_foreign_keys(), "");
    // The first key's ON UPDATE action, where it has one, toward NO ACTION with everything else kept.
    const auto first = std::find_if(c.schema.tables.begin(), c.schema.tables.end(),
                                    [](const Table& t) { return !t.foreign_keys.empty(); });
    if (first->foreign_keys[0].on_update == ReferentialAction::NoAction) continue;
    ++acting;
    TestCase plain = c;
    plain.schema.tables[static_cast<std::size_t>(first - c.schema.tables.begin())].foreign_keys[0].on_update =
        ReferentialAction::NoAction;
    to_no_action += std::find(simpler.begin(), simpler.end(), plain) != simpler.end();
  }
  std::cout << fmt::format("[foreign keys] {} of {} cases ({:.1f}%) have a foreign key ({} have two or more tables):", with,
                           n, 100.0 * with / n, two_tables);
  for (const auto& [action, count] : actions) std::cout << " ON DELETE " << to_string(action) << " " << count << ";";
  for (const auto& [action, count] : update_actions)
    std::cout << " ON UPDATE " << to_string(action) << " " << count << ";";
  std::cout << "\n";
  EXPECT_GT(with, n / 20);
  EXPECT_EQ(actions.size(), 4u);
  EXPECT_EQ(update_actions.size(), 4u);
  EXPECT_EQ(dropped, with);
  EXPECT_GT(acting, 0);
  EXPECT_EQ(to_no_action, acting);
}

// The Adya suites ask for keys whose writes can be recorded: on MariaDB (no trigger fires for a key's writes) the
// actions are only RESTRICT and NO ACTION; on PostgreSQL the same draws keep CASCADE and SET NULL.
TEST(ForeignKeys, OnlyRecordedWritesWhereAsked) {
  // The keys 300 generated cases have, and how many of their actions write (CASCADE, SET NULL).
  const auto keys_and_writing = [](const gen::Options& o) {
    rc::Random random(17);
    std::pair<int, int> out{0, 0};
    for (int i = 0; i < 300; ++i)
      for (const Table& t : gen::test_case(o)(random.split(), i % 100).value().schema.tables)
        for (const ForeignKey& fk : t.foreign_keys) {
          ++out.first;
          for (ReferentialAction a : {fk.on_delete, fk.on_update})
            out.second += a == ReferentialAction::Cascade || a == ReferentialAction::SetNull;
        }
    return out;
  };
  for (const char* engine : {"mariadb", "postgresql"}) {
    gen::Options o;
    o.engine = find_engine(engine)->capabilities();
    o.foreign_keys = o.foreign_key_writes_recorded_only = true;
    const auto [keys, writing] = keys_and_writing(o);
    EXPECT_GT(keys, 0) << engine;
    EXPECT_EQ(writing > 0, std::string(engine) == "postgresql") << engine << ": " << writing << " of " << keys;
  }
  // foreign_key_no_writes: keys that write nothing on every engine (for an oracle that records no write of a key).
  for (const char* engine : {"sqlite", "mariadb", "postgresql"}) {
    gen::Options o;
    o.engine = find_engine(engine)->capabilities();
    o.foreign_keys = o.foreign_key_no_writes = true;
    const auto [keys, writing] = keys_and_writing(o);
    EXPECT_GT(keys, 0) << engine;
    EXPECT_EQ(writing, 0) << engine;
  }
}

// Troc runs a key's check and actions itself (tests/targets/foreign_key_troc_test.cpp). Adya and SDG record a cascaded
// write where the engine fires row triggers for it (PostgreSQL, SQLite; tests/targets/foreign_key_adya_history_test.cpp,
// foreign_key_sdg_test.cpp) and refuse it on MariaDB with the profile's reason. WSS and atomicity replay it on the
// engine, which cascades again, and judge it (planted tests in tests/targets/foreign_key_planted_test.cpp).
TEST(ForeignKeys, OraclesThatCannotSeeThemRefuse) {
  const TestCase c = with_steps(kSetup).replay_case(IsolationLevel::RepeatableRead);
  for (const char* uri : {"postgresql://p@127.0.0.1:5432/x", "mariadb://u@127.0.0.1:3306/x", "sqlite:"}) {
    const TargetConfig target = parse_target_uri(uri);
    EXPECT_EQ(txprop::oracle("troc").cannot_judge(c, target.profile()), "") << uri;
    const bool triggers_fire = target.profile().capabilities().cascaded_writes_unrecorded.empty();
    EXPECT_EQ(triggers_fire, std::string(uri).rfind("mariadb", 0) != 0) << uri;
    for (const char* name : {"adya", "adyaclaimed", "sdg"}) {
      const std::string refused = txprop::oracle(name).cannot_judge(c, target.profile());
      if (triggers_fire) EXPECT_EQ(refused, "") << name << " on " << uri;
      else EXPECT_EQ(refused, "table child has a foreign key to parent ON DELETE CASCADE, and " +
                                  target.profile().capabilities().cascaded_writes_unrecorded) << name;
    }
    for (const char* name : {"wss", "atomicity"}) EXPECT_EQ(txprop::oracle(name).cannot_judge(c, target.profile()), "") << name;
  }
}

// MariaDB's `DELETE t, u FROM t JOIN u ...` deletes from t and u in the optimizer's join order, not in the parent/child
// order of a key between them, so the same rows give another affected-row count or an error with another plan (MySQL
// 8.0 manual, DELETE; test_case_gen.cpp, joined_write): generated only for two tables no chain of keys links.
TEST(ForeignKeys, AJoinedDeleteNeverDeletesFromTwoTablesKeysLink) {
  gen::Options o;
  o.engine = find_engine("mariadb")->capabilities();
  o.rich_statements = true;
  o.foreign_keys = true;
  o.write_join_probability = 1.0;
  o.joined_table_delete_probability = 1.0;
  const auto cases = gen::test_case(o);
  rc::Random random(23);
  int both_unlinked = 0, one_linked = 0;
  for (int i = 0; i < 400; ++i) {
    const TestCase c = cases(random.split(), i % 100).value();
    for (const Transaction& t : c.transactions)
      for (const Statement& s : t.statements) {
        if (s.kind != StatementKind::Delete || s.joins.empty()) continue;
        const bool linked = c.schema.linked_by_keys(s.table, s.joins.front().table);
        const bool both = s.joins.front().deleted;
        EXPECT_FALSE(both && linked) << render(s, Dialect::MySql) << "\n" << describe(c);
        both_unlinked += both && !linked;
        one_linked += !both && linked;
      }
  }
  std::cout << fmt::format("joined DELETEs of both tables without keys: {}, of one table with keys: {}\n",
                           both_unlinked, one_linked);
  EXPECT_GT(both_unlinked, 0);
  EXPECT_GT(one_linked, 0);
}

TEST(ForeignKeys, KeysLinkTablesThroughAChainEitherWay) {
  Schema s;
  for (const char* name : {"t0", "t1", "t2", "t3"}) s.tables.push_back(Table{name, {}, {}, {}, {}, {}, {}});
  s.tables[1].foreign_keys.push_back(ForeignKey{{"c"}, "t0", {"c0"}, ReferentialAction::Cascade, {}});
  s.tables[2].foreign_keys.push_back(ForeignKey{{"c"}, "t1", {"c0"}, ReferentialAction::Restrict, {}});
  EXPECT_TRUE(s.linked_by_keys("t0", "t2"));
  EXPECT_TRUE(s.linked_by_keys("t2", "t0"));
  EXPECT_FALSE(s.linked_by_keys("t0", "t3"));
  EXPECT_FALSE(s.linked_by_keys("t3", "t1"));
}

// The tables a key's check reads (foreign_key_checked_tables), and SDG's version-set reads of them: a referencing row
// inserted or its key set reads the referenced table; a referenced row deleted or its key set reads the referencing
// tables; other writes and reads check nothing. SDG judges keys that write nothing, except where a plain read does not
// stand for the check (PostgreSQL SERIALIZABLE's SIREAD locks, InnoDB's locking current reads) and another
// transaction writes the checked table.
TEST(ForeignKeys, KeyChecksReadByTheSdgInstrumentation) {
  Scenario s = with_steps(kSetup);
  for (Table& t : s.schema.tables)
    for (ForeignKey& fk : t.foreign_keys) fk.on_delete = fk.on_update = ReferentialAction::Restrict;
  const auto checked = [&](const char* sql) { return foreign_key_checked_tables(s.schema, parse_statement(sql)); };
  using V = std::vector<std::string>;
  EXPECT_EQ(checked("INSERT INTO child (id, pid) VALUES (3, 1)"), V{"parent"});
  EXPECT_EQ(checked("INSERT INTO other (id, pid, qid) VALUES (3, 1, 1)"), (V{"parent", "child"}));
  EXPECT_EQ(checked("UPDATE child SET pid = 2 WHERE id = 1"), V{"parent"});
  EXPECT_EQ(checked("UPDATE child SET id = 7 WHERE id = 1"), V{"other"});  // other.qid references child.id
  EXPECT_EQ(checked("DELETE FROM parent WHERE id = 1"), (V{"child", "other"}));
  EXPECT_EQ(checked("UPDATE parent SET v = 1"), V{});
  EXPECT_EQ(checked("DELETE FROM other WHERE id = 1"), V{});
  EXPECT_EQ(checked("SELECT * FROM child"), V{});

  TestCase c;
  c.schema = s.schema;
  Transaction t0, t1;
  t0.statements = {parse_statement("DELETE FROM child WHERE id = 1")};
  t1.statements = {parse_statement("INSERT INTO child (id, pid) VALUES (3, 1)")};
  c.transactions = {t0, t1};
  c.order = TestCase::serial_order(c.transactions);
  ASSERT_EQ(c.validate(), "");
  // SDG's preparation reads parent beside the INSERT, as its version set.
  const TestCase prepared = txprop::oracle("sdg").prepare(c, *find_engine("postgresql"));
  std::vector<std::string> read;
  for (const Statement& st : prepared.transactions[1].statements)
    if (st.kind == StatementKind::Select) read.push_back(st.table);
  EXPECT_NE(std::find(read.begin(), read.end(), "parent"), read.end()) << describe(prepared);
  for (IsolationLevel level : {IsolationLevel::ReadCommitted, IsolationLevel::RepeatableRead, IsolationLevel::Serializable})
    for (const char* engine : {"postgresql", "sqlite", "mariadb"}) {
      for (Transaction& t : c.transactions) t.isolation = level;
      const std::string why = txprop::oracle("sdg").cannot_judge(c, *find_engine(engine));
      const bool pg_ssi = std::string(engine) == "postgresql" && level == IsolationLevel::Serializable;
      const bool innodb = std::string(engine) == "mariadb";
      if (!pg_ssi && !innodb) {
        EXPECT_EQ(why, "") << engine << " " << sql_name(level);
        continue;
      }
      // T0 writes child, which T1's INSERT does not check: nothing refused for the key...
      EXPECT_EQ(why.find("checks a foreign key"), std::string::npos) << engine << " " << sql_name(level) << ": " << why;
    }
  // ... but a write of the checked table is.
  c.transactions[0].statements = {parse_statement("UPDATE parent SET v = 5 WHERE id = 1")};
  for (Transaction& t : c.transactions) t.isolation = IsolationLevel::Serializable;
  EXPECT_EQ(txprop::oracle("sdg").cannot_judge(c, *find_engine("postgresql")),
            "T1.1 checks a foreign key against parent at SERIALIZABLE, which T0 writes, and a version-set read standing "
            "for the check would take locks the check does not");
  for (Transaction& t : c.transactions) t.isolation = IsolationLevel::ReadCommitted;
  EXPECT_EQ(txprop::oracle("sdg").cannot_judge(c, *find_engine("postgresql")), "");
}
