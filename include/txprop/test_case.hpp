// A test case: a schema with rows, a group of transactions, and the order in which their steps are submitted.
#pragma once

#include <iosfwd>
#include <set>
#include <string>
#include <vector>

#include "txprop/isolation.hpp"
#include "txprop/schema.hpp"
#include "txprop/statement.hpp"

namespace txprop {

enum class TxnEnd { Commit, Rollback };

// A transaction's steps are BEGIN, its statements, then COMMIT or ROLLBACK: step 0 is BEGIN,
// step i (1..n) is statements[i-1], step n+1 is the end.
//
// An autocommit statement (a statement a connection runs outside BEGIN ... COMMIT, as hand-written isolation tests
// do) is a transaction of its own: one statement, autocommit = true. Its BEGIN and end steps send nothing; it commits
// when the statement succeeds and is aborted when the statement fails (the engine rolls the statement back), so every
// oracle sees it as the committed or aborted one-statement transaction it is.
struct Transaction {
  IsolationLevel isolation = IsolationLevel::Serializable;
  std::vector<Statement> statements;
  TxnEnd end = TxnEnd::Commit;
  // Statements run as autocommit statements: BEGIN and the end are not sent (an autocommit statement, see above, or
  // an oracle's statement-level replay, where several statements each commit on their own).
  bool autocommit = false;
  // The connection (session) it runs on. Transactions with the same session >= 0 share one connection and run one
  // after the other in index order: a transaction's first step is submitted after the previous one's last, and is
  // sent only once that one ended. -1 (the default, and every generated case): a connection of its own.
  int session = -1;
  // The node of a cluster (Galera) its connection runs on, 0-based; -1: connection k runs on node k mod the number of
  // nodes (spread over the nodes). Transactions sharing a connection share its node (the first one's that is set).
  // Ignored by single-server targets.
  int node = -1;
  // Its end is sent AND CHAIN (COMMIT AND CHAIN / ROLLBACK AND CHAIN): the next transaction on its connection (same
  // session) runs in the transaction the chain opens, so it keeps this one's level (validate() checks they are equal)
  // and its BEGIN sends nothing. Oracles see two transactions, one after the other on one connection. Where this one
  // aborts (the runner then sends a plain ROLLBACK) or has no next transaction, the end is sent without the chain and
  // the next one's BEGIN is sent.
  bool chain = false;
  // Instrumentation: the writer id the runner gives its connection before its BEGIN (render_set_writer), for the
  // triggers of a CascadeLog to name who made a foreign key's write; 0: none is set.
  int writer = 0;
  // Instrumentation (an oracle's observer, which reads the final state): its steps are sent only once every other
  // transaction ended, so that it never waits beside them or takes part in their deadlocks (SQLite's busy rule rolls
  // back one of the transactions that wait, and a waiting observer would be one more to choose from).
  bool after_all = false;

  // One statement run in autocommit mode: a transaction of its own that commits or aborts with the statement.
  bool is_autocommit_statement() const { return autocommit && statements.size() == 1; }

  std::size_t step_count() const { return statements.size() + 2; }
  Statement step(std::size_t index) const;
  bool is_end_step(std::size_t index) const { return index == statements.size() + 1; }
  // For each statement, whether a later ROLLBACK TO SAVEPOINT of this transaction undid it (it comes after the
  // savepoint that ROLLBACK TO returned to, and before that ROLLBACK TO). The one reading of savepoints that
  // Atomicity and WSS replay by: what was rolled back to a savepoint has no effect.
  std::vector<bool> undone_by_savepoints() const;
  // Empty if the savepoint statements are well formed: inside BEGIN ... COMMIT, and every ROLLBACK TO or RELEASE
  // names a savepoint this transaction set before and has not released.
  std::string check_savepoints() const;
  friend bool operator==(const Transaction&, const Transaction&) = default;
};

// Addresses one step of one transaction.
struct StepRef {
  int txn = 0;
  int index = 0;
  friend auto operator<=>(const StepRef&, const StepRef&) = default;
};

struct TestCase {
  Schema schema;
  std::vector<Transaction> transactions;
  // One entry per step: the transaction it belongs to. The k-th occurrence of i is transaction i's step k,
  // so every transaction i appears exactly transactions[i].step_count() times.
  std::vector<int> order;

  // The steps in submitted order.
  std::vector<StepRef> submitted_steps() const;
  // The connections: each one's transactions in index order (the order they run in), connections ordered by their
  // first transaction. A transaction with session -1 is a connection of its own.
  std::vector<std::vector<int>> sessions() const;
  // For each transaction, the index of its connection in sessions().
  std::vector<int> connection_of() const;
  // For each connection of sessions(), the node it runs on in a cluster of `nodes` nodes (Transaction::node).
  std::vector<int> placement(int nodes) const;
  // Whether some transaction names its node.
  bool has_placement() const;
  // Whether some connection runs more than one transaction, or some transaction is an autocommit statement: the
  // shapes hand-written isolation tests have and generated cases do not (oracles that cannot judge them say so).
  bool has_shared_sessions() const;
  bool has_autocommit_statements() const;
  // "T1.2 is an upsert (ON CONFLICT DO UPDATE)" for the first upsert statement, "" if none: what an oracle whose
  // instrumentation cannot see which rows an upsert inserted, updated or left alone says when it refuses the case.
  std::string first_upsert() const;
  // "T1.2 is MERGE (MATCHED UPDATE, NOT MATCHED INSERT)" for the first MERGE, "" if none (refusals, as first_upsert).
  std::string first_merge() const;
  // "T1.2 uses TRUE / FALSE, IS [NOT] TRUE, CAST or IS [NOT] DISTINCT FROM" for the first statement with one of these
  // (Expr::has_truth_form), "" if none (refusals of oracles that evaluate predicates themselves, as first_upsert).
  std::string first_truth_form() const;
  // "T0 ends COMMIT AND CHAIN" for the first transaction that chains, "" if none (refusals, as first_upsert).
  std::string first_chain() const;
  // "T0.3 is ROLLBACK TO SAVEPOINT s" for the first savepoint statement, "" if none (refusals, as first_upsert).
  std::string first_savepoint() const;
  // "T1.2 is SELECT ... FOR UPDATE SKIP LOCKED" for the first statement with a locking clause beyond a waiting FOR
  // UPDATE / FOR SHARE (Statement::has_lock_option), or with `nowait_or_skip` only for the first NOWAIT or SKIP
  // LOCKED one (Statement::depends_on_locks); "" if none (refusals, as first_upsert). LOCK TABLE is not one of them.
  std::string first_lock_option(bool nowait_or_skip = false) const;
  // "T0.1 is LOCK TABLE t IN SHARE MODE" for the first LOCK TABLE, "" if none (refusals, as first_upsert).
  std::string first_lock_table() const;
  // Empty if well formed; otherwise what is wrong (order counts, unknown tables or columns).
  std::string validate() const;
  // Every transaction in sequence, T0 first: the fully serial order.
  static std::vector<int> serial_order(const std::vector<Transaction>& transactions);
  friend bool operator==(const TestCase&, const TestCase&) = default;
};

// Readable one-line description of a step, e.g. "T1.2".
std::string to_string(StepRef ref);
std::string to_string(TxnEnd end);

// The richer SQL forms (issue 11) the case's statements use, as "form: <name>" tags: the Sdg suite and the Troc
// oracle tag their verdicts with them, and the run summary and the campaigns count them per case.
std::set<std::string> rich_forms(const TestCase& c);


}  // namespace txprop
