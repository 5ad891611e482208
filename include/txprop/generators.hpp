// RapidCheck generators for test cases, with shrinking a database engineer would do by hand: drop a
// transaction, drop a statement, drop a table, a row or a column nobody uses, simplify a predicate or a value,
// move toward a more serial order. Defaults follow the studies in shared/notes (WriteCheck, TxCheck, Troc):
// 1-3 small tables, 2-5 transactions (mostly 2-3) of 1-5 statements, a write-heavy mix, and predicates that
// name values present in the rows so that transactions collide.
#pragma once

#include <rapidcheck.h>

#include <vector>

#include "txprop/capabilities.hpp"
#include "txprop/isolation.hpp"
#include "txprop/test_case.hpp"

namespace txprop::gen {

// The capabilities Options assumes when nobody sets them: an engine with locking reads and no other optional form.
inline EngineCapabilities locking_reads_only() {
  EngineCapabilities c;
  c.locking_reads = true;
  return c;
}

struct Options {
  // What the engine can do (txprop/capabilities.hpp), as its profile says: the harness sets it to
  // EngineProfile::capabilities(config) of the server a suite runs on, unchanged. The generator makes only the forms it
  // names (locking reads and their strengths and waits, joined writes, upsert forms, MERGE, chained transactions), each
  // where the suite's own switch below also asks for it. Default: locking reads and nothing else.
  EngineCapabilities engine = locking_reads_only();
  // Every generated transaction runs at this level...
  IsolationLevel isolation = IsolationLevel::Serializable;
  // ...unless this is non-empty (off by default): then the first transaction runs at `isolation` and each other one at
  // a level drawn from these (give the target's levels). Shrinking moves them toward the first one's level.
  std::vector<IsolationLevel> mixed_levels;

  // The nodes of a cluster target (Galera; the harness sets it from the URI's hosts). Above 1 every transaction is
  // placed on a node, spread: transaction i on node i mod nodes (no draw: the rest of the case is what it would be on
  // one server). Shrinking moves transactions toward fewer nodes.
  int nodes = 1;

  int min_tables = 1, max_tables = 3;
  int min_columns = 2, max_columns = 6;
  int max_rows = 10;
  int min_transactions = 2, max_transactions = 5;
  int min_statements = 1, max_statements = 5;
  double rollback_probability = 0.3;  // WriteCheck draws COMMIT/ROLLBACK 50/50

  // Relative weights of statement kinds.
  int weight_select = 18;
  int weight_select_for_update = 5;  // ignored where the engine has no locking reads
  int weight_select_for_share = 3;
  int weight_insert = 20;
  int weight_update = 36;
  int weight_delete = 18;

  double subquery_probability = 0.08;    // a predicate or SET value reads another table
  double primary_key_update_probability = 0.1;
  double existing_value_probability = 0.7;  // predicates name a value present in the initial rows

  // Richer statements (TxCheck's point: most of its bugs needed them). Off by default: an oracle whose instrumentation
  // cannot see through them (Adya's) leaves them off; the SDG, WSS and atomicity suites turn them on.
  bool rich_statements = false;
  double exists_probability = 0.12;  // a predicate term is [NOT] EXISTS (SELECT 1 FROM other [WHERE ...]), half correlated
  double case_probability = 0.15;    // an UPDATE value is CASE WHEN <predicate> THEN <value> ELSE <column> END
  double in_subquery_probability = 0.08;  // a predicate term is c [NOT] IN (SELECT c' FROM other [WHERE ...])
  double join_probability = 0.2;  // a plain SELECT joins another table (INNER or LEFT) on columns of one type
  double aggregate_probability = 0.25;  // a plain SELECT aggregates: COUNT/SUM/MIN/MAX [GROUP BY c [HAVING ...]]
  double order_limit_probability = 0.2;  // a plain SELECT is ORDER BY <every column> LIMIT n
  double derived_table_probability = 0.12;  // a plain SELECT reads FROM (SELECT * FROM t [WHERE] [ORDER BY LIMIT]) AS d
  // Derived tables with GROUP BY inside (SELECT c, COUNT(*) AS n FROM t GROUP BY c) or a join inside (SELECT t.* FROM
  // t JOIN u ON ...). Off by default: the Sdg, Wss and Atomicity suites turn it on. Adya's and Troc's suites leave it
  // off until their owners decide how their oracles read these (Adya records no read from either shape, which only
  // hides dependencies; Troc leaves rich statements off altogether).
  bool derived_inner_forms = false;
  double select_subquery_probability = 0.3;  // a plain SELECT lists a scalar subquery of another table after *
  // Joined writes, where the engine has them (engine.update_join, delete_join, update_joined_table,
  // delete_joined_table): UPDATE/DELETE joined to another table, a joined UPDATE that also sets the other table's
  // columns, and a joined DELETE that also deletes the other table's rows.
  // Whether rich statements include those joined writes at all: a suite whose oracle cannot judge them turns them
  // off (none of the shipped ones since the Adya instrumentation keeps every written table's writer list); the
  // harness leaves this alone.
  bool joined_writes = true;
  double write_join_probability = 0.15;
  double joined_table_update_probability = 0.4;
  double joined_table_delete_probability = 0.4;
  // Upserts (issue 17): an INSERT into a table whose only unique key is its primary key becomes, with
  // upsert_probability, one of the engine's upsert forms (engine.upserts; a DO UPDATE takes a WHERE where
  // engine.upsert_update_where): ON CONFLICT (k) DO NOTHING | DO UPDATE SET ... [WHERE ...] (MariaDB's ON DUPLICATE
  // KEY UPDATE), INSERT IGNORE, REPLACE. Off by default: a suite whose oracle judges upserts turns it on (Wss,
  // Atomicity); the others' oracles cannot see which rows an upsert inserted, updated or left alone, and refuse it.
  bool upserts = false;
  double upsert_probability = 0.35;
  double upsert_where_probability = 0.3;
  // MERGE (issue 17): an INSERT or UPDATE of a table with a primary key becomes, with merge_probability, a MERGE INTO t
  // USING (VALUES <one or two rows of t's columns>) AS src(src_c0, ...) ON t.k = src.src_k WHEN MATCHED [AND <predicate>]
  // THEN UPDATE SET ... | DELETE | DO NOTHING [WHEN MATCHED THEN ...] [WHEN NOT MATCHED THEN INSERT ... VALUES (src...)].
  // `merge` is the suite's switch (Wss, Atomicity: their replays run the MERGE again); engine.merge is the
  // server's (PostgreSQL 15+). Off by default.
  bool merge = false;
  double merge_probability = 0.15;
  // Chained transactions (issue 17): with chain_probability a case's transaction i ends COMMIT / ROLLBACK AND CHAIN
  // and transaction i + 1 runs after it on its connection, in the chained transaction (its level is i's; the submitted
  // order is kept, with i + 1's steps moved after i's end). `chains` is the suite's switch, engine.chain the
  // server's. Off by default.
  bool chains = false;
  double chain_probability = 0.2;
  // Truth values, casts and NULL-safe comparison (issue 17): with truth_form_probability a predicate term is
  // (c op v) = TRUE | FALSE, (c op v) IS [NOT] TRUE | FALSE, c IS [NOT] DISTINCT FROM v (MariaDB: <=>), or a comparison
  // of CAST(c AS TEXT | REAL) with a value of that type. Every engine has them. Off by default (Wss, Atomicity).
  bool truth_forms = false;
  double truth_form_probability = 0.05;
  // Savepoints (issue 17): with savepoint_probability a transaction gets SAVEPOINT sp before one of its statements and,
  // after a later one, ROLLBACK TO SAVEPOINT sp (rollback_to_probability) or RELEASE SAVEPOINT sp. Every engine has
  // them. Off by default (Wss, Atomicity judge them); shrinking drops the pair first.
  bool savepoints = false;
  double savepoint_probability = 0.2;
  double rollback_to_probability = 0.6;
  // BOOLEAN columns (issue 17 item 2): with boolean_column_probability a column after the first is BOOLEAN (nullable).
  // Statements compare it only with TRUE / FALSE: an INSERT gives it TRUE, FALSE or NULL, an UPDATE sometimes sets it to
  // TRUE, FALSE or NOT b, and a single-table statement's WHERE sometimes has b = TRUE | FALSE, b <> TRUE | FALSE,
  // b IS [NOT] TRUE | FALSE or b IS [NOT] NULL (boolean_term_probability each); no other form names it. Off by default
  // (Wss, Atomicity turn it on; the other oracles refuse TRUE / FALSE, which their predicate evaluation does not model).
  bool booleans = false;
  double boolean_column_probability = 0.15;
  double boolean_term_probability = 0.35;
  // Foreign keys (issue 17): with foreign_key_probability each table after the first references an earlier table's
  // primary key from one INTEGER column (FOREIGN KEY (c) REFERENCES t (c0) ON DELETE | ON UPDATE CASCADE | RESTRICT |
  // NO ACTION | SET NULL), its initial rows fitted to the parent's keys. Every engine has them. Off by default: a suite
  // whose oracle sees a foreign key's writes and locks turns it on (Wss, Atomicity: their replays run on the engine,
  // which cascades again; Adya where its triggers record them); shrinking drops the key first, then its actions.
  bool foreign_keys = false;
  double foreign_key_probability = 0.5;
  // Only actions that write nothing (RESTRICT for CASCADE, NO ACTION for SET NULL, after the same draws) where the
  // engine's writes through a key cannot be recorded (engine.cascaded_writes_unrecorded: MariaDB): the Adya suites,
  // which would refuse those cases there.
  bool foreign_key_writes_recorded_only = false;
  // The same on every engine: for a suite whose oracle records a key's checks but not the writes of its actions (none
  // of the shipped suites since SDG records them where the engine's triggers fire).
  bool foreign_key_no_writes = false;
  // Row-lock options (issue 17): a locking read becomes, with lock_strength_probability, the engine's weaker strength
  // of its kind (PostgreSQL's FOR NO KEY UPDATE, FOR KEY SHARE), and with lock_wait_probability NOWAIT or SKIP LOCKED
  // (those of engine.lock_strengths and engine.lock_waits; SQLite has no locking reads).
  // Off by default: a suite whose oracle judges them turns it on (Wss, Atomicity).
  bool lock_options = false;
  double lock_strength_probability = 0.4;
  double lock_wait_probability = 0.4;
  // Table locks (issue 17 item 2): with lock_table_probability a transaction gets LOCK TABLE t IN <mode> MODE, one of
  // PostgreSQL's eight modes drawn evenly, of a table one of its statements names (mostly as its first statement,
  // where it orders the transaction before any snapshot is taken: PostgreSQL 15 manual, LOCK), and with
  // lock_table_nowait_probability NOWAIT (where engine.lock_waits has it). Only where engine.lock_table (PostgreSQL:
  // MariaDB's LOCK TABLES commits the open transaction, SQLite has no table locks) and never in an autocommit
  // statement. Off by default: a suite whose oracle judges it turns it on; shrinking drops it like any statement,
  // NOWAIT first.
  bool lock_tables = false;
  double lock_table_probability = 0.1;
  double lock_table_nowait_probability = 0.2;
  // Contention mode (issue 13): every table has a row, and one row of the initial state (the anchor) is touched by
  // one extra statement of every transaction (the first transaction's an UPDATE or DELETE of it; the others' of any
  // kind and WHERE form that holds for the row, or an INSERT of a row with its value); the other statements prefer
  // the tables earlier statements read or wrote (hot_table_probability) and the values they named
  // (hot_value_probability), so that concurrent transactions touch the same rows and predicate ranges
  // (txprop_contention_bench measures the share). Off: generation draws exactly what it drew before.
  bool contention = false;
  double hot_table_probability = 0.95;
  double hot_value_probability = 0.6;
};

rc::Gen<Schema> schema(const Options& options);
rc::Gen<Transaction> transaction(const Schema& schema, const Options& options);
// A uniformly random interleaving of the transactions' steps.
rc::Gen<std::vector<int>> submitted_order(const std::vector<Transaction>& transactions);
// A whole test case; shrinks with shrink_test_case.
rc::Gen<TestCase> test_case(const Options& options);

// The one-step simplifications of a test case, most aggressive first; every candidate is valid.
std::vector<TestCase> shrink_test_case(const TestCase& c);

// Number of adjacent steps of different transactions in the submitted order: 0 is fully serial.
int context_switches(const std::vector<int>& order);

}  // namespace txprop::gen
