// A reset that keeps the tables (framework/engines/reset_plan.hpp: same shape as the database holds) must leave a
// database no case can tell from a freshly created one. On every engine: a database that ran a case (rows inserted,
// updated, deleted) and was reset to a same-shaped schema, against a second database reset once from nothing:
// the rows, the indexes, and what the engine lets a case observe beyond the rows — where each row sits (PostgreSQL
// ctid, SQLite rowid: ORDER BY ... LIMIT over equal keys returns rows in that order), the planner's statistics
// (PostgreSQL: plans decide which predicate locks SSI takes), and which gaps a locking read locks (InnoDB: index
// records a DELETE left delete-marked until purge take part in next-key locking).
#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>
#include <tuple>

#include "support/engine_targets.hpp"
#include "txprop/driver.hpp"
#include "txprop/sql.hpp"
#include "txprop/target.hpp"

using namespace txprop;

namespace {

// With `fk`, u.b references t.k ON DELETE CASCADE (issue 17): a kept table referenced by another must be emptied as
// well (PostgreSQL's TRUNCATE of both in one command; InnoDB's with foreign_key_checks=0; SQLite's DELETE with
// foreign_keys=OFF), and the restored pair must still equal a fresh one.
Schema schema_with(std::vector<Row> t_rows, std::vector<Row> u_rows, bool fk = false) {
  Table t;
  t.name = "t";
  t.columns = {{"k", ColumnType::Integer, true}, {"v", ColumnType::Integer, false}, {"w", ColumnType::Integer, false}};
  t.primary_key = {"k"};
  t.indexes = {Index{"t_w", {"w"}, false}, Index{"t_v", {"v"}, true}};
  t.rows = std::move(t_rows);
  Table u;
  u.name = "u";
  u.columns = {{"a", ColumnType::Integer, false}, {"b", ColumnType::Integer, false}};  // no primary key
  u.rows = std::move(u_rows);
  if (fk) u.foreign_keys = {ForeignKey{{"b"}, "t", {"k"}, ReferentialAction::Cascade, ReferentialAction::NoAction}};
  return Schema{{t, u}};
}

// The first case's schema, and the one the test resets to: same shape, other rows.
Schema first_case(bool fk = false) {
  return schema_with({{1, 10, 1}, {2, 20, 1}, {5, 50, 2}, {7, 70, 2}}, {{1, 1}, {2, 2}}, fk);
}
Schema next_case(bool fk = false) { return schema_with({{1, 11, 1}, {5, 51, 1}}, {{3, 5}}, fk); }

std::vector<Row> query(drivers::Session& s, const std::string& sql) {
  Outcome o = s.execute(sql);
  EXPECT_TRUE(o.ok()) << sql << ": " << summary(o);
  return o.rows;
}

void run(drivers::Session& s, const std::string& sql) {
  const Outcome o = s.execute(sql);
  ASSERT_TRUE(o.ok()) << sql << ": " << summary(o);
}

// What a case could observe beyond the rows, one engine's way; the same query text on both databases.
using Observe = std::function<std::vector<Row>(drivers::Driver&, drivers::Session&)>;

// How the test knows which path the reset took: `identity` reads something that stays the same across a reset only
// if it kept the tables (after `mark`, run once on the first case's tables; empty if none is needed).
struct Engine {
  std::string name;
  std::string mark, identity;
  Observe observe;
};

std::vector<Row> pg_observe(drivers::Driver&, drivers::Session& s) {
  auto rows = query(s, "SELECT ctid::text, k FROM t ORDER BY k");
  for (auto& r : query(s, "SELECT ctid::text, a FROM u ORDER BY ctid")) rows.push_back(r);
  // What the planner reads: a table's relpages and reltuples, and every relation's size on disk. For an index
  // that is not partial it takes the size on disk and the table's tuple estimate, not the index's own pg_class
  // figures (src/backend/optimizer/util/plancat.c, get_relation_info), which TRUNCATE leaves at 0 and -1 where a
  // fresh CREATE INDEX writes 1 and 0.
  for (auto& r : query(s, "SELECT relname::text, pg_relation_size(oid), CASE WHEN relkind = 'r' THEN relpages END, "
                          "CASE WHEN relkind = 'r' THEN reltuples::bigint END FROM pg_class WHERE relnamespace = "
                          "current_schema()::regnamespace ORDER BY relname"))
    rows.push_back(r);
  for (auto& r : query(s, "SELECT indexname::text, replace(indexdef, current_schema() || '.', '') FROM pg_indexes "
                          "WHERE schemaname = current_schema() ORDER BY indexname"))
    rows.push_back(r);
  return rows;
}

std::vector<Row> sqlite_observe(drivers::Driver&, drivers::Session& s) {
  auto rows = query(s, "SELECT rowid, k FROM t ORDER BY k");
  for (auto& r : query(s, "SELECT rowid, a FROM u ORDER BY rowid")) rows.push_back(r);
  for (auto& r : query(s, "SELECT name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name")) rows.push_back(r);
  return rows;
}

// InnoDB: the first case had key 2, the next has 1 and 5. On a fresh table a locking read of k = 2 locks the gap
// (1, 5), so an INSERT of 4 waits; had 2 stayed as a delete-marked record, the lock would cover (1, 2] only and the
// INSERT would go through. Plus the indexes and the AUTO_INCREMENT counters from the catalog.
std::vector<Row> mariadb_observe(drivers::Driver& d, drivers::Session& s) {
  auto rows = query(s, "SELECT TABLE_NAME, INDEX_NAME, NON_UNIQUE, SEQ_IN_INDEX, COLUMN_NAME FROM "
                       "information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() ORDER BY 1, 2, 4");
  for (auto& r : query(s, "SELECT TABLE_NAME, AUTO_INCREMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = "
                          "DATABASE() ORDER BY 1"))
    rows.push_back(r);
  auto other = d.open_session();
  run(s, "BEGIN");
  query(s, "SELECT * FROM t WHERE k = 2 FOR UPDATE");
  run(*other, "SET SESSION innodb_lock_wait_timeout = 1");
  const Outcome insert = other->execute("INSERT INTO t (k, v, w) VALUES (4, 40, 4)");
  rows.push_back({Value(std::string(insert.ok() ? "insert of 4 went through" : "insert of 4 waited: " + insert.error.code))});
  run(s, "ROLLBACK");
  return rows;
}

Engine engine(const std::string& name) {
  // PostgreSQL: a table's oid (TRUNCATE keeps it, a new CREATE TABLE gets another).
  if (name == "postgresql") return {name, "", "SELECT 't'::regclass::oid::bigint", pg_observe};
  // MariaDB: a table comment (TRUNCATE keeps the table's definition; the recreated table has none).
  if (name == "mariadb")
    return {name, "ALTER TABLE t COMMENT = 'kept'",
            "SELECT TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 't'",
            mariadb_observe};
  // SQLite: the schema cookie, which every CREATE and DROP increments (https://www.sqlite.org/pragma.html#pragma_schema_version).
  return {name, "", "PRAGMA schema_version", sqlite_observe};
}

std::optional<TargetConfig> target_of(const std::string& name) {
  return find_configured_target([&](const TargetConfig& c) {
    return c.profile().name() == name && !test::snapshot_isolation_on(c);
  });
}

// What a case does: inserts, updates that move rows between index entries, deletes (valid on both cases' rows).
void run_a_case(drivers::Session& s) {
  run(s, "INSERT INTO t (k, v, w) VALUES (3, 30, 3), (9, 90, 9)");
  run(s, "UPDATE t SET v = v + 100, w = 4 WHERE k >= 5");
  run(s, "DELETE FROM t WHERE k = 2");
  run(s, "DELETE FROM u WHERE a = 1");
  run(s, "INSERT INTO u (a, b) VALUES (8, 1)");
}

void expect_equal_to_fresh(drivers::Driver& used, drivers::Driver& fresh, const Engine& e) {
  auto on_used = used.open_session(), on_fresh = fresh.open_session();
  EXPECT_EQ(used.read_state(next_case()), fresh.read_state(next_case()));
  EXPECT_EQ(used.read_state(next_case()).at("t"), next_case().tables[0].rows);
  const std::vector<Row> seen_used = e.observe(used, *on_used), seen_fresh = e.observe(fresh, *on_fresh);
  EXPECT_FALSE(seen_fresh.empty());
  EXPECT_EQ(seen_used, seen_fresh);
}

// Two resets to the same shape, each after a case, each compared with the fresh database: the first empties tables a
// case changed, the second tables that were restored once already.
void check_restored_equals_fresh(const std::string& name, bool fk = false) {
  const auto config = target_of(name);
  if (!config) {
    if (running_in_ci()) FAIL() << "no " << name << " target in TXPROP_TARGETS (CI is set)";
    GTEST_SKIP() << "no " << name << " target in TXPROP_TARGETS";
  }
  const Engine e = engine(name);
  std::unique_ptr<drivers::Driver> used = drivers::open_driver(*config), fresh = drivers::open_driver(*config);
  used->reset(first_case(fk));
  fresh->reset(next_case(fk));
  auto s = used->open_session();
  if (!e.mark.empty()) run(*s, e.mark);
  const std::vector<Row> identity = query(*s, e.identity);
  ASSERT_FALSE(identity.empty());
  run_a_case(*s);
  used->reset(next_case(fk));
  expect_equal_to_fresh(*used, *fresh, e);
  run_a_case(*s);
  used->reset(next_case(fk));
  ASSERT_EQ(query(*s, e.identity), identity)
      << "the reset to a same-shaped schema recreated the tables (TXPROP_KEEP_TABLES=0?): nothing to compare";
  expect_equal_to_fresh(*used, *fresh, e);
  if (fk) {
    // The foreign key is there and enforced in a case's session: deleting a referenced row cascades.
    run(*s, "DELETE FROM t WHERE k = 5");
    EXPECT_TRUE(query(*s, "SELECT * FROM u").empty());
  }
}

}  // namespace

TEST(ResetKeepsTables, RestoredEqualsFreshSqlite) { check_restored_equals_fresh("sqlite"); }
TEST(ResetKeepsTables, RestoredEqualsFreshPostgresql) { check_restored_equals_fresh("postgresql"); }
TEST(ResetKeepsTables, RestoredEqualsFreshMariadb) { check_restored_equals_fresh("mariadb"); }

namespace {

// Foreign keys (issue 17): the kept pair of a referenced and a referencing table restores to what a fresh one is, and
// a reset between schemas with and without the key (the tables recreated, children dropped first) works both ways.
void check_foreign_key_resets(const std::string& name) {
  check_restored_equals_fresh(name, true);
  const auto config = target_of(name);
  if (!config) return;  // skipped above
  std::unique_ptr<drivers::Driver> d = drivers::open_driver(*config);
  for (bool fk : {true, false, true, true}) {
    d->reset(next_case(fk));
    EXPECT_EQ(d->read_state(next_case(fk)).at("u"), next_case(fk).tables[1].rows) << "fk " << fk;
  }
}

}  // namespace

TEST(ResetKeepsTables, WithForeignKeysSqlite) { check_foreign_key_resets("sqlite"); }
TEST(ResetKeepsTables, WithForeignKeysPostgresql) { check_foreign_key_resets("postgresql"); }
TEST(ResetKeepsTables, WithForeignKeysMariadb) { check_foreign_key_resets("mariadb"); }

// A MariaDB reset declares a table's indexes in its CREATE TABLE (framework/engines/driver.cpp, one DDL statement per
// table); the scripts a report writes create them with CREATE INDEX (render_setup). Both must build the same table:
// the definition, and which index InnoDB clusters on (a table without a primary key clusters on its first UNIQUE index
// of NOT NULL columns, https://mariadb.com/kb/en/innodb-limitations/): a table like that, with two more indexes.
TEST(ResetKeepsTables, InlineIndexesBuildTheSameTableMariadb) {
  const auto config = target_of("mariadb");
  if (!config) {
    if (running_in_ci()) FAIL() << "no mariadb target in TXPROP_TARGETS (CI is set)";
    GTEST_SKIP() << "no mariadb target in TXPROP_TARGETS";
  }
  Table p;
  p.name = "p";
  p.columns = {{"a", ColumnType::Integer, true}, {"b", ColumnType::Integer, false}, {"c", ColumnType::Text, false}};
  p.indexes = {Index{"p_b", {"b"}, true}, Index{"p_a", {"a"}, true}, Index{"p_bc", {"b", "c"}, false}};
  p.rows = {{1, 2, "x"}};
  std::unique_ptr<drivers::Driver> d = drivers::open_driver(*config);
  d->reset(Schema{{p}});  // the reset's path: indexes inline
  auto s = d->open_session();
  Table q = p;
  q.name = "q";
  for (const std::string& sql : render_setup(Schema{{q}}, Dialect::MySql)) run(*s, sql);  // CREATE INDEX each
  auto definition = [&](const std::string& table) {
    std::vector<Row> rows = query(*s, "SHOW CREATE TABLE " + table);
    std::string text = rows.at(0).at(1).as_text();
    text.replace(text.find("`" + table + "`"), table.size() + 2, "`T`");
    rows = query(*s, "SELECT i.NAME, i.TYPE, i.N_FIELDS FROM information_schema.INNODB_SYS_INDEXES i JOIN "
                     "information_schema.INNODB_SYS_TABLES t USING (TABLE_ID) WHERE t.NAME = CONCAT(DATABASE(), '/" +
                     table + "') ORDER BY i.INDEX_ID");
    rows.insert(rows.begin(), Row{Value(text)});
    return rows;
  };
  const std::vector<Row> inline_keys = definition("p"), create_index = definition("q");
  EXPECT_EQ(inline_keys.size(), 4u);  // the definition and three indexes (the clustered one is p_a)
  EXPECT_EQ(inline_keys, create_index);
}

namespace {

// A shape other than next_case()'s: `t` with other columns and index, and a table `x` the next case does not have.
Schema other_shape() {
  Table t;
  t.name = "t";
  t.columns = {{"k", ColumnType::Integer, true}, {"s", ColumnType::Text, false}};
  t.primary_key = {"k"};
  t.indexes = {Index{"t_s", {"s"}, false}};
  t.rows = {{1, "a"}, {2, "b"}};
  Table x;
  x.name = "x";
  x.columns = {{"a", ColumnType::Integer, false}};
  x.rows = {{1}};
  return Schema{{t, x}};
}

// A reset to another shape than the database holds recreates the tables (SQLite: built in an empty in-memory database
// and copied over the file, framework/engines/sqlite/sqlite_driver.cpp; the servers: DROP and CREATE). It must leave
// what the case's own SQL leaves in a database created from nothing (render_setup run in a session of a new driver's
// empty database), and a session opened before the reset must see the new tables once refreshed, as the runner does.
void check_new_shape_equals_fresh(const TargetConfig& config) {
  const Engine e = engine(config.profile().name());
  std::unique_ptr<drivers::Driver> used = drivers::open_driver(config), fresh = drivers::open_driver(config);
  used->reset(other_shape());
  auto before = used->open_session();
  if (!e.mark.empty()) run(*before, e.mark);
  const std::vector<Row> identity = query(*before, e.identity);
  run(*before, "INSERT INTO t (k, s) VALUES (3, 'c')");
  run(*before, "DELETE FROM x");
  used->reset(next_case());
  {
    auto s = fresh->open_session();
    for (const std::string& sql : render_setup(next_case(), fresh->dialect())) run(*s, sql);
  }
  auto on_used = used->open_session(), on_fresh = fresh->open_session();
  ASSERT_FALSE(identity.empty());
  ASSERT_NE(query(*on_used, e.identity), identity) << "the reset to another shape kept the tables";
  if (const std::string refresh = used->session_refresh_sql(); !refresh.empty()) run(*before, refresh);
  EXPECT_EQ(query(*before, "SELECT k, v, w FROM t ORDER BY k"), next_case().tables[0].rows);
  EXPECT_FALSE(before->execute("SELECT a FROM x").ok()) << "the previous shape's table x is still there";
  EXPECT_EQ(used->read_state(next_case()), fresh->read_state(next_case()));
  const std::vector<Row> seen_used = e.observe(*used, *on_used), seen_fresh = e.observe(*fresh, *on_fresh);
  EXPECT_FALSE(seen_fresh.empty());
  EXPECT_EQ(seen_used, seen_fresh);
  // Once more to the same shape after a case: the tables the reset to another shape created are kept and restored.
  run(*before, "DELETE FROM t WHERE k = 1");
  used->reset(next_case());
  EXPECT_EQ(used->read_state(next_case()), fresh->read_state(next_case()));
  EXPECT_EQ(e.observe(*used, *on_used), seen_fresh);
}

void check_new_shape_equals_fresh(const std::string& name) {
  const auto config = target_of(name);
  if (!config) {
    if (running_in_ci()) FAIL() << "no " << name << " target in TXPROP_TARGETS (CI is set)";
    GTEST_SKIP() << "no " << name << " target in TXPROP_TARGETS";
  }
  check_new_shape_equals_fresh(*config);
}

}  // namespace

TEST(ResetToAnotherShape, EqualsFreshSqlite) { check_new_shape_equals_fresh("sqlite"); }
// The copy over a file in rollback-journal mode (the backup API takes the file's exclusive lock instead of a WAL frame).
TEST(ResetToAnotherShape, EqualsFreshSqliteJournalDelete) {
  check_new_shape_equals_fresh(parse_target_uri("sqlite:?journal_mode=delete"));
}
TEST(ResetToAnotherShape, EqualsFreshPostgresql) { check_new_shape_equals_fresh("postgresql"); }
TEST(ResetToAnotherShape, EqualsFreshMariadb) { check_new_shape_equals_fresh("mariadb"); }

namespace {

// PostgreSQL and MariaDB read the final state of every table in one round trip (their read_state); it must equal
// what one SELECT per table through a session reads, and a table that is not there must fail with its name.
void check_state_read(const std::string& name) {
  const auto config = target_of(name);
  if (!config) {
    if (running_in_ci()) FAIL() << "no " << name << " target in TXPROP_TARGETS (CI is set)";
    GTEST_SKIP() << "no " << name << " target in TXPROP_TARGETS";
  }
  std::unique_ptr<drivers::Driver> d = drivers::open_driver(*config);
  d->reset(first_case(true));
  auto s = d->open_session();
  run(*s, "INSERT INTO u (a, b) VALUES (NULL, 7)");
  const DatabaseState batched = d->read_state(first_case()), each = drivers::read_tables(*s, first_case(), d->dialect());
  EXPECT_EQ(batched.size(), 2u);
  EXPECT_EQ(batched.at("u").size(), 3u);
  EXPECT_EQ(batched, each);
  Schema missing = first_case();
  missing.tables[1].name = "nope";
  try {
    d->read_state(missing);
    ADD_FAILURE() << "reading a table that is not there did not fail";
  } catch (const drivers::DriverError& e) {
    EXPECT_NE(std::string(e.what()).find("nope"), std::string::npos) << e.what();
  }
  EXPECT_EQ(d->read_state(first_case()), batched) << "the control connection is usable after the failed read";
}

}  // namespace

TEST(ReadState, OneRoundTripEqualsPerTablePostgresql) { check_state_read("postgresql"); }
TEST(ReadState, OneRoundTripEqualsPerTableMariadb) { check_state_read("mariadb"); }
TEST(ReadState, PerTableSqlite) { check_state_read("sqlite"); }

namespace {

// A case whose `readers` transactions each read the one row of `t`, a table of two columns in the order given.
TestCase readers_case(bool int_first, int readers) {
  Table t;
  t.name = "t";
  if (int_first) {
    t.columns = {{"a", ColumnType::Integer, false}, {"b", ColumnType::Text, false}};
    t.rows = {{1, "x"}};
  } else {
    t.columns = {{"b", ColumnType::Text, false}, {"a", ColumnType::Integer, false}};
    t.rows = {{"y", 2}};
  }
  TestCase c;
  c.schema.tables = {t};
  for (int i = 0; i < readers; ++i)
    c.transactions.push_back(Transaction{IsolationLevel::Serializable, {Statement::select("t", std::nullopt, LockMode::None, {"a"})}});
  c.order = TestCase::serial_order(c.transactions);
  return c;
}

}  // namespace

// Sessions only refresh their cached schema when the tables were recreated since they last did (Target::run,
// Driver::schema_generation): a session the previous case did not use must still see the tables of the case before,
// as recreated, and not the ones it cached two cases ago. Three cases: three sessions on one table, two on another
// (recreated: the third session idles), three on the second again (kept: the third session must be refreshed now).
TEST(ResetKeepsTables, IdleSessionSeesRecreatedTablesSqlite) {
  const auto config = target_of("sqlite");
  ASSERT_TRUE(config) << "the embedded SQLite target is always configured";
  auto target = Target::open(*config);
  // (first column an integer, readers, the value read, sessions refreshed): every case with a new table (the first,
  // second and fifth) refreshes the sessions it uses; the third keeps it, and only the session the
  // second left idle refreshes; the fourth keeps it again (none); the fifth recreates it (all three).
  for (const auto& [int_first, readers, expected, refreshes] : std::vector<std::tuple<bool, int, std::int64_t, int>>{
           {true, 3, 1, 3}, {false, 2, 2, 2}, {false, 3, 2, 1}, {false, 3, 2, 0}, {true, 3, 1, 3}}) {
    const std::uint64_t before = target->metrics().session_refreshes;
    const History h = target->run(readers_case(int_first, readers));
    EXPECT_EQ(target->metrics().session_refreshes - before, static_cast<std::uint64_t>(refreshes))
        << "a case with " << readers << " sessions";
    ASSERT_EQ(h.outcomes.size(), static_cast<std::size_t>(readers));
    for (int t = 0; t < readers; ++t) {
      const Outcome& read = h.outcomes[static_cast<std::size_t>(t)][1];
      ASSERT_TRUE(read.ok()) << summary(read);
      EXPECT_EQ(read.rows, std::vector<Row>{{Value(expected)}}) << "session " << t << " of a case with " << readers;
    }
  }
}

namespace {

// Kept tables that no write reached since the last reset are left as they were (Driver::unchanged_since_reset,
// framework/engines/reset_plan.cpp) and still equal fresh ones; a table whose rows the new schema changes, or that
// references a restored table, is restored all the same. Through the driver, as Target::run tells it (the Target's
// side, which tables a run changed, is tests/unit/changed_tables_test.cpp).
void check_unchanged_left(const std::string& name) {
  const auto config = target_of(name);
  if (!config) {
    if (running_in_ci()) FAIL() << "no " << name << " target in TXPROP_TARGETS (CI is set)";
    GTEST_SKIP() << "no " << name << " target in TXPROP_TARGETS";
  }
  const Engine e = engine(name);
  std::unique_ptr<drivers::Driver> used = drivers::open_driver(*config), fresh = drivers::open_driver(*config);
  fresh->reset(next_case());
  used->reset(next_case());
  auto s = used->open_session();
  run(*s, "UPDATE t SET v = v + 100, w = 4 WHERE k >= 5");  // t changes, u does not
  used->unchanged_since_reset({"u"});
  used->reset(next_case());
  EXPECT_EQ(used->tables_left_by_last_reset(), 1u) << "u was not left as it was";
  auto on_used = used->open_session(), on_fresh = fresh->open_session();
  EXPECT_EQ(used->read_state(next_case()), fresh->read_state(next_case()));
  EXPECT_EQ(e.observe(*used, *on_used), e.observe(*fresh, *on_fresh));
  // Left twice in a row (the reset before left it too), then told nothing: restored.
  run(*s, "DELETE FROM t WHERE k = 1");
  used->unchanged_since_reset({"u"});
  used->reset(next_case());
  EXPECT_EQ(used->tables_left_by_last_reset(), 1u);
  EXPECT_EQ(e.observe(*used, *on_used), e.observe(*fresh, *on_fresh));
  used->reset(next_case());
  EXPECT_EQ(used->tables_left_by_last_reset(), 0u) << "a reset told nothing restores every table";
  // Unchanged but given other rows by the next schema: restored.
  used->unchanged_since_reset({"t", "u"});
  used->reset(first_case());
  EXPECT_EQ(used->tables_left_by_last_reset(), 0u);
  EXPECT_EQ(used->read_state(first_case()).at("u"), first_case().tables[1].rows);
}

// u references t: with t restored, u is restored too, even though unchanged (PostgreSQL cannot TRUNCATE t alone).
void check_referencing_restored(const std::string& name) {
  const auto config = target_of(name);
  if (!config) return;  // skipped by check_unchanged_left
  std::unique_ptr<drivers::Driver> used = drivers::open_driver(*config);
  used->reset(first_case(true));
  auto s = used->open_session();
  run(*s, "UPDATE t SET v = v + 100 WHERE k = 7");
  used->unchanged_since_reset({"u"});
  used->reset(first_case(true));
  EXPECT_EQ(used->tables_left_by_last_reset(), 0u);
  EXPECT_EQ(used->read_state(first_case(true)).at("t"), first_case(true).tables[0].rows);
  // Both unchanged: both left, and the reset still answers (a lost connection is found by it, not after the run).
  used->unchanged_since_reset({"t", "u"});
  used->reset(first_case(true));
  EXPECT_EQ(used->tables_left_by_last_reset(), 2u);
  EXPECT_EQ(used->read_state(first_case(true)).at("u"), first_case(true).tables[1].rows);
}

}  // namespace

TEST(ResetKeepsTables, UnchangedTablesLeftAsTheyWereSqlite) {
  check_unchanged_left("sqlite");
  check_referencing_restored("sqlite");
}
TEST(ResetKeepsTables, UnchangedTablesLeftAsTheyWerePostgresql) {
  check_unchanged_left("postgresql");
  check_referencing_restored("postgresql");
}
TEST(ResetKeepsTables, UnchangedTablesLeftAsTheyWereMariadb) {
  check_unchanged_left("mariadb");
  check_referencing_restored("mariadb");
}

// Through a Target: a case that writes t only leaves u as it was at the next reset to the same schema; once the
// driver was handed out (target.driver(): what runs through it is not seen), every table is restored.
TEST(ResetKeepsTables, TargetLeavesTablesItsRunsDidNotChangeSqlite) {
  const auto config = target_of("sqlite");
  ASSERT_TRUE(config) << "the embedded SQLite target is always configured";
  auto target = Target::open(*config);
  TestCase c;
  c.schema = first_case();
  c.transactions = {Transaction{IsolationLevel::Serializable,
                                {Statement::update("t", {{"v", Expr::lit(1)}}, Expr::binary(BinaryOp::Eq, Expr::col("k"), Expr::lit(5))),
                                 Statement::select("u")}}};
  c.order = TestCase::serial_order(c.transactions);
  for (int run = 0; run < 3; ++run) {
    const std::uint64_t before = target->metrics().tables_left;
    const History h = target->run(c);
    EXPECT_EQ(target->metrics().tables_left - before, run == 0 ? 0u : 1u) << "run " << run;
    EXPECT_EQ(h.final_state.at("u"), c.schema.tables[1].rows);
  }
  target->driver();
  const std::uint64_t before = target->metrics().tables_left;
  target->run(c);
  EXPECT_EQ(target->metrics().tables_left, before) << "the driver was handed out: nothing may be left";
}
