// The differential check of every oracle's instrumentation (issue 21 item 1, include/txprop/internal/
// instrumentation_diff.hpp): generated cases run plainly and as each registered oracle prepares them, on every
// configured engine and each of its levels, must block at the same steps and show the same outcomes, fates and final
// state. A difference is counted only when two more pairs of runs show one again while the plain runs agree (a
// deadlock's victim or a wait the probe saw in one run only are timing, not the instrumentation). A reproduced
// difference in which InnoDB ended another transaction of a deadlock, or in which a step that waited in both runs
// lost a key to another waiter, is counted apart and not asserted: InnoDB picks its victim by the transactions'
// weights (undo records and locks, lock0lock.cc), which the added columns may tip, and of several waiters it releases
// at once which runs first is not the case's; nor is it on PostgreSQL when the row they wait for was updated (below).
// Nor is a difference that lies wholly in the steps of transactions one transaction's end released together, from
// the step that waited on, their fates and the tables they write (differential::waiter_order); one anywhere else in
// such a case is the preparation's. Nor is whether the statement that closed a deadlock was seen waiting
// (differential::deadlock_closing_wait).
// At PostgreSQL SERIALIZABLE the added reads' SIREAD locks change which transactions SSI ends, or at which statement
// (ssi_aborts_differ): counted apart with the reason. Every other reproduced difference is unexplained and fails.
//
// TXPROP_DIFF_CASES (default 12 per engine and level: the CI budget) sets the number of cases (README, "Instrumentation
// differential", gives the figures and the command); TXPROP_DIFF_CASE=i runs case i alone and prints it;
// TXPROP_CONTENTION=1 makes every case contended (default: every other case), 0 none; TXPROP_DIFF_RICH=1 generates the
// richer forms (options_for); TXPROP_DIFF_SHOW=1 prints every reproduced difference with both histories.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <functional>
#include <iostream>
#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "support/engine_targets.hpp"
#include "txprop/generators.hpp"
#include "txprop/hidden_columns.hpp"
#include "txprop/internal/env_settings.hpp"
#include "txprop/internal/instrumentation_diff.hpp"
#include "txprop/oracle.hpp"
#include "txprop/scenario.hpp"
#include "txprop/target.hpp"

using namespace txprop;

namespace {

struct Tally {
  int run = 0, refused = 0, differ = 0, reproduced = 0;
  // Of the compared, the cases where a covering index's table is read with a current read while another transaction
  // writes it (covering_index_read_concurrently): the preparation keeps such an index covering with a covering twin.
  int covering = 0;
  // Of the reproduced, counted first: the oracle gives no verdict on the prepared run (it saw the difference itself,
  // e.g. SDG's unchanged row its version key wrote), so no verdict rests on it.
  int no_verdict = 0;
  // Of the other reproduced, explained, by reason (the keys of kExplanations): InnoDB ended another transaction of a
  // deadlock (it weighs them itself); of two writers of one key that waited in both runs another got it first; every
  // difference lies in waiters one transaction's end released together (differential::waiter_order); at a level
  // whose reads take SIREAD locks (predicate_lock_levels, PostgreSQL SERIALIZABLE) SSI ended other transactions.
  std::map<std::string, int> explained;
  int unexplained = 0;
  std::string first_unexplained;  // the first unexplained difference, with both histories
  std::map<std::string, int> reasons;
};

// TXPROP_DIFF_RICH=1: the statement forms the property suites generate (the engine's whole capabilities, joins,
// derived tables, subqueries), as tests/bench/no_verdict_bench.cpp counts the cases without a verdict on.
gen::Options options_for(const EngineCapabilities& c, IsolationLevel level, bool contention, bool foreign_keys) {
  gen::Options o;
  // Foreign keys with their actions (issue 17): Adya's triggers that record a key's writes (schema.hpp, CascadeLog)
  // must not change what the engine does either.
  o.foreign_keys = foreign_keys;
  o.foreign_key_probability = 1.0;
  o.engine.locking_reads = c.locking_reads;
  if (env_integer("TXPROP_DIFF_RICH", 0, 1).value_or(0) == 1) {
    o.engine = c;
    o.rich_statements = o.derived_inner_forms = true;
  }
  o.isolation = level;
  o.contention = contention;
  o.rollback_probability = 0.15;
  return o;
}

// The refusal's reason without its transaction and step names, so that one reason counts once.
std::string reason_of(const std::string& refused) {
  const auto comma = refused.find(", ");
  return comma == std::string::npos ? refused : refused.substr(comma + 2);
}

// The steps of the plain case's transactions that met a serialization failure in a run, as (transaction, how many
// of its plain steps came before): the added reads before a statement count as that statement.
std::set<std::pair<std::size_t, std::size_t>> serialization_failures(const History& h, const differential::StepMap& map) {
  std::set<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t t = 0; t < map.size() && t < h.outcomes.size(); ++t)
    for (std::size_t m = 0; m < h.outcomes[t].size(); ++m)
      if (h.outcomes[t][m].failed() && h.outcomes[t][m].error.cls == ErrorClass::SerializationFailure)
        out.emplace(t, static_cast<std::size_t>(std::lower_bound(map[t].begin(), map[t].end(), m) - map[t].begin()));
  return out;
}

// Whether SSI ended other transactions, or the same ones at other statements, in the two runs. At PostgreSQL SERIALIZABLE every read takes SIREAD locks (a
// whole-table scan a relation lock, predicate.c), and an added read (a version-set read of the whole table, TxCheck's
// before- and after-write reads) adds read-write conflicts that the plain statements, reading fewer rows or through an
// index (tuple and page locks), do not have; SSI aborts a transaction of a dangerous structure of such conflicts
// (Ports and Grittner, VLDB 2012, section 3), so the prepared run may fail a transaction the plain run commits, and
// once one is aborted its conflicts are gone and another may commit. With more conflicts SSI also finds a dangerous
// structure earlier: a write that plainly waited for a row lock and then failed fails at once (seen: T2's UPDATE of a
// row T0 had deleted waited plainly, and both ended in 40001; prepared, the UPDATE failed without waiting). Such a
// difference is the added reads' SIREAD locks, and only at such a level.
bool ssi_aborts_differ(const differential::Result& r, bool predicate_locks) {
  if (!predicate_locks) return false;
  const std::optional<differential::StepMap> map = differential::map_steps(r.plain.test_case, r.prepared.test_case);
  if (!map) return false;
  const auto plain = serialization_failures(r.plain, differential::identity_map(r.plain.test_case));
  if (plain != serialization_failures(r.prepared, *map)) return true;
  // The same failures, and the one difference a wait before one of them (compare_runs names the first step).
  static const std::regex only_wait("^blocking: T(\\d+)\\.(\\d+) waited plainly, did not wait prepared$");
  std::smatch m;
  return std::regex_match(r.difference, m, only_wait) &&
         plain.count({std::stoul(m[1].str()), std::stoul(m[2].str())}) != 0;
}

// Why a reproduced difference is not the preparation's, or empty (unexplained).
std::string explanation(const differential::Result& r, bool predicate_locks) {
  const auto has = [&](const char* what) { return r.difference.find(what) != std::string::npos; };
  // A waiter that lost the row to another: InnoDB releases several waiters at once; PostgreSQL's first waiter on a
  // row that its holder updated releases its tuple lock to follow the update chain (READ COMMITTED's EvalPlanQual,
  // heapam.c heap_update / heap_lock_updated_tuple), and the next waiter, woken by that, may lock the new version
  // first.
  // Only a duplicate key or another count of written rows is that: a write that failed otherwise (a snapshot
  // conflict: its transaction's view was older) is not ("row(s) affected" also names the other side of such a line).
  static const std::regex other_count(": \\d+ vs \\d+ row\\(s\\) affected");
  if (has("(it waited in both runs)") && !has("snapshot-conflict") &&
      (has("constraint-violation") || std::regex_search(r.difference, other_count)))
    return "key lost to another waiter";
  if (!differential::waiter_order(r.plain, r.prepared).empty()) return "waiters released together";
  if (!differential::deadlock_closing_wait(r.plain, r.prepared).empty()) return "wait that closed a deadlock";
  if (!differential::deadlock_victim(r.plain, r.prepared).empty()) return "deadlock victim";
  if (ssi_aborts_differ(r, predicate_locks)) return "other transactions ended by SSI";
  return {};
}

void tally(Tally& t, const std::string& oracle, int index, differential::Result r, bool predicate_locks, bool covering,
           const std::function<bool(const History&)>& judged) {
  if (!r.refused.empty()) {
    ++t.refused;
    ++t.reasons[reason_of(r.refused)];
    return;
  }
  if (r.prepared_same) return;
  ++t.run;
  if (covering) ++t.covering;
  if (r.difference.empty()) return;
  ++t.differ;
  if (!r.reproduced) return;
  ++t.reproduced;
  if (env_integer("TXPROP_DIFF_SHOW", 0, 1).value_or(0) == 1)
    std::cout << fmt::format("reproduced difference: {}\nplain:\n{}\nprepared:\n{}\n", r.difference, describe(r.plain),
                             describe(r.prepared));
  if (!judged(r.prepared)) {
    ++t.no_verdict;
    return;
  }
  if (const std::string why = explanation(r, predicate_locks); !why.empty()) {
    ++t.explained[why];
    return;
  }
  ++t.unexplained;
  // Each one on a line (the case's index and whether waiters were released together: the old rule took those as
  // explained), so a long run can be inspected case by case.
  const bool together = !r.plain.concurrent_resumption().empty() || !r.prepared.concurrent_resumption().empty();
  std::cout << fmt::format("    unexplained: {} case {}{}{}: {}\n", oracle, index,
                           together ? " (waiters released together)" : "", covering ? " (covering index)" : "",
                           r.difference.substr(0, r.difference.find('\n')));
  if (t.first_unexplained.empty())
    t.first_unexplained =
        fmt::format("{}\nplain:\n{}\nprepared:\n{}", r.difference, describe(r.plain), describe(r.prepared));
}

// Preparations known to change which transactions SSI ends, with why: the differences of that kind are counted apart
// (ssi_aborts_differ) and printed with the reason; every other difference of Adya's, Troc's and SDG's is asserted
// everywhere.
std::string known_open(const std::string& engine, IsolationLevel level, const std::string& oracle) {
  // SDG refuses the cases its reads would change (properties/sdg/engine_changes.cpp); at PostgreSQL SERIALIZABLE it
  // judges a transaction that reads a table through an INSERT alone only where a plain run shows the same (its
  // differences are counted "without a verdict"), and other SIREAD conflicts remain.
  if (oracle == "sdg" && engine == "postgresql" && level == IsolationLevel::Serializable)
    return "TxCheck's version-set reads read whole tables, and at PostgreSQL SERIALIZABLE every read takes SIREAD "
           "locks, so SSI may abort a transaction the plain case lets commit";
  if (oracle.rfind("adya", 0) == 0 && engine == "postgresql" && level == IsolationLevel::Serializable)
    return "a version-set read reads the whole table, and at PostgreSQL SERIALIZABLE every read takes SIREAD locks "
           "(a relation lock for a whole-table scan), so SSI may abort a transaction the plain case lets commit";
  return {};
}

// Every instrumenting oracle on `cases` generated cases at `level`; fails on a reproduced difference.
void differential_at(Target& target, IsolationLevel level, int cases, bool foreign_keys) {
  std::map<std::string, Tally> by_oracle;
  const auto& locking = target.engine().capabilities().predicate_lock_levels;
  const bool predicate_locks = std::find(locking.begin(), locking.end(), level) != locking.end();
  rc::Random random(2121 + static_cast<int>(level));
  // TXPROP_DIFF_CASE=i: only case i (of the same sequence), printed as a scenario file to inspect and replay it.
  const std::optional<long long> only = env_integer("TXPROP_DIFF_CASE", 0, 1'000'000);
  // Half the cases contended (concurrent transactions on the same rows); TXPROP_CONTENTION=1 every case, 0 none.
  const std::optional<long long> contention = env_integer("TXPROP_CONTENTION", 0, 1);
  for (int i = 0; i < cases; ++i) {
    const bool contended = contention ? *contention != 0 : i % 2 == 0;
    const TestCase c = gen::test_case(options_for(target.engine().capabilities(), level, contended, foreign_keys))(
                           random.split(), i % 60).value();
    if (only && *only != i) continue;
    if (only) std::cout << write_scenario(scenario_from_test_case(c, fmt::format("differential case {}", i)));
    const bool covering = !covering_index_read_concurrently(c, target.engine().capabilities()).empty();
    for (const Oracle* o : registered_oracles())
      tally(by_oracle[o->name()], o->name(), i, differential::run(target, *o, c), predicate_locks, covering,
            [&](const History& prepared) { return !o->judge(target, prepared).inconclusive; });
  }
  for (const auto& [name, t] : by_oracle) {
    if (t.run == 0 && t.refused == 0) continue;  // runs every case as it is: nothing to compare
    std::string explained;
    for (const auto& [why, n] : t.explained) explained += fmt::format(", {} {}", n, why);
    std::cout << fmt::format("differential {}{} {} {}: {} cases compared ({} covering-index), {} differ, {} reproduced "
                             "({} without a verdict, {} unexplained{}); {} refused\n",
                             target.name(), foreign_keys ? " (foreign keys)" : "", sql_name(level), name, t.run,
                             t.covering, t.differ, t.reproduced, t.no_verdict, t.unexplained, explained, t.refused);
    for (const auto& [why, n] : t.reasons) std::cout << fmt::format("    refused {}: {}\n", n, why);
    if (std::string open = known_open(target.engine().name(), level, name); !open.empty())
      std::cout << "    other transactions ended by SSI: " << open << "\n";
    EXPECT_EQ(t.unexplained, 0) << name << " at " << sql_name(level)
                                << ": the prepared run differs from the plain run\n"
                                << t.first_unexplained;
  }
}

void differential_on(Target& target, bool foreign_keys = false) {
  const int cases = static_cast<int>(env_integer("TXPROP_DIFF_CASES", 1, 1'000'000).value_or(12));
  for (IsolationLevel level : target.config().levels) differential_at(target, level, cases, foreign_keys);
}

}  // namespace

TEST(InstrumentationDifferential, Sqlite) {
  TXPROP_USE_ENGINE(target, "sqlite", false);
  differential_on(*target);
}

TEST(InstrumentationDifferential, Postgresql) {
  TXPROP_USE_ENGINE(target, "postgresql", false);
  differential_on(*target);
}

// Cases whose every table after the first references an earlier one, where Adya's triggers record the keys' writes.
TEST(InstrumentationDifferential, ForeignKeysSqlite) {
  TXPROP_USE_ENGINE(target, "sqlite", false);
  differential_on(*target, true);
}

TEST(InstrumentationDifferential, ForeignKeysPostgresql) {
  TXPROP_USE_ENGINE(target, "postgresql", false);
  differential_on(*target, true);
}

// MariaDB fires no trigger for a key's writes (Adya refuses a key that writes there); Troc judges keys on it, with its
// row ids and writer lists only.
TEST(InstrumentationDifferential, ForeignKeysMariadb) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  differential_on(*target, true);
}

// With innodb_snapshot_isolation=ON a locking read of a record changed after the read view fails (1020): the key read
// Adya adds before an INSERT (adya_instrumentation.hpp is_key_read) must fail exactly where the INSERT's own check does.
TEST(InstrumentationDifferential, ForeignKeysMariadbSnapshotIsolation) {
  TXPROP_USE_ENGINE(target, "mariadb", true);
  differential_on(*target, true);
}

TEST(InstrumentationDifferential, Mariadb) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  differential_on(*target);
}

TEST(InstrumentationDifferential, MariadbSnapshotIsolation) {
  TXPROP_USE_ENGINE(target, "mariadb", true);
  differential_on(*target);
}

namespace {

// A preparation planted to test the check itself, on embedded SQLite: `change` makes T0's UPDATE write another value
// (what the plain SQL shows changes); otherwise it only adds a column with a value of its own to every table (what
// the plain SQL shows does not; nullable, so that an INSERT without it is the plain INSERT), with `twin` keeping a
// covering index covering (HiddenColumns::covering_twin).
class PlantedPreparation final : public Oracle {
 public:
  explicit PlantedPreparation(bool change, bool twin = false) : change_(change), twin_(twin) {}
  std::string name() const override { return "planted"; }
  std::vector<std::string> finding_kinds() const override { return {}; }
  TestCase prepare(const TestCase& c, const EngineProfile&) const override {
    TestCase out = c;
    if (change_) {
      out.transactions[0].statements[0].assignments[0].value = Expr::lit(Value(std::int64_t{2}));
    } else {
      HiddenColumns({Column{"txp_planted", ColumnType::Integer, false}})
          .add_to(out.schema, [](std::int64_t n) { return Row{Value(n)}; }, twin_);
    }
    return out;
  }
  Verdict judge(Target&, const History&) const override { return Verdict::pass(name()); }

 private:
  bool change_;
  bool twin_;
};

TestCase one_update() {
  return parse_scenario("name: one update\nsetup:\nCREATE TABLE t (k INTEGER PRIMARY KEY, v INTEGER);\n"
                        "INSERT INTO t (k, v) VALUES (1, 0);\nsteps:\nT0: BEGIN;\nT0: UPDATE t SET v = 1 WHERE k = 1;\n"
                        "T0: COMMIT;\n")
      .replay_case(IsolationLevel::Serializable);
}

}  // namespace

TEST(InstrumentationDifferential, CatchesAPreparationThatChangesWhatTheEngineDoes) {
  TXPROP_USE_ENGINE(target, "sqlite", false);
  const differential::Result changed = differential::run(*target, PlantedPreparation(true), one_update());
  EXPECT_TRUE(changed.reproduced);
  EXPECT_NE(changed.difference.find("final state"), std::string::npos) << changed.difference;
  const differential::Result added = differential::run(*target, PlantedPreparation(false), one_update());
  EXPECT_FALSE(added.prepared_same);
  EXPECT_EQ(added.difference, "");
}

// Found by the differential at 2,000 cases (MariaDB READ COMMITTED, case 1054): an added column uncovers t2's covering
// index, so T1's locking read scans the primary key and, after its wait, returns the row T0 inserted, which the plain
// scan of the covering index has passed (tests/scenarios/mariadb_covering_index_locking_read_after_wait.txn). With the
// index's covering twin the prepared read scans the twin and returns what the plain one does; every oracle that adds
// hidden columns adds the twin, and judges the case at every level: its prepared run shows what the plain one does and
// its verdict is not "no verdict". (SDG refuses MariaDB SERIALIZABLE for its own reason: plain reads lock there.)
TEST(InstrumentationDifferential, ACoveringIndexKeepsACoveringTwin) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  const Scenario scenario =
      load_scenario(std::string(TXPROP_SCENARIO_DIR) + "/mariadb_covering_index_locking_read_after_wait.txn");
  const TestCase rc = scenario.replay_case(IsolationLevel::ReadCommitted);
  const differential::Result added = differential::run(*target, PlantedPreparation(false), rc);
  EXPECT_TRUE(added.reproduced) << added.difference;
  EXPECT_EQ(added.difference.rfind("outcome of T1.1", 0), 0u) << added.difference;
  const differential::Result twinned = differential::run(*target, PlantedPreparation(false, true), rc);
  EXPECT_FALSE(twinned.prepared_same);
  EXPECT_EQ(twinned.difference, "");
  for (IsolationLevel level : target->config().levels) {
    const TestCase c = scenario.replay_case(level);
    for (const char* name : {"adya", "adyaclaimed", "troc", "sdg"}) {
      const Oracle& o = oracle(name);
      if (name == std::string("sdg") && level == IsolationLevel::Serializable) continue;
      ASSERT_EQ(o.cannot_judge(c, target->engine()), "") << name << " at " << sql_name(level);
      const differential::Result r = differential::run(*target, o, c);
      EXPECT_EQ(r.difference, "") << name << " at " << sql_name(level);
      EXPECT_FALSE(o.judge(*target, r.prepared).inconclusive) << name << " at " << sql_name(level);
    }
  }
}

// A shared-locking read of a covered table whose other writers only insert (hidden_columns.cpp, twin_changes): T0's
// read of every row, through the covering index plainly and its twin prepared, waits for T1's uncommitted INSERT in
// both, at every level (a read of every row names no column of t_u, so no unique lookup's missing gap lock is in
// question at REPEATABLE READ or SERIALIZABLE). Every oracle that adds hidden columns judges the case, and its prepared
// run shows what the plain one does.
TEST(InstrumentationDifferential, ASharedLockingReadBesideInsertsOnlyIsJudged) {
  TXPROP_USE_ENGINE(target, "mariadb", false);
  const Scenario scenario = parse_scenario(
      "name: shared read beside an insert\nsetup:\nCREATE TABLE t (c0 INTEGER NOT NULL, c1 INTEGER, PRIMARY KEY (c0));\n"
      "CREATE UNIQUE INDEX t_u ON t (c1);\nINSERT INTO t (c0, c1) VALUES (1, 1), (2, 5), (3, 9);\nsteps:\n"
      "T0: BEGIN;\nT1: BEGIN;\nT1: INSERT INTO t (c0, c1) VALUES (4, 3);\nT0: SELECT * FROM t FOR SHARE;\n"
      "T1: COMMIT;\nT0: COMMIT;\n");
  for (IsolationLevel level : target->config().levels) {
    const TestCase c = scenario.replay_case(level);
    ASSERT_NE(covering_index_read_concurrently(c, target->engine().capabilities()), "");
    const History plain = target->run(c);
    ASSERT_GE(plain.was_blocked.size(), 1u);
    EXPECT_TRUE(std::count(plain.was_blocked[0].begin(), plain.was_blocked[0].end(), true) == 1)
        << sql_name(level) << ": the read waits for the INSERT\n"
        << describe(plain);
    for (const char* name : {"adya", "adyaclaimed", "troc", "sdg"}) {
      const Oracle& o = oracle(name);
      if (name == std::string("sdg") && level == IsolationLevel::Serializable) continue;
      ASSERT_EQ(o.cannot_judge(c, target->engine()), "") << name << " at " << sql_name(level);
      const differential::Result r = differential::run(*target, o, c);
      EXPECT_EQ(r.difference, "") << name << " at " << sql_name(level);
      EXPECT_FALSE(o.judge(*target, r.prepared).inconclusive) << name << " at " << sql_name(level);
    }
  }
}

namespace {

// Differential case 1554 at SQLite SERIALIZABLE: T0's UPDATE sets c2 to the 9 it has; T1, whose read began before
// T0's commit, deletes the row afterwards. `value` is what T0's UPDATE sets.
TestCase no_op_update_before_a_readers_write(int value) {
  return parse_scenario(fmt::format(
                            "name: no-op update\nsetup:\nCREATE TABLE t0 (c0 INTEGER NOT NULL, c2 INTEGER, "
                            "PRIMARY KEY (c0));\nINSERT INTO t0 (c0, c2) VALUES (1, 9);\nsteps:\nT0: BEGIN;\nT1: "
                            "BEGIN;\nT0: UPDATE t0 SET c2 = {} WHERE c0 = 1;\nT1: SELECT * FROM t0;\nT0: COMMIT;\n"
                            "T1: DELETE FROM t0 WHERE c0 = 1;\nT1: COMMIT;\n",
                            value))
      .replay_case(IsolationLevel::Serializable);
}

}  // namespace

// SQLite writes no page for an UPDATE that changes nothing (update_skips_unchanged_rows), so T1's snapshot stays
// current and its DELETE succeeds; a real change ends T1 with SQLITE_BUSY_SNAPSHOT. Adya's and Troc's writer list
// must not turn the first into the second.
TEST(InstrumentationDifferential, ANoOpUpdateStaysNoWriteOnSqlite) {
  TXPROP_USE_ENGINE(target, "sqlite", false);
  const History changed = target->run(no_op_update_before_a_readers_write(8));
  if (changed.outcomes[1][2].ok()) GTEST_SKIP() << target->name() << " is not in WAL mode: no stale snapshot to meet";
  EXPECT_EQ(changed.outcomes[1][2].error.cls, ErrorClass::SerializationFailure) << describe(changed);
  EXPECT_TRUE(target->run(no_op_update_before_a_readers_write(9)).outcomes[1][2].ok());
  for (const char* name : {"adya", "troc"}) {
    const TestCase c = no_op_update_before_a_readers_write(9);
    EXPECT_EQ(differential::run(*target, *find_oracle(name), c).difference, "") << name;
  }
}
