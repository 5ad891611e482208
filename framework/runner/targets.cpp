#include "txprop/internal/targets.hpp"

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

namespace txprop {

namespace {
struct Registry {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<Target>> targets;  // by URI
};
// Never destroyed: closing a target talks to its engine, which must not happen from a static destructor (the
// client libraries' own statics may be gone by then). close_shared_targets() runs when GoogleTest tears down.
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}
}  // namespace

std::optional<TargetConfig> find_configured_target(const std::function<bool(const TargetConfig&)>& pred) {
  for (const auto& c : configured_targets())
    if (pred(c)) return c;
  return std::nullopt;
}

Target& shared_target(const TargetConfig& config) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  auto& slot = r.targets[config.uri];
  if (!slot) slot = Target::open(config);
  return *slot;
}

void close_shared_targets() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.targets.clear();
}

bool running_in_ci() {
  const char* ci = std::getenv("CI");
  if (!ci || !*ci) return false;
  const std::string v = ci;
  return v != "0" && v != "false";
}

}  // namespace txprop
