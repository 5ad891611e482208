#include "txprop/table_locks.hpp"

namespace txprop {

std::optional<AccessExclusiveLockBeforeSnapshot> access_exclusive_lock_before_snapshot(const Transaction& t) {
  for (std::size_t i = 0; i < t.statements.size(); ++i) {
    const Statement& s = t.statements[i];
    if (s.kind == StatementKind::LockTable) {
      if (s.table_lock_mode == "ACCESS EXCLUSIVE") return AccessExclusiveLockBeforeSnapshot{i, s.table};
      continue;
    }
    if (!s.is_savepoint()) return std::nullopt;  // this statement took the snapshot first
  }
  return std::nullopt;
}

}  // namespace txprop
