// A user's own property, written with the public API only.
#include <txprop/txprop.hpp>

// Rolled-back transactions leave no trace in the final state.
TXPROP_PROPERTY(RollbackLeavesNoTrace, (const txprop::TestCase& c)) {
  const txprop::History h = run(c);
  RC_ASSERT_VERDICT(txprop::check_atomicity(target(), h));
}

TXPROP_SETTINGS(RollbackLeavesNoTrace) {
  s.cases = 20;
  s.generator.max_transactions = 3;
}
