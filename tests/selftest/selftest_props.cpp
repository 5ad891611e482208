// A property that holds for every case and runs nothing on the target: the harness around it (discovery, counts,
// settings, failures on a target that cannot be reached) is what tests/harness_check.sh looks at.
// TXPROP_SELFTEST_FAIL=assert|fail|throw|run makes it fail in that way (plain RC_ASSERT, RC_FAIL, an exception,
// RC_FAIL after running the case on the target), to check that every way gets the same report and counts.
// TXPROP_SELFTEST_ZERO_CASES=1 makes it run no case.
#include <cstdlib>
#include <stdexcept>
#include <string>

#include <txprop/txprop.hpp>

TXPROP_PROPERTY(SelfTest, (const txprop::TestCase& c)) {
  RC_TAG(c.transactions.size() < 3 ? "two transactions" : "three or more transactions");
  RC_CLASSIFY(c.schema.tables.size() == 1, "one table");
  const char* env = std::getenv("TXPROP_SELFTEST_FAIL");
  const std::string fail = env ? env : "";
  if (fail == "assert") RC_ASSERT(c.transactions.size() == 118u);
  if (fail == "fail") RC_FAIL("selftest fails on purpose");
  if (fail == "throw") throw std::runtime_error("selftest throws on purpose");
  if (fail == "run") {
    const txprop::History h = run(c);
    RC_ASSERT(h.transactions.size() == 118u);
  }
  RC_ASSERT(c.transactions.size() < 1000u);
}

// TXPROP_SELFTEST_ZERO_CASES=1: a suite whose settings in code ask for no case (TXPROP_CASES=0 itself is rejected
// as out of range before any suite runs).
TXPROP_SETTINGS(SelfTest) { s.cases = std::getenv("TXPROP_SELFTEST_ZERO_CASES") ? 0 : 3; }
