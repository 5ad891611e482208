// The GoogleTest side of TXPROP_PROPERTY: which suites a property has (one per configured target and level) and how
// they are named. The test body is PropertyTest::check_property (property_suite.cpp).
#include <algorithm>

#include <fmt/format.h>

#include "settings.hpp"
#include "shards.hpp"
#include "txprop/internal/env_settings.hpp"
#include "txprop/internal/targets.hpp"
#include "txprop/sql.hpp"

namespace txprop {

std::string SuiteParam::name() const {
  if (!config_error.empty()) {
    if (config.name.empty()) return "invalid_TXPROP_TARGETS";
    if (config.levels.empty()) return config.name + "_no_level";
    // Invalid settings: the suite keeps its name and fails with their line.
  }
  return config.name + "_" + short_name(level);
}

std::ostream& operator<<(std::ostream& os, const SuiteParam& p) {
  return os << (p.config_error.empty() ? p.config.masked_uri() + " at " + sql_name(p.level) : p.config_error);
}

// One suite per (target, level), named as always even when the settings are invalid: then each fails with the
// settings' line, so a run filtered to some suites (--gtest_filter=Wss.check/sqlite_serializable) fails too
// instead of running nothing (issue 23). Only targets that cannot be parsed leave no names to use.
std::vector<SuiteParam> property_suites(const std::string& property) {
  std::string settings_error;
  try {
    validate_environment();
    shards::take_over();  // before GoogleTest reads the sharding variables (shards.hpp)
  } catch (const SettingError& e) {
    settings_error = e.what();
  }
  std::vector<TargetConfig> targets;
  try {
    targets = configured_targets();
  } catch (const TargetError& e) {
    SuiteParam p;
    p.config_error = settings_error.empty() ? e.what() : settings_error + "\n" + e.what();
    return {p};
  }
  std::vector<SuiteParam> out;
  for (const TargetConfig& config : targets) {
    if (config.levels.empty()) {
      // e.g. ?levels=,,, : the target would silently run nothing.
      SuiteParam p;
      p.config = config;
      p.config_error = fmt::format("txprop: target {}: no isolation level to test (levels=...)", config.masked_uri());
      out.push_back(std::move(p));
    }
    for (IsolationLevel level : config.levels) {
      SuiteParam p{config, level, settings_error};
      const PropertySettings s = hooked_settings(property, p);
      if (!s.levels.empty() && std::find(s.levels.begin(), s.levels.end(), level) == s.levels.end()) continue;
      out.push_back(std::move(p));
    }
  }
  return out;
}

}  // namespace txprop
