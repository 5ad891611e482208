// The fifth oracle as a property suite: one ctest case per configured (target, level), the fourth engine included.
#include <txprop/txprop.hpp>

TXPROP_PROPERTY(StableReads, (const txprop::TestCase& c)) { RC_ASSERT_VERDICT(check(txprop::oracle("stable-reads"), c)); }

TXPROP_SETTINGS(StableReads) {
  s.generator.weight_select = 40;  // reads to repeat
  s.generator.rollback_probability = 0.1;
}
