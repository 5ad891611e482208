// Troc's view and lock expectations as a suite: one test per configured (target, isolation level). Findings the
// engine profile documents (MariaDB REPEATABLE READ snapshot reads after a current read, MDEV-26642/MDEV-26671) are
// counted and printed, and do not fail the test.
#include <txprop/txprop.hpp>

TXPROP_PROPERTY(Troc, (const txprop::TestCase& c)) { RC_ASSERT_VERDICT(check(txprop::oracle("troc"), c)); }
