// Savepoints (issue 17 part B) judged by Atomicity and WSS on every engine. T0 increments row 1, sets a savepoint,
// overwrites the row with 100 and rolls back to the savepoint, then commits; T1 reads the row afterwards. Atomicity
// replays T0 with the undone overwrite left out, WSS replays the transactions serially (and their statements as
// autocommit statements, the savepoint statements and the undone ones left out). Planted violations through the
// savepoint are caught: the undone overwrite surviving in the final state (both oracles), and T1 reading it (a dirty
// read of a write that was rolled back to a savepoint: Atomicity). The real history passes.
#include <gtest/gtest.h>

#include "support/engine_targets.hpp"
#include "txprop/atomicity.hpp"
#include "txprop/sql_parser.hpp"
#include "txprop/wss.hpp"

using namespace txprop;

namespace {

TestCase undone_overwrite(IsolationLevel level) {
  TestCase c;
  c.schema.tables = {Table{"t", {Column{"k", ColumnType::Integer, true}, Column{"v"}}, {"k"}, {}, {{1, 10}}}};
  Transaction writer, reader;
  for (const char* s : {"UPDATE t SET v = v + 1 WHERE k = 1", "SAVEPOINT a", "UPDATE t SET v = 100 WHERE k = 1",
                        "ROLLBACK TO SAVEPOINT a"})
    writer.statements.push_back(parse_statement(s));
  reader.statements = {parse_statement("SELECT * FROM t WHERE k = 1")};
  writer.isolation = reader.isolation = level;
  c.transactions = {writer, reader};
  c.order = TestCase::serial_order(c.transactions);
  EXPECT_EQ(c.validate(), "");
  return c;
}

Row row(std::int64_t v) { return Row{Value(std::int64_t{1}), Value(v)}; }

void check(Target& target, IsolationLevel level) {
  WssBehaviour strict;
  strict.source = "test: WSS holds";
  History h = target.run(undone_overwrite(level));
  ASSERT_FALSE(h.finding) << h.finding->detail;
  ASSERT_EQ(h.final_state, (DatabaseState{{"t", {row(11)}}})) << describe(h);
  ASSERT_EQ(h.outcomes[1][1].rows, std::vector<Row>{row(11)}) << describe(h);
  const Verdict atomic = check_atomicity(target, h);
  EXPECT_TRUE(atomic.ok()) << atomic.explain();
  EXPECT_NE(atomic.note.find("T0.3 (undone by ROLLBACK TO SAVEPOINT)"), std::string::npos) << atomic.note;
  const Verdict wss = check_wss(target, h, WssOptions{strict});
  EXPECT_TRUE(wss.ok()) << wss.explain();

  History survived = h;
  survived.final_state = DatabaseState{{"t", {row(100)}}};  // planted: the undone overwrite is there
  EXPECT_TRUE(check_atomicity(target, survived).has("aborted-effect"));
  const Verdict wss_caught = check_wss(target, survived, WssOptions{strict});
  EXPECT_TRUE(wss_caught.fails() && wss_caught.has("final-state-mismatch")) << wss_caught.explain();

  History dirty = h;
  dirty.outcomes[1][1].rows = {row(100)};  // planted: T1 read the overwrite that T0 rolled back to a savepoint
  const Verdict caught = check_atomicity(target, dirty, AtomicityOptions{true});
  ASSERT_TRUE(caught.has("aborted-effect")) << caught.explain();
  EXPECT_NE(caught.findings[0].explanation.find("T1.1"), std::string::npos) << caught.explain();
}

}  // namespace

TEST(SavepointPlanted, Sqlite) {
  TXPROP_USE_ENGINE(target, "sqlite", false);
  check(*target, IsolationLevel::Serializable);
}

TEST(SavepointPlanted, Postgresql) {
  TXPROP_USE_ENGINE(target, "postgresql", false);
  check(*target, IsolationLevel::ReadCommitted);
  check(*target, IsolationLevel::Serializable);
}

TEST(SavepointPlanted, Mariadb) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  check(*target, IsolationLevel::RepeatableRead);
}
