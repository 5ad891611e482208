#pragma once
// Which transactions ran LOCK TABLE ... IN ACCESS EXCLUSIVE MODE before their snapshot (PostgreSQL, manual 13.3.1).
// One owner for the shape behaviour::kSsiIgnoresXidAssignedBeforeSnapshot names: such a lock assigns the transaction
// its xid before it has a SERIALIZABLEXACT, and PostgreSQL's SSI then never links a reader that missed one of its
// writes to it (docs/engine_bugs/postgresql_ssi_access_exclusive.md), which the Adya and WSS oracles both explain
// with it.
#include <cstddef>
#include <optional>
#include <string>

#include "txprop/test_case.hpp"

namespace txprop {

struct AccessExclusiveLockBeforeSnapshot {
  std::size_t statement = 0;  // index into Transaction::statements of the LOCK TABLE
  std::string table;          // the table it locked (any table: the xid is what matters, not the lock)
};

// The first LOCK TABLE ... IN ACCESS EXCLUSIVE MODE of `t` that comes before every statement of `t` that takes a
// snapshot, if any. Neither LOCK TABLE nor a savepoint statement takes one (PostgreSQL's PlannedStmtRequiresSnapshot
// leaves LockStmt and TransactionStmt out; manual, LOCK: the view "will be frozen when its first SELECT or data
// modification statement begins"); every other statement does. The lock assigns the xid only where the server
// WAL-logs it for hot standby (wal_level replica or logical, the default and what scripts/servers.sh runs): checked by
// hand on 15.18 with wal_level = minimal, where the same case aborts with 40001.
std::optional<AccessExclusiveLockBeforeSnapshot> access_exclusive_lock_before_snapshot(const Transaction& t);

}  // namespace txprop
