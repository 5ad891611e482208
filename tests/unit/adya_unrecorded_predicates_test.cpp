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

// What T1 does to t besides changing u's row.
enum class T1Does {
  DeletesTheMatchingRow,  // deletes (2, 7): T0's DELETE ... WHERE v = 7 then finds nothing (issue 21 item 2 b)
  UpdatesTheRowT0Deletes, // sets (2, 7) to (2, 8), which T0's DELETE ... WHERE v = 8 then deletes: both wrote it
  InsertsANonMatchingRow, // inserts (3, 5), which T0's DELETE ... WHERE v = 7 does not match either way
};

// A G-single through a DELETE's predicate (with DeletesTheMatchingRow): T0 reads u's row (row id 3) in its snapshot;
// T1 changes that row, deletes t's row (2, 7) (row id 2) and commits; T0's DELETE FROM t WHERE v = 7 then reads t's
// latest committed rows and finds nothing to delete (T1 -wr-> T0 through the predicate: T1's delete changed its
// matches), and T0 commits. T0 -rw-> T1 through u is an item edge.
// `others`: transactions run after T0 and T1, before the observer (their results left as planted: none).
History delete_predicate_g_single(IsolationLevel level, T1Does does = T1Does::DeletesTheMatchingRow,
                                  std::optional<Expr> where = std::nullopt, const std::vector<Transaction>& others = {}) {
  TestCase c;
  Table t = one_row_table("t");
  t.rows.push_back({2, 7});
  c.schema.tables = {t, one_row_table("u")};
  Statement t1_write = Statement::delete_("t", eq("k", 2));
  if (does == T1Does::UpdatesTheRowT0Deletes) t1_write = Statement::update("t", {{"v", Expr::lit(8), {}}}, eq("k", 2));
  if (does == T1Does::InsertsANonMatchingRow) t1_write = Statement::insert("t", {"k", "v"}, {Expr::lit(3), Expr::lit(5)});
  const int deleted_value = does == T1Does::UpdatesTheRowT0Deletes ? 8 : 7;
  c.transactions = {
      Transaction{level, {Statement::select("u", eq("k", 1)), Statement::delete_("t", where ? *where : eq("v", deleted_value))},
                  TxnEnd::Commit},
      Transaction{level, {Statement::update("u", {{"v", Expr::lit(1), {}}}, eq("k", 1)), t1_write}, TxnEnd::Commit}};
  c.order = {0, 0, 1, 1, 1, 1, 0, 0};
  for (const Transaction& other : others) {
    c.order.insert(c.order.end(), other.step_count(), static_cast<int>(c.transactions.size()));
    c.transactions.push_back(other);
  }
  adya::InstrumentationOptions o{.engine = find_engine("mariadb")->capabilities()};
  o.version_sets = false;  // none is planted
  PlantedHistory p(c, o);
  p.at(0, 1).columns = kTableColumns;
  p.at(0, 1).rows = {{1, 0, 3, "0"}};
  p.at(1, 1).affected = 1;
  p.at(1, 2).affected = 1;
  std::vector<Row> t_rows = {{1, 0, 1, "0"}};
  p.at(0, 2).columns = kReturning;
  if (does == T1Does::DeletesTheMatchingRow) {
    p.at(1, 2).columns = kReturning;
    p.at(1, 2).rows = {{2, "0", 2, 7}};
  }
  if (does == T1Does::UpdatesTheRowT0Deletes) p.at(0, 2).rows = {{2, "0,2", 2, 8}};
  if (does == T1Does::InsertsANonMatchingRow) t_rows = {{1, 0, 1, "0"}, {2, 7, 2, "0"}, {3, 5, 1'000'000, "2"}};
  p.at(0, 2).affected = static_cast<std::int64_t>(p.at(0, 2).rows.size());
  p.observed(0, t_rows);
  p.observed(1, {{1, 1, 3, "0,2"}});
  p.h.final_state["t"] = t_rows;
  p.h.final_state["u"] = {{1, 1, 3, "0,2"}};
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
  EXPECT_NE(why.find("T1 (row 2)"), std::string::npos) << why;
}

TEST(AdyaUnrecordedPredicates, RowsBothWroteLeaveNothingUnrecorded) {
  EXPECT_EQ(adya::unrecorded_predicate(delete_predicate_g_single(IsolationLevel::RepeatableRead, T1Does::UpdatesTheRowT0Deletes),
                                             capabilities_of("mariadb"), rechecks),
            "");
}

TEST(AdyaUnrecordedPredicates, AVersionThatChangesNoMatchLeavesNothingUnrecorded) {
  // Adya's thesis 3.1.3: a predicate dependency is through a version that changes the matches; (3, 5) matches v = 7
  // neither before its insert nor after.
  EXPECT_EQ(adya::unrecorded_predicate(delete_predicate_g_single(IsolationLevel::RepeatableRead, T1Does::InsertsANonMatchingRow),
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

TEST(AdyaUnrecordedPredicates, AnInnodbDeleteOnTheLatestCommittedRowsIsJudgedFromTheCommitOrder) {
  // The DELETE read row 2 after T1's delete of it had committed (T1 ended before it was sent): the writer lists and the
  // commit order give the version it read (current_read_versions.hpp), so T1 -wr-> T0 through its predicate is drawn
  // and the G-single is reported (before: no verdict, "reads its WHERE on the latest committed rows").
  auto target = Target::open_judged_as(parse_target_uri("sqlite:"), parse_target_uri("mariadb://u@127.0.0.1:1/x"));
  const Verdict v = check_adya(*target, delete_predicate_g_single(IsolationLevel::RepeatableRead), AdyaMode::Documented);
  EXPECT_FALSE(v.inconclusive) << v.note;
  EXPECT_TRUE(has_kind(v, "read-skew")) << v.explain();
  EXPECT_NE(v.explain().find("T1 -wr-> T0 (predicate)"), std::string::npos) << v.explain();
  // Where both transactions wrote the row, the item edges are all there is: judged (a lost-update-free history: ok).
  const Verdict judged = check_adya(
      *target, delete_predicate_g_single(IsolationLevel::RepeatableRead, T1Does::UpdatesTheRowT0Deletes),
      AdyaMode::Documented);
  EXPECT_FALSE(judged.inconclusive) << judged.note;
}

TEST(AdyaUnrecordedPredicates, AdyaGivesNoVerdictWhereItWouldSayOk) {
  // The same history with a WHERE txprop does not evaluate (a subquery): which versions match is unknown, so the version
  // read does not determine the dependencies, and Adya says it cannot judge instead of "ok".
  auto target = Target::open_judged_as(parse_target_uri("sqlite:"), parse_target_uri("mariadb://u@127.0.0.1:1/x"));
  const Expr where = Expr::binary(BinaryOp::And, eq("v", 7), Expr::exists("u", eq("k", 1)));
  const Verdict v = check_adya(
      *target, delete_predicate_g_single(IsolationLevel::RepeatableRead, T1Does::DeletesTheMatchingRow, where),
      AdyaMode::Documented);
  EXPECT_TRUE(v.inconclusive) << v.explain();
  EXPECT_NE(v.note.find("would not be recorded"), std::string::npos) << v.note;
}

TEST(AdyaUnrecordedPredicates, DeletesThatDeletedNothingForGoodLeaveNoRowUnaccountedFor) {
  // T2's DELETE found its WHERE impossible and MariaDB answered with no result set (no columns, 0 rows affected), and
  // T3's joined DELETE (which returns nothing on InnoDB) rolled back with its transaction: neither removed a row the
  // final state does not show, so the writers of t's rows are known and the history is judged as without them.
  Statement joined = Statement::delete_("t", eq("k", 1));
  joined.joins.push_back(Join{false, "u", Expr::binary(BinaryOp::Eq, Expr::qcol("t", "k"), Expr::qcol("u", "k"))});
  const std::vector<Transaction> others = {
      Transaction{IsolationLevel::RepeatableRead, {Statement::delete_("t", Expr::is_null(Expr::col("k")))},
                  TxnEnd::Commit},
      Transaction{IsolationLevel::RepeatableRead, {joined}, TxnEnd::Rollback}};
  History h = delete_predicate_g_single(IsolationLevel::RepeatableRead, T1Does::InsertsANonMatchingRow, std::nullopt,
                                        others);
  h.outcomes[2][1].affected = 0;
  h.outcomes[3][1].affected = 1;
  h.transactions[3].fate = TxnFate::RolledBack;
  EXPECT_EQ(adya::unrecorded_predicate(h, capabilities_of("mariadb"), rechecks), "");
  // Committed, the joined DELETE removed a row whose writers nothing shows: no verdict, as before.
  h.transactions[3].fate = TxnFate::Committed;
  EXPECT_NE(adya::unrecorded_predicate(h, capabilities_of("mariadb"), rechecks).find("a joined DELETE"),
            std::string::npos);
}

namespace {

// MariaDB REPEATABLE READ: T1 sets t's row (2, 7) (row id 2) to (2, 8) and commits; then T0's DELETE FROM t WHERE
// <where> deletes nothing. `where` holds a subquery txprop does not evaluate.
History delete_with_a_subquery_after_an_update(const Expr& where) {
  TestCase c;
  Table t = one_row_table("t");
  t.rows.push_back({2, 7});
  c.schema.tables = {t, one_row_table("u")};
  c.transactions = {
      Transaction{IsolationLevel::RepeatableRead, {Statement::delete_("t", where)}, TxnEnd::Commit},
      Transaction{IsolationLevel::RepeatableRead, {Statement::update("t", {{"v", Expr::lit(8), {}}}, eq("k", 2))},
                  TxnEnd::Commit}};
  c.order = {1, 1, 1, 0, 0, 0};
  PlantedHistory p(c, adya::InstrumentationOptions{.engine = find_engine("mariadb")->capabilities()});
  p.at(1, 1).affected = 1;
  p.at(0, 1).columns = kReturning;
  p.at(0, 1).affected = 0;
  const std::vector<Row> t_rows = {{1, 0, 1, "0"}, {2, 8, 2, "0,2"}};
  p.observed(0, t_rows);
  p.observed(1, {{1, 0, 3, "0"}});
  p.h.final_state["t"] = t_rows;
  p.h.final_state["u"] = {{1, 0, 3, "0"}};
  return p.h;
}

}  // namespace

TEST(AdyaUnrecordedPredicates, ARowChangedOnlyInColumnsTheWhereDoesNotNameLeavesNothingUnrecorded) {
  // WHERE k = 2 AND EXISTS (SELECT 1 FROM u WHERE k = 1): txprop cannot evaluate it, but it names k alone, which T1 did
  // not set: every version of row 2 matches alike, so no predicate dependency goes through it (thesis 3.1.3).
  const Expr in_u = Expr::exists("u", eq("k", 1));
  const Expr on_k = Expr::binary(BinaryOp::And, eq("k", 2), in_u);
  EXPECT_EQ(adya::unrecorded_predicate(delete_with_a_subquery_after_an_update(on_k), capabilities_of("mariadb"),
                                       rechecks),
            "");
  // WHERE v > 5 AND EXISTS (...) names v, which T1 set: the versions may match differently.
  const Expr on_v = Expr::binary(BinaryOp::And, Expr::binary(BinaryOp::Gt, Expr::col("v"), Expr::lit(5)), in_u);
  const std::string why = adya::unrecorded_predicate(delete_with_a_subquery_after_an_update(on_v),
                                                     capabilities_of("mariadb"), rechecks);
  EXPECT_NE(why.find("T1 (row 2)"), std::string::npos) << why;
}
