// Rules no other test pinned (issue 24): each test here fails on one small, plausible mistake that a mutation test
// of a421aa3 planted and every other test let through. The mutant each one kills is named in its comment and kept in
// tests/mutation/mutants.txt, so scripts/mutation_test.sh shows the test still kills it.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <set>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "txprop/adya_checker.hpp"
#include "txprop/adya_instrumentation.hpp"
#include "txprop/comparison.hpp"
#include "txprop/engine.hpp"
#include "txprop/generators.hpp"
#include "txprop/internal/test_hooks.hpp"
#include "txprop/target.hpp"
#include "txprop/target_config.hpp"
#include "txprop/test_case.hpp"
#include "properties/troc/troc.hpp"
#include "runner/scheduler.hpp"
#include "tests/support/adya_planted_history.hpp"
#include "tests/support/planted.hpp"

namespace txprop {
namespace {

// -------------------------------------------------------------------------------------------------------- shrinker

// Two transactions of two statements each, interleaved step by step: BEGIN, s1, s2, COMMIT of each in turn, so each
// step of T0 sits between two steps of T1 and removing the wrong one of T0's steps leaves another order.
TestCase interleaved_two_by_two() {
  TestCase c;
  Table t;
  t.name = "t";
  t.columns = {{"k", ColumnType::Integer, true}, {"v", ColumnType::Integer, false}};
  c.schema.tables = {t};
  Statement read = Statement::select("t");
  Statement write = Statement::select("t");
  write.lock = LockMode::Update;
  c.transactions = {Transaction{IsolationLevel::Serializable, {read, write}, TxnEnd::Commit},
                    Transaction{IsolationLevel::Serializable, {read, write}, TxnEnd::Commit}};
  c.order = {0, 1, 0, 1, 0, 1, 0, 1};
  return c;
}

// Mutant shrink-drop-statement-step: drop_statement erasing step s (the BEGIN for s = 0) instead of step s + 1.
// Dropping T0's first statement keeps T0's BEGIN first and its second statement after T1's first statement.
TEST(PinnedRules, DroppingAStatementRemovesItsOwnStepFromTheOrder) {
  const TestCase c = interleaved_two_by_two();
  ASSERT_EQ(c.validate(), "");
  bool found = false;
  for (const TestCase& s : gen::shrink_test_case(c)) {
    if (s.transactions.size() != 2 || s.transactions[0].statements.size() != 1 ||
        s.transactions[1].statements.size() != 2 || s.transactions[0].statements[0].lock != LockMode::Update)
      continue;  // not "T0 without its first statement"
    if (s.order.size() != c.order.size() - 1) continue;
    // Steps of the original, by position: T0.BEGIN T1.BEGIN T0.1 T1.1 T0.2 T1.2 T0.COMMIT T1.COMMIT. Without T0.1:
    if (s.order == std::vector<int>{0, 1, 1, 0, 1, 0, 1}) found = true;
    EXPECT_NE(s.order, (std::vector<int>{1, 0, 1, 0, 1, 0, 1})) << "the step removed was T0's BEGIN, not T0.1";
  }
  EXPECT_TRUE(found) << "no candidate drops exactly T0's first statement from the order";
}

// Mutant shrink-order-not-simpler: an order move offered though it removes no context switch. Moving T0's third step
// of 0 1 1 1 0 0 0 next to its first gives 0 0 1 1 1 0 0, as many switches as before: every order the shrinker offers
// must have fewer, or shrinking can go round in circles.
TEST(PinnedRules, EveryOrderCandidateHasFewerContextSwitches) {
  TestCase c = interleaved_two_by_two();
  c.transactions[1].statements.pop_back();
  c.order = {0, 1, 1, 1, 0, 0, 0};
  ASSERT_EQ(c.validate(), "");
  for (const TestCase& s : gen::shrink_test_case(c))
    if (s.transactions == c.transactions && s.schema == c.schema && s.order != c.order)
      EXPECT_LT(gen::context_switches(s.order), gen::context_switches(c.order)) << ::testing::PrintToString(s.order);
}

// ----------------------------------------------------------------------------------------------------- Adya checker

// Mutant gsia-boundary: G-SIa taking a transaction that ends exactly at the position where the other starts as
// ended before it (end > start instead of end >= start). Adya's start-dependency needs the commit strictly before
// the start; sharing a position is not "before".
TEST(PinnedRules, GSIaCountsAWriterEndingWhereTheReaderStartsAsConcurrent) {
  adya::ObservedHistory h;
  h.add_initial_row(1);
  h.add_transaction(1, {}, 1);
  h.add_write(h.add_statement(1, "T1.1 UPDATE t SET v = 1 WHERE k = 1"), 1, adya::WriteKind::Update);
  h.finish_transaction(1, adya::Fate::Committed, 2);
  h.add_transaction(2, {}, 2);  // starts at the position T1 ends at
  h.add_read(h.add_statement(2, "T2.1 SELECT * FROM t"), 1, std::vector<adya::TxnId>{0, 1});
  h.finish_transaction(2, adya::Fate::Committed, 3);
  const auto si = adya::check(h, adya::AdyaLevel::SI).findings;
  ASSERT_EQ(si.size(), 1u) << adya::check(h, adya::AdyaLevel::SI).explain();
  EXPECT_EQ(si[0].kind, "G-SIa");
  // One position later T1 has ended before T2 started: no interference.
  adya::ObservedHistory later;
  later.add_initial_row(1);
  later.add_transaction(1, {}, 1);
  later.add_write(later.add_statement(1, "T1.1 UPDATE t SET v = 1 WHERE k = 1"), 1, adya::WriteKind::Update);
  later.finish_transaction(1, adya::Fate::Committed, 2);
  later.add_transaction(2, {}, 3);
  later.add_read(later.add_statement(2, "T2.1 SELECT * FROM t"), 1, std::vector<adya::TxnId>{0, 1});
  later.finish_transaction(2, adya::Fate::Committed, 4);
  EXPECT_TRUE(adya::check(later, adya::AdyaLevel::SI).ok()) << adya::check(later, adya::AdyaLevel::SI).explain();
}

// Mutant cycle-readers-writer: a cycle's write-read edge deciding by its writer instead of its reader. In Adya's
// mixed-level graph a read-dependency counts where its reader's level proscribes the phenomenon, so in a read skew
// (T1 reads x, T2 writes x and y and commits, T1 reads y) only T1, the reader of both edges, decides.
TEST(PinnedRules, TheReaderOfAWriteReadEdgeDecidesACyclesStanding) {
  adya::ObservedHistory h;
  h.add_initial_row(1);
  h.add_initial_row(2);
  h.add_transaction(1, {}, 1);
  h.add_read(h.add_statement(1, "T1.1 SELECT * FROM t WHERE k = 1"), 1, std::vector<adya::TxnId>{0});
  h.add_transaction(2, {}, 2);
  h.add_write(h.add_statement(2, "T2.1 UPDATE t SET v = 1 WHERE k = 1"), 1, adya::WriteKind::Update);
  h.add_write(h.add_statement(2, "T2.2 UPDATE t SET v = 1 WHERE k = 2"), 2, adya::WriteKind::Update);
  h.finish_transaction(2, adya::Fate::Committed, 4);
  h.add_read(h.add_statement(1, "T1.2 SELECT * FROM t WHERE k = 2"), 2, std::vector<adya::TxnId>{0, 2});
  h.finish_transaction(1, adya::Fate::Committed, 6);
  h.add_transaction(3, {}, 7);  // a later reader orders T2's write of row 1 after the initial version T1 read
  h.add_read(h.add_statement(3, "T3.1 SELECT * FROM t WHERE k = 1"), 1, std::vector<adya::TxnId>{0, 2});
  h.finish_transaction(3, adya::Fate::Committed, 8);
  const auto fs = adya::check(h, adya::AdyaLevel::PL3).findings;
  ASSERT_EQ(fs.size(), 1u) << adya::check(h, adya::AdyaLevel::PL3).explain();
  EXPECT_EQ(fs[0].kind, "read-skew");
  EXPECT_EQ(fs[0].deciding, std::vector<int>{0}) << "history transaction 1 is test-case transaction 0";
  std::vector<int> involved = fs[0].transactions;
  std::sort(involved.begin(), involved.end());
  EXPECT_EQ(involved, (std::vector<int>{0, 1}));
}

// ------------------------------------------------------------------------------------------------- Adya property

// T0 reads t WHERE v = 5 (its version-set read first) and finds nothing; T1 sets row 1's v to 5 and commits before T0
// commits: T0 -rw-> T1 through T0's predicate. `blocked` marks step `step` of T0 (1: the version-set read, 2: the
// predicate read) as having waited on a lock.
adya::ObservedHistory predicate_read_history(std::size_t blocked_step) {
  TestCase c;
  c.schema.tables = {test::one_row_table("t")};
  const Expr v_is_5 = Expr::binary(BinaryOp::Eq, Expr::col("v"), Expr::lit(5));
  const Expr k_is_1 = Expr::binary(BinaryOp::Eq, Expr::col("k"), Expr::lit(1));
  c.transactions = {
      Transaction{IsolationLevel::RepeatableRead, {Statement::select("t", v_is_5)}, TxnEnd::Commit},
      Transaction{IsolationLevel::RepeatableRead, {Statement::update("t", {{"v", Expr::lit(5)}}, k_is_1)},
                  TxnEnd::Commit}};
  c.order = {0, 0, 1, 1, 1, 0};
  test::PlantedHistory p(c, adya::InstrumentationOptions{.engine = find_engine("postgresql")->capabilities()});
  // Instrumented: T0 = BEGIN, version-set read, SELECT, COMMIT; T1 = BEGIN, version-set read, UPDATE, COMMIT.
  const std::vector<std::string> vset_columns = {"txp_rid", "txp_wl", "k", "v"};
  p.at(0, 1).columns = vset_columns;
  p.at(0, 1).rows = {{1, "0", 1, 0}};
  p.at(0, 2).columns = test::kTableColumns;  // v = 0 does not match: no row
  p.at(1, 1).columns = vset_columns;
  p.at(1, 1).rows = {{1, "0", 1, 0}};
  p.at(1, 2).columns = test::kReturning;
  p.at(1, 2).rows = {{1, "0,2", 1, 5}};
  p.at(1, 2).affected = 1;
  p.observed(0, {{1, 5, 1, "0,2"}});
  if (blocked_step != 0) p.h.was_blocked[0][blocked_step] = true;
  return adya::observe(p.h);
}

// Mutant adya-blocked-predicate: a predicate read whose statement or version-set read waited on a lock keeping its
// predicate edges. After a wait the statement reads other versions than the version-set read before it recorded, so
// an edge drawn from that set could be invented: the read keeps its item reads and loses its predicate.
TEST(PinnedRules, APredicateReadThatWaitedDrawsNoPredicateEdges) {
  // History transaction 1 is T0, 2 is T1: T0's only edge to T1 is the anti-dependency through its predicate.
  const auto t0_to_t1 = [](std::size_t blocked_step) {
    return test::edges_of(predicate_read_history(blocked_step)).find("1-rw->2") != std::string::npos;
  };
  EXPECT_TRUE(t0_to_t1(0)) << "the unblocked read's anti-dependency on T1: " << test::edges_of(predicate_read_history(0));
  EXPECT_FALSE(t0_to_t1(2)) << "the predicate read itself waited";
  EXPECT_FALSE(t0_to_t1(1)) << "its version-set read waited";
}

// ---------------------------------------------------------------------------------------------------------- Troc

// T0 (MariaDB REPEATABLE READ) deletes WHERE a > 5, matching no row: InnoDB's next-key locks still cover the gap
// (MariaDB KB "InnoDB Lock Modes", gap locks at REPEATABLE READ), so T1's INSERT of (6, 6) must wait for T0's COMMIT.
History gap_lock_history(bool insert_waits) {
  TestCase c;
  c.schema.tables = {test::table_ab({{1, 1}})};
  c.transactions = {
      Transaction{IsolationLevel::RepeatableRead,
                  {Statement::delete_("t", Expr::binary(BinaryOp::Gt, Expr::col("a"), Expr::lit(5)))}, TxnEnd::Commit},
      Transaction{IsolationLevel::RepeatableRead, {Statement::insert("t", {"a", "b"}, {Expr::lit(6), Expr::lit(6)})},
                  TxnEnd::Commit}};
  c.order = {0, 0, 1, 1, 0, 1};
  History h;
  h.test_case = troc::prepare(c);
  h.outcomes.assign(2, std::vector<Outcome>(3));
  h.was_blocked.assign(2, std::vector<bool>(3, false));
  h.submitted_at = {{0, 1, 4}, {2, 3, 5}};
  using K = Event::Kind;
  if (insert_waits) {
    h.events = {{K::Completed, {0, 0}}, {K::Completed, {0, 1}}, {K::Completed, {1, 0}}, {K::Blocked, {1, 1}},
                {K::Completed, {0, 2}}, {K::Completed, {1, 1}}, {K::Completed, {1, 2}}};
    h.was_blocked[1][1] = true;
    h.transactions = {TxnResult{TxnFate::Committed, {}, {}, 4}, TxnResult{TxnFate::Committed, {}, {}, 6}};
  } else {
    h.events = {{K::Completed, {0, 0}}, {K::Completed, {0, 1}}, {K::Completed, {1, 0}}, {K::Completed, {1, 1}},
                {K::Completed, {0, 2}}, {K::Completed, {1, 2}}};
    h.transactions = {TxnResult{TxnFate::Committed, {}, {}, 4}, TxnResult{TxnFate::Committed, {}, {}, 5}};
  }
  h.outcomes[1][1].affected = 1;
  // The inserted row: Troc's row ids for inserts start at 1000000, its writer list is the writer's number (T1: 2).
  h.final_state["t"] = sorted_rows({{1, 1, 1, "0"}, {6, 6, 1000000, "2"}});
  return h;
}

Verdict judge_on_mariadb_rules(const History& h) {
  static std::unique_ptr<Target> scratch = Target::open(parse_target_uri("sqlite:"));
  scratch->driver().reset(h.test_case.schema);
  const TargetConfig maria = parse_target_uri("mariadb://u@127.0.0.1/db");
  auto evaluator = troc::engine_evaluator(*scratch);
  return troc::judge(h, maria.profile(), maria, *evaluator);
}

// Mutant troc-no-predicate-locks: the judge giving no statement a predicate lock. Then an INSERT into a range another
// transaction's DELETE covers would never be expected to wait.
TEST(PinnedRules, TrocExpectsAnInsertIntoAGapLockedRangeToWait) {
  const Verdict waited = judge_on_mariadb_rules(gap_lock_history(true));
  EXPECT_TRUE(waited.ok()) << waited.explain() << waited.note;
  const Verdict did_not_wait = judge_on_mariadb_rules(gap_lock_history(false));
  EXPECT_TRUE(test::has_kind(did_not_wait, "inconsistent-blocking")) << did_not_wait.explain() << did_not_wait.note;
}

// ------------------------------------------------------------------------------------------------ outcome comparison

// WSS and atomicity compare outcomes with compare_outcomes: two errors of different classes differ (a deadlock is not a
// unique violation), two of the same class do not, whatever the message (tests/mutation: compare-no-error-class).
TEST(PinnedRules, OutcomesWithErrorsOfDifferentClassesDiffer) {
  const Outcome deadlock = Outcome::failure(ErrorClass::Deadlock, "40P01", "deadlock detected");
  const Outcome duplicate = Outcome::failure(ErrorClass::ConstraintViolation, "23505", "duplicate key");
  const Outcome other_duplicate = Outcome::failure(ErrorClass::ConstraintViolation, "23505", "duplicate key value (k)=(1)");
  EXPECT_FALSE(compare_outcomes(deadlock, duplicate).empty());
  EXPECT_TRUE(compare_outcomes(duplicate, other_duplicate).empty());
}

// -------------------------------------------------------------------------------------------------------- runner

// An engine stand-in with one kind of lock, so that two transactions can be released by one COMMIT at the same moment
// (no real engine releases two waiters deterministically in the same instant): a DELETE takes an exclusive lock named
// by its own text, held until its session's COMMIT or ROLLBACK, and waits while another session holds it; the probe
// reports exactly the sessions waiting. Everything else returns at once.
struct Locks {
  std::mutex m;
  std::condition_variable cv;
  std::map<std::string, int> holder;  // lock name -> session id
  std::set<int> waiting;
};

// How a stand-in session behaves beyond taking its locks.
struct SessionTraits {
  bool commit_fails = false;  // its COMMIT fails with an error whose effect is the statement's only (MySQL 1205)
  // A DELETE of it that waited fails, when the holder releases the lock, with a serialization failure (the driver's
  // effect: TransactionAborted), as a deadlock victim or a first-updater-wins loser is aborted once its wait ends.
  bool abort_after_wait = false;
  // Its COMMIT releases its locks at once and replies only after this long: a COMMIT in flight whose waiters are
  // already released, as when a server sends the reply after the locks are gone.
  std::chrono::milliseconds commit_reply_after{0};
};

class LockingSession final : public drivers::Session {
 public:
  LockingSession(Locks& locks, int id, SessionTraits traits = {}) : locks_(locks), id_(id), traits_(traits) {}
  Outcome execute(const std::string& sql) override {
    if (sql == "COMMIT" && traits_.commit_fails)
      return Outcome::failure(ErrorClass::LockTimeout, "HY000", "lock wait timeout");
    std::unique_lock lock(locks_.m);
    if (sql == "COMMIT" || sql == "ROLLBACK") {
      std::erase_if(locks_.holder, [&](const auto& h) { return h.second == id_; });
      locks_.cv.notify_all();
      if (sql == "COMMIT" && traits_.commit_reply_after.count() > 0) {
        lock.unlock();
        std::this_thread::sleep_for(traits_.commit_reply_after);
      }
    } else if (sql.rfind("DELETE", 0) == 0) {
      bool waited = false;
      while (locks_.holder.count(sql) != 0 && locks_.holder[sql] != id_) {
        if (waited && traits_.abort_after_wait) {  // woken while another holds it: the holder changed or it re-took it
          locks_.waiting.erase(id_);
          return Outcome::failure(ErrorClass::SerializationFailure, "40001", "could not serialize access");
        }
        locks_.waiting.insert(id_);
        locks_.cv.wait(lock);
        waited = true;
      }
      locks_.waiting.erase(id_);
      if (waited && traits_.abort_after_wait)
        return Outcome::failure(ErrorClass::SerializationFailure, "40001", "could not serialize access");
      locks_.holder[sql] = id_;
    }
    return Outcome{};
  }
  std::string server_id() const override { return std::to_string(id_); }
  int id() const { return id_; }

 private:
  Locks& locks_;
  int id_;
  SessionTraits traits_;
};

class LockingDriver final : public drivers::Driver {
 public:
  explicit LockingDriver(Locks& locks, ErrorEffect effect = ErrorEffect::TransactionAborted)
      : locks_(locks), effect_(effect) {}
  Dialect dialect() const override { return Dialect::PostgreSql; }
  std::string server_version() override { return "stand-in"; }
  std::unique_ptr<drivers::Session> open_session() override { return nullptr; }
  std::vector<drivers::WaitState> probe(const std::vector<const drivers::Session*>& sessions) override {
    std::lock_guard lock(locks_.m);
    std::vector<drivers::WaitState> out(sessions.size());
    for (std::size_t i = 0; i < sessions.size(); ++i)
      out[i].waiting = locks_.waiting.count(static_cast<const LockingSession*>(sessions[i])->id()) != 0;
    return out;
  }
  void cancel(const drivers::Session&) override {}
  ErrorEffect effect(const Error&) const override { return effect_; }
  void reset(const Schema&) override {}
  DatabaseState read_state(const Schema&) override { return {}; }

 private:
  Locks& locks_;
  ErrorEffect effect_;
};

// Mutant scheduler-latest-first: dispatch_queued sending the queued step submitted latest first. T0 deletes from a and
// from b; T1 deletes from a and T2 from b, each then waits, and their SELECTs and COMMITs queue. T0's COMMIT releases
// both; once their DELETEs have completed, the queued steps must run in submitted order: T1's SELECT, T2's SELECT,
// T1's COMMIT, T2's COMMIT. The scheduler sends a queued step only for a transaction it knows to be idle: in a run
// where T1's SELECT completed before the scheduler saw T2's DELETE complete, T1's COMMIT is rightly next (T2 might
// still be waiting), so such a run (about 1 in 60 on a loaded machine) is no evidence and the case runs again.
TEST(PinnedRules, QueuedStepsRunInSubmittedOrder) {
  Table a, b;
  a.name = "a";
  b.name = "b";
  a.columns = b.columns = {{"k", ColumnType::Integer, true}};
  TestCase c;
  c.schema.tables = {a, b};
  const auto level = IsolationLevel::ReadCommitted;
  c.transactions = {Transaction{level, {Statement::delete_("a"), Statement::delete_("b")}, TxnEnd::Commit},
                    Transaction{level, {Statement::delete_("a"), Statement::select("a")}, TxnEnd::Commit},
                    Transaction{level, {Statement::delete_("b"), Statement::select("b")}, TxnEnd::Commit}};
  // T0: BEGIN, DELETE a, DELETE b; T1: BEGIN, DELETE a (waits); T2: BEGIN, DELETE b (waits); T1 SELECT, T2 SELECT
  // (queued); T0 COMMIT; T1 COMMIT, T2 COMMIT (queued).
  c.order = {0, 0, 0, 1, 1, 2, 2, 1, 2, 0, 1, 2};
  ASSERT_EQ(c.validate(), "");
  auto run_once = [&c] {
    Locks locks;
    LockingDriver driver(locks);
    runner::CompletionSignal signal;
    std::vector<std::unique_ptr<runner::SessionWorker>> workers;
    std::vector<runner::SessionWorker*> raw;
    for (int i = 0; i < 3; ++i) {
      workers.push_back(std::make_unique<runner::SessionWorker>(std::make_unique<LockingSession>(locks, i), signal, false));
      raw.push_back(workers.back().get());
    }
    RunOptions options;
    options.hang_limit = std::chrono::milliseconds(5000);
    RunMetrics metrics;
    return runner::schedule(c, driver, raw, signal, options, metrics);
  };
  for (int attempt = 0; attempt < 20; ++attempt) {
    const History h = run_once();
    ASSERT_FALSE(h.finding) << h.finding->detail;
    std::vector<StepRef> after_release;  // completed steps after T0's COMMIT, the DELETEs it released excepted
    bool released = false;
    int deletes_done = 0;
    bool evidence = true;  // both released DELETEs completed before any queued step did
    for (const Event& e : h.events) {
      if (e.kind != Event::Kind::Completed) continue;
      if (e.step == StepRef{0, 3}) {
        released = true;
        continue;
      }
      if (e.step.txn > 0 && e.step.index == 1) ++deletes_done;
      if (released && e.step.index >= 2) {
        if (after_release.empty() && deletes_done < 2) evidence = false;
        after_release.push_back(e.step);
      }
    }
    if (!evidence) continue;
    EXPECT_EQ(after_release, (std::vector<StepRef>{{1, 2}, {2, 2}, {1, 3}, {2, 3}})) << "attempt " << attempt;
    return;
  }
  FAIL() << "in 20 runs the scheduler never saw both released DELETEs complete before a queued step did";
}

// A statement woken when another transaction ended is ordered like a waiter's (scheduler.cpp, TxnState::woken, commit
// 32a5e89): T0 deletes from a, T1 and T2 then wait for T0's lock. T0's COMMIT releases it at once and replies 200 ms
// later; T1's DELETE takes the lock, T2's fails (a serialization failure: T2 ends, which asks T1 again). T1's DELETE
// was released by T0's COMMIT, so it must be recorded after it, though its reply came first and the server no longer
// says it waits. Before 32a5e89 T2's end cleared T1's wait and T1's DELETE was recorded before the COMMIT (a Troc
// failure at MariaDB REPEATABLE READ, tests/scenarios/unreproduced/).
TEST(PinnedRules, AStatementWokenByAnAbortIsRecordedAfterTheCommitThatReleasedIt) {
  Table a;
  a.name = "a";
  a.columns = {{"k", ColumnType::Integer, true}};
  TestCase c;
  c.schema.tables = {a};
  const auto level = IsolationLevel::ReadCommitted;
  for (int i = 0; i < 3; ++i) c.transactions.push_back(Transaction{level, {Statement::delete_("a")}, TxnEnd::Commit});
  // T0: BEGIN, DELETE; T1: BEGIN, DELETE (waits); T2: BEGIN, DELETE (waits); T0 COMMIT, T1 COMMIT, T2 COMMIT.
  c.order = {0, 0, 1, 1, 2, 2, 0, 1, 2};
  ASSERT_EQ(c.validate(), "");
  Locks locks;
  LockingDriver driver(locks);
  runner::CompletionSignal signal;
  const SessionTraits traits[] = {{.commit_reply_after = std::chrono::milliseconds(200)}, {}, {.abort_after_wait = true}};
  std::vector<std::unique_ptr<runner::SessionWorker>> workers;
  std::vector<runner::SessionWorker*> raw;
  for (int i = 0; i < 3; ++i) {
    workers.push_back(std::make_unique<runner::SessionWorker>(std::make_unique<LockingSession>(locks, i, traits[i]),
                                                              signal, false));
    raw.push_back(workers.back().get());
  }
  RunOptions options;
  options.hang_limit = std::chrono::milliseconds(5000);
  RunMetrics metrics;
  const History h = runner::schedule(c, driver, raw, signal, options, metrics);
  ASSERT_FALSE(h.finding) << h.finding->detail;
  ASSERT_EQ(h.transactions[2].fate, TxnFate::Aborted) << "T2's DELETE did not fail: the shape was not produced";
  ASSERT_TRUE(h.was_blocked[1][1] && h.was_blocked[2][1]) << "T1 and T2 must have been seen waiting";
  EXPECT_EQ(h.transactions[0].fate, TxnFate::Committed);
  EXPECT_EQ(h.transactions[1].fate, TxnFate::Committed);
  std::vector<StepRef> completed;
  for (const Event& e : h.events)
    if (e.kind == Event::Kind::Completed) completed.push_back(e.step);
  const auto at = [&](StepRef r) { return std::find(completed.begin(), completed.end(), r) - completed.begin(); };
  EXPECT_LT(at({0, 2}), at({1, 1})) << "T1's DELETE recorded before T0's COMMIT, which released it";
}

// Mutant runner-failed-commit-not-abort: a COMMIT that fails with an error whose effect is the statement's only (MySQL
// 1205) leaving its transaction as if it had not ended. A COMMIT that failed did not commit: the transaction is
// aborted, whatever the error does to other statements.
TEST(PinnedRules, AFailedCommitAbortsItsTransaction) {
  Locks locks;
  LockingDriver driver(locks, ErrorEffect::StatementOnly);
  runner::CompletionSignal signal;
  runner::SessionWorker worker(std::make_unique<LockingSession>(locks, 0, SessionTraits{.commit_fails = true}), signal, false);
  Table t;
  t.name = "t";
  t.columns = {{"k", ColumnType::Integer, true}};
  TestCase c;
  c.schema.tables = {t};
  c.transactions = {Transaction{IsolationLevel::ReadCommitted, {Statement::select("t")}, TxnEnd::Commit}};
  c.order = {0, 0, 0};
  RunOptions options;
  RunMetrics metrics;
  const History h = runner::schedule(c, driver, {&worker}, signal, options, metrics);
  ASSERT_FALSE(h.finding) << h.finding->detail;
  EXPECT_EQ(h.transactions[0].fate, TxnFate::Aborted);
  EXPECT_EQ(h.transactions[0].failed_step, (StepRef{0, 2}));
}

// ------------------------------------------------------------------------------------------------------- verdict

// Mutant verdict-deviation-ignored: a failure made only of documented deviations from the claimed level (Adya's
// claimed mode) is shrunk and shown but does not fail the test; one plain failure among them does.
TEST(PinnedRules, OnlyDeviationsIsAFailureOfDocumentedDeviationsOnly) {
  Verdict v = Verdict::pass("adyaclaimed");
  Finding deviation;
  deviation.kind = "lost-update";
  deviation.standing = Standing::Deviation;
  v.findings.push_back(deviation);
  EXPECT_TRUE(v.fails());
  EXPECT_TRUE(v.only_deviations());
  Finding plain;
  plain.kind = "G1c";
  v.findings.push_back(plain);
  EXPECT_FALSE(v.only_deviations());
}

}  // namespace
}  // namespace txprop
