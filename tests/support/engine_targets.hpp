// For txprop's own tests that need one kind of engine: find it among the configured targets or skip with a
// message (fail instead when CI is set, so a missing server is never a silent pass).
#pragma once

#include <gtest/gtest.h>

#include "txprop/property.hpp"  // closes the shared targets when the tests end
#include "txprop/internal/targets.hpp"

namespace txprop::test {

inline bool snapshot_isolation_on(const TargetConfig& c) { return c.flag("innodb_snapshot_isolation").value_or(false); }

// Sets `out` to the shared target of `engine` (with innodb_snapshot_isolation as asked, for MariaDB).
#define TXPROP_USE_ENGINE(out, wanted_engine, wanted_si)                                                     \
  ::txprop::Target* out = nullptr;                                                                            \
  {                                                                                                           \
    auto config_ = ::txprop::find_configured_target([&](const ::txprop::TargetConfig& c) {                   \
      return c.profile().name() == (wanted_engine) && ::txprop::test::snapshot_isolation_on(c) == (wanted_si);       \
    });                                                                                                       \
    if (!config_) {                                                                                           \
      const std::string why_ = "no " + std::string(wanted_engine) +                                          \
                               ((wanted_si) ? " target with innodb_snapshot_isolation=ON" : " target") + \
                               " in TXPROP_TARGETS";                                                          \
      if (::txprop::running_in_ci()) FAIL() << why_ << " (CI is set: a configured engine is required)";      \
      GTEST_SKIP() << why_;                                                                                   \
    }                                                                                                         \
    out = &::txprop::shared_target(*config_);                                                                 \
  }

}  // namespace txprop::test
