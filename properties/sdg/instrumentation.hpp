// TxCheck's SQL-level instrumentation (shared/notes/seed-txcheck-thesis.md section 2), txprop's own code. Every table
// gets a row key that no statement changes (txp_pk) and a version key (txp_vk) that every write sets to a value of its
// own, so (txp_pk, txp_vk) names one version of one row and txp_vk names the statement that installed it (0: the
// initial state). Each statement of the case becomes a group that runs contiguously in its transaction:
//   version-set reads   SELECT txp_pk, txp_vk, <columns> FROM u   for every table u the statement references
//   before-write read   SELECT ... FROM t WHERE <the write's predicate>         (UPDATE, DELETE)
//   the statement       (INSERT gets txp_pk/txp_vk values, UPDATE sets txp_vk = K, SELECT returns both keys)
//   after-write read    SELECT ... FROM t WHERE txp_vk = K                        (UPDATE, INSERT)
//   cascade read        SELECT ... FROM u   for every table u a foreign key's action may write (UPDATE, DELETE)
// A key's action (ON DELETE / ON UPDATE CASCADE or SET NULL) writes rows of u no statement names: u's version-set read
// before the statement and its cascade read after it, in the same transaction with nothing between (the group runs
// contiguously), differ exactly by those writes: a row gone was deleted, a row with another version key updated. Where
// the engine fires row triggers for those writes (EngineCapabilities::cascaded_writes_unrecorded empty; the oracle
// refuses writing keys elsewhere), instrument(cascade_triggers) gives u a CascadeLog in SDG's form (schema.hpp): a
// cascaded update, which sets no version key of its own, moves it on by kCascadedVersionStep (foreign_key_checks.hpp),
// so the version it
// installs is a new version of the row (Adya records the same writes with the same triggers in its form).
// Where the engine takes a first write's snapshot only when that write runs (SQLite, capabilities.hpp,
// first_write_snapshot_after_wait), a transaction whose first statement is a write begins that statement's group with
//   write lock          UPDATE t SET txp_pk = txp_pk WHERE 1 = 0
// which takes the database's write lock (and, with it, the snapshot) as the write itself would have, waiting where it
// would have waited, so the reads after it see what the write sees (the group's own steps hold the lock).
// Where a read in the transaction itself would change what the engine does (InnoDB SERIALIZABLE: every plain SELECT
// locks; InnoDB REPEATABLE READ: the first plain SELECT opens the read view, engine_changes.hpp), a group's reads run
// on a companion session instead (`moved`): an autocommit transaction at READ UNCOMMITTED appended after the case's
// transactions, one per transaction with moved groups, whose steps sit right before (version-set and before-write
// reads) and right after (after-write reads) the statement in the order. There a plain read takes no lock, opens no
// view in the tested transaction and sees the latest version of every row, the transaction's own uncommitted ones
// included (checked by hand on MariaDB 10.11.19, docs/sdg.md); where it also saw another transaction's uncommitted
// write the run is not judged (sdg.hpp, uncommitted_seen).
// A multi-table write (UPDATE t JOIN u / UPDATE ... FROM, DELETE t FROM t JOIN u / DELETE ... USING) gets a
// before-write read per written table with the join turned into a correlated EXISTS, sets txp_vk = K in every table
// it writes, and gets an after-write read per written table.
// The instrumentation reads are recognised by their column list starting with txp_pk; the roles are recovered from
// the prepared case alone (layout()), so that a history can be judged without side information.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "txprop/test_case.hpp"

namespace txprop::sdg {

inline constexpr const char* kRowKey = "txp_pk";
inline constexpr const char* kVersionKey = "txp_vk";
// Inserted rows get row keys from here on; initial rows count from 1 (unique across all tables).
inline constexpr std::int64_t kInsertedRowKeys = 1'000'000;

// WriteLock: the write-lock step above; like BEGIN it belongs to no group (group -1), is left out of the graph and of
// the replay, and strip() removes it.
// CascadeRead: a cascade read after the statement (above).
// SnapshotPin: `SELECT 1` before the first group of a transaction at a level of EngineCapabilities::
// table_free_snapshot_levels (PostgreSQL REPEATABLE READ, SERIALIZABLE): it takes the transaction's snapshot where the
// plain case's first statement takes it, reading no table, taking and waiting for no lock. Blocking scheduling
// (sdg.hpp, replan) moves a group that waited to after what it waited for; the pin, in no group, stays where it ran,
// so the moved group still reads the snapshot the plain case takes. Like BEGIN it belongs to no group (group -1), is
// left out of the graph and of the replay, and strip() removes it.
enum class Role { Control, VersionSetRead, BeforeWriteRead, Statement, AfterWriteRead, WriteLock, CascadeRead, SnapshotPin };
// The reads after a group's statement.
inline bool is_after(Role r) { return r == Role::AfterWriteRead || r == Role::CascadeRead; }

struct StepRole {
  Role role = Role::Control;
  int group = -1;  // index of the original statement (0-based) in its transaction; -1 for BEGIN / COMMIT / ROLLBACK
  int owner = -1;  // a companion's read: the transaction whose group it belongs to; -1: its own transaction's
};

// [transaction][step] of a prepared case.
using Layout = std::vector<std::vector<StepRole>>;

// [transaction][statement]: whether that statement's reads run on the transaction's companion (empty: none do).
using Moved = std::vector<std::vector<bool>>;

// `first_write_lock`: the engine's first write takes the snapshot when it runs (first_write_snapshot_after_wait).
// `on_change`: the engine leaves a row an UPDATE sets to its own values unwritten
// (EngineCapabilities::update_skips_unchanged_rows); an UPDATE without a join then sets the version key only where an
// assigned column changes, as its first assignment:
//   txp_vk = CASE WHEN a IS DISTINCT FROM <new a> OR ... THEN K ELSE txp_vk END
// so that such a row stays unwritten as in the plain case (Adya's writer list follows the same rule,
// properties/adya/instrumentation.cpp add_writer); its after-write read then returns the rows the UPDATE changed.
// `cascade_triggers`: the engine fires row triggers for a foreign key's writes (the cascade reads are added either way).
// `keep_covering`: a table a secondary index covers gets that index's covering twin (HiddenColumns::add_to), where the
// engine's current reads depend on the index scanned (EngineCapabilities::writes_read_snapshot false).
// `pin_levels`: a transaction (not autocommit) at one of these levels begins with a SnapshotPin (EngineCapabilities::
// table_free_snapshot_levels).
TestCase instrument(const TestCase& c, bool first_write_lock = false, const Moved& moved = {}, bool on_change = false,
                    bool cascade_triggers = false, bool keep_covering = false,
                    const std::vector<IsolationLevel>& pin_levels = {});
// The tables a foreign key's action may write when `s` runs (cascaded_tables of each table it writes; UPDATE, DELETE):
// one cascade read each after it, and a version-set read each before it.
std::vector<std::string> cascade_tables(const ::txprop::Statement& s, const Schema& schema);
// The version key a write of a prepared case installs (UPDATE, INSERT), or nothing.
std::optional<std::int64_t> version_of(const ::txprop::Statement& s);
// Whether transaction `t` of a prepared case is a companion holding other transactions' moved reads.
bool is_companion(const Layout& layout, std::size_t t);
// The steps of group `group` of transaction `txn` in the order they run: its reads before the statement (in the
// transaction or on its companion), the statement, its after-write reads.
std::vector<StepRef> group_steps(const Layout& layout, int txn, int group);
// The WHERE of the before-write read of `written` for write `s`: its own WHERE, or for a multi-table write the
// equivalent single-table predicate (a correlated EXISTS over the joined table).
std::optional<Expr> write_predicate(const ::txprop::Statement& s, const std::string& written);
bool is_instrumented(const TestCase& c);
Layout layout(const TestCase& prepared);
// The case as it was before instrument(): columns, key values, instrumentation reads and their order entries removed.
TestCase strip(const TestCase& prepared);
// The statement as generated (without the version-key assignment, key values and key columns).
::txprop::Statement strip_statement(const ::txprop::Statement& s);
// The original case without statement `stmt` (0-based) of transaction `txn` (and its entry in the order).
TestCase remove_statement(const TestCase& original, int txn, int stmt);

}  // namespace txprop::sdg
