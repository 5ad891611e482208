// A configured engine, from a connection URI:
//   sqlite:                                   embedded, a fresh file per test process
//   sqlite:?journal_mode=delete               rollback-journal mode instead of WAL
//   postgresql://user[:password]@host[:port]/database[?levels=rc,rr,ser][&password=...]
//   mariadb://user[:password]@host[:port]/database[?innodb_snapshot_isolation=ON]
//   mysql://...                               MySQL (same driver as MariaDB; profile untested here)
//   galera://user[:password]@h1:p1,h2:p2,h3:p3/database[?wsrep_sync_wait=1&innodb_snapshot_isolation=ON]
//                                             a MariaDB Galera cluster, one host per node
// The scheme selects a registered engine profile (engine.hpp), which also defines the parameters it accepts. Every URI
// may carry name=<label> (used in test names) and levels=<list> (restrict the levels tested; each level once). A
// parameter given twice or with an empty value is an error; messages mask the password whatever the URI. The password
// may also be given as password= or passwd= (servers only; SQLite rejects it).
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "txprop/fault.hpp"
#include "txprop/isolation.hpp"

namespace txprop {

class EngineProfile;

struct TargetConfig {
  std::string uri;                     // as given
  const EngineProfile* engine = nullptr;  // from the scheme; never null after parsing (engine.hpp)
  std::string user, password, host, database;
  int port = 0;
  // Every host:port of the URI in order (galera://h1:p1,h2:p2,h3:p3/db lists a cluster's nodes); host and port are
  // the first. One entry for a single-host URI, none for an embedded engine.
  std::vector<std::pair<std::string, int>> hosts;
  // Query parameters, keys lower case, values validated and canonical (a flag is "on" or "off").
  std::map<std::string, std::string> params;
  std::string name;                    // label for test names, e.g. "mariadb_si"
  // What scenario files call this kind of target (the profile decides: "mariadb_si", "sqlite_journal", ...).
  std::string kind;
  std::vector<IsolationLevel> levels;  // the levels to test (the engine's supported ones by default)
  // The server's version as a number (PostgreSQL's server_version_num: 170010 for 17.10), learnt by Target::open when
  // it connects; 0 before that, or where the driver cannot tell. Profiles key version-dependent facts on it.
  int server_version_num = 0;

  const EngineProfile& profile() const { return *engine; }
  // The URI with the password (and every parameter value that may be secret) replaced by ***: masked_uri(uri).
  std::string masked_uri() const;
  std::string param(const std::string& key, const std::string& fallback = "") const;
  // A flag parameter: nullopt when it was not given.
  std::optional<bool> flag(const std::string& key) const;
};

// A target that cannot be used: a malformed URI, an unreachable server, a wrong password, an unsupported level.
// The message is one line and names the URI with the password masked.
// fault(): what failed, where the target itself failed (a connect refused or timed out, a call lost or unanswered).
class TargetError : public std::runtime_error {
 public:
  explicit TargetError(const std::string& what, Fault fault = Fault::None) : std::runtime_error(what), fault_(fault) {}
  Fault fault() const { return fault_; }

 private:
  Fault fault_;
};

// The one masking function for anything that may hold a URI (issue 23): the password of user:password@ is masked
// whatever the URI looks like, and so is the value of every query parameter that is not plainly configuration
// (password=, passwd=, a misspelt key): only name=, levels= and the registered engines' own parameters are shown.
std::string masked_uri(std::string_view uri);

// Every target kind a registered engine can give (for validating scenario files).
std::vector<std::string> known_target_kinds();
// Every URI parameter a registered engine accepts besides name= and levels= (for validating scenario files).
std::vector<std::string> known_target_parameters();

// Throws TargetError on a malformed URI, an unknown scheme or parameter, or an unsupported level.
TargetConfig parse_target_uri(std::string_view uri);

// The targets named by TXPROP_TARGETS (whitespace separated); the embedded SQLite target when it is unset or empty.
// Throws TargetError for the first malformed one.
std::vector<TargetConfig> configured_targets();
std::vector<TargetConfig> parse_target_list(std::string_view text);

}  // namespace txprop
