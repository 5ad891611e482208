// Troc's oracle (Dou et al., ICSE 2023; shared/notes/seed-troc-writecheck.md part A), for n transactions, several
// tables, per-transaction levels and every engine with VisibilityRules in its profile.
//
// The tester keeps a version history per row (hidden row id txp_rid, writer list txp_wl; the instrumentation of
// properties/adya/), built from the statements' own effects as the model executes them. The history is walked in
// the actual order the engine gave. For every statement the model builds the view its transaction's level allows
// for that statement kind (the engine profile's VisibilityRules), materialises it in the same engine on a separate
// autocommit session (so SQL semantics are the engine's own), runs the statement there alone, and gets its expected
// result, the rows it locks and its effect on the history. Then:
//   - a statement that completed without waiting while another active transaction held a conflicting lock (the lock
//     model says it must block): inconsistent-blocking;
//   - a statement that ran on both sides with different results: incorrect-result;
//   - a write the rules say must fail (first-updater-wins, innodb_snapshot_isolation) that succeeded: missing-abort;
//   - a final state different from the model's: incorrect-final-state.
// A statement that waited where the model needs no wait is counted (tag "block-not-required"), never a finding; an
// engine error the model did not predict is followed (the transaction ends as the engine says) and counted.
// Following the actual order (rather than predicting it, as Troc does for two transactions) is what makes n
// transactions decidable: a blocked statement is judged where it completed.
// Richer statements (issue 11): every table a statement reads (joined tables, a derived table's base table, the
// tables of subqueries in WHERE / HAVING / SET / the SELECT list) is in its view, with the statement's own rule or the
// subquery rule; a joined write writes (and locks) every table in Statement::written_tables(). Locks stay a lower
// bound of the engine's (judge.cpp, locks_of).
// Foreign keys (issue 17): a write that touches one (foreign_key_checked_tables) runs on its view plus every other
// table as its latest committed versions and own writes (what the key's check and actions read: a locking read on
// InnoDB, the RI triggers' fresh snapshot on PostgreSQL), with the keys enforced on the scratch session: the engine's
// own check decides whether it may succeed (refused there, succeeded on the engine: incorrect-result), and the rows its
// CASCADE / SET NULL actions write are the transaction's versions and exclusive locks. The check's shared locks are not
// modelled. A key error of the engine is followed and counted as predicted or not (judge.cpp, record_key_error).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "txprop/engine.hpp"
#include "txprop/history.hpp"
#include "txprop/target.hpp"
#include "txprop/verdict.hpp"

namespace txprop::troc {

inline constexpr int kInitial = -1;  // the writer of the initial rows

struct Version {
  Row data;  // every column, txp_rid and txp_wl included
  int txn = kInitial;
  bool deleted = false;
  int seq = -1;  // index of the event that wrote it (-1: initial)
};

// A lock a statement took: rows (by row id), unique values it wrote, and its predicate (next-key locks).
struct Lock {
  std::string table;
  LockStrength strength = LockStrength::None;
  std::set<std::int64_t> rows;
  std::set<std::string> written_keys;  // "index:value,value" of unique values inserted, deleted or updated
  std::optional<Expr> predicate;       // WHERE of a statement with predicate locks
  bool database = false;               // a database-wide write lock (SQLite)
  std::string statement;               // for explanations
  int seq = -1;                        // the event that took it
};

enum class TxnState { Active, Committed, Aborted };

struct TxnModel {
  IsolationLevel level = IsolationLevel::Serializable;
  VisibilityRules rules;
  TxnState state = TxnState::Active;
  int end_seq = -1;
  std::optional<int> snapshot_seq;  // versions of transactions that committed before this event are in its snapshot
  std::vector<Lock> locks;
  bool wrote = false;       // ran a write statement (SQLite: holds the write lock)
  bool wrote_rows = false;  // changed at least one row
  // A write read (current read) a row version that its snapshot does not hold: later snapshot reads may mix both.
  bool current_read_beyond_snapshot = false;
};

using View = std::map<std::string, std::vector<Row>>;  // table -> rows

// The version history of every row and the state of every transaction, as the model walks the actual order.
class Model {
 public:
  Model(const Schema& instrumented, std::vector<TxnModel> txns);

  const Schema& schema() const { return schema_; }
  std::vector<TxnModel>& txns() { return txns_; }
  const std::vector<TxnModel>& txns() const { return txns_; }

  void set_initial(const std::string& table, const std::vector<Row>& rows);
  void append(const std::string& table, std::int64_t rid, Row data, int txn, bool deleted, int seq);
  void end(int txn, TxnState state, int seq);

  // Whether `writer`'s versions are visible to transaction `reader` under `rule`, for a statement at event `seq`.
  bool visible(int reader, int writer, ViewRule rule, int seq) const;
  // The rows transaction `txn` sees under `rule` at event `seq` (versions and commits before it), per table.
  View view(int txn, ViewRule rule, int seq, const std::vector<std::string>& tables) const;
  // The latest version of row `rid` that is committed before `seq` or written by `txn`; nullptr if none.
  const Version* latest_committed(std::int64_t rid, int txn, int seq) const;
  // The version of `rid` in `txn`'s snapshot (or own); nullptr if none.
  const Version* in_snapshot(std::int64_t rid, int txn, int seq) const;
  // Latest committed, non-deleted rows of every table, sorted.
  DatabaseState final_state() const;

  std::optional<std::size_t> rid_column(const std::string& table) const;
  // "index:v1,v2" for every unique index (primary key included) of `table` whose columns are all non-NULL in `row`.
  std::vector<std::string> unique_keys(const std::string& table, const Row& row) const;

 private:
  struct RowHistory {
    std::string table;
    std::vector<Version> versions;
  };
  const Version* pick(const RowHistory& r, int txn, ViewRule rule, int seq) const;

  Schema schema_;
  std::vector<TxnModel> txns_;
  std::map<std::int64_t, RowHistory> rows_;
};

// The lock conflict analysis (Troc Table III, section A6): which lock of another active transaction `mine` (taken by
// transaction `txn`) must wait for. `changed_predicates[i]` says whether the statement's write changed which rows
// match predicate i of predicate_locks(model, txn). nullopt: no conflict.
struct Conflict {
  int holder = -1;
  std::string reason;
};
// `at`: the event at which the statement started (locks taken and transactions active then); -1: now.
// `released`: transactions whose locks are gone already (a deadlock victim rolled back while its statement waited).
std::optional<Conflict> find_conflict(const Model& model, int txn, const Lock& mine, bool unique_waits,
                                      const std::vector<bool>& changed_predicates, int at = -1,
                                      const std::set<int>& released = {});
// The predicate locks of other active transactions on `table` (in the order find_conflict indexes them).
std::vector<std::pair<int, const Lock*>> predicate_locks(const Model& model, int txn, const std::string& table,
                                                         const std::set<int>& released = {});

// Runs one statement alone on a view: the engine's own SQL semantics on scratch contents.
struct Execution {
  Outcome outcome;
  // Rows returned (SELECT: the first txp_rid column), written (UPDATE, DELETE: of every table written) or inserted
  // (INSERT). Row ids are unique across tables.
  std::vector<std::int64_t> matched;
  struct Change {
    std::int64_t rid = 0;
    Row data;
    bool deleted = false;
    std::string table;  // the table written (a joined UPDATE writes two)
  };
  std::vector<Change> changes;
  // UPDATE/DELETE: the written rows as they were (for unique values), with their table.
  std::vector<std::pair<std::string, Row>> before;
  std::vector<bool> predicate_changed;  // per predicate asked
  // A write whose foreign keys were enforced, refused by them (this outcome) but not without them (`outcome`, whose
  // effect the changes are): the key's check, reading the view's rows, fails.
  std::optional<Outcome> key_check;
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  // Makes the tables hold `view`, runs `s` alone, and says what it did (for a write: the changes of every table in
  // s.written_tables()); `predicates` are WHEREs on s.table whose matching rows are compared before and after.
  // A write that touches a foreign key (foreign_key_checked_tables) on a view of every table runs with the keys
  // enforced: the changes include those of the key's actions, and a refusal by the key's check is key_check.
  virtual Execution execute(const Schema& schema, const View& view, const Statement& s,
                            const std::vector<Expr>& predicates) = 0;
  // The rows as the engine gives them back (canonical values), per table.
  virtual View canonical(const Schema& schema, const View& view) = 0;
  // Whether the engine asks its storage for any row to run SELECT `s` on `view` (EngineProfile::
  // statement_reads_tables); nullopt: unknown.
  virtual std::optional<bool> reads_tables(const Schema&, const View&, const Statement&) { return std::nullopt; }
};

// The evaluator on a target: a separate autocommit session on the test database, used after the run.
std::unique_ptr<Evaluator> engine_evaluator(Target& target);

struct TrocOptions {
  const EngineProfile* profile = nullptr;  // default: the target's; a test may pass a copy with a wrong row
  bool ignore_documentation = false;
};

// The Troc verdict on a history of an instrumented case, with `evaluator` running statements on views.
Verdict judge(const History& h, const EngineProfile& profile, const TargetConfig& config, Evaluator& evaluator,
              const TrocOptions& options = {});
Verdict check_troc(Target& target, const History& h, const TrocOptions& options = {});

// The case as the oracle runs it: rid and writer-list columns, no observer. `engine`: the engine's capabilities, so
// that an UPDATE leaves a row it does not change unchanged where the engine does (issue 21; adya_instrumentation.hpp).
TestCase prepare(const TestCase& c, const EngineCapabilities& engine = {});
TestCase strip(const TestCase& prepared);

}  // namespace txprop::troc
