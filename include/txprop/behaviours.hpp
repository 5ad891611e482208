#pragma once
// The vocabulary of phenomena and documented behaviours: the names under which an engine profile documents what a
// level allows or prevents (DocumentedBehaviour::allowed and ::prevented) and under which the oracles look them up.
// One owner for the names, so that a misspelt name is a compile error (the named behaviours below are used through
// their constants on both sides) or fails BehaviourVocabulary.EveryProfileNamesKnownPhenomena (a profile's keys),
// instead of a lookup that silently finds nothing.
#include <array>
#include <string_view>

namespace txprop::behaviour {

// Adya's phenomena (Adya's thesis, chapters 3-4: G0, G1a-c, G-single, G2-item, G2; G-SIa and G-SIb for snapshot
// isolation) and the named shapes the Adya oracle reports for some of them (a lost update and a read skew are
// G-singles, a write skew a G2-item; a G-single through a predicate read is not a G2-item). checkers/adya classifies
// findings into exactly these kinds (adya::adya_kinds()).
inline constexpr std::array<std::string_view, 14> kAdyaPhenomena = {
    "G0",    "G1a",   "G1b",         "G1c",       "G-single",   "G2-item",           "G2",
    "G-SIa", "G-SIb", "lost-update", "read-skew", "write-skew", "G-single-predicate", "impossible-history"};

// Named behaviours: an engine mechanism or a statement shape the documentation describes, not a cycle.
// A read on one node of a cluster misses a write another node committed before it began (Galera).
inline constexpr const char* kStaleRead = "stale-read";
// A write that skips a row whose uncommitted version does not match (InnoDB READ COMMITTED and below).
inline constexpr const char* kSemiConsistentRead = "semi-consistent-read";
// An UPDATE/DELETE that waited re-reads rows semi-consistently (InnoDB; MDEV-26643).
inline constexpr const char* kSemiConsistentUpdateAfterWait = "semi-consistent-update-after-wait";
// A plain read after a locking (current) read of the same transaction returns the snapshot, not what it locked.
inline constexpr const char* kSnapshotReadAfterCurrentRead = "snapshot-read-after-current-read";
// A write to a row inserted after the transaction's read view was taken succeeds (InnoDB snapshot isolation).
inline constexpr const char* kWriteToRowInsertedAfterReadView = "write-to-row-inserted-after-read-view";
// A write or locking read skips a row its transaction's read view holds in a matching version, because the row's
// latest committed version, installed after the read view by another transaction, no longer matches (or the row was
// deleted): no error, where the engine promises one for a record changed after the read view (InnoDB
// innodb_snapshot_isolation=ON; MDEV-40092). The Adya oracle names the G-single it explains with this behaviour.
inline constexpr const char* kCurrentReadSkipsRowChangedAfterReadView = "current-read-skips-row-changed-after-read-view";
// A multi-table UPDATE that SETs a column its own join condition reads (Statement::sets_a_join_column) writes rows
// that depend on the engine's join order. The Sdg oracle explains the broken Assumption A3 of such a write (a case
// without a verdict) with the source the profile gives under this name.
inline constexpr const char* kMultiTableUpdateSetsJoinColumn = "multi-table-update-sets-join-column";

// A SERIALIZABLE transaction whose xid was assigned before its snapshot -- by a LOCK TABLE ... IN ACCESS EXCLUSIVE
// MODE before its first snapshot-taking statement (txprop/table_locks.hpp) -- is never entered into SSI's table of
// transaction ids, so a concurrent reader that misses one of its writes is not linked to it (the rw-conflict SSI finds
// through MVCC is dropped) and a write skew through that edge commits. PostgreSQL 12.22 to 18.4, found by txprop, not
// reported yet: docs/engine_bugs/postgresql_ssi_access_exclusive.md (code path, controls),
// tests/scenarios/engine_bugs/pg_ssi_access_exclusive_holder_*.txn. The Adya and WSS oracles name the findings it
// explains with this behaviour.
inline constexpr const char* kSsiIgnoresXidAssignedBeforeSnapshot = "ssi-ignores-xid-assigned-before-snapshot";

inline constexpr std::array<std::string_view, 8> kNamedBehaviours = {
    kStaleRead, kSemiConsistentRead, kSemiConsistentUpdateAfterWait, kSnapshotReadAfterCurrentRead,
    kWriteToRowInsertedAfterReadView, kCurrentReadSkipsRowChangedAfterReadView, kMultiTableUpdateSetsJoinColumn,
    kSsiIgnoresXidAssignedBeforeSnapshot};

// Whether `name` belongs to the vocabulary.
constexpr bool is_known(std::string_view name) {
  for (std::string_view n : kAdyaPhenomena)
    if (n == name) return true;
  for (std::string_view n : kNamedBehaviours)
    if (n == name) return true;
  return false;
}

}  // namespace txprop::behaviour
