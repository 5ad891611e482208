// Troc's rules of one level (txprop/visibility_rules.hpp): which rule a statement of a kind and lock mode follows.
#include "txprop/visibility_rules.hpp"

namespace txprop {

const StatementRule& VisibilityRules::rule(StatementKind kind, LockMode lock) const {
  switch (kind) {
    case StatementKind::Update: return update;
    case StatementKind::Insert: return insert;
    case StatementKind::Delete: return delete_;
    default:
      return lock == LockMode::Share ? select_share : lock == LockMode::Update ? select_update : select;
  }
}

}  // namespace txprop
