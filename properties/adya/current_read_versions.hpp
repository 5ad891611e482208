// Which version of a row a write or locking read read where its version-set read does not show it (issue 21 item 2;
// unrecorded_predicates.hpp, UnrecordedRule): InnoDB's current read reads each row's latest committed version at the
// moment it reaches the row (MariaDB KB, "InnoDB Lock Modes" / MySQL 8.0 manual 17.7.2.3 "Consistent Nonlocking
// Reads": "a locking read ... reads the latest version"), and PostgreSQL READ COMMITTED's UPDATE, DELETE and SELECT
// FOR UPDATE read their statement snapshot and re-check only a row that matched there and was concurrently updated,
// on its latest version (manual 13.2.1: "the second updater ... will re-evaluate its search condition to see if the
// updated version of the row still matches"; EvalPlanQual). That moment lies between the statement's submission and
// its completion, which the history records; which version was latest then follows from the row's version order (the
// writer lists) and the commit order (a version is the latest committed once its writer's COMMIT completed; the
// runner records a COMMIT that released a waiting statement before that statement's completion, scheduler.cpp
// harvest). Where several versions remain possible, the read is still determined if no version between the first and
// the last candidate changes whether the row matches: the dependency graph draws predicate edges only from installs
// that change the matches (Adya's thesis 3.1.3; dependency_graph.cpp predicate_edges), so every candidate gives the
// same edges.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "txprop/adya_history.hpp"

namespace txprop::adya {

// One row as the history shows it. States: 0 before its insert, k (1..n) the version order[k - 1] installed, n + 1
// after its delete (by `deleter`). matches: n + 2 entries, one per state (states 0 and n + 1 match nothing).
struct RowStates {
  std::vector<TxnId> order;
  TxnId deleter = kNone;
  std::vector<Match> matches;
};

// The statement and what is known of its read of the row.
struct CurrentRead {
  TxnId reader = kNone;
  Position submitted = 0, completed = 0;  // event positions (History::submitted_at, History::completed_at)
  // PostgreSQL READ COMMITTED: a row that did not match in the statement's snapshot is read there, and no other.
  bool snapshot_first = false;
  // The state the version-set read right before the statement saw (nullopt: none, or it does not show this row).
  std::optional<std::uint32_t> snapshot;
  // The state the statement returned the row in (RETURNING, a locking read's rows; for an UPDATE the version before
  // its own write); nullopt: it did not return the row.
  std::optional<std::uint32_t> returned;
  // An UPDATE without RETURNING (MariaDB): whether it matched the row is unknown, only how many it matched.
  bool returns_nothing = false;
  // The statement kept every row it read locked to its transaction's end (EngineCapabilities::
  // current_reads_hold_what_they_read, InnoDB REPEATABLE READ): it read each row in the state latest committed when it
  // completed, also where it waited meanwhile, so only that state is a candidate (not every one committed between its
  // submission and its completion).
  bool holds_what_it_read = false;
  // What the statement's result says of the row in the state it read: Yes where it returned it (or, an UPDATE that
  // returns nothing, is known to have matched it), No where it returns rows and did not return it, or matched none;
  // nullopt where the result does not say.
  std::optional<Match> result = std::nullopt;
  // An UPDATE that returns nothing is known to have matched the row (its count of matched rows says every row it may
  // have matched did), in a state not known.
  bool matched = false;
};

struct ReadVersion {
  enum class Kind {
    Determined,    // `seen` gives the statement's dependencies through this row
    Undetermined,  // versions it may have read would give different dependencies, or one's match is unknown
    Contradicts,   // no version it may have read agrees with what it returned: txprop's model or evaluation is wrong
  };
  Kind kind = Kind::Undetermined;
  std::uint32_t seen = 0;
  Match match = Match::Unknown;  // of the state `seen`
};

// `committed_at(w)`: the position of the event that ended w if it committed, nullopt if it did not.
using CommittedAt = std::function<std::optional<Position>(TxnId)>;
ReadVersion current_read_version(const RowStates& row, const CurrentRead& read, const CommittedAt& committed_at);

}  // namespace txprop::adya
