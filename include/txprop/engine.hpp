// An engine profile answers every question txprop asks about one engine: its URI schemes and parameters, its SQL
// dialect and isolation levels, what it can do (RETURNING forms, locking reads, how waits are detected), how to open
// its driver, and what its own documentation says each level allows or promises to prevent under each
// configuration, with sources. Oracles ask the profile; nothing outside framework/engines/ switches over engines.
//
// An engine is one folder under framework/engines/ plus one line in framework/engines/engine_profile.cpp (the
// registry, txprop/internal/registry.hpp, is the oracles' one too). A variant (MySQL
// on the MariaDB driver, a PostgreSQL-protocol engine on the PostgreSQL driver) is a profile whose open() delegates to
// the base profile's (find_engine("postgresql")->open(config)). A project can register its own engines the same way:
//
//   class MyPg : public txprop::EngineProfile { ... };
//   TXPROP_REGISTER_ENGINE(MyPg);
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "txprop/behaviours.hpp"
#include "txprop/capabilities.hpp"
#include "txprop/driver.hpp"
#include "txprop/isolation.hpp"
#include "txprop/outcome.hpp"
#include "txprop/sql.hpp"
#include "txprop/target_config.hpp"
#include "txprop/visibility_rules.hpp"

namespace txprop {

// A URI parameter an engine accepts besides the common ones (name, levels). Values are validated when the URI is
// parsed and stored in canonical form: a Flag as "on"/"off", a Choice in lower case, Milliseconds as a number.
struct EngineParameter {
  enum class Type { Flag, Choice, Milliseconds };
  std::string name;                  // lower case
  Type type = Type::Flag;
  std::vector<std::string> choices;  // Choice: the accepted values, lower case
  long min = 0, max = 0;             // Milliseconds: the accepted range
  std::string help;                  // what it does, for error messages
};

// "T1.2 is MERGE (...), which <what> does not have" for the first statement of `c` in a form `capabilities` lack (MERGE
// where `merge` is false), "" if none: Target::run refuses such a case with this line before it sends anything.
std::string missing_capability(const TestCase& c, const EngineCapabilities& capabilities, const std::string& what);

// The WSS oracle's part of a level's documented behaviour (properties/wss/): WriteCheck's write-specific
// serializability (shared/notes/seed-troc-writecheck.md B2).
struct WssBehaviour {
  // The engine detects every write-write conflict, predicate ones included, so the committed writes equal a serial
  // replay: where this holds a mismatch fails; elsewhere it is documented behaviour with `source`.
  bool write_serializable = true;
  bool reads_serializable = false;  // the reads (SELECT results of committed transactions) match that replay too
  bool any_serial_order = false;    // serializable, but not necessarily in the order transactions ended
  std::string source;               // the documentation behind the above
};

// The SDG oracle's part (properties/sdg/): TxCheck's Assumption A3 (shared/notes/seed-txcheck-thesis.md section 1.4):
// no transaction overwrites a version newer than one it read, so a plain SELECT run right before a write (in the same
// transaction, nothing in between) returns exactly the versions the write overwrites. SDG's item dependencies are
// exact only where it holds; elsewhere what it finds in that pattern is documented behaviour with `source`.
struct SdgBehaviour {
  bool assumption_a3 = true;
  std::string source;
};

// What the engine's documentation says about one isolation level under one configuration: the promise in Adya's
// vocabulary and the behaviours it allows, which every oracle's standing reads, and each oracle's own part (Troc's is
// EngineProfile::visibility, txprop/visibility_rules.hpp). Every fact is written once, with its source.
struct DocumentedBehaviour {
  // Adya's vocabulary: the phenomena the documentation promises to prevent (G0, G1a, G1b, G1c, G-single, G2-item,
  // G2, G-SIa, G-SIb), the name of that promise ("PL-SI"), and its source.
  std::string promise;
  std::set<std::string> prevented;
  std::string source;
  // Phenomena the documentation says may occur, each with the passage that says so: Adya classes or named
  // behaviours ("G1a" for dirty reads, "lost-update", behaviour::kSemiConsistentRead, ...), every name one of
  // txprop/behaviours.hpp's.
  std::map<std::string, std::string> allowed;
  bool tested = true;  // false for profiles no server here could check (MySQL)
  // Each oracle's own facts about the level, read by that oracle as they are.
  WssBehaviour wss;
  SdgBehaviour sdg;

  // The source that allows `phenomenon`, or "" when the documentation does not allow it.
  std::string allows(const std::string& phenomenon) const;
};

class EngineProfile {
 public:
  virtual ~EngineProfile() = default;

  // "postgresql": the engine's name in test names, reports and scenario target kinds.
  virtual std::string name() const = 0;
  // URI schemes that select this engine, lower case ("postgresql", "postgres").
  virtual std::vector<std::string> schemes() const = 0;
  virtual Dialect dialect() const = 0;
  virtual std::vector<IsolationLevel> levels() const = 0;
  // Embedded engines take no host, user or database in their URI (each test process makes its own file).
  virtual bool embedded() const { return false; }
  virtual int default_port() const { return 0; }
  // The URI may list several host:port pairs, one per node of a cluster (TargetConfig::hosts).
  virtual bool multi_host() const { return false; }
  // Parameters besides name= and levels=.
  virtual std::vector<EngineParameter> parameters() const { return {}; }
  // Non-empty for a profile that was not checked against a real server here: said once to a user who configures it.
  virtual std::string untested() const { return {}; }

  // What scenario files call a target of this engine under its configuration (e.g. "mariadb_si"), and every kind
  // this engine can give.
  virtual std::string kind(const TargetConfig& config) const;
  virtual std::vector<std::string> kinds() const { return {name()}; }
  // The configuration that changes behaviour, for reports (e.g. "innodb_snapshot_isolation=ON"); "" if none.
  virtual std::string configuration(const TargetConfig& config) const;

  virtual EngineCapabilities capabilities() const = 0;
  // The capabilities of the server a target runs (config.server_version_num, learnt when the target opens; 0 if
  // unknown), so that the generator never makes a form an older server lacks. Default: the same for every version.
  virtual EngineCapabilities capabilities(const TargetConfig& config) const {
    (void)config;
    return capabilities();
  }
  virtual DocumentedBehaviour documented(IsolationLevel level, const TargetConfig& config) const = 0;
  // Troc's part of the profile (txprop/visibility_rules.hpp): its visibility and lock rules for a transaction at
  // `level` (not modelled by default).
  virtual VisibilityRules visibility(IsolationLevel level, const TargetConfig& config) const;
  // Whether the engine asks its storage for any row to run `select_sql` on `session` (for
  // VisibilityRules::snapshot_needs_table_read); the session is a scratch autocommit session holding the statement's
  // view. nullopt: the engine cannot tell (default).
  virtual std::optional<bool> statement_reads_tables(drivers::Session& session, const std::string& select_sql) const;

  // Connects and creates this process's test database; throws TargetError with one line naming the URI.
  virtual std::unique_ptr<drivers::Driver> open(const TargetConfig& config) const = 0;
};

// The registry. Registering a second engine with a name or scheme already taken throws std::logic_error.
bool register_engine(std::unique_ptr<EngineProfile> profile);
const EngineProfile* find_engine(std::string_view name);
const EngineProfile* engine_for_scheme(std::string_view scheme);
std::vector<const EngineProfile*> registered_engines();

}  // namespace txprop

#define TXPROP_ENGINE_CONCAT_INNER(a, b) a##b
#define TXPROP_ENGINE_CONCAT(a, b) TXPROP_ENGINE_CONCAT_INNER(a, b)
// Registers an engine profile type (default-constructible) from a project's own source file.
#define TXPROP_REGISTER_ENGINE(Type)                                                                          \
  [[maybe_unused]] static const bool TXPROP_ENGINE_CONCAT(txprop_engine_registered_, __LINE__) =             \
      ::txprop::register_engine(std::make_unique<Type>())
