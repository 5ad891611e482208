// One SQL statement of a transaction, as a tree txprop can render for every dialect, instrument and shrink.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "txprop/expr.hpp"

namespace txprop {

// Savepoint, RollbackToSavepoint and ReleaseSavepoint are statements inside a transaction (SAVEPOINT s, ROLLBACK TO
// SAVEPOINT s, RELEASE SAVEPOINT s; the same text on every engine), named by Statement::savepoint.
// LockTable is PostgreSQL's LOCK [TABLE] t [IN <mode> MODE] [NOWAIT] (manual, LOCK), inside BEGIN ... COMMIT: a table
// lock held to the transaction's end (EngineCapabilities::lock_table). MariaDB's LOCK TABLES ends the transaction
// and holds its locks past it, which does not fit one transaction per session; it is not modelled.
// Merge is PostgreSQL 15's MERGE INTO t USING <source> ON <condition> WHEN ... (Statement::merge_whens; manual, MERGE):
// EngineCapabilities::merge says which servers have it.
enum class StatementKind { Begin, Commit, Rollback, Select, Insert, Update, Delete, Savepoint, RollbackToSavepoint, ReleaseSavepoint, LockTable, Merge };
// SELECT ... FOR SHARE / FOR UPDATE, and PostgreSQL's weaker two (manual 13.3.2, "Row-Level Locks"): FOR KEY SHARE
// conflicts only with FOR UPDATE (and a DELETE or an UPDATE of a key column), so it does not block an UPDATE of other
// columns; FOR NO KEY UPDATE does not block FOR KEY SHARE. EngineCapabilities::lock_strengths says which an engine has.
enum class LockMode { None, Share, Update, KeyShare, NoKeyUpdate };
// What a locking read does with a row another transaction has locked: wait (the default), fail at once (NOWAIT:
// PostgreSQL 55P03, MariaDB 1205) or leave the row out of its result (SKIP LOCKED). PostgreSQL 9.5+, MariaDB 10.6+
// (EngineCapabilities::lock_waits). Either makes the result depend on other transactions' locks, which no replay has.
enum class LockWait { Wait, NoWait, SkipLocked };

// What an INSERT does with a row whose unique key is already in the table (an upsert). Each engine has some of these
// (EngineCapabilities::upserts); the renderer throws for a form the dialect lacks, and the generator never makes one.
enum class Upsert {
  None,       // a plain INSERT: a duplicate key is an error
  DoNothing,  // ON CONFLICT [(k)] DO NOTHING (PostgreSQL, SQLite): only a unique-key conflict is skipped
  DoUpdate,   // ON CONFLICT (k) DO UPDATE SET ... [WHERE ...] (PostgreSQL, SQLite); ON DUPLICATE KEY UPDATE ...
              // (MariaDB, no WHERE, no target: any unique key): the existing row is updated instead
  Ignore,     // INSERT IGNORE (MariaDB), INSERT OR IGNORE (SQLite): the row is skipped; both also skip rows that break
              // other constraints (NOT NULL), which is why it is not DoNothing
  Replace,    // REPLACE INTO (MariaDB, SQLite), INSERT OR REPLACE (SQLite): the existing row is deleted, then inserted
};

struct Assignment {
  std::string column;
  Expr value;
  // The table whose column is set: empty for the statement's own table; a joined table's name in a multi-table
  // UPDATE (MariaDB's `UPDATE t JOIN u ON ... SET t.a = 1, u.b = 2`, where the profile says the engine has it).
  std::string table;
  friend bool operator==(const Assignment&, const Assignment&) = default;
};

// One WHEN clause of a MERGE (PostgreSQL 15 manual, MERGE): WHEN MATCHED [AND condition] THEN UPDATE SET ... | DELETE |
// DO NOTHING, or WHEN NOT MATCHED [AND condition] THEN INSERT (columns) VALUES (...) | DO NOTHING. The first clause
// whose kind and condition hold for a source row decides what happens to it; a row no clause takes is left alone.
enum class MergeAction { Update, Delete, DoNothing, Insert };
struct MergeWhen {
  bool matched = true;
  std::optional<Expr> condition;        // AND ...: may name the target's and the source's columns (NOT MATCHED: the source's)
  MergeAction action = MergeAction::DoNothing;
  std::vector<Assignment> assignments;  // UPDATE SET: the target's columns, unqualified
  std::vector<std::string> columns;     // INSERT (columns) VALUES (values): values name the source's columns only
  std::vector<Expr> values;
  friend bool operator==(const MergeWhen&, const MergeWhen&) = default;
};

// One item of an aggregating SELECT list: a grouping column (aggregate None) or aggregate(column), COUNT(*) as
// column "*"; `alias` names it (AS n: a derived table's aggregate needs a name the outer SELECT can use).
struct SelectItem {
  Aggregate aggregate = Aggregate::None;
  std::string column;
  std::string alias;
  friend bool operator==(const SelectItem&, const SelectItem&) = default;
};

struct OrderItem {
  std::string column;
  bool descending = false;
  friend bool operator==(const OrderItem&, const OrderItem&) = default;
};

// SELECT ... FROM table [INNER | LEFT] JOIN other ON condition (columns qualified with their table's name). An UPDATE
// or DELETE may have one INNER join too (a multi-table write): rendered `UPDATE t JOIN u ON c SET ...` and
// `DELETE t FROM t JOIN u ON c ...` for MariaDB, `UPDATE t SET ... FROM u WHERE c ...` and `DELETE FROM t USING u
// WHERE c ...` for PostgreSQL (the condition joined to the WHERE with AND); generated only where the engine profile's
// capabilities say the engine has the form.
struct Join {
  bool left = false;  // LEFT OUTER JOIN; INNER JOIN otherwise
  std::string table;
  Expr on;
  // DELETE t, u FROM t JOIN u ON ...: the joined table's matching rows are deleted too (MariaDB's multi-table DELETE
  // of two tables; generated only where the profile's delete_joined_table capability says the engine has it).
  bool deleted = false;
  friend bool operator==(const Join&, const Join&) = default;
};

struct Statement {
  StatementKind kind = StatementKind::Select;
  std::string table;
  // SELECT: projected columns (empty: every column); INSERT: the column list.
  std::vector<std::string> columns;
  // INSERT: one or more rows of values, each as long as `columns`.
  std::vector<std::vector<Expr>> values;
  // UPDATE: the SET list; INSERT ... ON CONFLICT DO UPDATE: its SET list (columns of the existing row qualified with
  // the table's name, since PostgreSQL finds an unqualified one ambiguous with EXCLUDED's; Expr::excluded for the new).
  std::vector<Assignment> assignments;
  // SELECT, UPDATE, DELETE: the WHERE; INSERT ... ON CONFLICT DO UPDATE: the WHERE of its DO UPDATE.
  std::optional<Expr> where;
  // INSERT: how a duplicate key is handled, and the conflict target (ON CONFLICT (k): the primary key's or a unique
  // index's columns; empty: any unique key, as MariaDB's ON DUPLICATE KEY UPDATE and ON CONFLICT DO NOTHING).
  Upsert upsert = Upsert::None;
  std::vector<std::string> conflict_target;
  // COMMIT AND CHAIN / ROLLBACK AND CHAIN (PostgreSQL 12+, MariaDB; SQLite has none): a new transaction starts at once,
  // with the same characteristics (EngineCapabilities::chain; Transaction::chain says which transaction ends so).
  bool chain = false;
  // SAVEPOINT, ROLLBACK TO SAVEPOINT, RELEASE SAVEPOINT: the savepoint's name.
  std::string savepoint;
  LockMode lock = LockMode::None;
  LockWait lock_wait = LockWait::Wait;  // only with a lock, or on LOCK TABLE (NOWAIT)
  // LOCK TABLE: the mode as PostgreSQL names it ("ACCESS SHARE" ... "ACCESS EXCLUSIVE"; table_lock_modes()).
  std::string table_lock_mode;
  // SELECT with aggregates: the select list (when non-empty it replaces `columns`), GROUP BY, HAVING; and
  // ORDER BY ... LIMIT (a generated ORDER BY names every column, so that ties cannot change a result).
  std::vector<Join> joins;  // SELECT; UPDATE and DELETE: one INNER join (a multi-table write)
  // SELECT: scalar subqueries (Expr::Kind::Subquery) printed after the columns (or *), e.g.
  // `SELECT *, (SELECT MAX(u.b) FROM u WHERE u.b = t.a) FROM t`.
  std::vector<Expr> select_exprs;
  // SELECT ... FROM (derived[0]) AS alias: a derived table (at most one element; a vector because a Statement cannot
  // hold an optional of itself). derived[0] reads `table` (which stays the table read, so that tables() and the
  // instrumentation see it) in one of three shapes (check_statement enforces them):
  //   SELECT * FROM t [WHERE ...] [ORDER BY <every column> LIMIT n]   the outer statement's columns are t's;
  //   SELECT c, COUNT(*) AS n FROM t [WHERE ...] GROUP BY c           the outer SELECT * [WHERE] reads columns c, n;
  //   SELECT t.* FROM t INNER JOIN u ON ... [WHERE ...]               t's rows that have a partner (t's columns only,
  //                                                                   so that the derived table's names stay unique).
  std::vector<Statement> derived;
  // SELECT t.* FROM t JOIN u: only the FROM table's columns (a derived table's join, see above).
  bool own_columns = false;
  std::string alias;
  std::vector<SelectItem> items;
  std::vector<std::string> group_by;
  std::optional<Expr> having;
  std::vector<OrderItem> order_by;
  std::optional<std::int64_t> limit;
  // MERGE INTO table USING <source> ON merge_on WHEN ...: the source is the table merge_source (named `alias` when one
  // is given), or with merge_source empty the rows `values` as `(VALUES ...) AS alias(columns)`. Source columns are
  // qualified with the alias (or the source table's name), the target's with `table` or unqualified.
  std::string merge_source;
  std::optional<Expr> merge_on;
  std::vector<MergeWhen> merge_whens;
  // DELETE / UPDATE ... RETURNING these columns of the rows deleted or written (instrumentation).
  std::vector<std::string> returning;
  // A joined DELETE / UPDATE: RETURNING also these columns of the joined table's row the written row was joined to,
  // after `returning` (PostgreSQL's RETURNING may name the FROM / USING table; instrumentation).
  std::vector<std::string> returning_joined;

  static Statement begin();
  static Statement commit();
  static Statement rollback();
  static Statement select(std::string table, std::optional<Expr> where = std::nullopt,
                          LockMode lock = LockMode::None, std::vector<std::string> columns = {});
  static Statement insert(std::string table, std::vector<std::string> columns, std::vector<Expr> values);
  static Statement update(std::string table, std::vector<Assignment> assignments,
                          std::optional<Expr> where = std::nullopt);
  static Statement delete_(std::string table, std::optional<Expr> where = std::nullopt);
  static Statement savepoint_statement(StatementKind kind, std::string name);

  bool is_transaction_control() const;
  bool is_write() const;  // INSERT, UPDATE, DELETE, MERGE
  bool is_read() const { return kind == StatementKind::Select; }
  bool is_savepoint() const {
    return kind == StatementKind::Savepoint || kind == StatementKind::RollbackToSavepoint || kind == StatementKind::ReleaseSavepoint;
  }
  bool is_upsert() const { return kind == StatementKind::Insert && upsert != Upsert::None; }
  bool is_merge() const { return kind == StatementKind::Merge; }
  // MERGE: the name its source's columns are qualified with (the alias, else the source table).
  const std::string& merge_source_name() const { return alias.empty() ? merge_source : alias; }
  // A locking read with NOWAIT or SKIP LOCKED: its result (or its error) depends on which rows other transactions
  // had locked when it ran, so a replay without them need not give it again.
  bool depends_on_locks() const {
    return (lock != LockMode::None || kind == StatementKind::LockTable) && lock_wait != LockWait::Wait;
  }
  // A locking clause beyond FOR UPDATE / FOR SHARE that waits: a weaker strength (FOR KEY SHARE, FOR NO KEY UPDATE),
  // NOWAIT or SKIP LOCKED (issue 17 item 2).
  bool has_lock_option() const {
    return lock == LockMode::KeyShare || lock == LockMode::NoKeyUpdate || depends_on_locks() || kind == StatementKind::LockTable;
  }
  // Tables this statement reads or writes, its own table first.
  std::vector<std::string> tables() const;
  // Tables this statement writes: its own table for INSERT and DELETE, for UPDATE also every table a SET names, for
  // DELETE also every joined table whose rows it deletes (Join::deleted).
  std::vector<std::string> written_tables() const;
  // An UPDATE or DELETE with a join.
  bool is_multi_table_write() const { return (kind == StatementKind::Update || kind == StatementKind::Delete) && !joins.empty(); }
  // A multi-table UPDATE that SETs a column its join condition reads (MariaDB applies such a change while it scans
  // the join, so which rows it writes depends on its join order: tests/scenarios/mariadb_multi_table_update_sets_join_column.txn).
  bool sets_a_join_column() const;
  // The derived table's shape (derived[0]): GROUP BY inside, or a join inside.
  bool derived_groups() const { return !derived.empty() && !derived.front().group_by.empty(); }
  bool derived_joins() const { return !derived.empty() && !derived.front().joins.empty(); }

  friend bool operator==(const Statement&, const Statement&) = default;
};

std::string to_string(StatementKind kind);
// The upsert's form as a person names it ("ON CONFLICT DO UPDATE ... WHERE", "INSERT IGNORE", "REPLACE"); "" for a
// statement that is not an upsert. Used for form tags, shares and refusal reasons.
std::string upsert_form(const Statement& s);
// The MERGE's form as a person names it, from its WHEN clauses: "MERGE (MATCHED AND ... UPDATE, NOT MATCHED INSERT)";
// "" for a statement that is not a MERGE. Used for form tags, shares and refusal reasons.
std::string merge_form(const Statement& s);
// The locking clause as PostgreSQL spells it ("FOR NO KEY UPDATE SKIP LOCKED"; for LOCK TABLE the statement, "LOCK
// TABLE t IN SHARE MODE NOWAIT"); "" for a statement without one.
std::string lock_clause(const Statement& s);
// PostgreSQL's eight table lock modes, weakest first (manual 13.3.1, "Table-Level Locks").
const std::vector<std::string>& table_lock_modes();

}  // namespace txprop
