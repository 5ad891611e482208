#include "txprop/table_locks.hpp"

#include <algorithm>

namespace txprop {

std::vector<ReadUnderAccessExclusive> reads_under_access_exclusive(const Transaction& t) {
  std::vector<std::string> locked;
  std::vector<ReadUnderAccessExclusive> out;
  for (std::size_t i = 0; i < t.statements.size(); ++i) {
    const Statement& s = t.statements[i];
    if (s.kind == StatementKind::LockTable && s.table_lock_mode == "ACCESS EXCLUSIVE") {
      locked.push_back(s.table);
      continue;
    }
    if (s.kind != StatementKind::Select && s.kind != StatementKind::Update && s.kind != StatementKind::Delete &&
        s.kind != StatementKind::Merge)
      continue;
    std::vector<std::string> tables = s.tables();
    std::sort(tables.begin(), tables.end());
    tables.erase(std::unique(tables.begin(), tables.end()), tables.end());
    for (const std::string& table : tables)
      if (std::find(locked.begin(), locked.end(), table) != locked.end()) out.push_back({i, table});
  }
  return out;
}

}  // namespace txprop
