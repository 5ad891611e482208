// Issue 21 item 2 (a, b): InnoDB's UPDATE and DELETE evaluate their WHERE on the latest committed rows, which no plain
// read before them sees, and a locking read would take other locks; so their predicate reads are not recorded, and
// Adya gives no verdict where a predicate dependency between two committed transactions could hide (never "ok").
// Planted histories, judged as MariaDB without a server (Target::open_judged_as).
#include <gtest/gtest.h>

#include "../../properties/adya/unrecorded_predicates.hpp"
#include "txprop/adya.hpp"
#include "txprop/engine.hpp"
#include "txprop/target.hpp"
#include "txprop/target_config.hpp"
#include "tests/support/adya_planted_history.hpp"

using namespace txprop;
using namespace txprop::test;

namespace {

Expr eq(const char* column, int value) { return Expr::binary(BinaryOp::Eq, Expr::col(column), Expr::lit(value)); }

// A G-single through a DELETE's predicate: T0 reads u's row (row id 2) in its snapshot; T1 changes that row and
// inserts (2, 5) into t, and commits; T0's DELETE FROM t WHERE v = 7 then reads t's latest committed rows, T1's among
// them (T1 -wr-> T0 through the predicate), and deletes nothing; T0 commits. T0 -rw-> T1 through u is an item edge.
// With `t0_deletes_t1s_row` the DELETE's WHERE is v = 5 and it deletes T1's row: both wrote it, so the dependency
// between them is an item one (T1 -ww-> T0) and nothing is missing.
History delete_predicate_g_single(IsolationLevel level, bool t0_deletes_t1s_row = false) {
  TestCase c;
  c.schema.tables = {one_row_table("t"), one_row_table("u")};
  c.transactions = {
      Transaction{level, {Statement::select("u", eq("k", 1)), Statement::delete_("t", eq("v", t0_deletes_t1s_row ? 5 : 7))},
                  TxnEnd::Commit},
      Transaction{level, {Statement::update("u", {{"v", Expr::lit(1), {}}}, eq("k", 1)),
                          Statement::insert("t", {"k", "v"}, {Expr::lit(2), Expr::lit(5)})},
                  TxnEnd::Commit}};
  c.order = {0, 0, 1, 1, 1, 1, 0, 0};
  adya::InstrumentationOptions o = adya::instrumentation_options(find_engine("mariadb")->capabilities());
  o.version_sets = false;  // none is planted
  PlantedHistory p(c, o);
  p.at(0, 1).columns = kTableColumns;
  p.at(0, 1).rows = {{1, 0, 2, "0"}};
  p.at(1, 1).affected = 1;
  p.at(1, 2).affected = 1;
  p.at(0, 2).columns = kReturning;
  if (t0_deletes_t1s_row) p.at(0, 2).rows = {{1'000'000, "2", 2, 5}};
  p.at(0, 2).affected = static_cast<std::int64_t>(p.at(0, 2).rows.size());
  std::vector<Row> t_rows = {{1, 0, 1, "0"}};
  if (!t0_deletes_t1s_row) t_rows.push_back({2, 5, 1'000'000, "2"});
  p.observed(0, t_rows);
  p.observed(1, {{1, 1, 2, "0,2"}});
  p.h.final_state["t"] = t_rows;
  p.h.final_state["u"] = {{1, 1, 2, "0,2"}};
  return p.h;
}

EngineCapabilities capabilities_of(const char* engine) { return find_engine(engine)->capabilities(); }

// PostgreSQL READ COMMITTED's rule (its profile's statement snapshot): a write that waited re-reads its WHERE.
bool rechecks(IsolationLevel level) { return level == IsolationLevel::ReadCommitted; }

}  // namespace

TEST(AdyaUnrecordedPredicates, AnInnodbDeleteBesideAnotherWriterOfItsTableIsNamed) {
  const std::string why =
      adya::unrecorded_predicate(delete_predicate_g_single(IsolationLevel::RepeatableRead),
                                 capabilities_of("mariadb"), rechecks);
  EXPECT_NE(why.find("T0's DELETE FROM t WHERE v = 7"), std::string::npos) << why;
  EXPECT_NE(why.find("T1 (row 1000000)"), std::string::npos) << why;
}

TEST(AdyaUnrecordedPredicates, RowsBothWroteLeaveNothingUnrecorded) {
  EXPECT_EQ(adya::unrecorded_predicate(delete_predicate_g_single(IsolationLevel::RepeatableRead, true),
                                             capabilities_of("mariadb"), rechecks),
            "");
}

TEST(AdyaUnrecordedPredicates, WritesThatReadTheirSnapshotAreRecorded) {
  // PostgreSQL and SQLite: a version-set read right before the write sees what its WHERE reads.
  EXPECT_EQ(adya::unrecorded_predicate(delete_predicate_g_single(IsolationLevel::RepeatableRead),
                                             capabilities_of("postgresql"), rechecks),
            "");
  EXPECT_EQ(adya::unrecorded_predicate(delete_predicate_g_single(IsolationLevel::Serializable),
                                             capabilities_of("sqlite"), rechecks),
            "");
}

TEST(AdyaUnrecordedPredicates, AWriteThatWaitedAndReadItsWhereAgainIsNamed) {
  // PostgreSQL READ COMMITTED: the DELETE waited for T1's lock and re-checked the latest version (issue 21 item 2 c).
  History h = delete_predicate_g_single(IsolationLevel::ReadCommitted);
  h.was_blocked[0][2] = true;
  const std::string why = adya::unrecorded_predicate(h, capabilities_of("postgresql"), rechecks);
  EXPECT_NE(why.find("waited for a lock"), std::string::npos) << why;
  EXPECT_EQ(adya::unrecorded_predicate(delete_predicate_g_single(IsolationLevel::ReadCommitted),
                                       capabilities_of("postgresql"), rechecks),
            "");
}

TEST(AdyaUnrecordedPredicates, AdyaGivesNoVerdictWhereItWouldSayOk) {
  auto target = Target::open_judged_as(parse_target_uri("sqlite:"), parse_target_uri("mariadb://u@127.0.0.1:1/x"));
  const Verdict v = check_adya(*target, delete_predicate_g_single(IsolationLevel::RepeatableRead), AdyaMode::Documented);
  EXPECT_TRUE(v.inconclusive) << v.explain();
  EXPECT_NE(v.note.find("would not be recorded"), std::string::npos) << v.note;
  // Where both transactions wrote the row, the item edges are all there is: judged (a lost-update-free history: ok).
  const Verdict judged = check_adya(*target, delete_predicate_g_single(IsolationLevel::RepeatableRead, true), AdyaMode::Documented);
  EXPECT_FALSE(judged.inconclusive) << judged.note;
}
