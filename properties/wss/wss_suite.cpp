// The WSS property as a suite: one test per configured (target, isolation level). Where the target's profile
// documents WSS mismatches (MariaDB READ COMMITTED, PostgreSQL READ COMMITTED and REPEATABLE READ), they are
// counted and printed, and do not fail the test.
#include <txprop/txprop.hpp>
#include <txprop/wss.hpp>

TXPROP_PROPERTY(Wss, (const txprop::TestCase& c)) {
  const txprop::History h = run(c);
  RC_ASSERT_VERDICT(txprop::check_wss(target(), h));
}
