// Start points from the engine profile (issue 21 item 3): a transaction starts where its engine takes its snapshot
// (VisibilityRules::snapshot_point), at the end of a wait when the statement read after it. A write that waited for a
// lock and then overwrote a committed write is no G-SIa; a read of a snapshot taken before that commit is.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "txprop/adya.hpp"
#include "txprop/adya_instrumentation.hpp"
#include "txprop/sql_parser.hpp"
#include "txprop/target.hpp"
#include "txprop/target_config.hpp"
#include "txprop/txn_start.hpp"
#include "tests/support/adya_planted_history.hpp"
#include "tests/support/planted.hpp"

using namespace txprop;

namespace {

constexpr IsolationLevel RC = IsolationLevel::ReadCommitted, RR = IsolationLevel::RepeatableRead,
                         SER = IsolationLevel::Serializable;
constexpr const char* kPostgresql = "postgresql://u@127.0.0.1/db";
constexpr const char* kMariadb = "mariadb://u@127.0.0.1/db";
constexpr const char* kSqlite = "sqlite:";

Target& judged_as(const std::string& uri) {
  static std::map<std::string, std::unique_ptr<Target>> targets;
  auto& t = targets[uri];
  if (!t) t = Target::open_judged_as(parse_target_uri("sqlite:"), parse_target_uri(uri));
  return *t;
}

Expr k_is_1() { return Expr::binary(BinaryOp::Eq, Expr::col("k"), Expr::lit(1)); }

const Finding* finding(const Verdict& v, const std::string& kind) {
  for (const Finding& f : v.findings)
    if (f.kind == kind) return &f;
  return nullptr;
}

// T0 writes row 1 and commits; T1 (optionally reading row 1 first) writes row 1, waiting for T0's lock, and commits
// after T0. Actual order: T0 BEGIN, T0 UPDATE, T1 BEGIN, [T1 SELECT], T1 UPDATE (blocked), T0 COMMIT, T1 UPDATE
// completes, T1 COMMIT, then the observer. With `read_first`, T1's SELECT saw the initial version: a real G-SIa (T1
// overwrote a write that had not committed when its snapshot was taken) and a lost update.
History waited_write(IsolationLevel level, bool read_first) {
  TestCase c;
  c.schema.tables = {test::one_row_table("t")};
  Transaction t1{level, {Statement::update("t", {{"v", Expr::lit(2)}}, k_is_1())}, TxnEnd::Commit};
  if (read_first) t1.statements.insert(t1.statements.begin(), Statement::select("t", k_is_1()));
  c.transactions = {Transaction{level, {Statement::update("t", {{"v", Expr::lit(1)}}, k_is_1())}, TxnEnd::Commit}, t1};
  c.order = {0, 0, 1};  // the rest is written into the history below
  if (read_first) c.order.push_back(1);
  c.order.insert(c.order.end(), {1, 0, 1});
  adya::InstrumentationOptions options;
  options.version_sets = false;
  test::PlantedHistory p(c, options);
  const int w = read_first ? 2 : 1;  // T1's UPDATE
  // Rewrite the actual order: T1's UPDATE is blocked until T0's COMMIT.
  History& h = p.h;
  std::vector<Event> events;
  for (const Event& e : h.events) {
    if (e.step == StepRef{1, w}) {
      events.push_back(Event{Event::Kind::Blocked, e.step});
      continue;
    }
    events.push_back(e);
    if (e.step == StepRef{0, 2}) events.push_back(Event{Event::Kind::Completed, StepRef{1, w}});
  }
  h.events = events;
  for (std::size_t i = 0; i < h.events.size(); ++i)
    for (std::size_t t = 0; t < h.transactions.size(); ++t) {
      const StepRef& s = h.events[i].step;
      if (s.txn == static_cast<int>(t) && s.index + 1 == static_cast<int>(h.test_case.transactions[t].step_count()))
        h.transactions[t].end_event = static_cast<int>(i);
    }
  h.was_blocked[1][static_cast<std::size_t>(w)] = true;
  if (read_first) {
    p.at(1, 1).columns = test::kTableColumns;
    p.at(1, 1).rows = {{1, 0, 1, "0"}};
  }
  p.at(0, 1).columns = test::kReturning;
  p.at(0, 1).rows = {{1, "0,1", 1, 1}};
  p.at(0, 1).affected = 1;
  p.at(1, static_cast<std::size_t>(w)).columns = test::kReturning;
  p.at(1, static_cast<std::size_t>(w)).rows = {{1, "0,1,2", 1, 2}};
  p.at(1, static_cast<std::size_t>(w)).affected = 1;
  p.observed(0, {{1, 2, 1, "0,1,2"}});
  return h;
}

TEST(TxnStart, WhereEachEngineTakesItsSnapshot) {
  const History plain = waited_write(RR, false), read = waited_write(RR, true);
  const VisibilityRules pg_rr = find_engine("postgresql")->visibility(RR, parse_target_uri(kPostgresql));
  const VisibilityRules pg_rc = find_engine("postgresql")->visibility(RC, parse_target_uri(kPostgresql));
  const VisibilityRules innodb_rr = find_engine("mariadb")->visibility(RR, parse_target_uri(kMariadb));
  const VisibilityRules innodb_ser = find_engine("mariadb")->visibility(SER, parse_target_uri(kMariadb));
  const VisibilityRules sqlite = find_engine("sqlite")->visibility(SER, parse_target_uri(kSqlite));
  const int submitted = plain.submitted_at[1][1], completed = plain.completed_at(StepRef{1, 1});
  ASSERT_LT(submitted, plain.transactions[0].end_event);  // T0 had not committed when T1's UPDATE was sent
  ASSERT_GT(completed, plain.transactions[0].end_event);
  // PostgreSQL REPEATABLE READ: the first statement's snapshot, taken when it started (it would then fail).
  EXPECT_EQ(transaction_start(plain, 1, pg_rr).position, submitted);
  EXPECT_NE(transaction_start(plain, 1, pg_rr).rule.find("first statement, which takes the snapshot"), std::string::npos);
  // READ COMMITTED re-checks the row after the wait; SQLite retries the statement; InnoDB's UPDATE is no consistent
  // read (a current read of the latest committed version, made after the wait).
  for (const VisibilityRules* r : {&pg_rc, &innodb_rr, &innodb_ser, &sqlite})
    EXPECT_EQ(transaction_start(plain, 1, *r).position, completed);
  EXPECT_NE(transaction_start(plain, 1, innodb_rr).rule.find("no step took a transaction snapshot"), std::string::npos);
  // InnoDB REPEATABLE READ with a plain SELECT first: its read view.
  EXPECT_EQ(transaction_start(read, 1, innodb_rr).step, 1);
  EXPECT_EQ(transaction_start(read, 1, innodb_rr).position, read.submitted_at[1][1]);
  EXPECT_NE(transaction_start(read, 1, innodb_rr).rule.find("first consistent read"), std::string::npos);
  // InnoDB SERIALIZABLE: the SELECT is a locking read, no read view; the first statement, which did not wait.
  EXPECT_EQ(transaction_start(read, 1, innodb_ser).position, read.submitted_at[1][1]);
}

// A first statement that takes PostgreSQL's REPEATABLE READ snapshot takes it when it starts, whatever it then waits
// for: an INSERT whose unique check waited for a DELETE of its key to commit still sees the deleted row afterwards
// (tests/scenarios/pg_rr_insert_waits_for_a_delete_of_its_key.txn). Taking its completion as the start made the
// AdyaDocumented suite report G-SIb on that history at PostgreSQL 15.18 REPEATABLE READ.
TEST(TxnStart, AnInsertThatWaitedTookPostgresqlsSnapshotWhenItStarted) {
  History h = waited_write(RR, false);
  h.test_case.transactions[1].statements[0] = parse_statement("INSERT INTO t (k, v) VALUES (1, 2)");
  const VisibilityRules pg_rr = find_engine("postgresql")->visibility(RR, parse_target_uri(kPostgresql));
  const VisibilityRules sqlite = find_engine("sqlite")->visibility(SER, parse_target_uri(kSqlite));
  const TxnStart start = transaction_start(h, 1, pg_rr);
  EXPECT_EQ(start.position, h.submitted_at[1][1]) << start.rule;
  EXPECT_EQ(start.rule.find("once its wait ended"), std::string::npos) << start.rule;
  // SQLite retries a first write after SQLITE_BUSY: its snapshot is taken when it finally runs.
  EXPECT_EQ(transaction_start(h, 1, sqlite).position, h.completed_at(StepRef{1, 1}));
}

// The waited write on every engine and level where it commits: no G-SIa (before issue 21: "G-SIa (allowed)" at READ
// COMMITTED and on MariaDB REPEATABLE READ, where T1's start was taken as its UPDATE's submission).
TEST(TxnStart, AWriteThatWaitedIsNoGSIa) {
  struct Cell {
    const char* uri;
    IsolationLevel level;
  };
  for (const Cell& c : {Cell{kPostgresql, RC}, Cell{kMariadb, RC}, Cell{kMariadb, RR}, Cell{kSqlite, SER}}) {
    SCOPED_TRACE(std::string(c.uri) + " " + sql_name(c.level));
    const Verdict v = check_adya(judged_as(c.uri), waited_write(c.level, false), AdyaMode::Documented);
    EXPECT_EQ(finding(v, "G-SIa"), nullptr) << v.explain();
    EXPECT_TRUE(v.findings.empty()) << v.explain();
  }
}

// A real G-SIa still is one: T1 read row 1 in its snapshot before T0 committed, then overwrote T0's write. The finding
// names the start it used. MariaDB REPEATABLE READ claims PL-2.99, which allows G-SIa (its lost update is documented).
TEST(TxnStart, ARealGSIaIsStillCaught) {
  struct Cell {
    const char* uri;
    IsolationLevel level;
    const char* standing;
    const char* start;
  };
  for (const Cell& c : {Cell{kMariadb, RR, "allowed", "first consistent read"},
                        Cell{kPostgresql, RR, "fails", "first statement, which takes the snapshot"}}) {
    SCOPED_TRACE(std::string(c.uri) + " " + sql_name(c.level));
    const Verdict v = check_adya(judged_as(c.uri), waited_write(c.level, true), AdyaMode::Documented);
    const Finding* f = finding(v, "G-SIa");
    ASSERT_NE(f, nullptr) << v.explain();
    EXPECT_EQ(std::string(to_string(f->standing)), c.standing);
    EXPECT_NE(f->explanation.find(c.start), std::string::npos) << f->explanation;
    EXPECT_NE(finding(v, "lost-update"), nullptr) << v.explain();
  }
}

}  // namespace

// A LOCK TABLE takes no snapshot; where it waits, the statement after it, queued behind it, takes the snapshot only
// once it is sent, after the lock was granted. Seen: AdyaDocumented at PostgreSQL REPEATABLE READ (seed 44) reported
// G-SIa on T0's UPDATE, whose version-set read, queued while T0's LOCK TABLE waited for T1's INSERT, saw T1's row: the
// start was taken as the queued submission, before T1's COMMIT.
TEST(TxnStart, AStatementQueuedBehindAWaitingLockTableStartsWhenItIsSent) {
  TestCase c;
  c.schema.tables = {test::one_row_table("t")};
  c.transactions = {Transaction{RR, {Statement::update("t", {{"v", Expr::lit(1)}}, k_is_1())}, TxnEnd::Commit},
                    Transaction{RR, {parse_statement("LOCK TABLE t IN SHARE MODE"), Statement::select("t")},
                                TxnEnd::Commit}};
  c.order = {0, 0, 1, 1, 1, 0, 1};
  History h = test::completed_in_order(c);
  using K = Event::Kind;
  h.events = {{K::Completed, {0, 0}}, {K::Completed, {0, 1}}, {K::Completed, {1, 0}}, {K::Blocked, {1, 1}},
              {K::Completed, {0, 2}}, {K::Completed, {1, 1}}, {K::Completed, {1, 2}}, {K::Completed, {1, 3}}};
  h.submitted_at[1] = {2, 3, 4, 7};  // the SELECT queued behind the waiting LOCK TABLE, before T0's COMMIT
  h.was_blocked[1][1] = true;
  const VisibilityRules pg_rr = find_engine("postgresql")->visibility(RR, parse_target_uri(kPostgresql));
  const TxnStart start = transaction_start(h, 1, pg_rr);
  EXPECT_EQ(start.step, 2) << start.rule;
  EXPECT_EQ(start.position, h.completed_at(StepRef{1, 1}) + 1) << start.rule;
}
