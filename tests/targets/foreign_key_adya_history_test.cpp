// The writes a foreign key's action makes, in Adya's history (issue 17 item 3). Run instrumented for Adya, T0's
// DELETE FROM parent WHERE k = 1 writes child row 1 through ON DELETE SET NULL or CASCADE, and no statement names
// that write. Where the engine's row triggers fire for it (PostgreSQL, SQLite: EngineCapabilities::
// cascaded_writes_unrecorded empty) the instrumentation's triggers record it as T0's (schema.hpp, CascadeLog): a SET
// NULL child's writer list gets T0's id, a CASCADE child is logged with T0 as its deleter, and the Adya property
// attributes both to the DELETE. MariaDB fires no trigger for a cascaded write (KB "Trigger Limitations"), so there
// Adya keeps refusing the case, with that reason. A read skew whose one edge runs through a cascaded delete is caught
// only because the delete is recorded.
#include <gtest/gtest.h>

#include <algorithm>

#include "support/engine_targets.hpp"
#include "support/planted.hpp"
#include "txprop/adya.hpp"
#include "txprop/adya_instrumentation.hpp"
#include "txprop/oracle.hpp"

using namespace txprop;

namespace {

Row pair(std::int64_t a, Value b) { return Row{Value(a), std::move(b)}; }

Schema parent_and_child(ReferentialAction action) {
  Schema s;
  Table parent{"parent", {Column{"k", ColumnType::Integer, true}, Column{"v"}}, {"k"}, {}, {pair(1, Value(10))}, {},
               {}};
  Table child{"child", {Column{"id", ColumnType::Integer, true}, Column{"pid"}}, {"id"}, {}, {pair(1, Value(1))}, {},
              {}};
  child.foreign_keys = {ForeignKey{{"pid"}, "parent", {"k"}, action, ReferentialAction::NoAction}};
  s.tables = {parent, child};
  return s;
}

TestCase delete_parent(IsolationLevel level, ReferentialAction action) {
  TestCase c;
  c.schema = parent_and_child(action);
  c.transactions = {test::txn(level, {"DELETE FROM parent WHERE k = 1"})};
  c.order = TestCase::serial_order(c.transactions);
  EXPECT_EQ(c.validate(), "");
  return c;
}

void cascaded_write_has_its_writer(Target& target, IsolationLevel level) {
  for (ReferentialAction action : {ReferentialAction::SetNull, ReferentialAction::Cascade}) {
    const TestCase c = delete_parent(level, action);
    ASSERT_EQ(oracle("adya").cannot_judge(c, target.engine()), "") << target.name();
    const Judgement j = judge_case(oracle("adya"), target, c, [&](const TestCase& p) { return target.run(p); });
    const History& h = j.history;
    ASSERT_FALSE(h.finding) << h.finding->detail;
    ASSERT_EQ(h.transactions[0].fate, TxnFate::Committed) << describe(h);
    EXPECT_TRUE(j.verdict.ok()) << j.verdict.explain();
    const Table& child = *j.prepared.schema.find_table("child");
    const auto pid = *child.column_index("pid"), wl = *child.column_index(adya::kWriterListColumn);
    const std::vector<Row>& rows = h.final_state.at("child");
    const std::vector<Row>& log = h.final_state.at(adya::kCascadeLogTable);
    if (action == ReferentialAction::Cascade) {
      EXPECT_TRUE(rows.empty()) << describe(h);
      ASSERT_EQ(log.size(), 1u) << describe(h);  // deleted by T0 (writer id 1), version "0" (the initial one)
      const auto d = adya::parse_cascade_log_row(log[0]);
      ASSERT_TRUE(d) << describe(h);
      EXPECT_EQ(d->writer, 1u);
      EXPECT_EQ(d->table, "child");
      EXPECT_EQ(d->row, child.rows.at(0).at(*child.column_index(adya::kRowIdColumn)).as_int());
      EXPECT_EQ(d->list, std::vector<std::uint32_t>{0});
    } else {
      ASSERT_EQ(rows.size(), 1u) << describe(h);
      EXPECT_TRUE(rows[0].at(pid).is_null()) << describe(h);
      EXPECT_EQ(rows[0].at(wl), Value("0,1")) << "T0 wrote it through the key: " << describe(h);
      EXPECT_TRUE(log.empty()) << describe(h);
    }
  }
}

// T0 reads child 1, T1 deletes parent 1 (CASCADE deletes child 1) and commits, T0 reads parent 1: at READ COMMITTED T0
// sees child 1 and no parent 1, a read skew (G-single: T0 -rw-> T1 through child 1, T1 -wr-> T0 through parent 1).
Judgement read_skew(Target& target, IsolationLevel level) {
  TestCase c;
  c.schema = parent_and_child(ReferentialAction::Cascade);
  c.transactions = {test::txn(level, {"SELECT * FROM child WHERE id = 1", "SELECT * FROM parent WHERE k = 1"}),
                    test::txn(level, {"DELETE FROM parent WHERE k = 1"})};
  c.order = {0, 0, 1, 1, 1, 0, 0};
  EXPECT_EQ(c.validate(), "");
  EXPECT_EQ(oracle("adya").cannot_judge(c, target.engine()), "");
  return judge_case(oracle("adya"), target, c, [&](const TestCase& p) { return target.run(p); });
}

bool has_g_single(const Verdict& v) { return v.has("G-single") || v.has("read-skew"); }

}  // namespace

TEST(ForeignKeyAdyaHistory, CascadedWritesCarryTheirWriter) {
  TXPROP_USE_ENGINE(lite, "sqlite", false);
  cascaded_write_has_its_writer(*lite, IsolationLevel::Serializable);
  TXPROP_USE_ENGINE(pg, "postgresql", false);
  cascaded_write_has_its_writer(*pg, IsolationLevel::ReadCommitted);
  cascaded_write_has_its_writer(*pg, IsolationLevel::Serializable);
}

// MariaDB fires no trigger for a cascaded write: the instrumentation adds no log, and Adya refuses with that reason.
TEST(ForeignKeyAdyaHistory, RefusedWhereTheEngineFiresNoTrigger) {
  TXPROP_USE_ENGINE(maria, "mariadb", false);
  for (ReferentialAction action : {ReferentialAction::SetNull, ReferentialAction::Cascade}) {
    const TestCase c = delete_parent(IsolationLevel::RepeatableRead, action);
    for (const char* name : {"adya", "adyaclaimed"})
      EXPECT_NE(oracle(name).cannot_judge(c, maria->engine()).find("fires no trigger"), std::string::npos) << name;
    EXPECT_EQ(instrument_for_adya(c, maria->engine()).schema.find_table(adya::kCascadeLogTable), nullptr);
  }
  // A key that writes nothing (RESTRICT) is judged there too.
  EXPECT_EQ(oracle("adya").cannot_judge(delete_parent(IsolationLevel::RepeatableRead, ReferentialAction::Restrict),
                                        maria->engine()),
            "");
}

TEST(ForeignKeyAdyaHistory, ReadSkewThroughACascadedDeleteIsCaught) {
  TXPROP_USE_ENGINE(pg, "postgresql", false);
  const Judgement skew = read_skew(*pg, IsolationLevel::ReadCommitted);
  ASSERT_FALSE(skew.history.finding) << skew.history.finding->detail;
  for (const auto& t : skew.history.transactions) ASSERT_EQ(t.fate, TxnFate::Committed) << describe(skew.history);
  EXPECT_FALSE(skew.verdict.inconclusive) << skew.verdict.explain();
  EXPECT_FALSE(skew.verdict.fails()) << "allowed at READ COMMITTED: " << skew.verdict.explain();
  EXPECT_TRUE(has_g_single(skew.verdict)) << skew.verdict.explain();
  History planted = skew.history;
  for (Transaction& t : planted.test_case.transactions) t.isolation = IsolationLevel::Serializable;  // judged as if
  const Verdict caught = oracle("adya").judge(*pg, planted);
  EXPECT_TRUE(caught.fails() && has_g_single(caught)) << caught.explain();
  // Without the log of the cascaded delete the edge T0 -rw-> T1 is missing, and so is the cycle.
  planted.final_state[adya::kCascadeLogTable].clear();
  const Verdict unseen = oracle("adya").judge(*pg, planted);
  EXPECT_FALSE(has_g_single(unseen)) << unseen.explain();
  // At REPEATABLE READ T0 reads parent 1 in its snapshot: no cycle, and a verdict.
  const Judgement snapshot = read_skew(*pg, IsolationLevel::RepeatableRead);
  EXPECT_TRUE(snapshot.verdict.ok()) << snapshot.verdict.explain();
}

namespace {

// T1 writes and commits, then T0 reads child and makes a write whose key check reads a table T1 wrote (not T0's first
// statement: on SQLite a first write takes its snapshot after a wait, and gets no added read before it): T0's
// INSERT INTO child (2, 1) after T1 inserted parent 2 (its check looks parent's key 1 up), or T0's DELETE of parent 1
// after T1 deleted child 1 (its check looks child's key 1 up), or T0's UPDATE moving child 1 to parent 2 after T1
// inserted parent 2 (its check looks parent's key 2 up). T1's write may change what the check matches, so
// before the check was recorded this history had no verdict. The instrumentation records it (adya::is_key_read before
// an INSERT; a version-set read of child before the DELETE, adya::checked_referencing_key), and Adya judges it.
Judgement check_after_a_write(Target& target, IsolationLevel level, const char* t0_write, const char* t1_write) {
  TestCase c;
  c.schema = parent_and_child(ReferentialAction::Restrict);
  c.transactions = {test::txn(level, {"SELECT * FROM child WHERE id = 1", t0_write}), test::txn(level, {t1_write})};
  c.order = {1, 1, 1, 0, 0, 0, 0};
  EXPECT_EQ(c.validate(), "");
  EXPECT_EQ(oracle("adya").cannot_judge(c, target.engine()), "");
  return judge_case(oracle("adya"), target, c, [&](const TestCase& p) { return target.run(p); });
}

// Whether the prepared T0 reads parent's key 1 right before its INSERT, with the engine's check lock.
bool key_read_before_insert(const TestCase& prepared, LockMode lock) {
  const auto& st = prepared.transactions[0].statements;
  return std::any_of(st.begin(), st.end(), [&](const Statement& s) {
    return adya::is_key_read(s) && s.table == "parent" && s.lock == lock;
  });
}

// `recorded`: where a plain read sees what the check reads. Elsewhere (InnoDB REPEATABLE READ: the latest committed
// rows, and a plain read would open the read view early) the history still has no verdict, with the reason; so has
// the UPDATE's where `update_recorded` is false (MariaDB 10.11's UPDATE returns no rows: its new keys are not known).
void key_checks_judged(Target& target, IsolationLevel level, bool recorded, bool update_recorded) {
  const Judgement insert = check_after_a_write(target, level, "INSERT INTO child (id, pid) VALUES (2, 1)",
                                               "INSERT INTO parent (k, v) VALUES (2, 20)");
  const Judgement del =
      check_after_a_write(target, level, "DELETE FROM parent WHERE k = 1", "DELETE FROM child WHERE id = 1");
  const Judgement update = check_after_a_write(target, level, "UPDATE child SET pid = 2 WHERE id = 1",
                                               "INSERT INTO parent (k, v) VALUES (2, 20)");
  EXPECT_TRUE(key_read_before_insert(insert.prepared, adya::key_check_lock(target.engine().capabilities())))
      << describe(insert.prepared);
  for (const Judgement* j : {&insert, &del, &update}) {
    const History& h = j->history;
    ASSERT_FALSE(h.finding) << h.finding->detail;
    for (const auto& t : h.transactions) ASSERT_EQ(t.fate, TxnFate::Committed) << describe(h);
    if (j == &update ? update_recorded : recorded) {
      EXPECT_FALSE(j->verdict.inconclusive) << target.name() << " " << sql_name(level) << ": " << j->verdict.explain();
      EXPECT_TRUE(j->verdict.ok()) << j->verdict.explain();
    } else {
      EXPECT_TRUE(j->verdict.inconclusive) << j->verdict.explain();
      EXPECT_NE(j->verdict.note.find("through a foreign key"), std::string::npos) << j->verdict.note;
    }
  }
}

}  // namespace

TEST(ForeignKeyAdyaHistory, KeyChecksAreRecorded) {
  TXPROP_USE_ENGINE(lite, "sqlite", false);
  key_checks_judged(*lite, IsolationLevel::Serializable, true, true);
  TXPROP_USE_ENGINE(pg, "postgresql", false);
  for (IsolationLevel level :
       {IsolationLevel::ReadCommitted, IsolationLevel::RepeatableRead, IsolationLevel::Serializable})
    key_checks_judged(*pg, level, true, true);
  TXPROP_USE_ENGINE(maria, "mariadb", false);
  key_checks_judged(*maria, IsolationLevel::ReadCommitted, true, false);
  key_checks_judged(*maria, IsolationLevel::RepeatableRead, false, false);
}
