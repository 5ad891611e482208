// IsoRel instrumentation as a model transform: what it adds, and that stripping it gives back the generated case.
#include <gtest/gtest.h>

#include "txprop/generators.hpp"
#include "txprop/adya_instrumentation.hpp"
#include "txprop/sql.hpp"

using namespace txprop;

namespace {
TestCase small_case() {
  Table t;
  t.name = "t";
  t.columns = {{"k", ColumnType::Integer, true}, {"v", ColumnType::Integer, false}};
  t.primary_key = {"k"};
  t.rows = {{1, 10}, {2, 20}};
  TestCase c;
  c.schema.tables = {t};
  const Expr k1 = Expr::binary(BinaryOp::Eq, Expr::col("k"), Expr::lit(1));
  c.transactions = {
      Transaction{IsolationLevel::RepeatableRead,
                  {Statement::select("t", k1), Statement::update("t", {{"v", Expr::lit(11)}}, k1)}, TxnEnd::Commit},
      Transaction{IsolationLevel::RepeatableRead,
                  {Statement::insert("t", {"k", "v"}, {Expr::lit(3), Expr::lit(30)}), Statement::delete_("t", k1)},
                  TxnEnd::Rollback}};
  c.order = {0, 1, 0, 1, 0, 1, 0, 1};
  return c;
}
}  // namespace

TEST(Instrumentation, AddsRowIdsWriterListsAndAnObserver) {
  const TestCase c = adya::instrument(small_case(), adya::InstrumentationOptions{.engine = find_engine("postgresql")->capabilities()});
  ASSERT_EQ(c.validate(), "");
  EXPECT_TRUE(adya::is_instrumented(c));
  const Table& t = c.schema.tables[0];
  EXPECT_EQ(t.column_names(), (std::vector<std::string>{"k", "v", "txp_rid", "txp_wl"}));
  EXPECT_EQ(t.rows[0], (Row{1, 10, 1, "0"}));
  EXPECT_EQ(t.rows[1], (Row{2, 20, 2, "0"}));
  // Each predicate read is preceded by a version-set read of its table in the same transaction (the next step).
  const auto& t0 = c.transactions[0].statements;
  ASSERT_EQ(t0.size(), 4u);
  EXPECT_TRUE(adya::is_version_set_read(t0[0]));
  EXPECT_EQ(render(t0[0], Dialect::PostgreSql), "SELECT \"txp_rid\", \"txp_wl\", \"k\", \"v\" FROM \"t\"");
  EXPECT_TRUE(adya::is_version_set_read(t0[2]));
  EXPECT_EQ(render(t0[3], Dialect::PostgreSql),
            "UPDATE \"t\" SET \"v\" = 11, \"txp_wl\" = \"txp_wl\" || ',1' WHERE \"k\" = 1 RETURNING \"txp_rid\", "
            "\"txp_wl\", \"k\", \"v\"");
  const auto& t1 = c.transactions[1].statements;
  ASSERT_EQ(t1.size(), 3u);
  EXPECT_EQ(render(t1[0], Dialect::MySql),
            "INSERT INTO `t` (`k`, `v`, `txp_rid`, `txp_wl`) VALUES (3, 30, 1000000, '2')");
  EXPECT_TRUE(adya::is_version_set_read(t1[1]));
  EXPECT_EQ(render(t1[2], Dialect::Sqlite),
            "DELETE FROM \"t\" WHERE \"k\" = 1 RETURNING \"txp_rid\", \"txp_wl\", \"k\", \"v\"");
  // The order: BEGIN, the version-set read right before each predicate read.
  EXPECT_EQ(c.order, (std::vector<int>{0, 1, 0, 0, 1, 0, 0, 1, 1, 0, 1, 2, 2, 2}));
  // The observer reads every table after everything else.
  ASSERT_EQ(c.transactions.size(), 3u);
  EXPECT_EQ(c.transactions[2].statements.size(), 1u);
  EXPECT_EQ(c.order.back(), 2);
  // MariaDB has no UPDATE ... RETURNING.
  const TestCase m = adya::instrument(small_case(), adya::InstrumentationOptions{.engine = find_engine("mariadb")->capabilities()});
  // Its UPDATE and DELETE read the latest committed versions, not the snapshot: no version-set read before them.
  ASSERT_EQ(m.transactions[0].statements.size(), 3u);
  EXPECT_TRUE(m.transactions[0].statements[2].returning.empty());
  // InnoDB leaves a row the UPDATE sets to its own values unwritten (MDEV-26642): the writer list grows only where a
  // value changes, compared first, before MariaDB's left-to-right assignments change it (issue 21 item 1).
  EXPECT_EQ(render(m.transactions[0].statements[2], Dialect::MySql),
            "UPDATE `t` SET `txp_wl` = CASE WHEN NOT (`v` <=> 11) THEN CONCAT(`txp_wl`, ',1') ELSE `txp_wl` END, "
            "`v` = 11 WHERE `k` = 1");
  // At SERIALIZABLE its plain reads lock: no version-set reads at all.
  TestCase ser = small_case();
  for (Transaction& t : ser.transactions) t.isolation = IsolationLevel::Serializable;
  const TestCase ms = adya::instrument(ser, adya::InstrumentationOptions{.engine = find_engine("mariadb")->capabilities()});
  EXPECT_EQ(ms.transactions[0].statements.size(), 2u);
  EXPECT_EQ(ms.order.size(), ser.order.size() + 3);  // the observer's BEGIN, SELECT, COMMIT
}

TEST(Instrumentation, StrippingGivesBackTheGeneratedCase) {
  EXPECT_EQ(adya::strip_instrumentation(adya::instrument(small_case(), {})), small_case());
  gen::Options o;
  rc::Random random(99);
  const auto g = gen::test_case(o);
  for (int i = 0; i < 300; ++i) {
    const TestCase c = g(random.split(), 60).value();
    const TestCase instrumented = adya::instrument(c, adya::InstrumentationOptions{.engine = find_engine("sqlite")->capabilities()});
    ASSERT_EQ(instrumented.validate(), "") << instrumented;
    ASSERT_EQ(adya::strip_instrumentation(instrumented), c) << c;
  }
}

TEST(Instrumentation, ParsesWriterLists) {
  EXPECT_EQ(adya::parse_writer_list("0"), (std::vector<std::uint32_t>{0}));
  EXPECT_EQ(adya::parse_writer_list("0,12,3"), (std::vector<std::uint32_t>{0, 12, 3}));
  for (const char* bad : {"", ",", "0,", ",1", "0,,1", "a", "1 2", "99999999999"})
    EXPECT_FALSE(adya::parse_writer_list(bad)) << bad;
}
