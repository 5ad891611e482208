// Troc judges foreign keys (issue 17): a write that touches a key runs on its view with the key tables as their latest
// committed versions and the keys enforced (properties/troc/judge.cpp, add_key_tables), so the engine's own check
// decides whether it may succeed and its own actions write the referencing rows, as the transaction's writes.
// Two cases, each run on every engine configured at every level, judged ok, then with a planted violation:
//   - a check: T0 reads child 2 (its snapshot, from then on at REPEATABLE READ, holds parent 1; a read of the parent
//     table would lock parent 1 at InnoDB SERIALIZABLE), T1 deletes parent 1 and commits, T0 inserts a child of
//     parent 1. The engine refuses the INSERT (the key's check reads the latest
//     committed parent rows: 23503 / 40001 on PostgreSQL, 1452 on MariaDB, SQLITE_BUSY_SNAPSHOT on SQLite's stale
//     snapshot), which Troc follows. Planted: the INSERT succeeded and its row is in the final state; Troc's model of
//     the check refuses it there: incorrect-result.
//   - an action: T0 deletes parent 1, whose child 1 ON DELETE CASCADE goes with it; T1, after T0's COMMIT, reads the
//     child table. Planted: child 1 still in the final state (the cascade lost): incorrect-final-state.
#include <algorithm>

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "support/engine_targets.hpp"
#include "support/planted.hpp"
#include "txprop/oracle.hpp"
#include "txprop/scenario.hpp"
#include "txprop/sql.hpp"

using namespace txprop;

namespace {

constexpr const char* kSchema =
    "CREATE TABLE parent (id INTEGER NOT NULL, v INTEGER, PRIMARY KEY (id));\n"
    "CREATE TABLE child (id INTEGER NOT NULL, pid INTEGER, PRIMARY KEY (id), FOREIGN KEY (pid) REFERENCES parent (id) "
    "ON DELETE {});\n"
    "INSERT INTO parent (id, v) VALUES (1, 10), (2, 20);\n"
    "INSERT INTO child (id, pid) VALUES {};\n";

TestCase insert_after_parent_deleted(IsolationLevel level) {
  return parse_scenario(fmt::format("name: check\nsetup:\n{}steps:\nT0: BEGIN;\nT0: SELECT * FROM child WHERE id = 2;\nT1: BEGIN;\n"
                                    "T1: DELETE FROM parent WHERE id = 1;\nT1: COMMIT;\n"
                                    "T0: INSERT INTO child (id, pid) VALUES (10, 1);\nT0: COMMIT;\n",
                                    fmt::format(kSchema, "RESTRICT", "(2, 2)")))
      .replay_case(level);
}

TestCase read_after_cascade(IsolationLevel level) {
  return parse_scenario(fmt::format("name: action\nsetup:\n{}steps:\nT0: BEGIN;\nT0: DELETE FROM parent WHERE id = 1;\n"
                                    "T0: COMMIT;\nT1: BEGIN;\nT1: SELECT * FROM child;\nT1: COMMIT;\n",
                                    fmt::format(kSchema, "CASCADE", "(1, 1), (2, 2)")))
      .replay_case(level);
}

Judgement judged(Target& target, const TestCase& c) {
  EXPECT_EQ(oracle("troc").cannot_judge(c, target.engine()), "");
  Judgement j = judge_case(oracle("troc"), target, c, [&](const TestCase& p) { return target.run(p); });
  EXPECT_FALSE(j.history.finding) << j.history.finding->detail;
  EXPECT_TRUE(j.verdict.ok()) << target.name() << "\n" << j.verdict.explain() << describe(j.history);
  EXPECT_TRUE(std::find(j.verdict.tags.begin(), j.verdict.tags.end(), "foreign-key-judged") != j.verdict.tags.end())
      << j.verdict.explain();
  return j;
}

// The step of transaction `t` that is the case's INSERT (the prepared case has no statements of its own before it).
std::size_t insert_step(const TestCase& prepared, int t) {
  const auto& statements = prepared.transactions[static_cast<std::size_t>(t)].statements;
  for (std::size_t i = 0; i < statements.size(); ++i)
    if (statements[i].kind == StatementKind::Insert) return i + 1;
  return 0;
}

// T0's INSERT planted successful, T0 committed, and the inserted row (as instrumented) in the final state.
History insert_succeeded(const Judgement& j) {
  History h = j.history;
  const std::size_t step = insert_step(j.prepared, 0);
  EXPECT_GT(step, 0u);
  EXPECT_TRUE(h.outcomes[0][step].failed()) << "the engine refuses the child of a deleted parent: " << describe(h);
  h.outcomes[0][step] = test::affected(1);
  for (std::size_t s = step + 1; s < h.outcomes[0].size(); ++s) h.outcomes[0][s] = Outcome{};
  h.transactions[0] = TxnResult{TxnFate::Committed, std::nullopt, {}, h.transactions[0].end_event};
  Row inserted;
  for (const Expr& e : j.prepared.transactions[0].statements[step - 1].values.at(0)) inserted.push_back(e.literal);
  h.final_state["child"].push_back(inserted);
  h.final_state["child"] = sorted_rows(h.final_state["child"]);
  return h;
}

// Child 1 planted back into the final state, as it was before T0's cascade deleted it.
History cascade_lost(const Judgement& j) {
  History h = j.history;
  const Table& child = *j.prepared.schema.find_table("child");
  for (const Row& r : child.rows)
    if (r.at(*child.column_index("id")) == Value(std::int64_t{1})) h.final_state["child"].push_back(r);
  EXPECT_EQ(h.final_state["child"].size(), 2u) << describe(j.history);
  h.final_state["child"] = sorted_rows(h.final_state["child"]);
  return h;
}

void judges_keys_and_catches_planted_violations(Target& target) {
  for (IsolationLevel level : target.config().levels) {
    SCOPED_TRACE(std::string(sql_name(level)) + " on " + target.name());
    const Judgement check = judged(target, insert_after_parent_deleted(level));
    const Verdict refused = oracle("troc").judge(target, insert_succeeded(check));
    EXPECT_TRUE(refused.fails() && refused.has("incorrect-result")) << refused.explain();
    EXPECT_NE(refused.explain().find("its foreign key's check"), std::string::npos) << refused.explain();
    const Judgement action = judged(target, read_after_cascade(level));
    const Verdict lost = oracle("troc").judge(target, cascade_lost(action));
    EXPECT_TRUE(lost.fails() && lost.has("incorrect-final-state")) << lost.explain();
  }
}

}  // namespace

TEST(ForeignKeyTroc, PostgresqlJudgesKeysAndCatchesPlantedViolations) {
  TXPROP_USE_ENGINE(pg, "postgresql", false);
  judges_keys_and_catches_planted_violations(*pg);
}

TEST(ForeignKeyTroc, MariadbJudgesKeysAndCatchesPlantedViolations) {
  TXPROP_USE_ENGINE(maria, "mariadb", false);
  judges_keys_and_catches_planted_violations(*maria);
}

TEST(ForeignKeyTroc, MariadbSnapshotIsolationJudgesKeysAndCatchesPlantedViolations) {
  TXPROP_USE_ENGINE(maria, "mariadb", true);
  judges_keys_and_catches_planted_violations(*maria);
}

TEST(ForeignKeyTroc, SqliteJudgesKeysAndCatchesPlantedViolations) {
  TXPROP_USE_ENGINE(lite, "sqlite", false);
  judges_keys_and_catches_planted_violations(*lite);
}
