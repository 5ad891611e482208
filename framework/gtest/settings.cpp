#include "settings.hpp"

#include <cstdlib>
#include <map>
#include <vector>

#include "shards.hpp"
#include "txprop/engine.hpp"
#include "txprop/internal/env_settings.hpp"

namespace txprop {

namespace {

std::map<std::string, std::vector<SettingsHook>>& hooks() {
  static std::map<std::string, std::vector<SettingsHook>> h;
  return h;
}

bool rc_params_set(const std::string& key) {
  const char* v = std::getenv("RC_PARAMS");
  return v && std::string(v).find(key + "=") != std::string::npos;
}

}  // namespace

bool register_property_settings(const std::string& property, SettingsHook hook) {
  hooks()[property].push_back(std::move(hook));
  return true;
}

PropertySettings hooked_settings(const std::string& property, const SuiteParam& param) {
  PropertySettings s;
  for (const auto& hook : hooks()[property]) hook(s, param);
  return s;
}

PropertySettings settings_for(const std::string& property, const SuiteParam& param) {
  PropertySettings s = hooked_settings(property, param);
  if (auto n = env_integer("TXPROP_CASES", 1, kMaxCases)) s.cases = static_cast<int>(*n);
  else if (rc_params_set("max_success")) s.cases = rc::detail::configuration().testParams.maxSuccess;
  if (auto n = env_integer("TXPROP_MAX_SIZE", 1, kMaxSize)) s.max_size = static_cast<int>(*n);
  else if (rc_params_set("max_size")) s.max_size = rc::detail::configuration().testParams.maxSize;
  if (auto n = env_integer("TXPROP_SHRINK_ATTEMPTS", 0, kMaxShrinkAttempts)) s.shrink_attempts = static_cast<int>(*n);
  if (auto n = env_integer("TXPROP_SHRINK_SECONDS", 0, kMaxShrinkSeconds)) s.shrink_time = std::chrono::seconds(*n);
  if (auto n = env_integer("TXPROP_JOBS", 1, kMaxJobs)) s.jobs = static_cast<int>(*n);
  if (auto n = env_integer("TXPROP_SHRINK_JOBS", 1, kMaxJobs)) s.shrink_jobs = static_cast<int>(*n);
  if (auto n = env_unsigned("TXPROP_SEED")) s.seed = static_cast<std::uint64_t>(*n);
  else if (rc_params_set("seed")) s.seed = rc::detail::configuration().testParams.seed;
  if (const char* dir = std::getenv("TXPROP_REPORT_DIR"); dir && *dir) s.report_dir = dir;
  // TXPROP_CONTENTION=1: the generator's contention mode (gen::Options::contention).
  if (auto n = env_integer("TXPROP_CONTENTION", 0, 1)) s.generator.contention = *n != 0;
  s.generator.engine = param.config.profile().capabilities(param.config);  // by the server's version
  s.generator.isolation = param.level;
  // A cluster's cases place each transaction on a node (one node per host of the URI).
  if (param.config.profile().multi_host()) s.generator.nodes = static_cast<int>(param.config.hosts.size());
  // TXPROP_MIX_LEVELS=1: the other transactions of each case draw their levels from the target's.
  if (auto n = env_integer("TXPROP_MIX_LEVELS", 0, 1); n && *n == 1) s.generator.mixed_levels = param.config.levels;
  shards::apply(s.cases, s.seed, rc::detail::configuration().testParams.seed);
  return s;
}

}  // namespace txprop
