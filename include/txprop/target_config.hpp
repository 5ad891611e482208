// A configured engine, from a connection URI:
//   sqlite:                                   embedded, a fresh file per test process
//   sqlite:?journal_mode=delete               rollback-journal mode instead of WAL
//   postgresql://user[:password]@host[:port]/database[?levels=rc,rr,ser]
//   mariadb://user[:password]@host[:port]/database[?innodb_snapshot_isolation=ON]
//   mysql://...                               MySQL (same driver as MariaDB; profile untested here)
// Every URI may carry name=<label> (used in test names) and levels=<list> (restrict the levels tested; each level
// once). A parameter given twice or with an empty value is an error; messages mask the password whatever the URI.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "txprop/isolation.hpp"

namespace txprop {

enum class Engine { Sqlite, PostgreSql, MariaDb, MySql };

std::string to_string(Engine e);

struct TargetConfig {
  std::string uri;  // as given
  Engine engine = Engine::Sqlite;
  std::string user, password, host, database;
  int port = 0;
  std::map<std::string, std::string> params;  // query parameters, keys lower-case
  std::string name;                           // label for test names, e.g. "mariadb_si"
  std::vector<IsolationLevel> levels;         // the levels to test (the engine's supported ones by default)
  // Settings that change an engine's behaviour, parsed once from the parameters.
  std::optional<bool> snapshot_isolation;     // MariaDB/MySQL innodb_snapshot_isolation; nullopt: server default
  bool journal_mode_delete = false;           // SQLite: rollback journal instead of WAL

  // The URI with the password replaced by ***, for messages.
  std::string masked_uri() const;
  std::string param(const std::string& key, const std::string& fallback = "") const;
};

// A target that cannot be used: a malformed URI, an unreachable server, a wrong password, an unsupported level.
// The message is one line and names the URI with the password masked.
class TargetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The levels an engine supports (PostgreSQL's READ UNCOMMITTED is READ COMMITTED, so it is not listed).
std::vector<IsolationLevel> supported_levels(Engine e);

// Throws TargetError on a malformed URI, an unknown scheme or parameter, or an unsupported level.
TargetConfig parse_target_uri(std::string_view uri);

// The targets named by TXPROP_TARGETS (whitespace separated); the embedded SQLite target when it is unset or empty.
// Throws TargetError for the first malformed one.
std::vector<TargetConfig> configured_targets();
std::vector<TargetConfig> parse_target_list(std::string_view text);

}  // namespace txprop
