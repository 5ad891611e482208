// The one hidden-column scheme (txprop/hidden_columns.hpp) the Adya, Troc and SDG oracles add and strip their columns
// with: what it adds to a schema, what it strips from a schema, a statement and a result, that each oracle's
// preparation is undone by its strip, and that a covering index stays covering where the engine's current reads depend
// on the index scanned (issue 21: InnoDB).
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>

#include "txprop/adya_instrumentation.hpp"
#include "txprop/engine.hpp"
#include "txprop/hidden_columns.hpp"
#include "txprop/oracle.hpp"
#include "txprop/sql_parser.hpp"

using namespace txprop;

namespace {

const HiddenColumns& scheme() {
  static const HiddenColumns h({Column{"h1", ColumnType::Integer, false}, Column{"h2", ColumnType::Text, true}});
  return h;
}

Schema two_tables() {
  Table t;
  t.name = "t";
  t.columns = {{"k", ColumnType::Integer, false}, {"v", ColumnType::Integer, true}};
  t.primary_key = {"k"};
  t.rows = {{1, 10}, {2, 20}};
  Table u = t;
  u.name = "u";
  u.rows = {{7, 70}};
  Schema s;
  s.tables = {t, u};
  return s;
}

TEST(HiddenColumns, AddsToEveryTableNumberingRowsAcrossTablesAndStripsAgain) {
  Schema s = two_tables();
  EXPECT_FALSE(scheme().in(s));
  scheme().add_to(s, [](std::int64_t n) { return Row{Value(n), Value("0")}; });
  ASSERT_TRUE(scheme().in(s));
  ASSERT_EQ(s.tables[0].column_names(), (std::vector<std::string>{"k", "v", "h1", "h2"}));
  EXPECT_EQ(s.tables[0].rows[1], (Row{2, 20, std::int64_t{2}, "0"}));
  EXPECT_EQ(s.tables[1].rows[0], (Row{7, 70, std::int64_t{3}, "0"})) << "row numbers count across tables";
  EXPECT_EQ(scheme().leading(&s.tables[1]), (std::vector<std::string>{"h1", "h2", "k", "v"}));
  EXPECT_EQ(scheme().visible(s.tables[1], s.tables[1].rows[0]), (Row{7, 70}));
  scheme().strip_from(s);
  EXPECT_EQ(s, two_tables());
}

TEST(HiddenColumns, StripsAssignmentsOrderItemsAndInsertColumnsWithTheirValues) {
  Statement ins = Statement::insert("t", {"k", "h1", "v", "h2"}, {Expr::lit(3), Expr::lit(9), Expr::lit(30), Expr::lit("x")});
  scheme().strip_from(ins);
  EXPECT_EQ(ins, Statement::insert("t", {"k", "v"}, {Expr::lit(3), Expr::lit(30)}));
  Statement upd = Statement::update("t", {{"v", Expr::lit(1)}, {"h2", Expr::lit("y")}});
  scheme().strip_from(upd);
  EXPECT_EQ(upd, Statement::update("t", {{"v", Expr::lit(1)}}));
  Statement sel = Statement::select("t");
  sel.order_by = {OrderItem{"v", false}, OrderItem{"h1", false}};
  scheme().strip_from(sel);
  ASSERT_EQ(sel.order_by.size(), 1u);
  EXPECT_EQ(sel.order_by[0].column, "v");
}

TEST(HiddenColumns, AResultWithoutThem) {
  Outcome o;
  o.columns = {"h1", "k", "h2", "v"};
  o.rows = {{1, 10, "0", 100}, {2, 20, "0,1", 200}};
  const Outcome v = scheme().visible(o);
  EXPECT_EQ(v.columns, (std::vector<std::string>{"k", "v"}));
  EXPECT_EQ(v.rows, (std::vector<Row>{{10, 100}, {20, 200}}));
}

// Each oracle that adds hidden columns strips exactly what it added: the case as it was generated comes back.
TEST(HiddenColumns, EveryOraclesStripUndoesItsPreparation) {
  TestCase c;
  c.schema = two_tables();
  const Expr k1 = Expr::binary(BinaryOp::Eq, Expr::col("k"), Expr::lit(1));
  c.transactions = {Transaction{IsolationLevel::Serializable, {Statement::select("t", k1), Statement::update("t", {{"v", Expr::lit(11)}}, k1)},
                                TxnEnd::Commit},
                    Transaction{IsolationLevel::Serializable, {Statement::insert("u", {"k", "v"}, {Expr::lit(8), Expr::lit(80)})},
                                TxnEnd::Rollback}};
  c.order = {0, 1, 0, 1, 0, 1};
  for (const char* name : {"adya", "troc", "sdg"}) {
    const Oracle& o = oracle(name);
    const TestCase prepared = o.prepare(c, *find_engine("postgresql"));
    EXPECT_NE(prepared.schema, c.schema) << name << " adds hidden columns";
    EXPECT_EQ(o.strip(prepared), c) << name;
  }
}

// SDG's tie-break on its row key in a derived table's ORDER BY is stripped too (strip() once left it there, and the
// plain case it gave was malformed: "column txp_pk is not in table t").
TEST(HiddenColumns, StripUndoesTheTieBreakOfADerivedTable) {
  TestCase c;
  c.schema = two_tables();
  c.transactions = {Transaction{IsolationLevel::Serializable,
                                {parse_statement("SELECT * FROM (SELECT * FROM t ORDER BY k, v LIMIT 1) AS d")},
                                TxnEnd::Commit}};
  c.order = {0, 0, 0};
  const Oracle& sdg = oracle("sdg");
  const TestCase prepared = sdg.prepare(c, *find_engine("postgresql"));
  ASSERT_EQ(prepared.transactions[0].statements.back().derived.at(0).order_by.back().column, "txp_pk");
  EXPECT_EQ(sdg.strip(prepared), c);
}

// t (k PRIMARY KEY, v) with UNIQUE t_u (v): t_u holds, with the primary key, every column of t.
Schema covered_table(bool primary_key = true) {
  Schema s = two_tables();
  s.tables.resize(1);
  if (!primary_key) s.tables[0].primary_key.clear();
  s.tables[0].indexes = {Index{"t_u", primary_key ? std::vector<std::string>{"v"} : std::vector<std::string>{"k", "v"},
                               true}};
  return s;
}

// Whether some secondary index of `t` holds, with its primary key, every column of `t`.
bool covered(const Table& t) {
  return std::any_of(t.indexes.begin(), t.indexes.end(), [&](const Index& i) {
    return std::all_of(t.columns.begin(), t.columns.end(), [&](const Column& c) {
      const auto in = [&](const std::vector<std::string>& cols) {
        return std::find(cols.begin(), cols.end(), c.name) != cols.end();
      };
      return in(i.columns) || in(t.primary_key);
    });
  });
}

// The twin: the index's columns, the primary key's, the hidden ones; not unique (the original keeps the constraint).
TEST(HiddenColumns, ACoveringIndexGetsACoveringTwinThatStripRemoves) {
  Schema s = covered_table();
  scheme().add_to(s, [](std::int64_t n) { return Row{Value(n), Value("0")}; }, true);
  const Table& t = s.tables[0];
  ASSERT_EQ(t.indexes.size(), 2u);
  EXPECT_EQ(t.indexes[0], covered_table().tables[0].indexes[0]) << "the index itself, unique, is kept";
  EXPECT_EQ(t.indexes[1], (Index{"txp_t_u", {"v", "k", "h1", "h2"}, false}));
  EXPECT_TRUE(covered(t)) << "the widened table is still covered";
  scheme().strip_from(s);
  EXPECT_EQ(s, covered_table());
  Schema plain = covered_table();
  scheme().add_to(plain, [](std::int64_t n) { return Row{Value(n), Value("0")}; });
  EXPECT_FALSE(covered(plain.tables[0])) << "without the twin the hidden columns uncover it";
  Schema keyless = covered_table(false);
  scheme().add_to(keyless, [](std::int64_t n) { return Row{Value(n), Value("0")}; }, true);
  EXPECT_EQ(keyless.tables[0].indexes.size(), 1u) << "no twin without a primary key to order equal values";
}

// T1 updates t while T0 reads it with a locking read (`lock`, at `level`, WHERE `where`): a current read of a covered
// table while another transaction writes it.
TestCase locking_read_beside_a_write(bool primary_key, LockMode lock = LockMode::Update,
                                     IsolationLevel level = IsolationLevel::ReadCommitted,
                                     std::optional<Expr> where = std::nullopt) {
  TestCase c;
  c.schema = covered_table(primary_key);
  Statement read = Statement::select("t", std::move(where));
  read.lock = lock;
  c.transactions = {Transaction{level, {read}, TxnEnd::Commit},
                    Transaction{level, {Statement::update("t", {{"v", Expr::lit(5)}})}, TxnEnd::Commit}};
  c.order = {0, 1, 0, 1, 0, 1};
  return c;
}

// On InnoDB every oracle that adds hidden columns keeps the covering index covering, so the case is judged; without a
// primary key there is no twin and the refusal stays. PostgreSQL's writes read the snapshot: no twin, no refusal.
TEST(HiddenColumns, EveryOracleKeepsACoveredTableCoveredOnInnodb) {
  const EngineProfile& mariadb = *find_engine("mariadb");
  const TestCase c = locking_read_beside_a_write(true);
  EXPECT_NE(covering_index_read_concurrently(c, mariadb.capabilities()), "");
  EXPECT_EQ(hidden_columns_uncover_an_index(c, mariadb.capabilities()), "");
  EXPECT_NE(hidden_columns_uncover_an_index(locking_read_beside_a_write(false), mariadb.capabilities()), "");
  for (const char* name : {"adya", "adyaclaimed", "troc", "sdg"}) {
    const Oracle& o = oracle(name);
    EXPECT_EQ(o.cannot_judge(c, mariadb), "") << name;
    EXPECT_NE(o.cannot_judge(locking_read_beside_a_write(false), mariadb).find("covers t"), std::string::npos) << name;
    const TestCase prepared = o.prepare(c, mariadb);
    ASSERT_FALSE(prepared.schema.tables.empty()) << name;
    EXPECT_TRUE(covered(prepared.schema.tables[0])) << name;
    EXPECT_EQ(o.strip(prepared), c) << name;
    const TestCase on_postgresql = o.prepare(c, *find_engine("postgresql"));
    EXPECT_EQ(on_postgresql.schema.tables[0].indexes, c.schema.tables[0].indexes) << name;
  }
}

// Where the twin would still change what InnoDB locks, the refusal stays, with why: a shared-locking read (it locks the
// twin's records where the plain one locked the unique index's), and at REPEATABLE READ an exclusive locking read
// whose WHERE names the unique index's column (the twin is not unique: gap locks a unique lookup does not take).
TEST(HiddenColumns, TheRefusalStaysWhereTheTwinChangesTheLocks) {
  const EngineCapabilities innodb = find_engine("mariadb")->capabilities();
  const auto refusal = [&](LockMode lock, IsolationLevel level, std::optional<Expr> where) {
    return hidden_columns_uncover_an_index(locking_read_beside_a_write(true, lock, level, std::move(where)), innodb);
  };
  const Expr on_v = Expr::binary(BinaryOp::Eq, Expr::col("v"), Expr::lit(5));
  const Expr on_k = Expr::binary(BinaryOp::Eq, Expr::col("k"), Expr::lit(1));
  EXPECT_NE(refusal(LockMode::Share, IsolationLevel::ReadCommitted, std::nullopt).find("shared-locking read"),
            std::string::npos);
  EXPECT_NE(refusal(LockMode::None, IsolationLevel::Serializable, std::nullopt).find("shared-locking read"),
            std::string::npos)
      << "a plain read at SERIALIZABLE takes shared locks";
  EXPECT_NE(refusal(LockMode::Update, IsolationLevel::RepeatableRead, on_v).find("locks gaps"), std::string::npos);
  EXPECT_EQ(refusal(LockMode::Update, IsolationLevel::ReadCommitted, on_v), "") << "no gap locks below REPEATABLE READ";
  EXPECT_EQ(refusal(LockMode::Update, IsolationLevel::RepeatableRead, on_k), "") << "k is no column of t_u";
  EXPECT_EQ(refusal(LockMode::None, IsolationLevel::RepeatableRead, on_v), "") << "a consistent read locks nothing";
}

// Where the other transactions only insert into the covered table, a shared-locking read of it meets on the twin the
// locks it meets on the index (hidden_columns.cpp, twin_changes, with the hand checks): judged. Any other write of the
// table by another transaction (an UPDATE, an upsert, an INSERT with a subquery), an exclusive locking read of it, or,
// at a gap-lock level, a read that names the unique index's column (gaps a unique lookup does not lock) keeps the
// refusal.
TEST(HiddenColumns, ASharedLockingReadBesideInsertsOnlyIsJudged) {
  const EngineCapabilities innodb = find_engine("mariadb")->capabilities();
  const auto refusal = [&](LockMode lock, IsolationLevel level, std::optional<Expr> where,
                           std::vector<Statement> others) {
    TestCase c;
    c.schema = covered_table();
    Statement read = Statement::select("t", std::move(where));
    read.lock = lock;
    c.transactions = {Transaction{level, {read}, TxnEnd::Commit}, Transaction{level, std::move(others), TxnEnd::Commit}};
    c.order = {0, 1, 0, 1, 0, 1};
    for (std::size_t i = 1; i < c.transactions[1].statements.size(); ++i) c.order.push_back(1);
    return hidden_columns_uncover_an_index(c, innodb);
  };
  const Statement insert = Statement::insert("t", {"k", "v"}, {Expr::lit(3), Expr::lit(30)});
  Statement upsert = insert;
  upsert.upsert = Upsert::Ignore;
  Statement insert_select = Statement::insert(
      "t", {"k", "v"}, {Expr::lit(3), Expr::subquery(Aggregate::Max, "t", "v", std::nullopt)});
  Statement for_update = Statement::select("t");
  for_update.lock = LockMode::Update;
  const Expr on_v = Expr::binary(BinaryOp::Eq, Expr::col("v"), Expr::lit(10));
  const Expr on_k = Expr::binary(BinaryOp::Lt, Expr::col("k"), Expr::lit(2));
  for (IsolationLevel level : {IsolationLevel::ReadUncommitted, IsolationLevel::ReadCommitted}) {
    EXPECT_EQ(refusal(LockMode::Share, level, on_v, {insert}), "") << sql_name(level);
    EXPECT_NE(refusal(LockMode::Share, level, on_v, {upsert}).find("shared-locking read"), std::string::npos);
    EXPECT_NE(refusal(LockMode::Share, level, on_v, {insert_select}).find("shared-locking read"), std::string::npos);
    EXPECT_NE(refusal(LockMode::Share, level, on_v, {for_update, insert}).find("shared-locking read"),
              std::string::npos);
  }
  EXPECT_EQ(refusal(LockMode::Share, IsolationLevel::RepeatableRead, on_k, {insert}), "");
  EXPECT_EQ(refusal(LockMode::None, IsolationLevel::Serializable, std::nullopt, {insert, insert}), "")
      << "a plain read at SERIALIZABLE of every row";
  EXPECT_NE(refusal(LockMode::Share, IsolationLevel::RepeatableRead, on_v, {insert}).find("locks gaps"),
            std::string::npos);
  EXPECT_NE(refusal(LockMode::None, IsolationLevel::Serializable, on_v, {insert}).find("locks gaps"),
            std::string::npos);
  EXPECT_NE(refusal(LockMode::Share, IsolationLevel::RepeatableRead, on_k,
                    {Statement::update("t", {{"v", Expr::lit(5)}})})
                .find("shared-locking read"),
            std::string::npos);
}

// A single-table UPDATE reads the other tables its subqueries name with a consistent read below REPEATABLE READ
// (capabilities.hpp, update_reads_other_tables_consistently): no lock, the same rows whichever index it scans, so the
// twin changes nothing there. A DELETE with the same subquery, and the UPDATE at REPEATABLE READ, read them with
// shared locks: the refusal stays.
TEST(HiddenColumns, AnUpdatesConsistentReadOfAnotherTableIsNoCurrentRead) {
  const EngineCapabilities innodb = find_engine("mariadb")->capabilities();
  const auto refusal = [&](StatementKind kind, IsolationLevel level) {
    TestCase c;
    c.schema = covered_table();
    Table u = c.schema.tables[0];
    u.name = "u";
    u.indexes.clear();
    c.schema.tables.push_back(u);
    const Expr min_v = Expr::subquery(Aggregate::Min, "t", "v", std::nullopt);
    Statement reader = kind == StatementKind::Update
                           ? Statement::update("u", {{"v", min_v}})
                           : Statement::delete_("u", Expr::binary(BinaryOp::Eq, Expr::col("v"), min_v));
    c.transactions = {Transaction{level, {reader}, TxnEnd::Commit},
                      Transaction{level, {Statement::update("t", {{"v", Expr::lit(5)}})}, TxnEnd::Commit}};
    c.order = {0, 1, 0, 1, 0, 1};
    return hidden_columns_uncover_an_index(c, innodb);
  };
  for (IsolationLevel level : {IsolationLevel::ReadUncommitted, IsolationLevel::ReadCommitted}) {
    EXPECT_EQ(refusal(StatementKind::Update, level), "") << sql_name(level);
    EXPECT_NE(refusal(StatementKind::Delete, level).find("shared-locking read"), std::string::npos) << sql_name(level);
  }
  EXPECT_NE(refusal(StatementKind::Update, IsolationLevel::RepeatableRead).find("shared-locking read"),
            std::string::npos);
}

}  // namespace
