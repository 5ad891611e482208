// Issue 17 item 3: an INSERT's foreign-key check reads the referenced row, and the Adya instrumentation records that
// read with a key read right before the INSERT (adya_instrumentation.hpp is_key_read) where it reads what the check
// reads. Planted histories, judged as PostgreSQL without a server (Target::open_judged_as): a child INSERT racing a
// parent DELETE whose own check missed the child (the bug a key check exists to prevent) is a cycle only through the
// INSERT's check.
#include <gtest/gtest.h>

#include "../../properties/adya/unrecorded_predicates.hpp"
#include "txprop/adya.hpp"
#include "txprop/engine.hpp"
#include "txprop/foreign_key_checks.hpp"
#include "txprop/target.hpp"
#include "txprop/target_config.hpp"
#include "tests/support/adya_planted_history.hpp"

using namespace txprop;
using namespace txprop::test;

namespace {

Expr eq(const char* column, int value) { return Expr::binary(BinaryOp::Eq, Expr::col(column), Expr::lit(value)); }

// parent(k, v) with (1, 0); child(k, v) empty, child.v REFERENCES parent(k).
Schema parent_and_child() {
  Table parent = one_row_table("parent");
  Table child = one_row_table("child");
  child.rows.clear();
  child.foreign_keys = {ForeignKey{{"v"}, "parent", {"k"}, ReferentialAction::NoAction, ReferentialAction::NoAction}};
  Schema s;
  s.tables = {parent, child};
  return s;
}

// Where both races end: T0's child (2, 1), inserted as row 1,000,000, is left without parent 1, which T1 deleted; the
// observer (the last transaction) finds parent empty and that child alone in child.
History with_orphaned_child(PlantedHistory& p) {
  const Row child_2 = {2, 1, 1'000'000, "1"};
  p.observed(0, {});
  p.observed(1, {child_2});
  p.h.final_state["parent"] = {};
  p.h.final_state["child"] = {child_2};
  return p.h;
}

// T1 reads the children of parent 1 (none), T0 inserts child (2, 1) and commits, T1 deletes parent 1 and commits: its
// own key check missed T0's child (unrecorded: at SERIALIZABLE the check reads the latest committed rows, and T0
// committed a child after T1's snapshot, which the version-set read before the DELETE reads). T1 -rw-> T0 through
// T1's SELECT (T0's row matches v = 1), and T0 -rw-> T1 through T0's key check, which read parent 1's initial
// version, which T1 deleted: G2 (a write skew).
// Instrumented as for PostgreSQL SERIALIZABLE: T0 runs a version-set read and the key read of parent before its INSERT.
History insert_racing_delete() {
  TestCase c;
  c.schema = parent_and_child();
  const IsolationLevel level = IsolationLevel::Serializable;
  const Statement insert = Statement::insert("child", {"k", "v"}, {Expr::lit(2), Expr::lit(1)});
  const Statement read = Statement::select("child", eq("v", 1));
  c.transactions = {Transaction{level, {insert}, TxnEnd::Commit},
                    Transaction{level, {read, Statement::delete_("parent", eq("k", 1))}, TxnEnd::Commit}};
  c.order = {1, 1, 0, 0, 0, 1, 1};
  PlantedHistory p(c, adya::InstrumentationOptions{.engine = find_engine("postgresql")->capabilities()});
  const Row parent_1 = {1, "0", 1, 0};  // txp_rid, txp_wl, k, v: the initial rows' ids count from 1
  EXPECT_TRUE(adya::is_version_set_read(p.h.test_case.transactions[0].statements[0]));
  EXPECT_TRUE(adya::is_key_read(p.h.test_case.transactions[0].statements[1]));
  EXPECT_EQ(p.h.test_case.transactions[0].statements[1].lock, LockMode::KeyShare);
  p.at(0, 1) = rows_outcome(kReturning, {parent_1});
  p.at(0, 2) = rows_outcome(kReturning, {parent_1});
  p.at(0, 3).affected = 1;
  p.at(1, 1) = rows_outcome(kReturning, {});  // T1's version-set read of child, then its SELECT
  p.at(1, 2) = rows_outcome(kTableColumns, {});
  EXPECT_EQ(p.h.test_case.transactions[1].statements[2].table, "child");  // read for the DELETE's check
  p.at(1, 3) = rows_outcome(kReturning, {});
  p.at(1, 4) = rows_outcome(kReturning, {parent_1});
  p.at(1, 5) = rows_outcome(kReturning, {parent_1});
  p.at(1, 5).affected = 1;
  return with_orphaned_child(p);
}

// The same race through the two key checks alone: T0 inserts child (2, 1) (its check reads parent 1), T1 deletes
// parent 1 (its check finds no child of parent 1: T0's is not committed), T0 commits, T1 commits, leaving a child
// without its parent. T0 -rw-> T1 through T0's check (parent 1's initial version, which T1 deleted), T1 -rw-> T0
// through T1's (T0's child matches its lookup): G2. Before T0 committed, T1's version-set read of child read what its
// check read, so both are recorded.
History racing_checks(bool child_read_waited) {
  TestCase c;
  c.schema = parent_and_child();
  const IsolationLevel level = IsolationLevel::Serializable;
  c.transactions = {
      Transaction{level, {Statement::insert("child", {"k", "v"}, {Expr::lit(2), Expr::lit(1)})}, TxnEnd::Commit},
      Transaction{level, {Statement::delete_("parent", eq("k", 1))}, TxnEnd::Commit}};
  c.order = {0, 0, 1, 1, 0, 1};
  PlantedHistory p(c, adya::InstrumentationOptions{.engine = find_engine("postgresql")->capabilities()});
  const Row parent_1 = {1, "0", 1, 0};
  EXPECT_EQ(p.h.test_case.transactions[1].statements[0].table, "child");  // read for the DELETE's check
  p.at(0, 1) = rows_outcome(kReturning, {parent_1});
  p.at(0, 2) = rows_outcome(kReturning, {parent_1});
  p.at(0, 3).affected = 1;
  p.at(1, 1) = rows_outcome(kReturning, {});
  p.at(1, 2) = rows_outcome(kReturning, {parent_1});
  p.at(1, 3) = rows_outcome(kReturning, {parent_1});
  p.at(1, 3).affected = 1;
  p.h.was_blocked[1][1] = child_read_waited;
  return with_orphaned_child(p);
}

// The race through an UPDATE's check: child (1, 1) references parent 1; T0 moves it to parent 2 (UPDATE child SET
// v = 2 WHERE k = 1: its check reads parent 2), T1 deletes parent 2 (its check finds no child of parent 2: T0's change
// is not committed), both commit. T0 -rw-> T1 through T0's check (parent 2's initial version, which T1 deleted),
// T1 -rw-> T0 through T1's (T0's version of child 1 matches its lookup): G2. `parent_read_waited`: T0's read of
// parent before its UPDATE waited, so its check stays unrecorded.
History update_racing_delete(bool parent_read_waited) {
  TestCase c;
  c.schema = parent_and_child();
  c.schema.tables[0].rows = {{1, 0}, {2, 0}};
  c.schema.tables[1].rows = {{1, 1}};
  const IsolationLevel level = IsolationLevel::Serializable;
  c.transactions = {
      Transaction{level, {Statement::update("child", {{"v", Expr::lit(2), {}}}, eq("k", 1))}, TxnEnd::Commit},
      Transaction{level, {Statement::delete_("parent", eq("k", 2))}, TxnEnd::Commit}};
  c.order = {0, 0, 1, 1, 0, 1};
  PlantedHistory p(c, adya::InstrumentationOptions{.engine = find_engine("postgresql")->capabilities()});
  EXPECT_EQ(p.h.test_case.transactions[0].statements[0].table, "parent");  // read for the UPDATE's check
  const std::vector<Row> parents = {{1, "0", 1, 0}, {2, "0", 2, 0}};
  p.at(0, 1) = rows_outcome(kReturning, parents);
  p.at(0, 2) = rows_outcome(kReturning, {{3, "0", 1, 1}});
  p.at(0, 3) = rows_outcome(kReturning, {{3, "0,1", 1, 2}});
  p.at(0, 3).affected = 1;
  p.at(1, 1) = rows_outcome(kReturning, {{3, "0", 1, 1}});
  p.at(1, 2) = rows_outcome(kReturning, parents);
  p.at(1, 3) = rows_outcome(kReturning, {parents[1]});
  p.at(1, 3).affected = 1;
  p.h.was_blocked[0][1] = parent_read_waited;
  p.observed(0, {{1, 0, 1, "0"}});
  p.observed(1, {{1, 2, 3, "0,1"}});
  p.h.final_state["parent"] = {{1, 0, 1, "0"}};
  p.h.final_state["child"] = {{1, 2, 3, "0,1"}};
  return p.h;
}

std::unique_ptr<Target> judged_as_postgresql() {
  return Target::open_judged_as(parse_target_uri("sqlite:"), parse_target_uri("postgresql://u@127.0.0.1:1/x"));
}

}  // namespace

TEST(AdyaKeyCheck, KeyReadsAreMadeOnlyWhereTheLookupIsKnown) {
  const Schema s = parent_and_child();
  const ForeignKey& fk = s.tables[1].foreign_keys[0];
  using Keys = std::vector<std::vector<Value>>;
  EXPECT_EQ(inserted_keys(Statement::insert("child", {"k", "v"}, {Expr::lit(2), Expr::lit(1)}), fk), Keys{{Value(1)}});
  // NULL, or a column the INSERT does not name: not checked (MATCH SIMPLE).
  EXPECT_EQ(inserted_keys(Statement::insert("child", {"k", "v"}, {Expr::lit(2), Expr::lit(Value())}), fk), Keys{});
  EXPECT_EQ(inserted_keys(Statement::insert("child", {"k"}, {Expr::lit(2)}), fk), Keys{});
  Statement upsert = Statement::insert("child", {"k", "v"}, {Expr::lit(2), Expr::lit(1)});
  upsert.upsert = Upsert::DoNothing;  // checks only if it inserts
  EXPECT_EQ(inserted_keys(upsert, fk), std::nullopt);
  // Each engine's check lock, as its capabilities give it.
  EXPECT_EQ(adya::key_check_lock(find_engine("postgresql")->capabilities()), LockMode::KeyShare);
  EXPECT_EQ(adya::key_check_lock(find_engine("mariadb")->capabilities()), LockMode::Share);
  EXPECT_EQ(adya::key_check_lock(find_engine("sqlite")->capabilities()), LockMode::None);
}

TEST(AdyaKeyCheck, AChildInsertRacingAParentDeleteIsACycleThroughTheCheck) {
  const History h = insert_racing_delete();
  auto target = judged_as_postgresql();
  const Verdict v = check_adya(*target, h, AdyaMode::Documented);
  EXPECT_TRUE(v.fails()) << v.explain();
  EXPECT_TRUE(has_kind(v, "G2") || has_kind(v, "write-skew")) << v.explain();
  // The INSERT's check is recorded; the DELETE's check of child (parent side) is not, which the note says.
  EXPECT_NE(v.note.find("T1's DELETE FROM parent WHERE k = 1 reads child through a foreign key"), std::string::npos)
      << v.note;
}

TEST(AdyaKeyCheck, WithoutTheKeyReadTheCycleIsUnseen) {
  // The key read waited: other transactions may have committed between it and the check, so it records nothing, the
  // cycle is missing, and the INSERT's unrecorded read leaves Adya without a verdict rather than "ok".
  History h = insert_racing_delete();
  h.was_blocked[0][2] = true;
  auto target = judged_as_postgresql();
  const Verdict v = check_adya(*target, h, AdyaMode::Documented);
  EXPECT_FALSE(has_kind(v, "G2") || has_kind(v, "write-skew")) << v.explain();
  EXPECT_TRUE(v.inconclusive) << v.explain();
  EXPECT_NE(adya::unrecorded_foreign_key_read(h).find("T0's INSERT INTO child (k, v) VALUES (2, 1) reads parent"),
            std::string::npos);
  // Recorded, the INSERT's read is no longer named (the DELETE's is).
  const std::string rest = adya::unrecorded_foreign_key_read(h, {{0, 2, "parent"}});
  EXPECT_NE(rest.find("T1's DELETE FROM parent"), std::string::npos) << rest;
}

TEST(AdyaKeyCheck, AChildInsertRacingAParentDeleteIsACycleThroughBothChecks) {
  auto target = judged_as_postgresql();
  const History h = racing_checks(false);
  EXPECT_GT(h.transactions[0].end_event, h.completed_at(StepRef{1, 3}));  // T0 committed after T1's DELETE
  const Verdict v = check_adya(*target, h, AdyaMode::Documented);
  EXPECT_TRUE(v.fails()) << v.explain();
  EXPECT_TRUE(has_kind(v, "G2") || has_kind(v, "write-skew")) << v.explain();
  EXPECT_EQ(v.note.find("through a foreign key"), std::string::npos) << v.note;  // both checks recorded
  // T1's read of child waited: other transactions may have committed before its check, which stays unrecorded; with
  // one edge of the cycle missing, Adya has no verdict rather than "ok".
  const Verdict unseen = check_adya(*target, racing_checks(true), AdyaMode::Documented);
  EXPECT_FALSE(has_kind(unseen, "G2") || has_kind(unseen, "write-skew")) << unseen.explain();
  EXPECT_TRUE(unseen.inconclusive) << unseen.explain();
  EXPECT_NE(unseen.note.find("T1's DELETE FROM parent WHERE k = 1 reads child through a foreign key"),
            std::string::npos)
      << unseen.note;
}

TEST(AdyaKeyCheck, AChildUpdateRacingAParentDeleteIsACycleThroughBothChecks) {
  auto target = judged_as_postgresql();
  const Verdict v = check_adya(*target, update_racing_delete(false), AdyaMode::Documented);
  EXPECT_TRUE(v.fails()) << v.explain();
  EXPECT_TRUE(has_kind(v, "G2") || has_kind(v, "write-skew")) << v.explain();
  EXPECT_EQ(v.note.find("through a foreign key"), std::string::npos) << v.note;
  const Verdict unseen = check_adya(*target, update_racing_delete(true), AdyaMode::Documented);
  EXPECT_FALSE(has_kind(unseen, "G2") || has_kind(unseen, "write-skew")) << unseen.explain();
  EXPECT_TRUE(unseen.inconclusive) << unseen.explain();
  EXPECT_NE(unseen.note.find("T0's UPDATE child SET v = 2 WHERE k = 1 reads parent through a foreign key"),
            std::string::npos)
      << unseen.note;
}
