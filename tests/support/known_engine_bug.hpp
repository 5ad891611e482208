// Assertions of txprop's own tests on a verdict that a known engine bug explains: every finding counted with the
// profile's source (documented standing) and naming the bug's mechanism.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "txprop/behaviours.hpp"
#include "txprop/verdict.hpp"

namespace txprop::test {

// Every finding of `v` is PostgreSQL's SSI bug of docs/engine_bugs/postgresql_ssi_access_exclusive.md
// (behaviour::kSsiIgnoresXidAssignedBeforeSnapshot), its mechanism line naming `holder_lock` (e.g. "T0 ran LOCK TABLE
// t0 IN ACCESS EXCLUSIVE MODE (T0.1)"); `v` has a finding and does not fail.
inline void expect_xid_assigned_before_snapshot(const Verdict& v, const std::string& holder_lock) {
  ASSERT_FALSE(v.findings.empty()) << "the engine bug no longer shows: " << v.explain();
  EXPECT_FALSE(v.fails()) << v.explain();
  for (const Finding& f : v.findings) {
    EXPECT_EQ(f.standing, Standing::Documented) << v.explain();
    EXPECT_NE(f.source.find("engine bug found by txprop"), std::string::npos) << f.source;
    EXPECT_NE(f.explanation.find(std::string("Mechanism (") + behaviour::kSsiIgnoresXidAssignedBeforeSnapshot + "): " +
                                 holder_lock + " before its snapshot"),
              std::string::npos)
        << f.explanation;
  }
}

}  // namespace txprop::test
