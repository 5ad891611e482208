// BOOLEAN columns and truth values (issue 17 item 5) judged by Adya, Troc and SDG on every engine:
//   - the one predicate evaluator txprop has (properties/adya/predicate_eval, which Adya's predicate dependencies use)
//     gives every row the match the engine gives, for TRUE / FALSE, = / <> TRUE, IS [NOT] TRUE | FALSE, NOT b,
//     IS [NOT] DISTINCT FROM and the CASTs it claims to know (Troc and SDG re-run predicates on the engine itself);
//   - Adya: a write skew through the predicate `b IS TRUE` (each transaction counts the rows on call, then inserts one
//     on call: PostgreSQL 15 manual 13.2.2's SI example, with a BOOLEAN). At REPEATABLE READ both commit and Adya finds
//     the predicate cycle, which only its evaluation of `b IS TRUE` on the inserted TRUE draws: the same run inserting
//     FALSE has none. The REPEATABLE READ history judged as SERIALIZABLE (planted) fails; the SERIALIZABLE run passes;
//   - Troc and SDG: a flip `SET b = NOT b` beside a reader `WHERE b IS TRUE`: the real history passes, and a planted
//     result of the reader (the flip's uncommitted version, a dirty read) is caught.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "../../properties/adya/predicate_eval.hpp"
#include "support/engine_targets.hpp"
#include "support/planted.hpp"
#include "txprop/oracle.hpp"
#include "txprop/sql.hpp"

using namespace txprop;

namespace {

Table flags(std::vector<Row> rows) {
  return Table{"t", {Column{"k", ColumnType::Integer, true}, Column{"b", ColumnType::Boolean, false}}, {"k"}, {},
               std::move(rows)};
}
Row row(std::int64_t k, Value b) { return Row{Value(k), std::move(b)}; }

// The predicates, as users write them, whose matches the evaluator must know exactly.
const char* const kPredicates[] = {
    "b = TRUE", "b <> FALSE", "b IS TRUE", "b IS NOT TRUE", "b IS FALSE", "b IS NOT FALSE", "NOT b", "b IS NULL",
    "(v > 4) = TRUE", "(v > 4) = FALSE", "(v > 4) IS NOT TRUE", "(v = 5) IS FALSE", "(v = 5) IS NOT FALSE",
    "v IS DISTINCT FROM 5", "v IS NOT DISTINCT FROM NULL", "v IS NOT DISTINCT FROM 7", "CAST(v AS TEXT) = '-3'",
    "CAST(k AS REAL) > 2", "b = TRUE OR v IS NULL", "TRUE AND b IS NOT NULL", "FALSE OR b = FALSE"};

void evaluator_agrees(Target& target) {
  TestCase c;
  Table t{"t",
          {Column{"k", ColumnType::Integer, true}, Column{"b", ColumnType::Boolean, false},
           Column{"v", ColumnType::Integer, false}},
          {"k"},
          {},
          {{1, 1, 5}, {2, 0, Value()}, {3, Value(), 7}, {4, 1, -3}, {5, 0, 4}}};
  c.schema.tables = {t};
  Transaction reads;
  reads.isolation = target.engine().levels().back();
  for (const char* p : kPredicates) reads.statements.push_back(parse_statement(fmt::format("SELECT k FROM t WHERE {}", p)));
  c.transactions = {reads};
  c.order = TestCase::serial_order(c.transactions);
  ASSERT_EQ(c.validate(), "");
  const History h = target.run(c);
  ASSERT_FALSE(h.finding) << h.finding->detail;
  for (std::size_t i = 0; i < std::size(kPredicates); ++i) {
    const Outcome& o = h.outcomes[0][i + 1];
    ASSERT_TRUE(o.ok()) << kPredicates[i] << ": " << summary(o);
    std::set<std::int64_t> engine;
    for (const Row& r : o.rows) engine.insert(r.at(0).as_int());
    for (const Row& r : t.rows) {
      const adya::Match m = adya::matches(c.transactions[0].statements[i].where, t, r);
      ASSERT_NE(m, adya::Match::Unknown) << kPredicates[i] << " on row k=" << r[0].as_int();
      EXPECT_EQ(m == adya::Match::Yes, engine.count(r[0].as_int()) == 1)
          << target.name() << ": " << kPredicates[i] << " on row k=" << r[0].as_int();
    }
  }
}

// The history of the write skew through `b IS TRUE` at `level`, each transaction inserting a row with `inserted`.
Judgement on_call(Target& target, IsolationLevel level, const char* inserted) {
  TestCase c;
  c.schema.tables = {flags({row(1, 1), row(2, 0)})};
  c.transactions = {test::txn(level, {"SELECT * FROM t WHERE b IS TRUE"}), test::txn(level, {"SELECT * FROM t WHERE b IS TRUE"})};
  c.transactions[0].statements.push_back(parse_statement(fmt::format("INSERT INTO t (k, b) VALUES (10, {})", inserted)));
  c.transactions[1].statements.push_back(parse_statement(fmt::format("INSERT INTO t (k, b) VALUES (20, {})", inserted)));
  c.order = {0, 1, 0, 1, 0, 1, 0, 1};  // both read, both insert, both commit
  EXPECT_EQ(c.validate(), "");
  const Oracle& adya = oracle("adya");
  EXPECT_EQ(adya.cannot_judge(c, target.engine()), "");
  return judge_case(adya, target, c, [&](const TestCase& p) { return target.run(p); });
}

bool has_g2(const Verdict& v) { return v.has("G2") || v.has("write-skew"); }

void adya_write_skew(Target& target, IsolationLevel weak, IsolationLevel strong) {
  const Oracle& adya = oracle("adya");
  Judgement skew = on_call(target, weak, "TRUE");
  ASSERT_FALSE(skew.history.finding) << skew.history.finding->detail;
  for (const auto& t : skew.history.transactions) ASSERT_EQ(t.fate, TxnFate::Committed) << describe(skew.history);
  EXPECT_FALSE(skew.verdict.inconclusive) << skew.verdict.explain();
  EXPECT_TRUE(has_g2(skew.verdict)) << "the predicate cycle through b IS TRUE: " << skew.verdict.explain();
  History planted = skew.history;
  for (Transaction& t : planted.test_case.transactions) t.isolation = strong;  // planted: judged as if at `strong`
  const Verdict caught = adya.judge(target, planted);
  EXPECT_TRUE(caught.fails() && has_g2(caught)) << caught.explain();

  const Judgement off_call = on_call(target, weak, "FALSE");  // an inserted FALSE changes no match of b IS TRUE
  EXPECT_FALSE(off_call.verdict.inconclusive) << off_call.verdict.explain();
  EXPECT_FALSE(has_g2(off_call.verdict)) << off_call.verdict.explain();

  const Judgement serializable = on_call(target, strong, "TRUE");
  EXPECT_TRUE(serializable.verdict.ok()) << serializable.verdict.explain();
}

// The step of transaction `t` in the prepared case that is the case's own SELECT ... WHERE `where` (not an added read).
std::size_t step_of(const TestCase& prepared, std::size_t t, const std::string& where) {
  const auto& statements = prepared.transactions.at(t).statements;
  for (std::size_t i = 0; i < statements.size(); ++i) {
    const Statement& s = statements[i];
    const bool added = !s.columns.empty() && s.columns.front().starts_with("txp_");
    if (s.kind == StatementKind::Select && !added && s.where && render(*s.where, Dialect::Portable) == where) return i + 1;
  }
  ADD_FAILURE() << "no SELECT ... WHERE " << where << " in T" << t;
  return 0;
}

// T0 flips row 1 to FALSE; T1 reads the rows on call before T0 commits (row 1: it reads the committed TRUE, never
// T0's FALSE) and again after. A planted first read without row 1 is T0's uncommitted version: a dirty read.
void flip_beside_reader(Target& target, IsolationLevel level, const std::string& name, const char* caught_kind) {
  TestCase c;
  c.schema.tables = {flags({row(1, 1), row(2, 0), row(3, Value())})};
  c.transactions = {test::txn(level, {"UPDATE t SET b = NOT b WHERE k = 1"}),
                    test::txn(level, {"SELECT * FROM t WHERE b IS TRUE", "SELECT * FROM t WHERE b = FALSE"})};
  c.order = {1, 0, 0, 1, 0, 1, 1};  // T1 begins, T0 flips, T1 reads, T0 commits, T1 reads again and commits
  ASSERT_EQ(c.validate(), "");
  const Oracle& o = oracle(name);
  ASSERT_EQ(o.cannot_judge(c, target.engine()), "");
  const Judgement j = judge_case(o, target, c, [&](const TestCase& p) { return target.run(p); });
  ASSERT_FALSE(j.history.finding) << j.history.finding->detail;
  // Passes: at READ COMMITTED SDG's graph shows the non-repeatable read, documented there (no failure).
  EXPECT_FALSE(j.verdict.fails() || j.verdict.inconclusive) << name << " at " << sql_name(level) << ": " << j.verdict.explain();
  History planted = j.history;
  Outcome& read = planted.outcomes[1][step_of(j.prepared, 1, "b IS TRUE")];
  ASSERT_EQ(read.rows.size(), 1u) << describe(j.history);
  read.rows.clear();  // planted: row 1 was read as T0 left it, uncommitted
  const Verdict caught = o.judge(target, planted);
  EXPECT_TRUE(caught.fails() && caught.has(caught_kind)) << name << " at " << sql_name(level) << ": " << caught.explain();
}

}  // namespace

TEST(TruthValueOracles, EvaluatorAgreesWithEveryEngine) {
  TXPROP_USE_ENGINE(lite, "sqlite", false);
  evaluator_agrees(*lite);
  TXPROP_USE_ENGINE(pg, "postgresql", false);
  evaluator_agrees(*pg);
  TXPROP_USE_ENGINE(maria, "mariadb", false);
  evaluator_agrees(*maria);
}

TEST(TruthValueOracles, AdyaCatchesAWriteSkewThroughABooleanPredicate) {
  TXPROP_USE_ENGINE(pg, "postgresql", false);
  adya_write_skew(*pg, IsolationLevel::RepeatableRead, IsolationLevel::Serializable);
  TXPROP_USE_ENGINE(maria, "mariadb", false);
  adya_write_skew(*maria, IsolationLevel::RepeatableRead, IsolationLevel::Serializable);
}

TEST(TruthValueOracles, TrocAndSdgCatchADirtyReadThroughABooleanPredicate) {
  TXPROP_USE_ENGINE(lite, "sqlite", false);
  for (const char* name : {"troc", "sdg"})
    flip_beside_reader(*lite, IsolationLevel::Serializable, name, std::string(name) == "troc" ? "incorrect-result" : "result-mismatch");
  TXPROP_USE_ENGINE(pg, "postgresql", false);
  for (IsolationLevel level : {IsolationLevel::ReadCommitted, IsolationLevel::RepeatableRead}) {
    flip_beside_reader(*pg, level, "troc", "incorrect-result");
    flip_beside_reader(*pg, level, "sdg", "result-mismatch");
  }
  TXPROP_USE_ENGINE(maria, "mariadb", false);
  for (IsolationLevel level : {IsolationLevel::ReadCommitted, IsolationLevel::RepeatableRead})
    flip_beside_reader(*maria, level, "troc", "incorrect-result");
  // SDG at READ COMMITTED only: at REPEATABLE READ the profile documents that Assumption A3 does not hold (with
  // innodb_snapshot_isolation ON or OFF), so a result mismatch there is documented behaviour, not a failure; at
  // SERIALIZABLE the reader's locking read waits for the flip.
  flip_beside_reader(*maria, IsolationLevel::ReadCommitted, "sdg", "result-mismatch");
}
