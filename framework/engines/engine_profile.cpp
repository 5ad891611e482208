// What every profile shares, and the registry of engines.
#include <algorithm>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>

#include "txprop/engine.hpp"

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

const StatementRule& VisibilityRules::rule(StatementKind kind, LockMode lock) const {
  switch (kind) {
    case StatementKind::Update: return update;
    case StatementKind::Insert: return insert;
    case StatementKind::Delete: return delete_;
    default:
      return lock == LockMode::Share ? select_share : lock == LockMode::Update ? select_update : select;
  }
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

struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<EngineProfile>> engines;

  void add(std::unique_ptr<EngineProfile> p) {
    for (const auto& e : engines) {
      if (e->name() == p->name()) throw std::logic_error("txprop: engine '" + p->name() + "' is registered twice");
      for (const std::string& s : p->schemes()) {
        const auto theirs = e->schemes();
        if (std::find(theirs.begin(), theirs.end(), s) != theirs.end())
          throw std::logic_error(fmt::format("txprop: URI scheme '{}' of engine '{}' is taken by '{}'", s, p->name(),
                                             e->name()));
      }
    }
    engines.push_back(std::move(p));
  }
};

// Built-in engines are registered on first use, so that engines registered from other translation units' static
// initializers (a user's project) can come before or after them.
Registry& registry() {
  static Registry r;
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
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.add(std::move(profile));
  return true;
}

const EngineProfile* find_engine(std::string_view name) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const auto& e : r.engines)
    if (e->name() == name) return e.get();
  return nullptr;
}

const EngineProfile* engine_for_scheme(std::string_view scheme) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const auto& e : r.engines)
    for (const std::string& s : e->schemes())
      if (s == scheme) return e.get();
  return nullptr;
}

std::vector<const EngineProfile*> registered_engines() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<const EngineProfile*> out;
  for (const auto& e : r.engines) out.push_back(e.get());
  return out;
}

}  // namespace txprop
