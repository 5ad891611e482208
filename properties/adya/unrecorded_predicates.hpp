// Predicate reads the Adya instrumentation cannot record without changing what the engine does (issue 21 item 2).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "txprop/engine.hpp"
#include "txprop/history.hpp"

namespace txprop::adya {

// Where UPDATE and DELETE evaluate their WHERE on the latest committed versions (EngineCapabilities::
// writes_read_snapshot false: InnoDB's writes are current reads), no plain read before them sees the versions they
// saw, and the read that would — SELECT ... FOR UPDATE — takes locks the write may not take (at READ COMMITTED a write
// does not wait for a locked row whose latest committed version does not match, the semi-consistent read; an indexed
// WHERE locks fewer rows than a scan), so it would change the schedule. The predicate dependencies of such a write
// (a DELETE's predicate read of a row another transaction inserted or deleted, an UPDATE's of one it changed) are then
// missing from the graph, and a cycle through them goes unseen: a G-single through a DELETE's predicate at REPEATABLE
// READ would be reported ok, and where PostgreSQL records T2 -wr-> T1 from a row T2 deleted, MariaDB would record
// nothing. Below REPEATABLE READ (EngineCapabilities::current_reads_as_plain_read, InnoDB READ UNCOMMITTED and READ
// COMMITTED) a plain read right before the write does see what its current read reads unless it waits: there the
// version-set read is added, and only a write or locking read that waited is unrecorded.
//
// The same holds of a predicate read that waited for a lock and then read its WHERE again on the rows as they were at
// its completion (PostgreSQL READ COMMITTED re-checks a locked row's latest version, EvalPlanQual): the version-set read before it saw other versions, and the Adya property leaves
// such a read without predicate edges (add_predicates in adya_property.cpp) — issue 21 item 2 c.
//
// The version such a read read of a row follows from the row's writer lists and the commit order wherever every version
// it may have read gives the same dependencies (current_read_versions.hpp): the Adya property records those rows
// (RecordedRows below), and only the others can hide a dependency.
//
// One line naming the first such statement of a committed transaction T where another committed transaction wrote a row
// of the statement's table that T did not write, in a version that may change what the statement's WHERE matches;
// empty when there is none. Only then can a predicate dependency between two committed transactions be missing:
// Adya's are only through versions that change the matches (thesis 3.1.3; "may": unless the history shows every
// version of the row and txprop's evaluation of the WHERE says none does), and where T wrote the row too, the write
// locks both held to their ends order the two writes, so the item dependency points the way the predicate one would. Levels
// whose plain reads lock (`capabilities.locking_plain_reads`, InnoDB SERIALIZABLE) are left out: the instrumentation
// adds no version-set read there at all, so no predicate read of any statement is recorded (adya_instrumentation.hpp).
// `rechecks_after_wait(level)`: whether a write or locking read at that level that waited reads its WHERE again on
// the rows as they are then (the profile's VisibilityRules: a statement snapshot, PostgreSQL READ COMMITTED; SQLite's
// retry reads the snapshot the transaction holds, where nobody committed meanwhile or the write fails).
//
// `recorded`: the statements (transaction, statement index from 0, instrumented statements counted) to which a rule
// applies and whose predicate read the Adya property recorded all the same, from the writer lists and the commit order
// (current_read_versions in adya_property.cpp), each with the rows whose read version it determined; only the other
// rows of such a statement's table can hide a dependency.
using RecordedRows = std::map<std::pair<std::size_t, std::size_t>, std::set<std::int64_t>>;
std::string unrecorded_predicate(const History& h, const EngineCapabilities& capabilities,
                                 const std::function<bool(IsolationLevel)>& rechecks_after_wait,
                                 const RecordedRows& recorded = {});

// Which rule (above) leaves the predicate read of statement `i` (from 0, instrumented statements counted) of
// transaction `t` unrecorded by its version-set read; None where the version-set read records it, or where the
// statement is no predicate read over one table that succeeded, or at a level whose plain reads lock.
enum class UnrecordedRule {
  None,
  WaitedAfterLockedRead,  // the whole-table locking read before it, or the statement, waited
  LatestCommitted,        // InnoDB REPEATABLE READ: a write or locking read reads the latest committed rows
  RecheckedAfterWait,     // PostgreSQL READ COMMITTED: it waited, then re-checked concurrently updated rows
  CurrentReadAfterWait,   // InnoDB below REPEATABLE READ: it waited, then read the latest committed rows
};
UnrecordedRule unrecorded_rule(const History& h, std::size_t t, std::size_t i, const EngineCapabilities& capabilities,
                               bool rechecks_after_wait);

// The reads a foreign key makes that the instrumentation does not record (issue 17 item 3): an INSERT, or an UPDATE
// of the referencing columns, reads the referenced row (PostgreSQL: SELECT 1 ... FOR KEY SHARE of it, ri_triggers.c
// RI_FKey_check; InnoDB: a shared record lock on it; SQLite: a lookup of the parent key), and a DELETE, or an UPDATE of
// the referenced columns, reads the referencing rows (the RESTRICT / NO ACTION check, and the WHERE of CASCADE / SET
// NULL's write; the versions a CASCADE deletes are recorded, its predicate is not). A missing read can hide a
// dependency, never invent one; as for unrecorded_predicate, one line naming the first such statement of a committed
// transaction T where another committed transaction made a write that may change which rows the read matches (an
// INSERT or DELETE of the read table's rows, an UPDATE of the key columns read, a key action reaching the table; only
// then can a dependency through the read be missing), empty when none.
// `recorded`: the INSERTs' key checks the Adya property recorded (adya_instrumentation.hpp is_key_read: the rows the
// check read as item reads, its lookup as a predicate read with a version set), as (transaction, statement index from
// 0, instrumented statements counted, referenced table); their reads hide nothing.
using RecordedKeyChecks = std::set<std::tuple<std::size_t, std::size_t, std::string>>;
std::string unrecorded_foreign_key_read(const History& h, const RecordedKeyChecks& recorded = {});

// The rule behind a reason either of the above gave, without the statement and transactions it names (its first
// clause): the run summary counts the cases without a verdict per rule.
std::string unrecorded_class(const std::string& why);

}  // namespace txprop::adya
