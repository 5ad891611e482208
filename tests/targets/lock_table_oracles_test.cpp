// LOCK TABLE (issue 17 item 2) judged by Adya and SDG on PostgreSQL, and refused by Troc. Two transactions each take
// SHARE ROW EXCLUSIVE on t (a mode that conflicts with itself: PostgreSQL 15 manual 13.3.1, table 13.2), then read
// row 1 and add to it. The second's LOCK TABLE waits for the first's COMMIT; it takes no snapshot ("the transaction's
// view of data will be frozen when its first SELECT or data modification statement begins": manual, LOCK), so at
// every level the second reads the first's increment, and the history is serial. Both oracles pass it (Adya at
// REPEATABLE READ only because the transaction's start is its SELECT after the wait, not its LOCK TABLE: taken at the
// LOCK TABLE, the start would come before the first's commit and the read of its version would be a G-SIa).
// Planted violations through the case are caught:
//   - Adya: the second's reads of row 1 returning the version before the first's write (writer list "0", v = 0),
//     after which it writes the row: a lost update (T1 -rw-> T0 -ww-> T1);
//   - SDG: a final state without the first's increment (final-state-mismatch with the replay of the graph's order), in
//     the case run serially (SDG re-runs a case whose statements waited, which would replace a planted final state).
//   - WSS and Atomicity (which judge the case as it ran): a final state without the first's increment (WSS); the
//     second's increment kept though its COMMIT is planted failed (Atomicity).
// Troc's lock model has no table locks: it refuses the case, with that reason.
#include <gtest/gtest.h>

#include "support/engine_targets.hpp"
#include "support/planted.hpp"
#include "txprop/adya_instrumentation.hpp"
#include "txprop/atomicity.hpp"
#include "txprop/oracle.hpp"
#include "txprop/wss.hpp"

using namespace txprop;

namespace {

TestCase two_increments(IsolationLevel level) {
  TestCase c;
  c.schema.tables = {Table{"t", {Column{"k", ColumnType::Integer, true}, Column{"v"}}, {"k"}, {}, {{1, 0}, {2, 0}}}};
  for (const char* add : {"UPDATE t SET v = v + 1 WHERE k = 1", "UPDATE t SET v = v + 2 WHERE k = 1"})
    c.transactions.push_back(test::txn(level, {"LOCK TABLE t IN SHARE ROW EXCLUSIVE MODE", "SELECT * FROM t WHERE k = 1", add}));
  c.order = {0, 1, 0, 1, 0, 0, 0, 1, 1, 1};  // BEGIN, BEGIN, T0 lock, T1 lock (waits), T0 read, add, COMMIT, T1 ...
  EXPECT_EQ(c.validate(), "");
  return c;
}

Judgement judged(const char* name, Target& target, IsolationLevel level) {
  const TestCase c = two_increments(level);
  EXPECT_EQ(oracle(name).cannot_judge(c, target.engine()), "") << name;
  Judgement j = judge_case(oracle(name), target, c, [&](const TestCase& p) { return target.run(p); });
  EXPECT_FALSE(j.history.finding) << j.history.finding->detail;
  // T1's LOCK TABLE waits for T0's. SDG re-plans a run whose statements waited and judges that run, which the
  // judgement then holds (Verdict::judged_run): there T1's steps come after T0's COMMIT and nothing waits.
  EXPECT_TRUE(j.history.any_blocked() || (name == std::string("sdg") && j.verdict.judged_run))
      << "T1's LOCK TABLE waits for T0's: " << describe(j.history);
  for (std::size_t t = 0; t < 2; ++t) EXPECT_EQ(j.history.transactions[t].fate, TxnFate::Committed) << describe(j.history);
  return j;
}

// Column `name` of the outcome, if it has one.
std::optional<std::size_t> column(const Outcome& o, const std::string& name) {
  for (std::size_t i = 0; i < o.columns.size(); ++i)
    if (o.columns[i] == name) return i;
  return std::nullopt;
}

// Every SELECT of T1 (its own and the version-set reads Adya added) returning row 1 as it was before T0's write.
History t1_read_the_initial_version(const Judgement& j) {
  History h = j.history;
  const Transaction& t1 = j.prepared.transactions[1];
  int planted = 0;
  for (std::size_t step = 1; step <= t1.statements.size(); ++step) {
    if (t1.statements[step - 1].kind != StatementKind::Select) continue;
    Outcome& o = h.outcomes[1][step];
    const auto k = column(o, "k"), v = column(o, "v"), wl = column(o, adya::kWriterListColumn);
    if (!k || !v || !wl) continue;
    for (Row& r : o.rows)
      if (r[*k] == Value(std::int64_t{1})) {
        r[*v] = Value(std::int64_t{0});
        r[*wl] = Value("0");
        ++planted;
      }
  }
  EXPECT_GT(planted, 0) << describe(h);
  return h;
}

}  // namespace

TEST(LockTableOracles, AdyaJudgesItAndCatchesAPlantedLostUpdate) {
  TXPROP_USE_ENGINE(pg, "postgresql", false);
  for (IsolationLevel level : {IsolationLevel::ReadCommitted, IsolationLevel::RepeatableRead, IsolationLevel::Serializable}) {
    const Judgement j = judged("adya", *pg, level);
    EXPECT_TRUE(j.verdict.ok()) << sql_name(level) << "\n" << j.verdict.explain() << describe(j.history);
    if (level == IsolationLevel::ReadCommitted) continue;  // a lost update is allowed there
    const Verdict caught = oracle("adya").judge(*pg, t1_read_the_initial_version(j));
    EXPECT_TRUE(caught.fails()) << sql_name(level) << "\n" << caught.explain();
    EXPECT_TRUE(caught.has("lost-update") || caught.has("G-single")) << caught.explain();
  }
}

// SDG re-runs a case whose statements waited, in the order they ran (re-planning: properties/sdg/sdg.cpp), so a
// final state planted into the first run would be replaced: the planted one is the same case run serially (T0, then
// T1: nothing waits), its LOCK TABLE statements still in it.
TEST(LockTableOracles, SdgJudgesItAndCatchesAPlantedFinalState) {
  TXPROP_USE_ENGINE(pg, "postgresql", false);
  for (IsolationLevel level : {IsolationLevel::ReadCommitted, IsolationLevel::RepeatableRead, IsolationLevel::Serializable}) {
    const Judgement j = judged("sdg", *pg, level);
    EXPECT_TRUE(j.verdict.ok()) << sql_name(level) << "\n" << j.verdict.explain() << describe(j.history);
    TestCase serial = two_increments(level);
    serial.order = TestCase::serial_order(serial.transactions);
    const Judgement s = judge_case(oracle("sdg"), *pg, serial, [&](const TestCase& p) { return pg->run(p); });
    ASSERT_FALSE(s.history.any_blocked()) << describe(s.history);
    EXPECT_TRUE(s.verdict.ok()) << s.verdict.explain();
    History planted = s.history;
    const Table& t = *s.prepared.schema.find_table("t");
    const std::size_t k = *t.column_index("k"), v = *t.column_index("v");
    int changed = 0;
    for (Row& r : planted.final_state.at("t"))
      if (r[k] == Value(std::int64_t{1})) {
        EXPECT_EQ(r[v], Value(std::int64_t{3})) << describe(s.history);
        r[v] = Value(std::int64_t{2});  // planted: T0's increment lost
        ++changed;
      }
    ASSERT_EQ(changed, 1) << describe(s.history);
    const Verdict caught = oracle("sdg").judge(*pg, planted);
    EXPECT_TRUE(caught.fails() && caught.has("final-state-mismatch")) << sql_name(level) << "\n" << caught.explain();
  }
}

TEST(LockTableOracles, TrocRefusesIt) {
  TXPROP_USE_ENGINE(pg, "postgresql", false);
  const Judgement j = judge_case(oracle("troc"), *pg, two_increments(IsolationLevel::RepeatableRead),
                                 [&](const TestCase& p) { return pg->run(p); });
  EXPECT_EQ(j.refused, "T0.1 is LOCK TABLE t IN SHARE ROW EXCLUSIVE MODE, and Troc's lock model has row locks only, no table locks");
  EXPECT_TRUE(j.history.outcomes.empty()) << "a refused case is not run";
}

// WSS and Atomicity judge the run itself: both increments in the final state is ok; a final state planted without
// T0's increment is a final-state mismatch for WSS, and T1's increment left in the final state of a run whose COMMIT
// of T1 is planted failed is an aborted effect for Atomicity.
TEST(LockTableOracles, WssAndAtomicityJudgeItAndCatchPlantedViolations) {
  TXPROP_USE_ENGINE(pg, "postgresql", false);
  WssBehaviour strict;
  strict.source = "test: WSS holds";
  for (IsolationLevel level : {IsolationLevel::ReadCommitted, IsolationLevel::Serializable}) {
    const History h = pg->run(two_increments(level));
    ASSERT_FALSE(h.finding) << h.finding->detail;
    ASSERT_TRUE(h.any_blocked()) << describe(h);
    ASSERT_EQ(h.final_state, (DatabaseState{{"t", {{1, 3}, {2, 0}}}})) << describe(h);
    EXPECT_TRUE(check_wss(*pg, h, WssOptions{strict}).ok()) << sql_name(level);
    EXPECT_TRUE(check_atomicity(*pg, h).ok()) << sql_name(level);
    History lost = h;
    lost.final_state = DatabaseState{{"t", {{1, 2}, {2, 0}}}};  // planted: T0's +1 is gone
    const Verdict wss = check_wss(*pg, lost, WssOptions{strict});
    EXPECT_TRUE(wss.fails() && wss.has("final-state-mismatch")) << sql_name(level) << "\n" << wss.explain();
    History rolled_back = h;  // planted: T1's COMMIT failed, and its +2 is in the final state all the same
    const std::size_t end = rolled_back.outcomes[1].size() - 1;
    rolled_back.outcomes[1][end] = Outcome::failure(ErrorClass::SerializationFailure, "40001", "planted");
    rolled_back.transactions[1] = TxnResult{TxnFate::Aborted, StepRef{1, static_cast<int>(end)},
                                            rolled_back.outcomes[1][end].error, rolled_back.transactions[1].end_event};
    const Verdict atomic = check_atomicity(*pg, rolled_back);
    EXPECT_TRUE(atomic.has("aborted-effect")) << sql_name(level) << "\n" << atomic.explain();
  }
}
