// Where TxCheck's reads beside each statement (instrumentation.hpp) would change what the engine does, found with the
// instrumentation differential (issue 21 item 1, include/txprop/internal/instrumentation_diff.hpp). The SDG needs
// every one of its reads: the version-set reads give the predicate dependencies, the before- and after-write reads
// the versions a write overwrote and installed (graph.hpp), and a graph without them misses edges, so its replay
// order may be wrong. Unlike Adya, which can leave out a version-set read and lose only an edge it would over-
// approximate, the SDG cannot judge such a case at all: the oracle refuses it with the reason.
#pragma once

#include <string>

#include "instrumentation.hpp"
#include "txprop/engine.hpp"
#include "txprop/test_case.hpp"

namespace txprop::sdg {

// Which statements' reads run on a companion session at READ UNCOMMITTED instead (instrumentation.hpp), where the
// engine has one whose plain reads take no lock and see the latest versions (its READ UNCOMMITTED view is
// ViewRule::Latest, lock-free): every statement of a transaction at a level whose plain reads lock
// (locking_plain_reads: InnoDB SERIALIZABLE), and the statements before the first plain SELECT of a transaction at a
// level whose read view that SELECT opens (SnapshotPoint::FirstRead: InnoDB REPEATABLE READ). Empty where nothing
// moves (cases of one transaction included: nothing runs beside the reads).
Moved moved_reads(const TestCase& c, const EngineProfile& engine);

// One line naming the transactions, the level, the statement and the engine fact, or "" when the reads change
// nothing the plain case shows. Cases of one transaction are never refused: nothing else runs beside the reads.
std::string reads_change_engine(const TestCase& c, const EngineProfile& engine);

// Where TxCheck's reads may only make SSI end other transactions than the plain case does (PostgreSQL SERIALIZABLE: a
// transaction that reads a table only through an INSERT gains SIREAD locks on it beside a serializable writer of it),
// one line naming the transactions and the engine fact, else "". Not refused: SIREAD locks never block, so such a run
// is judged where a plain run of the same case shows the same (check_sdg), and is without a verdict where it does not.
std::string reads_add_predicate_locks(const TestCase& c, const EngineProfile& engine);

}  // namespace txprop::sdg
