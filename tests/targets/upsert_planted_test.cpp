// Upserts (issue 17) judged by the oracles that judge them, on every engine: WSS and Atomicity replay the SQL on the
// engine, so they judge an upsert by running it again. Planted violations through the upsert form are caught, and
// the correct history passes:
//   - a lost update through ON CONFLICT DO UPDATE (MariaDB: ON DUPLICATE KEY UPDATE): two transactions each add to
//     one key's counter, both commit, and the planted final state keeps one increment; WSS's serial replay has both;
//   - an effect of a rolled-back upsert: the planted final state holds the increment of the transaction that rolled
//     back; Atomicity's replay of the committed one alone does not.
// The concurrent runs themselves are checked against what the engines do (by hand first, with the scenario file
// tests/scenarios/upsert_on_conflict_race_on_one_key.txn): the second upsert waits for the first's row lock, and
// then adds to the committed row, so no increment is lost.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "support/engine_targets.hpp"
#include "txprop/atomicity.hpp"
#include "txprop/oracle.hpp"
#include "txprop/sql_parser.hpp"
#include "txprop/wss.hpp"

using namespace txprop;

namespace {

constexpr const char* kAddToCounter = "INSERT INTO t (k, v) VALUES (1, {}) ON CONFLICT (k) DO UPDATE SET v = t.v + EXCLUDED.v";

// t(k PRIMARY KEY, v) holding (1, 10); T0 adds 1, T1 adds 2 through the upsert, interleaved so that T1's upsert is
// sent while T0 holds the row: BEGIN, BEGIN, T0 upsert, T1 upsert, T0 end, T1 end.
TestCase counter_race(IsolationLevel level, TxnEnd second_end) {
  TestCase c;
  c.schema.tables = {Table{"t", {Column{"k", ColumnType::Integer, true}, Column{"v"}}, {"k"}, {}, {{1, 10}}}};
  for (int add : {1, 2}) {
    Transaction t;
    t.isolation = level;
    t.statements = {parse_statement(fmt::format(fmt::runtime(kAddToCounter), add))};
    c.transactions.push_back(t);
  }
  c.transactions[1].end = second_end;
  c.order = {0, 1, 0, 1, 0, 1};
  EXPECT_EQ(c.validate(), "");
  return c;
}

DatabaseState counter_is(std::int64_t v) { return DatabaseState{{"t", {Row{Value(std::int64_t{1}), Value(v)}}}}; }

WssBehaviour strict() {
  WssBehaviour p;
  p.source = "test: WSS holds";
  return p;
}

void lost_update_through_upsert_is_caught(Target& target, IsolationLevel level) {
  History h = target.run(counter_race(level, TxnEnd::Commit));
  ASSERT_FALSE(h.finding) << h.finding->detail;
  ASSERT_TRUE(h.transactions[0].fate == TxnFate::Committed && h.transactions[1].fate == TxnFate::Committed)
      << describe(h);
  EXPECT_EQ(h.final_state, counter_is(13)) << "both increments survive: " << describe(h);
  const Verdict correct = check_wss(target, h, WssOptions{strict()});
  EXPECT_TRUE(correct.ok()) << correct.explain();
  EXPECT_TRUE(check_atomicity(target, h).ok());
  h.final_state = counter_is(12);  // planted: T0's increment lost, T1's upsert wrote 10 + 2 over T0's 11
  const Verdict caught = check_wss(target, h, WssOptions{strict()});
  ASSERT_TRUE(caught.fails()) << caught.explain();
  EXPECT_TRUE(caught.has("final-state-mismatch")) << caught.explain();
}

void rolled_back_upsert_effect_is_caught(Target& target, IsolationLevel level) {
  History h = target.run(counter_race(level, TxnEnd::Rollback));
  ASSERT_FALSE(h.finding) << h.finding->detail;
  ASSERT_EQ(h.transactions[1].fate, TxnFate::RolledBack) << describe(h);
  EXPECT_EQ(h.final_state, counter_is(11)) << describe(h);
  EXPECT_TRUE(check_atomicity(target, h).ok()) << check_atomicity(target, h).explain();
  h.final_state = counter_is(13);  // planted: the rolled-back T1's increment is there
  const Verdict caught = check_atomicity(target, h);
  ASSERT_TRUE(caught.fails()) << caught.explain();
  EXPECT_TRUE(caught.has("aborted-effect")) << caught.explain();
}

// Adya, Troc and Sdg cannot see which row an upsert inserted, updated or left alone: they refuse it with a reason,
// and check() gives no verdict with a tag the run summary counts.
void others_refuse(Target& target) {
  const TestCase c = counter_race(IsolationLevel::Serializable, TxnEnd::Commit);
  for (const char* name : {"adya", "adyaclaimed", "troc", "sdg"}) {
    const std::string why = oracle(name).cannot_judge(c, target.engine());
    EXPECT_NE(why.find("T0.1 is an upsert (ON CONFLICT DO UPDATE)"), std::string::npos) << name << ": " << why;
    const Verdict v = oracle(name).check(target, c);
    EXPECT_TRUE(v.inconclusive) << name;
    ASSERT_EQ(v.tags.size(), 1u) << name;
    EXPECT_EQ(v.tags[0].rfind("no verdict: T is an upsert (ON CONFLICT DO UPDATE), and ", 0), 0u) << v.tags[0];
  }
  for (const char* name : {"wss", "atomicity"}) EXPECT_EQ(oracle(name).cannot_judge(c, target.engine()), "") << name;
}

}  // namespace

TEST(UpsertPlanted, Sqlite) {
  TXPROP_USE_ENGINE(target, "sqlite", false);
  lost_update_through_upsert_is_caught(*target, IsolationLevel::Serializable);
  rolled_back_upsert_effect_is_caught(*target, IsolationLevel::Serializable);
  others_refuse(*target);
}

TEST(UpsertPlanted, Postgresql) {
  TXPROP_USE_ENGINE(target, "postgresql", false);
  // READ COMMITTED: the second upsert waits for the row lock, then updates the committed row (PostgreSQL 15 manual,
  // INSERT: "ON CONFLICT DO UPDATE guarantees an atomic INSERT or UPDATE outcome" at READ COMMITTED).
  lost_update_through_upsert_is_caught(*target, IsolationLevel::ReadCommitted);
  rolled_back_upsert_effect_is_caught(*target, IsolationLevel::ReadCommitted);
  others_refuse(*target);
}

TEST(UpsertPlanted, Mariadb) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  // REPEATABLE READ, where plain UPDATEs lose updates with innodb_snapshot_isolation=OFF: ON DUPLICATE KEY UPDATE
  // locks the duplicate row and updates its latest version, so none is lost here.
  lost_update_through_upsert_is_caught(*target, IsolationLevel::RepeatableRead);
  rolled_back_upsert_effect_is_caught(*target, IsolationLevel::RepeatableRead);
  others_refuse(*target);
}
