// The Adya property on joined writes (issue 11 item 5, "for every oracle"): MariaDB's `UPDATE t JOIN u ... SET u.x`
// appends its writer to u's rows' writer lists as well as t's, so a write to the joined table is seen; PostgreSQL's
// `UPDATE ... FROM u` / `DELETE ... USING u` return the version of the partner row each written row was joined to
// (RETURNING u's columns), SQLite's `UPDATE ... FROM u` gets a join read just before it, taken as the write's read
// only when it saw exactly the rows the write returned. Planted histories: a lost update and a write skew that exist
// only through the joined table are caught; serial histories of joined writes are not flagged.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "txprop/adya.hpp"
#include "txprop/adya_checker.hpp"
#include "txprop/adya_instrumentation.hpp"
#include "txprop/engine.hpp"
#include "txprop/internal/test_hooks.hpp"
#include "txprop/sql.hpp"
#include "txprop/sql_parser.hpp"
#include "tests/support/adya_planted_history.hpp"

using namespace txprop;
using namespace txprop::test;

namespace {

Expr key1() { return Expr::binary(BinaryOp::Eq, Expr::col("k"), Expr::lit(1)); }
Expr same_key(const std::string& a, const std::string& b) {
  return Expr::binary(BinaryOp::Eq, Expr::qcol(a, "k"), Expr::qcol(b, "k"));
}

// UPDATE a JOIN b ON a.k = b.k SET a.v = 1 [, b.v = 5 when `sets_joined`].
Statement joined_update(const std::string& a, const std::string& b, bool sets_joined = false) {
  Statement s = Statement::update(a, {{"v", Expr::lit(1), {}}});
  if (sets_joined) s.assignments.push_back({"v", Expr::lit(5), b});
  s.joins.push_back(Join{false, b, same_key(a, b)});
  return s;
}

Statement joined_delete(const std::string& a, const std::string& b) {
  Statement s = Statement::delete_(a);
  s.joins.push_back(Join{false, b, same_key(a, b)});
  return s;
}

adya::InstrumentationOptions options_of(const std::string& engine) {
  adya::InstrumentationOptions o{.engine = find_engine(engine)->capabilities()};
  o.version_sets = false;  // the planted results below give no version-set reads
  return o;
}

// `c` instrumented for `engine` (no version-set reads), with the results the test plants.
struct Planted : PlantedHistory {
  Planted(const TestCase& c, const std::string& engine) : PlantedHistory(c, options_of(engine)) {}
};

// RETURNING of a joined write on PostgreSQL: the written table's row id, writer list and columns, then the partner's.
const std::vector<std::string> kJoinedReturning = {"txp_rid", "txp_wl", "k", "v", "txp_rid", "txp_wl", "k", "v"};

// MariaDB's options: no UPDATE returns rows, so writes are incomplete (as check_adya tells the checker).
Verdict check_incomplete(const adya::ObservedHistory& o) {
  adya::CheckOptions options;
  options.writes_complete = false;
  return adya::check(o, adya::adya_kinds(), options);
}

// Lost update through the joined table (MariaDB): T0 reads u's row (row id 2); T1 increments it and commits; then T0's
// `UPDATE t JOIN u ... SET t.v = 1, u.v = 5` overwrites it. T0's write of u is known only from u's final writer list "0,2,1",
// which the instrumentation's `u.txp_wl = CONCAT(u.txp_wl, ',1')` wrote: T0 -rw-> T1 -ww-> T0.
History lost_update_through_a_joined_write(bool instrumented_joined_list) {
  TestCase c;
  c.schema.tables = {one_row_table("t"), one_row_table("u")};
  c.transactions = {
      Transaction{IsolationLevel::RepeatableRead, {Statement::select("u", key1()), joined_update("t", "u", true)},
                  TxnEnd::Commit},
      Transaction{IsolationLevel::RepeatableRead,
                  {Statement::update("u", {{"v", Expr::binary(BinaryOp::Add, Expr::col("v"), Expr::lit(1)), {}}}, key1())},
                  TxnEnd::Commit}};
  c.order = {0, 0, 1, 1, 1, 0, 0};
  Planted p(c, "mariadb");
  p.at(0, 1).columns = kTableColumns;
  p.at(0, 1).rows = {{1, 0, 2, "0"}};
  p.at(1, 1).affected = 1;
  p.at(0, 2).affected = 2;
  p.observed(0, {{1, 0, 1, "0,1"}});
  // Without the joined table's writer list (what the instrumentation did before), T0's write of u leaves no trace.
  p.observed(1, {{1, 5, 2, instrumented_joined_list ? "0,2,1" : "0,2"}});
  return p.h;
}

// Write skew through the partners of two joined writes: T0 updates t joined to u, T1 updates u joined to t, both
// concurrently, both read the other's row only as the join partner. For PostgreSQL the partner's version comes from
// RETURNING; for SQLite from the join read before the write (`join_read_t_version`: the writer list of t's row that
// T0's join read saw; "0" is the version T0's UPDATE returned, anything else is a join read that did not see the
// write's rows, whose partners must then stay unrecorded).
History write_skew_through_joined_writes(const std::string& engine, const std::string& join_read_t_version = "0") {
  TestCase c;
  c.schema.tables = {one_row_table("t"), one_row_table("u")};
  c.transactions = {Transaction{IsolationLevel::RepeatableRead, {joined_update("t", "u")}, TxnEnd::Commit},
                    Transaction{IsolationLevel::RepeatableRead, {joined_update("u", "t")}, TxnEnd::Commit}};
  c.order = {0, 1, 0, 1, 0, 1};
  Planted p(c, engine);
  if (engine == "postgresql") {
    p.at(0, 1).columns = kJoinedReturning;
    p.at(0, 1).rows = {{1, "0,1", 1, 1, 2, "0", 1, 0}};
    p.at(0, 1).affected = 1;
    p.at(1, 1).columns = kJoinedReturning;
    p.at(1, 1).rows = {{2, "0,2", 1, 1, 1, "0", 1, 0}};
    p.at(1, 1).affected = 1;
  } else {
    // SQLite: statement 1 is the join read (the instrumentation put its step right before the write's), 2 the write.
    p.at(0, 1).columns = kJoinColumns;
    p.at(0, 1).columns.push_back("txp_join_read");
    p.at(0, 1).rows = {{1, 0, 1, join_read_t_version, 1, 0, 2, "0", "txp_join_read"}};
    p.at(0, 2).columns = kReturning;
    p.at(0, 2).rows = {{1, "0,1", 1, 1}};
    p.at(0, 2).affected = 1;
    p.at(1, 1).columns = kJoinColumns;
    p.at(1, 1).columns.push_back("txp_join_read");
    p.at(1, 1).rows = {{1, 0, 2, "0", 1, 0, 1, "0", "txp_join_read"}};
    p.at(1, 2).columns = kReturning;
    p.at(1, 2).rows = {{2, "0,2", 1, 1}};
    p.at(1, 2).affected = 1;
  }
  p.observed(0, {{1, 1, 1, "0,1"}});
  p.observed(1, {{1, 1, 2, "0,2"}});
  return p.h;
}

}  // namespace

TEST(AdyaJoinedWrites, ALostUpdateThroughTheJoinedTablesWriterListIsCaught) {
  const adya::ObservedHistory o = adya::observe(lost_update_through_a_joined_write(true));
  const Verdict v = check_incomplete(o);
  EXPECT_TRUE(has_kind(v, "lost-update") || has_kind(v, "G2-item")) << v.explain();
  EXPECT_NE(edges_of(o).find("1-rw->2"), std::string::npos) << edges_of(o);  // T0 read u, T1 overwrote it
  EXPECT_NE(edges_of(o).find("2-ww->1"), std::string::npos) << edges_of(o);  // T0's joined write came after T1's
}

TEST(AdyaJoinedWrites, WithoutTheJoinedTablesWriterListTheLostUpdateIsInvisible) {
  // The control: the same history, u's writer list not naming T0 (as before the joined table's list was kept).
  const Verdict v = check_incomplete(adya::observe(lost_update_through_a_joined_write(false)));
  EXPECT_TRUE(v.ok()) << v.explain();
}

TEST(AdyaJoinedWrites, WriteSkewThroughThePartnersPostgreSqlReturnsIsCaught) {
  const adya::ObservedHistory o = adya::observe(write_skew_through_joined_writes("postgresql"));
  const Verdict v = adya::check(o, adya::adya_kinds());
  EXPECT_TRUE(has_kind(v, "write-skew") || has_kind(v, "G2-item")) << v.explain();
  EXPECT_NE(edges_of(o).find("1-rw->2"), std::string::npos) << edges_of(o);
  EXPECT_NE(edges_of(o).find("2-rw->1"), std::string::npos) << edges_of(o);
}

TEST(AdyaJoinedWrites, WriteSkewThroughThePartnersSqlitesJoinReadShowsIsCaught) {
  const adya::ObservedHistory o = adya::observe(write_skew_through_joined_writes("sqlite"));
  const Verdict v = adya::check(o, adya::adya_kinds());
  EXPECT_TRUE(has_kind(v, "write-skew") || has_kind(v, "G2-item")) << v.explain();
  EXPECT_NE(edges_of(o).find("1-rw->2"), std::string::npos) << edges_of(o);
}

TEST(AdyaJoinedWrites, AJoinReadThatDidNotSeeTheWritesRowsRecordsNothing) {
  // T0's join read saw a version of t's row ("0,9") other than the one its UPDATE wrote over ("0"): not the write's
  // snapshot, so the partner it found is not recorded as the write's read, and T0 -rw-> T1 is not drawn.
  const adya::ObservedHistory o = adya::observe(write_skew_through_joined_writes("sqlite", "0,9"));
  EXPECT_EQ(edges_of(o).find("1-rw->2"), std::string::npos) << edges_of(o);
  const Verdict v = adya::check(o, adya::adya_kinds());
  EXPECT_FALSE(has_kind(v, "write-skew")) << v.explain();
}

// Serial joined writes on MariaDB: T0's UPDATE t JOIN u sets u's column (both rows get ",1"), then T1's
// DELETE t FROM t JOIN u (no RETURNING on MariaDB: unseen) and an UPDATE of u; nothing is flagged, and T0 -ww-> T1
// through u's writer list "0,1,2".
TEST(AdyaJoinedWrites, SerialJoinedWritesOnMariaDbAreNotFlagged) {
  TestCase c;
  c.schema.tables = {one_row_table("t"), one_row_table("u")};
  c.transactions = {
      Transaction{IsolationLevel::RepeatableRead, {joined_update("t", "u", true)}, TxnEnd::Commit},
      Transaction{IsolationLevel::RepeatableRead,
                  {Statement::select("u"), joined_delete("t", "u"), Statement::update("u", {{"v", Expr::lit(7), {}}}, key1())},
                  TxnEnd::Commit}};
  c.order = {0, 0, 0, 1, 1, 1, 1, 1};
  Planted p(c, "mariadb");
  p.at(0, 1).affected = 2;
  p.at(1, 1).columns = kTableColumns;
  p.at(1, 1).rows = {{1, 5, 2, "0,1"}};
  p.at(1, 2).affected = 1;
  p.at(1, 3).affected = 1;
  p.observed(0, {});
  p.observed(1, {{1, 7, 2, "0,1,2"}});
  const adya::ObservedHistory o = adya::observe(p.h);
  const Verdict v = check_incomplete(o);
  EXPECT_TRUE(v.ok()) << v.explain();
  EXPECT_NE(edges_of(o).find("1-ww->2"), std::string::npos) << edges_of(o);
  EXPECT_NE(edges_of(o).find("1-wr->2"), std::string::npos) << edges_of(o);
}

// Serial joined writes on PostgreSQL: T0's UPDATE t FROM u, then T1's DELETE FROM u USING t reads T0's version of t
// as its partner (T0 -wr-> T1) and deletes u's row; nothing is flagged.
TEST(AdyaJoinedWrites, SerialJoinedWritesOnPostgreSqlAreNotFlagged) {
  TestCase c;
  c.schema.tables = {one_row_table("t"), one_row_table("u")};
  c.transactions = {Transaction{IsolationLevel::RepeatableRead, {joined_update("t", "u")}, TxnEnd::Commit},
                    Transaction{IsolationLevel::RepeatableRead, {joined_delete("u", "t")}, TxnEnd::Commit}};
  c.order = {0, 0, 0, 1, 1, 1};
  Planted p(c, "postgresql");
  p.at(0, 1).columns = kJoinedReturning;
  p.at(0, 1).rows = {{1, "0,1", 1, 1, 2, "0", 1, 0}};
  p.at(0, 1).affected = 1;
  p.at(1, 1).columns = kJoinedReturning;
  p.at(1, 1).rows = {{2, "0", 1, 0, 1, "0,1", 1, 1}};
  p.at(1, 1).affected = 1;
  p.observed(0, {{1, 1, 1, "0,1"}});
  p.observed(1, {});
  const adya::ObservedHistory o = adya::observe(p.h);
  const Verdict v = adya::check(o, adya::adya_kinds());
  EXPECT_TRUE(v.ok()) << v.explain();
  EXPECT_NE(edges_of(o).find("1-wr->2"), std::string::npos) << edges_of(o);
}

// The instrumented joined writes, rendered: MariaDB's SET list appends to each written table's writer list, qualified;
// PostgreSQL's RETURNING names the partner's columns after the written table's; SQLite's UPDATE ... FROM is preceded
// by its join read and returns only t's columns; MariaDB's multi-table DELETE gets no RETURNING. No version-set read
// precedes a joined write. The portable renderings parse back, and stripping gives the case back.
TEST(AdyaJoinedWrites, InstrumentedJoinedWritesRenderPerEngineAndStripBack) {
  TestCase c;
  c.schema.tables = {one_row_table("t"), one_row_table("u")};
  c.transactions = {Transaction{IsolationLevel::RepeatableRead,
                                {joined_update("t", "u", true), joined_delete("t", "u")}, TxnEnd::Commit}};
  c.order = std::vector<int>(4, 0);
  ASSERT_EQ(c.validate(), "");
  auto instrumented = [&](const std::string& engine) {
    return adya::instrument(c, adya::InstrumentationOptions{.engine = find_engine(engine)->capabilities()});
  };
  const TestCase mariadb = instrumented("mariadb");
  ASSERT_EQ(mariadb.transactions[0].statements.size(), 2u);  // no version-set reads
  EXPECT_EQ(render(mariadb.transactions[0].statements[0], Dialect::MySql),
            "UPDATE `t` INNER JOIN `u` ON `t`.`k` = `u`.`k` SET `t`.`v` = 1, `u`.`v` = 5, `t`.`txp_wl` = CONCAT(`t`.`txp_wl`, ',1'), "
            "`u`.`txp_wl` = CONCAT(`u`.`txp_wl`, ',1')");
  EXPECT_EQ(render(mariadb.transactions[0].statements[1], Dialect::MySql),
            "DELETE `t` FROM `t` INNER JOIN `u` ON `t`.`k` = `u`.`k`");

  TestCase pg_case = c;
  pg_case.transactions[0].statements[0] = joined_update("t", "u");
  const TestCase pg = adya::instrument(pg_case, adya::InstrumentationOptions{.engine = find_engine("postgresql")->capabilities()});
  ASSERT_EQ(pg.transactions[0].statements.size(), 2u);
  EXPECT_EQ(render(pg.transactions[0].statements[0], Dialect::PostgreSql),
            "UPDATE \"t\" SET \"v\" = 1, \"txp_wl\" = \"t\".\"txp_wl\" || ',1' FROM \"u\" WHERE \"t\".\"k\" = \"u\".\"k\" "
            "RETURNING \"t\".\"txp_rid\", \"t\".\"txp_wl\", \"t\".\"k\", \"t\".\"v\", \"u\".\"txp_rid\", \"u\".\"txp_wl\", "
            "\"u\".\"k\", \"u\".\"v\"");
  EXPECT_EQ(render(pg.transactions[0].statements[1], Dialect::PostgreSql),
            "DELETE FROM \"t\" USING \"u\" WHERE \"t\".\"k\" = \"u\".\"k\" RETURNING \"t\".\"txp_rid\", \"t\".\"txp_wl\", "
            "\"t\".\"k\", \"t\".\"v\", \"u\".\"txp_rid\", \"u\".\"txp_wl\", \"u\".\"k\", \"u\".\"v\"");
  EXPECT_EQ(pg.validate(), "");
  EXPECT_EQ(mariadb.validate(), "");
  for (const Statement& s : pg.transactions[0].statements)
    EXPECT_EQ(parse_statement(render(s, Dialect::Portable)), s) << render(s, Dialect::Portable);

  TestCase sqlite_case = pg_case;
  sqlite_case.transactions[0].statements.pop_back();
  sqlite_case.order = std::vector<int>(3, 0);
  const TestCase sqlite = adya::instrument(sqlite_case, adya::InstrumentationOptions{.engine = find_engine("sqlite")->capabilities()});
  ASSERT_EQ(sqlite.transactions[0].statements.size(), 2u);
  EXPECT_TRUE(adya::is_join_read_before_write(sqlite.transactions[0].statements[0]));
  EXPECT_EQ(render(sqlite.transactions[0].statements[0], Dialect::Sqlite),
            "SELECT *, 'txp_join_read' FROM \"t\" INNER JOIN \"u\" ON \"t\".\"k\" = \"u\".\"k\"");
  EXPECT_EQ(sqlite.validate(), "");
  for (const Statement& s : sqlite.transactions[0].statements)
    EXPECT_EQ(parse_statement(render(s, Dialect::Portable)), s) << render(s, Dialect::Portable);
  EXPECT_EQ(render(sqlite.transactions[0].statements[1], Dialect::Sqlite),
            "UPDATE \"t\" SET \"v\" = 1, \"txp_wl\" = \"t\".\"txp_wl\" || ',1' FROM \"u\" WHERE \"t\".\"k\" = \"u\".\"k\" "
            "RETURNING \"t\".\"txp_rid\", \"t\".\"txp_wl\", \"t\".\"k\", \"t\".\"v\"");
  // BEGIN, join read, UPDATE, COMMIT, then the observer's two reads.
  EXPECT_EQ(sqlite.order, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));

  EXPECT_EQ(adya::strip_instrumentation(mariadb), c);
  EXPECT_EQ(adya::strip_instrumentation(pg), pg_case);
  EXPECT_EQ(adya::strip_instrumentation(sqlite), sqlite_case);
}
