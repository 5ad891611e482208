// IsoRel's instrumentation (shared/notes/seed-isorel.md sections 1-2), the one mechanism through which properties
// get row identity and version order: every table gets a row id (txp_rid) and a writer list (txp_wl, the ids of
// the transactions that wrote the row, oldest first, comma separated; 0 is the initial state). Generated
// statements never name these columns:
//   SELECT *      returns them (explicit column lists get them appended, except over a join, where the names would
//                 be ambiguous); SELECT * over a join returns each table's pair in that table's place, and
//                 SELECT * FROM (SELECT * FROM t ...) AS d returns t's
//   INSERT        sets a fresh txp_rid and txp_wl = '<id>'
//   UPDATE        appends ',<id>' to txp_wl; RETURNING txp_rid, txp_wl where the engine has UPDATE ... RETURNING.
//                 Where a row the UPDATE sets to the values it has is not written (InnoDB, MDEV-26642), only where one
//                 of them changes: SET txp_wl = CASE WHEN a IS DISTINCT FROM <new a> OR ... THEN txp_wl || ',<id>' ELSE
//                 txp_wl END, a = <new a>, ... (first: MariaDB evaluates a single-table UPDATE's assignments left to
//                 right, each seeing the values the earlier ones set, so it must see the old ones)
//   DELETE        RETURNING txp_rid, txp_wl (PostgreSQL, SQLite >= 3.35 and MariaDB >= 10.0.5 all have it)
//   joined writes (UPDATE / DELETE with a join): an UPDATE appends to the writer list of every table it writes (t's
//                 always, the joined table's when its SET names one of that table's columns: MariaDB). RETURNING,
//                 where the engine takes it on a joined write, lists the written table's columns, then, where it may
//                 name the joined table (PostgreSQL), that table's (`Statement::returning_joined`): the version of the
//                 partner row the written row was joined to. Where it may not but writes read the statement's
//                 snapshot (SQLite), the write is preceded by a join read of the same join and WHERE,
//                   SELECT *, 'txp_join_read' FROM t INNER JOIN u ON ... WHERE ...
//                 (the literal marks it as instrumentation), whose partner versions are the write's reads when it
//                 saw exactly the rows the write returned. MariaDB's multi-table writes return nothing: their writes
//                 are known from later writer lists, the partner rows they read are not recorded.
// and a committed observer transaction reads every table after everything else, so every surviving row's whole
// writer list is seen. UPDATE and DELETE ... RETURNING also return every column (the values of the version written or
// deleted), so that predicates can be evaluated on it.
//
// Version-set reads (Adya's Vset(P)): right before each predicate read (a SELECT without join, derived table or LIMIT; a
// locking SELECT, an UPDATE or DELETE only where the engine evaluates its WHERE on the statement's snapshot, and not
// where it is its transaction's first statement on an engine whose first write takes the snapshot after a wait: the
// read would change what the engine does; properties/adya/unrecorded_predicates.hpp says what the oracle then does) the same transaction reads every row of the table:
//   SELECT txp_rid, txp_wl, <every column> FROM t
// (a column list starting with txp_rid marks it as instrumentation). It is the next step of the same transaction in
// the order, so no other statement runs in between; it is a plain, non-locking read, and it is not added at levels
// where the engine's plain reads lock (EngineCapabilities::locking_plain_reads: InnoDB SERIALIZABLE), where it would
// change the schedule; there predicate reads get no predicate edges. Transaction i of the case gets id i + 1. No constraint or index is put on the columns, so
// they add no locking of their own.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "txprop/engine.hpp"
#include "txprop/foreign_key_checks.hpp"
#include "txprop/hidden_columns.hpp"
#include "txprop/outcome.hpp"
#include "txprop/test_case.hpp"

namespace txprop::adya {

inline constexpr const char* kRowIdColumn = "txp_rid";
inline constexpr const char* kWriterListColumn = "txp_wl";
// Both as a hidden-column scheme (txprop/hidden_columns.hpp): the Adya and Troc oracles add and strip them with it.
const HiddenColumns& hidden_columns();

// An engine with every form instrument() can use (every RETURNING form, writes that read the statement's snapshot, no
// locking plain reads): what InstrumentationOptions assumes when no engine is given (unit tests of the instrumentation).
EngineCapabilities every_returning_form();

// What instrument() adds: what the engine can do, as its profile gives it, and what the oracle asks for.
struct InstrumentationOptions {
  // EngineProfile::capabilities as it is: which RETURNING forms the writes get (update_returning is false on MariaDB
  // and MySQL, delete_returning on MySQL: deletes go unseen; joined_write_returning*), the levels at which no
  // version-set read is added (locking_plain_reads), and whether UPDATE/DELETE get one (writes_read_snapshot).
  EngineCapabilities engine = every_returning_form();
  bool returning = true;     // RETURNING on writes where the engine has it (Troc keeps its own history: false)
  bool observer = true;      // append the read-all observer transaction
  bool version_sets = true;  // add version-set reads before predicate reads
  // The CascadeLog triggers where the engine fires them (kCascadeLogTable); Troc computes a key's writes itself: false.
  bool cascade_log = true;
};

// Whether instrument() adds a join read before each joined write (not at the levels of locking_plain_reads, not in
// autocommit transactions): where RETURNING gives the written table's rows but not the joined table's, and writes read
// the statement's snapshot, so a plain read just before the write sees the versions the write reads (InnoDB's writes
// read the latest committed ones, which a plain read at REPEATABLE READ does not).
bool join_reads_before_writes(const EngineCapabilities& engine);

// Whether the statement is a version-set read added by instrument().
bool is_version_set_read(const ::txprop::Statement& s);
// Whether the statement is a key read instrument() adds before an INSERT into a table with a foreign key (issue 17 item
// 3): the INSERT's key check reads the referenced rows its keys name (foreign_key_checks.hpp inserted_keys), and
//   SELECT txp_rid, txp_wl, <columns> FROM <referenced> WHERE <key lookup> [with the check's lock]
// sent right before it reads those rows as the check does and takes the check's own locks (key_check_lock), so it
// records which versions the check saw; a version-set read of the referenced table before it, where a plain read sees
// what the check sees, gives the lookup its version set (the Adya property's predicate read of the check). A
// version-set read with a WHERE.
bool is_key_read(const ::txprop::Statement& s);
// The key of `child` whose check of a DELETE of `table`'s rows instrument() records (issue 17 item 3): a version-set
// read of `child` before the DELETE, where a plain read before a write sees what the write reads, is the version set
// of the check's lookup of the deleted keys (PostgreSQL: "SELECT 1 FROM ONLY <fk table> x WHERE <fk> = $1 FOR KEY
// SHARE OF x" for NO ACTION and RESTRICT, "DELETE FROM ONLY <fk table> WHERE <fk> = $1" for CASCADE, ri_triggers.c;
// InnoDB and SQLite look the children up by the key alike). Only `child`'s one key, referencing `table` (another
// table), ON DELETE NO ACTION, RESTRICT or CASCADE: SET NULL's UPDATE writes rows the history does not show as read,
// and a second key of `child` could be read through another table's action. nullptr otherwise.
const ForeignKey* checked_referencing_key(const Table& child, const std::string& table);
// The key of `child` whose check of `update` (an UPDATE of `child`'s rows) instrument() records: `child`'s one key, whose
// columns the UPDATE (not joined) sets, so that each row it changes there is looked up in the referenced table by its new
// key (ri_triggers.c RI_FKey_check_upd: the INSERT's query; InnoDB and SQLite alike). A version-set read of the
// referenced table before the UPDATE, where a plain read before a write sees what the write reads (the check reads the
// statement's snapshot on PostgreSQL, ri_PerformCheck's detectNewRows being false, and on SQLite), is the version set of
// that lookup. nullptr otherwise.
const ForeignKey* checked_referenced_key(const Table& child, const ::txprop::Statement& update);
// The lock an INSERT's key check takes on the referenced rows it reads, as `engine`'s capabilities tell it: PostgreSQL
// (the one engine with FOR KEY SHARE) runs "SELECT 1 FROM ONLY <pk table> x WHERE <pk> = $1 FOR KEY SHARE OF x"
// (ri_triggers.c RI_FKey_check; with the transaction's snapshot at REPEATABLE READ and SERIALIZABLE, ri_PerformCheck's
// detectNewRows being false for a table that is not partitioned; a fresh one at READ COMMITTED); InnoDB (locking reads,
// no FOR KEY SHARE) sets a shared lock on the referenced record, reading its latest committed version (row0ins.cc
// row_ins_check_foreign_constraint; MySQL 8.0 manual 17.7.3: "any insert, update, or delete that requires the
// constraint condition to be checked sets shared record-level locks on the records that it looks at"), as SELECT ...
// LOCK IN SHARE MODE of the primary key does; SQLite (no locking reads: a writer holds the database's RESERVED lock,
// lockingv3.html) reads it in the writer's snapshot, as a plain SELECT does.
LockMode key_check_lock(const EngineCapabilities& engine);
// Whether the statement is the join read instrument() adds right before a joined write, and the literal marking it.
inline constexpr const char* kJoinReadMarker = "txp_join_read";
bool is_join_read_before_write(const ::txprop::Statement& s);

// Where each table's hidden columns are in the result of SELECT * over a join (SELECT * FROM t [INNER|LEFT] JOIN u
// ON ... [, scalar subqueries]): every engine returns t's columns in table order, then each joined table's, then the
// SELECT-list expressions, and names a duplicated column (txp_rid, txp_wl) in each table's place without qualifying
// it, so the columns are told apart by position. nullopt when `out` is not laid out so (a column list, aggregates, a
// derived table, a table without hidden columns): the Adya and Troc oracles then record no read and take no lock.
struct JoinedTableColumns {
  const Table* table;
  std::size_t rid, wl;  // column indexes in the result
  bool optional;        // LEFT JOIN: the whole side may be NULL
};
std::optional<std::vector<JoinedTableColumns>> joined_table_columns(const Schema& schema, const ::txprop::Statement& s,
                                                                    const Outcome& out);

TestCase instrument(const TestCase& c, const InstrumentationOptions& options);
bool is_instrumented(const TestCase& c);
// The case as it was generated: instrumentation columns, SET items, RETURNING lists and the observer removed.
TestCase strip_instrumentation(const TestCase& c);
// One statement without its instrumentation (for explanations that quote the statement as generated).
::txprop::Statement strip_instrumentation_of(const ::txprop::Statement& s);

// The writes a foreign key's action makes (issue 17 item 3). Where the engine's row triggers fire for them
// (EngineCapabilities::cascaded_writes_unrecorded empty), instrument() gives every table that an ON DELETE or ON UPDATE
// CASCADE / SET NULL writes a CascadeLog (schema.hpp), each transaction its writer id (Transaction::writer: the id its
// writer lists carry), and adds the log table last (so the observer reads it and every reset empties it): a cascaded
// UPDATE appends the writer to the row's writer list as any instrumented UPDATE does, and a deleted row's id and writer
// list are logged with the writer as (writer, table, row id, writer list). A DELETE the case makes itself is logged
// too; its RETURNING already records it.
inline constexpr const char* kCascadeLogTable = "txp_cascades";
// Whether `t` is the log table instrument() adds.
bool is_cascade_log(const Table& t);
// The tables a key's action writes (foreign_key_checks.hpp: one owner for Adya and SDG).
using ::txprop::cascaded_tables;
// One logged delete: the writer (transaction index + 1), the table, the row id and the writer list of the deleted
// version. nullopt for a log row that is not one txprop wrote (a writer that was not set shows as '?').
struct CascadedDelete {
  std::uint32_t writer;
  std::string table;
  std::int64_t row;
  std::vector<std::uint32_t> list;
};
std::optional<CascadedDelete> parse_cascade_log_row(const Row& r);

// "0,3,5" -> {0, 3, 5}; nullopt if it is not such a list.
std::optional<std::vector<std::uint32_t>> parse_writer_list(const std::string& text);

}  // namespace txprop::adya
