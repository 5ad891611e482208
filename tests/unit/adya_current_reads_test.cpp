// Issue 21 item 1: below InnoDB's REPEATABLE READ a plain read right before an UPDATE, DELETE or locking read sees
// what that statement's current read reads unless it waits (EngineCapabilities::current_reads_as_plain_read), so the
// Adya instrumentation records its version set there; a statement that waited stays unrecorded. An UPDATE that
// returns no rows (MariaDB 10.11) is checked by its matched-row count instead. Planted histories judged as MariaDB
// without a server (Target::open_judged_as).
#include <gtest/gtest.h>

#include "../../properties/adya/unrecorded_predicates.hpp"
#include "txprop/internal/test_hooks.hpp"
#include "txprop/adya.hpp"
#include "txprop/engine.hpp"
#include "txprop/target.hpp"
#include "txprop/target_config.hpp"
#include "tests/support/adya_planted_history.hpp"

using namespace txprop;
using namespace txprop::test;

namespace {

Expr eq(const char* column, int value) { return Expr::binary(BinaryOp::Eq, Expr::col(column), Expr::lit(value)); }

EngineCapabilities capabilities_of(const char* engine) { return find_engine(engine)->capabilities(); }

std::size_t version_set_reads(const TestCase& c) {
  std::size_t n = 0;
  for (const Transaction& t : c.transactions)
    for (const Statement& s : t.statements) n += adya::is_version_set_read(s);
  return n;
}

TestCase one_update_one_delete(IsolationLevel level) {
  TestCase c;
  c.schema.tables = {one_row_table("t")};
  c.transactions = {Transaction{level,
                                {Statement::update("t", {{"v", Expr::lit(1), {}}}, eq("k", 1)),
                                 Statement::delete_("t", eq("v", 1))},
                                TxnEnd::Commit}};
  c.order = {0, 0, 0, 0};
  return c;
}

// T0 reads u's row (row id 3); T1 changes it, deletes t's row (2, 7) (row id 2) and commits; then T0's
// UPDATE t SET v = 9 WHERE v = <where_v> reads t's latest committed rows, with a version-set read right before it, and
// T0 commits. With where_v = 7 the UPDATE's predicate read saw T1's delete, which changed its matches (T1 -wr-> T0),
// and T0 -rw-> T1 through u: a G-single. With where_v = 0 it matches and writes row 1, and no version of row 2 changes
// its matches: no cycle. `affected` is the UPDATE's matched-row count as the server gave it.
History update_after_delete(IsolationLevel level, int where_v, std::int64_t affected) {
  TestCase c;
  Table t = one_row_table("t");
  t.rows.push_back({2, 7});
  c.schema.tables = {t, one_row_table("u")};
  c.transactions = {
      Transaction{level, {Statement::select("u", eq("k", 1)), Statement::update("t", {{"v", Expr::lit(9), {}}}, eq("v", where_v))},
                  TxnEnd::Commit},
      Transaction{level, {Statement::update("u", {{"v", Expr::lit(1), {}}}, eq("k", 1)), Statement::delete_("t", eq("k", 2))},
                  TxnEnd::Commit}};
  c.order = {0, 0, 1, 1, 1, 1, 0, 0};
  PlantedHistory p(c, adya::InstrumentationOptions{.engine = capabilities_of("mariadb")});
  // Every statement has its version-set read right before it: T0's are steps 1 and 3, T1's too.
  p.at(0, 1).columns = p.at(1, 1).columns = p.at(0, 3).columns = p.at(1, 3).columns = kReturning;
  p.at(0, 1).rows = p.at(1, 1).rows = {{3, "0", 1, 0}};
  p.at(1, 3).rows = {{1, "0", 1, 0}, {2, "0", 2, 7}};
  p.at(0, 3).rows = {{1, "0", 1, 0}};
  p.at(0, 2).columns = kTableColumns;
  p.at(0, 2).rows = {{1, 0, 3, "0"}};
  p.at(1, 2).affected = 1;
  p.at(1, 4).columns = kReturning;
  p.at(1, 4).rows = {{2, "0", 2, 7}};
  p.at(1, 4).affected = 1;
  p.at(0, 4).affected = affected;
  const std::vector<Row> t_rows = where_v == 0 ? std::vector<Row>{{1, 9, 1, "0,1"}} : std::vector<Row>{{1, 0, 1, "0"}};
  p.observed(0, t_rows);
  p.observed(1, {{1, 1, 3, "0,2"}});
  p.h.final_state["t"] = t_rows;
  p.h.final_state["u"] = {{1, 1, 3, "0,2"}};
  return p.h;
}

std::unique_ptr<Target> judged_as_mariadb() {
  return Target::open_judged_as(parse_target_uri("sqlite:"), parse_target_uri("mariadb://u@127.0.0.1:1/x"));
}

bool rechecks(IsolationLevel) { return false; }  // MariaDB's profile: no statement snapshot at any level

}  // namespace

TEST(AdyaCurrentReads, VersionSetReadsBeforeInnodbWritesOnlyBelowRepeatableRead) {
  const auto with = [](const char* engine, IsolationLevel level) {
    return version_set_reads(adya::instrument(one_update_one_delete(level),
                                              adya::InstrumentationOptions{.engine = capabilities_of(engine)}));
  };
  EXPECT_EQ(with("mariadb", IsolationLevel::ReadCommitted), 2u);
  EXPECT_EQ(with("mariadb", IsolationLevel::ReadUncommitted), 2u);
  EXPECT_EQ(with("mariadb", IsolationLevel::Serializable), 0u);  // plain reads lock
  // At REPEATABLE READ a plain read would open the read view early; only the DELETE, whose WHERE names no indexed
  // column (it locks the whole table), gets a locking read of the whole table.
  EXPECT_EQ(with("mariadb", IsolationLevel::RepeatableRead), 1u);
  // A Galera node's appliers commit between the two: no version-set read there.
  EXPECT_EQ(with("galera", IsolationLevel::ReadCommitted), 0u);
}

TEST(AdyaCurrentReads, ALockingReadOfTheWholeTableOnlyBeforeAWriteThatLocksItAll) {
  const auto reads_before = [](Statement write) {
    TestCase c = one_update_one_delete(IsolationLevel::RepeatableRead);
    c.schema.tables.push_back(one_row_table("u"));
    c.transactions[0].statements = {std::move(write)};
    c.order = {0, 0, 0};
    const TestCase p = adya::instrument(c, adya::InstrumentationOptions{.engine = capabilities_of("mariadb")});
    std::vector<LockMode> out;
    for (const Statement& s : p.transactions[0].statements)
      if (adya::is_version_set_read(s)) out.push_back(s.lock);
    return out;
  };
  const std::vector<LockMode> locking = {LockMode::Update};
  EXPECT_EQ(reads_before(Statement::update("t", {{"v", Expr::lit(5), {}}}, eq("v", 0))), locking);
  EXPECT_EQ(reads_before(Statement::delete_("t", std::nullopt)), locking);
  // Setting the primary key, the UPDATE may stop at a duplicate key before it locks the records after it.
  EXPECT_TRUE(reads_before(Statement::update("t", {{"k", Expr::lit(5), {}}}, eq("v", 0))).empty());
  // The primary key may narrow the scan to a range: other locks than the whole table's.
  EXPECT_TRUE(reads_before(Statement::update("t", {{"v", Expr::lit(5), {}}}, eq("k", 1))).empty());
  // A subquery's shared locks would come after all of t's exclusive ones instead of row by row.
  EXPECT_TRUE(reads_before(Statement::delete_("t", Expr::exists("u", eq("v", 0)))).empty());
}

TEST(AdyaCurrentReads, AGSingleThroughAnUpdatesPredicateIsFoundAtReadCommitted) {
  const Verdict v = check_adya(*judged_as_mariadb(), update_after_delete(IsolationLevel::ReadCommitted, 7, 0),
                               AdyaMode::Documented);
  EXPECT_FALSE(v.inconclusive) << v.note;
  // The G-single is named as its pattern, a read skew (the anti-dependency on u's row, the predicate dependency on t).
  EXPECT_TRUE(has_kind(v, "read-skew")) << v.explain();
  EXPECT_NE(v.explain().find("T1 -wr-> T0 (predicate)"), std::string::npos) << v.explain();
  // The correct history: the UPDATE's WHERE matches no version T1 installed or removed.
  const Verdict ok = check_adya(*judged_as_mariadb(), update_after_delete(IsolationLevel::ReadCommitted, 0, 1),
                                AdyaMode::Documented);
  EXPECT_TRUE(ok.ok()) << ok.explain() << ok.note;
}

TEST(AdyaCurrentReads, AnUpdateWithoutReturningIsCheckedByItsMatchedRows) {
  const Verdict right = check_adya(*judged_as_mariadb(), update_after_delete(IsolationLevel::ReadCommitted, 0, 1),
                                   AdyaMode::Documented);
  EXPECT_NE(right.note.find("4 predicate reads with version sets, 0 without"), std::string::npos) << right.note;
  // A matched-row count that txprop's evaluation of the version set does not give: the read gets no edges.
  const Verdict wrong = check_adya(*judged_as_mariadb(), update_after_delete(IsolationLevel::ReadCommitted, 0, 2),
                                   AdyaMode::Documented);
  EXPECT_NE(wrong.note.find("3 predicate reads with version sets, 1 without"), std::string::npos) << wrong.note;
}

TEST(AdyaCurrentReads, AWriteThatWaitedBelowRepeatableReadIsUnrecorded) {
  History h = update_after_delete(IsolationLevel::ReadCommitted, 7, 0);
  EXPECT_EQ(adya::unrecorded_predicate(h, capabilities_of("mariadb"), rechecks), "");
  h.was_blocked[0][4] = true;  // T0's UPDATE waited: it read row versions committed after its version-set read
  const std::string why = adya::unrecorded_predicate(h, capabilities_of("mariadb"), rechecks);
  EXPECT_NE(why.find("waited for a lock and then read the latest versions"), std::string::npos) << why;
  // Where a plain read does not see what the write reads (a Galera node's appliers), no history is recorded either.
  EXPECT_NE(adya::unrecorded_predicate(update_after_delete(IsolationLevel::ReadCommitted, 7, 0),
                                       capabilities_of("galera"), rechecks),
            "");
}

TEST(AdyaCurrentReads, AWriteAfterALockingReadOfItsTableIsRecordedUnlessItWaitedItself) {
  // MariaDB REPEATABLE READ: T1 deletes (2, 7) and commits; then T0's UPDATE t SET v = 9 WHERE v = 7, whose WHERE
  // names no indexed column, runs after a locking read of the whole table and matches nothing.
  TestCase c;
  Table t = one_row_table("t");
  t.rows.push_back({2, 7});
  c.schema.tables = {t};
  c.transactions = {
      Transaction{IsolationLevel::RepeatableRead, {Statement::update("t", {{"v", Expr::lit(9), {}}}, eq("v", 7))},
                  TxnEnd::Commit},
      Transaction{IsolationLevel::RepeatableRead, {Statement::delete_("t", eq("k", 2))}, TxnEnd::Commit}};
  c.order = {0, 1, 1, 1, 0, 0};
  PlantedHistory p(c, adya::InstrumentationOptions{.engine = capabilities_of("mariadb")});
  ASSERT_TRUE(adya::is_version_set_read(p.h.test_case.transactions[0].statements[0]));
  p.at(0, 1).columns = kReturning;
  p.at(0, 1).rows = {{1, "0", 1, 0}};
  p.at(0, 2).affected = 0;
  p.at(1, 1).columns = kReturning;
  p.at(1, 1).rows = {{2, "0", 2, 7}};
  p.at(1, 1).affected = 1;
  p.observed(0, {{1, 0, 1, "0"}});
  p.h.final_state["t"] = {{1, 0, 1, "0"}};
  EXPECT_EQ(adya::unrecorded_predicate(p.h, capabilities_of("mariadb"), rechecks), "");
  // The locking read waited: it read the latest versions after the wait and locked every record and gap, so the
  // UPDATE read what it returned; the predicate read is recorded and T1 -wr-> T0 drawn (T1's delete changed its
  // matches). Before, no verdict: "waited for a lock, and the Adya property draws no predicate edges".
  p.h.was_blocked[0][1] = true;
  EXPECT_EQ(adya::unrecorded_predicate(p.h, capabilities_of("mariadb"), rechecks), "");
  const adya::ObservedHistory o = adya::observe(p.h);
  EXPECT_NE(edges_of(o).find("2-wr->1"), std::string::npos) << edges_of(o);
  // The UPDATE itself waited after the read: what it read is not known.
  p.h.was_blocked[0][1] = false;
  p.h.was_blocked[0][2] = true;
  const std::string why = adya::unrecorded_predicate(p.h, capabilities_of("mariadb"), rechecks);
  EXPECT_NE(why.find("waited for a lock, and the Adya property draws no predicate edges"), std::string::npos) << why;
}

namespace {

// MariaDB REPEATABLE READ: T0's UPDATE t SET v = 9 WHERE k > 0 AND v = 7 (a range of the primary key: no locking read
// of the whole table before it) is sent, and waits while T1 inserts (2, 7) (row id 1'000'000) and commits and T2
// deletes that row and commits; then it completes having matched nothing, and T0 commits. Between its submission and
// its completion the row was absent, matching, and deleted.
History update_waiting_through_an_insert_and_a_delete() {
  TestCase c;
  c.schema.tables = {one_row_table("t")};
  const Expr where = Expr::binary(BinaryOp::And, Expr::binary(BinaryOp::Gt, Expr::col("k"), Expr::lit(0)), eq("v", 7));
  c.transactions = {
      Transaction{IsolationLevel::RepeatableRead, {Statement::update("t", {{"v", Expr::lit(9), {}}}, where)},
                  TxnEnd::Commit},
      Transaction{IsolationLevel::RepeatableRead, {Statement::insert("t", {"k", "v"}, {Expr::lit(2), Expr::lit(7)})},
                  TxnEnd::Commit},
      Transaction{IsolationLevel::RepeatableRead, {Statement::delete_("t", eq("k", 2))}, TxnEnd::Commit}};
  c.order = {0, 1, 1, 1, 2, 2, 2, 0, 0};
  PlantedHistory p(c, adya::InstrumentationOptions{.engine = capabilities_of("mariadb")});
  EXPECT_EQ(version_set_reads(p.h.test_case), 0u);
  p.h.submitted_at[0][1] = 1;  // sent right after T0's BEGIN, completed after T2's COMMIT
  p.h.was_blocked[0][1] = true;
  p.at(0, 1).affected = 0;
  p.at(1, 1).affected = 1;
  p.at(2, 1).columns = kReturning;
  p.at(2, 1).rows = {{1'000'000, "2", 2, 7}};
  p.at(2, 1).affected = 1;
  p.observed(0, {{1, 0, 1, "0"}});
  p.h.final_state["t"] = {{1, 0, 1, "0"}};
  return p.h;
}

}  // namespace

TEST(AdyaCurrentReads, AnInnodbWriteThatWaitedAtRepeatableReadReadTheLatestCommittedRowsAtItsCompletion) {
  // InnoDB REPEATABLE READ keeps every record and gap the UPDATE read locked (current_reads_hold_what_they_read):
  // it read row 1'000'000 after T2's delete had committed, not before T1's insert (which would give T0 -rw-> T1
  // instead). Before: no verdict, "reads its WHERE on the latest committed rows ...; T1 (row 1000000) wrote a row".
  const History h = update_waiting_through_an_insert_and_a_delete();
  const Verdict v = check_adya(*judged_as_mariadb(), h, AdyaMode::Documented);
  EXPECT_TRUE(v.ok()) << v.explain() << v.note;
  EXPECT_NE(v.note.find("2 predicate reads with version sets, 0 without"), std::string::npos) << v.note;
  // A Galera node reads what it has applied, which the commit order does not give: no verdict there.
  auto galera = Target::open_judged_as(parse_target_uri("sqlite:"), parse_target_uri("galera://u@127.0.0.1:1/x"));
  const Verdict unjudged = check_adya(*galera, h, AdyaMode::Documented);
  EXPECT_TRUE(unjudged.inconclusive) << unjudged.explain();
}

namespace {

// Moves the completion of `step` to right after event `after` (its submission stays where it was): it waited.
void complete_after(History& h, StepRef step, int after) {
  const int from = h.completed_at(step);
  const Event e = h.events[static_cast<std::size_t>(from)];
  h.events.erase(h.events.begin() + from);
  h.events.insert(h.events.begin() + after, e);
  const auto shift = [&](int& at) {
    if (at > from && at <= after) --at;
  };
  for (std::size_t t = 0; t < h.submitted_at.size(); ++t)
    for (std::size_t i = 0; i < h.submitted_at[t].size(); ++i)
      if (StepRef{static_cast<int>(t), static_cast<int>(i)} != step) shift(h.submitted_at[t][i]);
  for (TxnResult& r : h.transactions) shift(r.end_event);
  h.was_blocked[static_cast<std::size_t>(step.txn)][static_cast<std::size_t>(step.index)] = true;
}

}  // namespace

TEST(AdyaCurrentReads, AVersionSetReadOfAWriteLaterRolledBackPlacesTheCurrentReadOnTheCommittedVersionBeneath) {
  // MariaDB READ UNCOMMITTED: T1 sets t's row (1, 0) to (1, 5) and later rolls back; T0's version-set read sees T1's
  // version (writer list "0,2", which the row's order no longer has), then T0's UPDATE t SET v = 9 WHERE v = 0 waits;
  // T2 deletes the row and commits; the UPDATE completes having matched nothing. What the version-set read saw is the
  // initial version beneath T1's, so the UPDATE read the row deleted (T2 -wr-> T0). Before: no verdict, "waited for a
  // lock and then read the latest versions ...; T2 (row 1) wrote a row".
  TestCase c;
  c.schema.tables = {one_row_table("t")};
  const IsolationLevel ru = IsolationLevel::ReadUncommitted;
  c.transactions = {
      Transaction{ru, {Statement::update("t", {{"v", Expr::lit(9), {}}}, eq("v", 0))}, TxnEnd::Commit},
      Transaction{ru, {Statement::update("t", {{"v", Expr::lit(5), {}}}, eq("k", 1))}, TxnEnd::Rollback},
      Transaction{ru, {Statement::delete_("t", eq("k", 1))}, TxnEnd::Commit}};
  c.order = {1, 1, 0, 0, 1, 2, 2, 2, 0};
  PlantedHistory p(c, adya::InstrumentationOptions{.engine = capabilities_of("mariadb")});
  ASSERT_EQ(version_set_reads(p.h.test_case), 3u);
  p.h.transactions[1].fate = TxnFate::RolledBack;
  complete_after(p.h, StepRef{0, 2}, p.h.transactions[2].end_event);  // T0's UPDATE waited until T2's COMMIT
  p.at(1, 1).columns = p.at(0, 1).columns = p.at(2, 1).columns = p.at(2, 2).columns = kReturning;
  p.at(1, 1).rows = p.at(2, 1).rows = p.at(2, 2).rows = {{1, "0", 1, 0}};
  p.at(0, 1).rows = {{1, "0,2", 1, 5}};
  p.at(1, 2).affected = 1;
  p.at(2, 2).affected = 1;
  p.at(0, 2).affected = 0;
  p.observed(0, {});
  p.h.final_state["t"] = {};
  const Verdict v = check_adya(*judged_as_mariadb(), p.h, AdyaMode::Documented);
  EXPECT_FALSE(v.inconclusive) << v.note;
  EXPECT_NE(v.note.find("3 predicate reads with version sets, 0 without"), std::string::npos) << v.note;
}

TEST(AdyaCurrentReads, AnUpdateWhoseMatchedCountTakesInEveryUndeterminedRowReadEachInAMatchingState) {
  // MariaDB READ COMMITTED: T0's UPDATE t SET v = v WHERE v = 7 (which changes nothing it matches) waits while T1
  // inserts (2, 7) (row id 1'000'000) and commits; it completes having matched 1 row. Row 1 (1, 0) does not match;
  // row 1'000'000 was absent or present during the wait, but the count says it matched: read present (T1 -wr-> T0).
  // Before: no verdict, "waited for a lock and then read the latest versions ...; T1 (row 1000000) wrote a row".
  TestCase c;
  c.schema.tables = {one_row_table("t")};
  const IsolationLevel rc = IsolationLevel::ReadCommitted;
  c.transactions = {
      Transaction{rc, {Statement::update("t", {{"v", Expr::col("v"), {}}}, eq("v", 7))}, TxnEnd::Commit},
      Transaction{rc, {Statement::insert("t", {"k", "v"}, {Expr::lit(2), Expr::lit(7)})}, TxnEnd::Commit}};
  c.order = {0, 1, 1, 0, 1, 0};
  PlantedHistory p(c, adya::InstrumentationOptions{.engine = capabilities_of("mariadb")});
  ASSERT_EQ(version_set_reads(p.h.test_case), 1u);
  complete_after(p.h, StepRef{0, 2}, p.h.transactions[1].end_event);  // T0's UPDATE waited until T1's COMMIT
  p.at(0, 1).columns = kReturning;
  p.at(0, 1).rows = {{1, "0", 1, 0}};
  p.at(0, 2).affected = 1;
  p.at(1, 1).affected = 1;
  const std::vector<Row> t_rows = {{1, 0, 1, "0"}, {2, 7, 1'000'000, "2"}};
  p.observed(0, t_rows);
  p.h.final_state["t"] = t_rows;
  const Verdict v = check_adya(*judged_as_mariadb(), p.h, AdyaMode::Documented);
  EXPECT_FALSE(v.inconclusive) << v.note;
  EXPECT_NE(v.note.find("1 predicate reads with version sets, 0 without"), std::string::npos) << v.note;
  // A count of 2 takes in more rows than there are: nothing is recorded of the read, and no verdict.
  p.at(0, 2).affected = 2;
  EXPECT_TRUE(check_adya(*judged_as_mariadb(), p.h, AdyaMode::Documented).inconclusive);
}

TEST(AdyaCurrentReads, WithoutAWhereEveryVersionMatchesWhateverItsValues) {
  // MariaDB REPEATABLE READ: T1 updates t's row twice and commits (the version between its two UPDATEs, which return
  // nothing, has values nobody saw); then T0's SELECT * FROM t FOR UPDATE returns the row. Without a WHERE every
  // version matches, so the read is placed on the version it returned. Before: no verdict, "reads its WHERE on the
  // latest committed rows ...; T1 (row 1) wrote a row".
  TestCase c;
  c.schema.tables = {one_row_table("t")};
  const IsolationLevel rr = IsolationLevel::RepeatableRead;
  Statement locking = Statement::select("t");
  locking.lock = LockMode::Update;
  c.transactions = {Transaction{rr, {locking}, TxnEnd::Commit},
                    Transaction{rr,
                                {Statement::update("t", {{"v", Expr::lit(2), {}}}, eq("k", 1)),
                                 Statement::update("t", {{"v", Expr::lit(3), {}}}, eq("k", 1))},
                                TxnEnd::Commit}};
  c.order = {1, 1, 1, 1, 0, 0, 0};
  PlantedHistory p(c, adya::InstrumentationOptions{.engine = capabilities_of("mariadb")});
  ASSERT_EQ(version_set_reads(p.h.test_case), 0u);
  p.at(1, 1).affected = p.at(1, 2).affected = 1;
  const std::vector<Row> t_rows = {{1, 3, 1, "0,2,2"}};
  p.at(0, 1).columns = kTableColumns;
  p.at(0, 1).rows = t_rows;
  p.observed(0, t_rows);
  p.h.final_state["t"] = t_rows;
  const Verdict v = check_adya(*judged_as_mariadb(), p.h, AdyaMode::Documented);
  EXPECT_FALSE(v.inconclusive) << v.note;
}

TEST(AdyaCurrentReads, TheResultOfAStatementGivesTheMatchOfTheOneVersionItCanHaveRead) {
  // MariaDB REPEATABLE READ: T0's UPDATE t SET v = 9 WHERE NOT EXISTS (SELECT 1 FROM u) matches nothing and commits;
  // then T1 deletes t's row (2, 7) and commits. txprop does not evaluate the subquery, but the UPDATE read row 2 in its
  // one version and matched no row: that version did not match, so T1's delete changed nothing T0's WHERE matched.
  // Before: no verdict, "reads its WHERE on the latest committed rows ...; T1 (row 2) wrote a row".
  TestCase c;
  Table t = one_row_table("t");
  t.rows.push_back({2, 7});
  c.schema.tables = {t, one_row_table("u")};
  const IsolationLevel rr = IsolationLevel::RepeatableRead;
  Expr none = Expr::exists("u", std::nullopt);
  none.negated = true;
  c.transactions = {Transaction{rr, {Statement::update("t", {{"v", Expr::lit(9), {}}}, none)}, TxnEnd::Commit},
                    Transaction{rr, {Statement::delete_("t", eq("k", 2))}, TxnEnd::Commit}};
  c.order = {0, 0, 0, 1, 1, 1};
  PlantedHistory p(c, adya::InstrumentationOptions{.engine = capabilities_of("mariadb")});
  ASSERT_EQ(version_set_reads(p.h.test_case), 0u);
  p.at(0, 1).affected = 0;
  p.at(1, 1).columns = kReturning;
  p.at(1, 1).rows = {{2, "0", 2, 7}};
  p.at(1, 1).affected = 1;
  p.observed(0, {{1, 0, 1, "0"}});
  p.observed(1, {{1, 0, 3, "0"}});
  p.h.final_state["t"] = {{1, 0, 1, "0"}};
  p.h.final_state["u"] = {{1, 0, 3, "0"}};
  const Verdict v = check_adya(*judged_as_mariadb(), p.h, AdyaMode::Documented);
  EXPECT_FALSE(v.inconclusive) << v.note;
  // A count of 1 says one row matched, not which: both stay unknown, and no verdict.
  p.at(0, 1).affected = 1;
  EXPECT_TRUE(check_adya(*judged_as_mariadb(), p.h, AdyaMode::Documented).inconclusive);
}
