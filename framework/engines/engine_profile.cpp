// What every profile shares, and the registry of engines.
#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "txprop/engine.hpp"
#include "txprop/internal/registry.hpp"

namespace txprop {

std::string DocumentedBehaviour::allows(const std::string& phenomenon) const {
  const auto it = allowed.find(phenomenon);
  return it == allowed.end() ? std::string() : it->second;
}

std::string EngineProfile::kind(const TargetConfig&) const { return name(); }

std::string missing_capability(const TestCase& c, const EngineCapabilities& capabilities, const std::string& what) {
  if (std::string merge = c.first_merge(); !merge.empty() && !capabilities.merge)
    return fmt::format("{}, which {} does not have (MERGE is PostgreSQL's, from 15)", merge, what);
  if (std::string chain = c.first_chain(); !chain.empty() && !capabilities.chain)
    return fmt::format("{}, which {} does not have (PostgreSQL 12+ and MariaDB chain transactions)", chain, what);
  return {};
}

VisibilityRules EngineProfile::visibility(IsolationLevel, const TargetConfig&) const { return {}; }

std::optional<bool> EngineProfile::statement_reads_tables(drivers::Session&, const std::string&) const {
  return std::nullopt;
}

std::string EngineProfile::configuration(const TargetConfig& config) const {
  // Every parameter the engine defines changes its behaviour; list those given, as given.
  std::string out;
  for (const EngineParameter& p : parameters())
    if (auto it = config.params.find(p.name); it != config.params.end())
      out += fmt::format("{}{}={}", out.empty() ? "" : " ", p.name, it->second);
  return out;
}

// The engines txprop ships: one line each (their profiles live in their folders).
std::unique_ptr<EngineProfile> sqlite_profile();
std::unique_ptr<EngineProfile> postgresql_profile();
std::unique_ptr<EngineProfile> mariadb_profile();
std::unique_ptr<EngineProfile> mysql_profile();
std::unique_ptr<EngineProfile> galera_profile();

namespace {

// An engine answers to its name and to its URI schemes; no two engines share one.
Registry<EngineProfile>& registry() {
  static Registry<EngineProfile> r("engine", [](const EngineProfile& e) {
    std::vector<std::string> names = e.schemes();
    names.insert(names.begin(), e.name());
    return names;
  });
  static const bool built_in = [] {
    r.add(sqlite_profile());
    r.add(postgresql_profile());
    r.add(mariadb_profile());
    r.add(mysql_profile());
    r.add(galera_profile());
    return true;
  }();
  (void)built_in;
  return r;
}

}  // namespace

bool register_engine(std::unique_ptr<EngineProfile> profile) {
  registry().add(std::move(profile));
  return true;
}

const EngineProfile* find_engine(std::string_view name) {
  return registry().find_if([&](const EngineProfile& e) { return e.name() == name; });
}

const EngineProfile* engine_for_scheme(std::string_view scheme) {
  return registry().find_if([&](const EngineProfile& e) {
    const std::vector<std::string> schemes = e.schemes();
    return std::find(schemes.begin(), schemes.end(), scheme) != schemes.end();
  });
}

std::vector<const EngineProfile*> registered_engines() { return registry().entries(); }

}  // namespace txprop
