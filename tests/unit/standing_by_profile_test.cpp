// Every oracle's standing rules at every level of every shipped engine profile, without a server (issue 24 item 2).
// SQLite has one level, where the claimed and the promised level are the same, so no test on it can show a finding
// whose standing must differ by level. Here planted histories are judged with PostgreSQL's and MariaDB's profiles:
// the Adya checker needs no engine at all, and WSS's and atomicity's serial replays run on embedded SQLite through
// Target::open_judged_as (the same rows any engine gives for these portable statements). Each table says, per engine
// and level, what the engine's documentation makes of the planted phenomenon; mixed-level cases pin which
// transactions decide.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "txprop/adya.hpp"
#include "txprop/adya_instrumentation.hpp"
#include "txprop/atomicity.hpp"
#include "txprop/target.hpp"
#include "txprop/target_config.hpp"
#include "txprop/wss.hpp"
#include "tests/support/adya_planted_history.hpp"
#include "tests/support/planted.hpp"

using namespace txprop;

namespace {

constexpr IsolationLevel RU = IsolationLevel::ReadUncommitted, RC = IsolationLevel::ReadCommitted,
                         RR = IsolationLevel::RepeatableRead, SER = IsolationLevel::Serializable;
constexpr const char* kPostgresql = "postgresql://u@127.0.0.1/db";
constexpr const char* kMariadb = "mariadb://u@127.0.0.1/db";
constexpr const char* kMariadbSi = "mariadb://u@127.0.0.1/db?innodb_snapshot_isolation=ON";

// A finding's standing in words: fails the test, a documented deviation from the claimed level (shrunk, shown, does
// not fail), documented by the engine, or allowed by the level itself.
std::string standing(const Finding& f) { return std::string(to_string(f.standing)); }

// The standing of the first finding of `kind`, or "absent".
std::string standing_of(const Verdict& v, const std::string& kind) {
  for (const Finding& f : v.findings)
    if (f.kind == kind) return standing(f);
  return "absent";
}

Target& judged_as(const std::string& uri) {
  static std::map<std::string, std::unique_ptr<Target>> targets;
  auto& t = targets[uri];
  if (!t) t = Target::open_judged_as(parse_target_uri("sqlite:"), parse_target_uri(uri));
  return *t;
}

// t(k INTEGER PRIMARY KEY, v INTEGER) with the row (1, 0).
Schema one_row() {
  Schema s;
  s.tables = {test::one_row_table("t")};
  return s;
}
Expr k_is_1() { return Expr::binary(BinaryOp::Eq, Expr::col("k"), Expr::lit(1)); }

using test::completed_in_order;

// ------------------------------------------------------------------------------------------------------------ Adya

// The classic lost update: T0 and T1 read row 1; T0 writes it and commits; T1 writes it and commits. T1 -rw-> T0 and
// T0 -ww-> T1: a G-single whose only anti-dependency is read by T1, so T1's level decides.
History adya_lost_update(IsolationLevel t0, IsolationLevel t1) {
  TestCase c;
  c.schema = one_row();
  c.transactions = {
      Transaction{t0, {Statement::select("t", k_is_1()), Statement::update("t", {{"v", Expr::lit(1)}}, k_is_1())},
                  TxnEnd::Commit},
      Transaction{t1, {Statement::select("t", k_is_1()), Statement::update("t", {{"v", Expr::lit(2)}}, k_is_1())},
                  TxnEnd::Commit}};
  c.order = {0, 0, 1, 1, 0, 0, 1, 1};
  adya::InstrumentationOptions options;  // the writer lists as every engine records them; no version-set reads
  options.version_sets = false;
  test::PlantedHistory p(c, options);
  for (std::size_t t : {0u, 1u}) {
    p.at(t, 1).columns = test::kTableColumns;
    p.at(t, 1).rows = {{1, 0, 1, "0"}};
  }
  p.at(0, 2).columns = test::kReturning;
  p.at(0, 2).rows = {{1, "0,1", 1, 1}};
  p.at(0, 2).affected = 1;
  p.at(1, 2).columns = test::kReturning;
  p.at(1, 2).rows = {{1, "0,1,2", 1, 2}};
  p.at(1, 2).affected = 1;
  p.observed(0, {{1, 2, 1, "0,1,2"}});
  return p.h;
}

struct AdyaRow {
  const char* uri;
  IsolationLevel level;
  const char* documented_mode;  // standing of the lost update in the AdyaDocumented suite
  const char* claimed_mode;     // and in the AdyaClaimed suite
};

// Lost update (G-single) at each level: allowed by Adya's PL-2 (READ COMMITTED and below); proscribed by PL-2.99 and
// PL-SI. PostgreSQL prevents it at REPEATABLE READ (first-updater-wins, manual 13.2.2); MariaDB's REPEATABLE READ
// without innodb_snapshot_isolation documents it (MariaDB KB, innodb_snapshot_isolation), so there it is documented
// behaviour, and a deviation from the claimed ANSI level.
TEST(StandingByProfile, AdyaLostUpdateAtEveryLevel) {
  for (const AdyaRow& r : {AdyaRow{kPostgresql, RC, "allowed", "allowed"}, AdyaRow{kPostgresql, RR, "fails", "fails"},
                           AdyaRow{kPostgresql, SER, "fails", "fails"}, AdyaRow{kMariadb, RU, "allowed", "allowed"},
                           AdyaRow{kMariadb, RC, "allowed", "allowed"}, AdyaRow{kMariadb, RR, "documented", "deviation"},
                           AdyaRow{kMariadbSi, RR, "fails", "fails"}, AdyaRow{kMariadb, SER, "fails", "fails"}}) {
    SCOPED_TRACE(std::string(r.uri) + " " + sql_name(r.level));
    const History h = adya_lost_update(r.level, r.level);
    EXPECT_EQ(standing_of(check_adya(judged_as(r.uri), h, AdyaMode::Documented), "lost-update"), r.documented_mode);
    EXPECT_EQ(standing_of(check_adya(judged_as(r.uri), h, AdyaMode::Claimed), "lost-update"), r.claimed_mode);
  }
}

// Mixed levels: the reader of the anti-dependency (T1) decides. T1 at READ COMMITTED: allowed, whatever T0's level;
// T1 at SERIALIZABLE: proscribed, whatever T0's level.
TEST(StandingByProfile, AdyaMixedLevelsTheDecidingReaderCounts) {
  for (const char* uri : {kPostgresql, kMariadb}) {
    SCOPED_TRACE(uri);
    EXPECT_EQ(standing_of(check_adya(judged_as(uri), adya_lost_update(SER, RC), AdyaMode::Documented), "lost-update"),
              "allowed");
    EXPECT_EQ(standing_of(check_adya(judged_as(uri), adya_lost_update(RC, SER), AdyaMode::Documented), "lost-update"),
              "fails");
  }
}

// Write skew: both read rows 1 and 2, T0 writes row 1, T1 row 2. Each reads what the other overwrites, so both are
// readers of an anti-dependency of the cycle and both decide.
History adya_write_skew(IsolationLevel t0, IsolationLevel t1) {
  TestCase c;
  c.schema = one_row();
  c.schema.tables[0].rows.push_back({2, 0});
  const Expr k_is_2 = Expr::binary(BinaryOp::Eq, Expr::col("k"), Expr::lit(2));
  c.transactions = {
      Transaction{t0, {Statement::select("t"), Statement::update("t", {{"v", Expr::lit(1)}}, k_is_1())}, TxnEnd::Commit},
      Transaction{t1, {Statement::select("t"), Statement::update("t", {{"v", Expr::lit(1)}}, k_is_2)}, TxnEnd::Commit}};
  c.order = {0, 0, 1, 1, 0, 1, 0, 1};
  adya::InstrumentationOptions options;
  options.version_sets = false;
  test::PlantedHistory p(c, options);
  for (std::size_t t : {0u, 1u}) {
    p.at(t, 1).columns = test::kTableColumns;
    p.at(t, 1).rows = {{1, 0, 1, "0"}, {2, 0, 2, "0"}};
  }
  p.at(0, 2).columns = p.at(1, 2).columns = test::kReturning;
  p.at(0, 2).rows = {{1, "0,1", 1, 1}};
  p.at(1, 2).rows = {{2, "0,2", 2, 1}};
  p.at(0, 2).affected = p.at(1, 2).affected = 1;
  p.observed(0, {{1, 1, 1, "0,1"}, {2, 1, 2, "0,2"}});
  return p.h;
}

// A phenomenon fails only where every deciding transaction's level proscribes it: write skew with one transaction at
// PostgreSQL REPEATABLE READ (snapshot isolation allows it, manual 13.2.2) is that level's behaviour, whatever the
// other's level; with both at SERIALIZABLE it fails.
TEST(StandingByProfile, AdyaMixedLevelsEveryDecidingReaderMustProscribe) {
  const auto standing_at = [](IsolationLevel a, IsolationLevel b) {
    return standing_of(check_adya(judged_as(kPostgresql), adya_write_skew(a, b), AdyaMode::Documented), "write-skew");
  };
  EXPECT_EQ(standing_at(SER, SER), "fails");
  EXPECT_NE(standing_at(SER, RR), "fails");
  EXPECT_NE(standing_at(RR, SER), "fails");
  EXPECT_NE(standing_at(SER, RR), "absent");
}

// ------------------------------------------------------------------------------------------------------------- WSS

// Two increments of row 1, one lost: both UPDATEs report one row, the final state has v = 1 where every serial order
// of the two gives 2.
History wss_lost_increment(IsolationLevel t0, IsolationLevel t1) {
  TestCase c;
  c.schema = one_row();
  const Statement increment =
      Statement::update("t", {{"v", Expr::binary(BinaryOp::Add, Expr::col("v"), Expr::lit(1))}}, k_is_1());
  c.transactions = {Transaction{t0, {increment}, TxnEnd::Commit}, Transaction{t1, {increment}, TxnEnd::Commit}};
  c.order = {0, 1, 0, 1, 0, 1};
  History h = completed_in_order(c);
  h.outcomes[0][1].affected = 1;
  h.outcomes[1][1].affected = 1;
  h.final_state["t"] = {{1, 1}};
  return h;
}

struct WssRow {
  const char* uri;
  IsolationLevel level;
  const char* expected;
};

// WSS holds where the engine detects every write-write conflict (WriteCheck, shared/notes/seed-troc-writecheck.md B2):
// PostgreSQL SERIALIZABLE; InnoDB REPEATABLE READ and SERIALIZABLE, whose UPDATE reads the latest committed version
// under next-key locks whatever innodb_snapshot_isolation says (MySQL 8.0 manual 15.7.2.1), so a lost increment there
// breaks a promise. Elsewhere (PostgreSQL's snapshot levels, InnoDB's semi-consistent READ COMMITTED and below) a lost
// write is the level's documented behaviour.
TEST(StandingByProfile, WssLostWriteAtEveryLevel) {
  for (const WssRow& r : {WssRow{kPostgresql, RC, "documented"}, WssRow{kPostgresql, RR, "documented"},
                          WssRow{kPostgresql, SER, "fails"}, WssRow{kMariadb, RU, "documented"},
                          WssRow{kMariadb, RC, "documented"}, WssRow{kMariadb, RR, "fails"},
                          WssRow{kMariadbSi, RR, "fails"}, WssRow{kMariadb, SER, "fails"}}) {
    SCOPED_TRACE(std::string(r.uri) + " " + sql_name(r.level));
    const Verdict v = check_wss(judged_as(r.uri), wss_lost_increment(r.level, r.level));
    EXPECT_EQ(standing_of(v, "final-state-mismatch"), r.expected) << v.explain();
  }
}

// A mismatch fails only where every committed transaction's level promises WSS.
TEST(StandingByProfile, WssMixedLevelsEveryCommittedLevelMustPromise) {
  for (const char* uri : {kPostgresql, kMariadb}) {
    SCOPED_TRACE(uri);
    EXPECT_EQ(standing_of(check_wss(judged_as(uri), wss_lost_increment(SER, RC)), "final-state-mismatch"), "documented");
    EXPECT_EQ(standing_of(check_wss(judged_as(uri), wss_lost_increment(RC, SER)), "final-state-mismatch"), "documented");
    EXPECT_EQ(standing_of(check_wss(judged_as(uri), wss_lost_increment(SER, SER)), "final-state-mismatch"), "fails");
  }
}

// A write of a transaction that did not commit is judged at its own level too (its outcome is compared in the end-order
// replay): T0 commits an increment at MariaDB's REPEATABLE READ (WSS promised, and no other serial order to try, which
// SERIALIZABLE would give: the committed transactions alone would match); T1 rolls back an INSERT of row 2 that,
// planted, failed as a duplicate where the table has no row 2. The mismatch involves T1 only: at READ COMMITTED (no
// WSS promised) it is documented although the only committed transaction promises WSS (tests/mutation:
// wss-own-level-ignored); at REPEATABLE READ it fails.
History wss_rolled_back_write(IsolationLevel t0, IsolationLevel t1) {
  TestCase c;
  c.schema = one_row();
  const Statement increment =
      Statement::update("t", {{"v", Expr::binary(BinaryOp::Add, Expr::col("v"), Expr::lit(1))}}, k_is_1());
  c.transactions = {Transaction{t0, {increment}, TxnEnd::Commit},
                    Transaction{t1, {parse_statement("INSERT INTO t (k, v) VALUES (2, 5)")}, TxnEnd::Rollback}};
  c.order = {0, 0, 0, 1, 1, 1};
  History h = completed_in_order(c);
  h.outcomes[0][1].affected = 1;
  h.outcomes[1][1] = Outcome::failure(ErrorClass::ConstraintViolation, "23505", "duplicate key");  // planted
  h.final_state["t"] = {{1, 1}};
  return h;
}

TEST(StandingByProfile, WssJudgesAnUncommittedWriteAtItsOwnLevel) {
  for (const char* uri : {kMariadb, kMariadbSi}) {
    SCOPED_TRACE(uri);
    const Verdict rc = check_wss(judged_as(uri), wss_rolled_back_write(RR, RC));
    EXPECT_EQ(standing_of(rc, "write-outcome-mismatch"), "documented") << rc.explain() << rc.note;
    const Verdict rr = check_wss(judged_as(uri), wss_rolled_back_write(RR, RR));
    EXPECT_EQ(standing_of(rr, "write-outcome-mismatch"), "fails") << rr.explain() << rr.note;
  }
}

// One committed transaction read v = 7 where the row held 0 and nobody wrote: its read matches no serial replay. Reads
// are compared only where the level makes them serializable (PostgreSQL and MariaDB SERIALIZABLE); elsewhere WSS is
// about writes and says nothing of this read.
History wss_impossible_read(IsolationLevel level) {
  TestCase c;
  c.schema = one_row();
  c.transactions = {Transaction{level, {Statement::select("t", k_is_1())}, TxnEnd::Commit}};
  c.order = {0, 0, 0};
  History h = completed_in_order(c);
  h.outcomes[0][1].columns = {"k", "v"};
  h.outcomes[0][1].rows = {{1, 7}};
  h.final_state["t"] = {{1, 0}};
  return h;
}

TEST(StandingByProfile, WssComparesReadsWhereTheLevelMakesThemSerializable) {
  for (const char* uri : {kPostgresql, kMariadb}) {
    SCOPED_TRACE(uri);
    const Verdict ser = check_wss(judged_as(uri), wss_impossible_read(SER));
    EXPECT_TRUE(ser.fails()) << ser.explain();
    const Verdict rc = check_wss(judged_as(uri), wss_impossible_read(RC));
    EXPECT_TRUE(rc.ok()) << rc.explain();
  }
}

// T0 (SERIALIZABLE) reads row 1 as 0; T1 (READ COMMITTED) sets it to 1 and commits first; T0 commits last. Only the
// order T0, T1 explains T0's read: where some committed transaction's level is serializable in no particular order
// (PostgreSQL SSI), every serial order is tried, whatever the other transactions' levels.
TEST(StandingByProfile, WssTriesEveryOrderWhenAnyCommittedLevelIsSerializableInNoParticularOrder) {
  TestCase c;
  c.schema = one_row();
  c.transactions = {Transaction{SER, {Statement::select("t", k_is_1())}, TxnEnd::Commit},
                    Transaction{RC, {Statement::update("t", {{"v", Expr::lit(1)}}, k_is_1())}, TxnEnd::Commit}};
  c.order = {0, 0, 1, 1, 1, 0};
  History h = completed_in_order(c);
  h.outcomes[0][1].columns = {"k", "v"};
  h.outcomes[0][1].rows = {{1, 0}};
  h.outcomes[1][1].affected = 1;
  h.final_state["t"] = {{1, 1}};
  const Verdict v = check_wss(judged_as(kPostgresql), h);
  EXPECT_TRUE(v.ok()) << v.explain();
  EXPECT_NE(std::find(v.tags.begin(), v.tags.end(), "non-commit-serial-order"), v.tags.end()) << v.note;
}

// ------------------------------------------------------------------------------------------------------- Atomicity

// T0 sets v = 5 and rolls back; each reader read 5 (a dirty read) and committed. Replayed without T0, every reader
// reads 0: an aborted effect, documented only where every reader's level allows dirty reads (G1a).
History dirty_read_of_a_rollback(std::vector<IsolationLevel> readers) {
  TestCase c;
  c.schema = one_row();
  c.transactions = {Transaction{RC, {Statement::update("t", {{"v", Expr::lit(5)}}, k_is_1())}, TxnEnd::Rollback}};
  for (IsolationLevel l : readers) c.transactions.push_back(Transaction{l, {Statement::select("t", k_is_1())}, TxnEnd::Commit});
  c.order = {0, 0};
  for (std::size_t i = 1; i <= readers.size(); ++i) c.order.insert(c.order.end(), {int(i), int(i)});
  c.order.push_back(0);
  for (std::size_t i = 1; i <= readers.size(); ++i) c.order.push_back(int(i));
  History h = completed_in_order(c);
  h.outcomes[0][1].affected = 1;
  for (std::size_t i = 1; i <= readers.size(); ++i) {
    h.outcomes[i][1].columns = {"k", "v"};
    h.outcomes[i][1].rows = {{1, 5}};
  }
  h.final_state["t"] = {{1, 0}};
  return h;
}

// Only MariaDB's READ UNCOMMITTED documents dirty reads (MariaDB KB, SET TRANSACTION); PostgreSQL's READ UNCOMMITTED
// is READ COMMITTED (manual 13.2), so no PostgreSQL level does.
TEST(StandingByProfile, AtomicityDirtyReadAtEveryLevel) {
  for (const WssRow& r : {WssRow{kPostgresql, RC, "fails"}, WssRow{kPostgresql, RR, "fails"},
                          WssRow{kPostgresql, SER, "fails"}, WssRow{kMariadb, RU, "documented"},
                          WssRow{kMariadb, RC, "fails"}, WssRow{kMariadb, RR, "fails"}, WssRow{kMariadbSi, RR, "fails"},
                          WssRow{kMariadb, SER, "fails"}}) {
    SCOPED_TRACE(std::string(r.uri) + " " + sql_name(r.level));
    const Verdict v = check_atomicity(judged_as(r.uri), dirty_read_of_a_rollback({r.level}));
    EXPECT_EQ(standing_of(v, "aborted-effect"), r.expected) << v.explain();
  }
}

// Two readers whose results changed: documented only when both levels allow dirty reads.
TEST(StandingByProfile, AtomicityMixedLevelsEveryChangedReaderMustAllow) {
  EXPECT_EQ(standing_of(check_atomicity(judged_as(kMariadb), dirty_read_of_a_rollback({RU, RU})), "aborted-effect"),
            "documented");
  EXPECT_EQ(standing_of(check_atomicity(judged_as(kMariadb), dirty_read_of_a_rollback({RU, RC})), "aborted-effect"),
            "fails");
  EXPECT_EQ(standing_of(check_atomicity(judged_as(kMariadb), dirty_read_of_a_rollback({RC, RU})), "aborted-effect"),
            "fails");
}

// Only the final state changed (no kept statement's outcome did): the aborted value reached the state through a write of
// some kept transaction, so it is documented when any kept transaction's level allows dirty reads. T0 sets v = 5 and
// rolls back; T1 (READ UNCOMMITTED) added 1 to it; T2 (READ COMMITTED) read another row.
TEST(StandingByProfile, AtomicityStateOnlyChangeIsDocumentedByAnyKeptDirtyReader) {
  TestCase c;
  c.schema = one_row();
  const Expr k_is_2 = Expr::binary(BinaryOp::Eq, Expr::col("k"), Expr::lit(2));
  c.transactions = {
      Transaction{RC, {Statement::update("t", {{"v", Expr::lit(5)}}, k_is_1())}, TxnEnd::Rollback},
      Transaction{RU, {Statement::update("t", {{"v", Expr::binary(BinaryOp::Add, Expr::col("v"), Expr::lit(1))}}, k_is_1())},
                  TxnEnd::Commit},
      Transaction{RC, {Statement::select("t", k_is_2)}, TxnEnd::Commit}};
  c.order = {0, 0, 1, 1, 2, 2, 0, 1, 2};
  History h = completed_in_order(c);
  h.outcomes[0][1].affected = h.outcomes[1][1].affected = 1;
  h.outcomes[2][1].columns = {"k", "v"};
  h.final_state["t"] = {{1, 6}};
  const Verdict v = check_atomicity(judged_as(kMariadb), h);
  EXPECT_EQ(standing_of(v, "aborted-effect"), "documented") << v.explain();
}

}  // namespace
