// The engine boundary: a Driver owns this process's test database on one target and opens Sessions on it.
// Everything engine-specific lives behind these two interfaces: connection setup, result conversion, error
// classification and what an error does to a transaction, asking the server whether a session waits on a lock,
// cancelling a statement, and resetting the database to a schema.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "txprop/database_state.hpp"
#include "txprop/fault.hpp"
#include "txprop/outcome.hpp"
#include "txprop/schema.hpp"
#include "txprop/sql.hpp"
#include "txprop/target_config.hpp"

namespace txprop::drivers {

// Something txprop itself needed failed (connecting, creating the test database, resetting it). The message is
// one line; fault() says what failed, as the driver decided it from its native codes (never from the text), and
// names_target() whether the message already starts with "txprop: target <masked uri>: ".
class DriverError : public std::runtime_error {
 public:
  explicit DriverError(const std::string& what, Fault fault = Fault::Lost, bool names_target = false)
      : std::runtime_error(what), fault_(fault), names_target_(names_target) {}
  Fault fault() const { return fault_; }
  bool names_target() const { return names_target_; }

 private:
  Fault fault_;
  bool names_target_;
};

// The nodes of a cluster answered the final-state read, but with different states: a finding about the engine (its
// fault is None), which the runner records as a divergence (RunFinding::Kind::Divergence).
class NodesDiverge : public DriverError {
 public:
  explicit NodesDiverge(const std::string& what) : DriverError(what, Fault::None, true) {}
};

// "txprop: target <masked uri>: <detail>", with its fault.
DriverError target_fault(const TargetConfig& config, Fault fault, const std::string& detail);

// The engine rejected a statement txprop sent for its own purposes (the reset that creates a case's tables and
// rows), with the engine's own error; not a lost connection: the same case would be rejected again.
class StatementRejected : public DriverError {
 public:
  explicit StatementRejected(const std::string& what, bool names_target = false)
      : DriverError(what, Fault::Rejected, names_target) {}
};

// The fault behind an error of txprop's own call on a session: Lost or Stalled as the driver set it, else the
// engine refused the statement (Rejected).
Fault fault_of(const Error& e);

// One connection. Not thread-safe: one thread executes on it at a time; Driver::cancel may be called from another.
class Session {
 public:
  virtual ~Session() = default;
  // Executes one statement and returns its outcome; never throws for an SQL error.
  virtual Outcome execute(const std::string& sql) = 0;
  // The server's identifier of this connection (PostgreSQL backend pid, MySQL thread id).
  virtual std::string server_id() const = 0;
  // Makes a call stuck in the client library return (from another thread): shuts the socket down, so the
  // statement in flight fails as a lost connection. The session is unusable afterwards.
  virtual void abandon() {}
};

// One transaction of a cycle of lock waits the runner sees, as Driver::deadlock_victim is asked about it.
struct CycleMember {
  int txn = -1;                   // the transaction's index in the case
  int began_at = -1;              // the position of its first step in the submitted order (larger: younger)
  bool committing = false;        // the step it waits with ends its transaction (COMMIT)
  std::uint64_t blocked_seq = 0;  // when the runner found it blocked (larger: later)
};

// What a wait probe learnt about one session with a statement in flight.
struct WaitState {
  bool waiting = false;                   // the server says it waits on a lock
  std::optional<std::vector<int>> blockers;  // indexes (into the probed list) of sessions it waits for, if known
};

class Driver {
 public:
  virtual ~Driver() = default;
  virtual Dialect dialect() const = 0;
  virtual std::string server_version() = 0;
  // The version as a number for profiles to compare (TargetConfig::server_version_num); 0 if the driver cannot tell.
  virtual int server_version_num() { return 0; }
  // A new session on the test database, with txprop's per-session settings applied.
  virtual std::unique_ptr<Session> open_session() = 0;
  // The nodes a session can be placed on: a cluster's (Galera), 1 for a single server.
  virtual int nodes() const { return 1; }
  // A new session on node `node` (0-based, below nodes()) of a cluster; a single server has only node 0.
  virtual std::unique_ptr<Session> open_session_on(int node) {
    (void)node;
    return open_session();
  }
  // Which of these sessions wait on a lock right now, asked of the server in one round trip where possible.
  virtual std::vector<WaitState> probe(const std::vector<const Session*>& sessions) = 0;
  // Whether the statement can wait on a lock at all at this level (engine knowledge). The runner asks the server
  // about a slow statement only if it can; others are asked about late, as a safety net.
  virtual bool may_wait(const Statement& s, IsolationLevel level) const {
    (void)level;
    return !s.is_transaction_control();
  }
  // Whether a statement that returned without waiting can still be blocked (SQLite reports waits as errors).
  virtual bool waits_are_errors() const { return false; }
  // A statement each session runs after a reset, before its transaction begins, so that it does not compile
  // statements against a schema it cached before the reset (empty where sessions do not cache schemas).
  virtual std::string session_refresh_sql() const { return {}; }
  // Changes whenever a reset changed the tables' definitions (not when it kept them): a session opened or refreshed
  // at the current generation has no stale schema and need not run session_refresh_sql again.
  virtual std::uint64_t schema_generation() const { return 0; }
  // Engine knowledge for the scheduler: which member (an index into `cycle`) the runner ends when the transactions of
  // `cycle` wait on each other (each one's blockers, as probe() told, are in the cycle; where waits are errors,
  // every unfinished transaction is busy). -1 leaves the cycle to the engine: it breaks it itself, at once and with
  // a documented victim. The runner records the victim's error before anything its abort released.
  virtual int deadlock_victim(const std::vector<CycleMember>& cycle) const {
    (void)cycle;
    return -1;
  }
  // Interrupts the statement running on `session` (called from another thread than the one executing).
  virtual void cancel(const Session& session) = 0;
  virtual ErrorEffect effect(const Error& e) const = 0;
  // Checks that the engine answers on the control connection, re-establishing that connection (with its complete
  // setup) if it was lost; throws DriverError when it cannot. Every control call is bounded in time.
  virtual void check_alive() {}
  // Drops what the previous reset created and creates `schema` with its rows; throws DriverError.
  virtual void reset(const Schema& schema) = 0;
  // Before a reset: the tables named still hold what the last reset made them (no write reached them since), so
  // the reset may leave those the new schema gives the same shape and rows as they are. Only for the next reset.
  virtual void unchanged_since_reset(std::vector<std::string> /*tables*/) {}
  // How many tables the last reset left as they were (for tests and benchmarks).
  virtual std::size_t tables_left_by_last_reset() const { return 0; }
  // The rows of every table of `schema`, each table's rows sorted.
  virtual DatabaseState read_state(const Schema& schema) = 0;
};

// What every driver's reset and read_state share. The script drops the tables of the previous reset and creates
// `schema` with its rows, one statement per line, in one round trip where the engine allows several statements.
std::string reset_script(const std::vector<std::string>& previous_tables, const Schema& schema, Dialect d);
// Every table of `schema` read through `control`, each table's rows sorted; throws DriverError.
DatabaseState read_tables(Session& control, const Schema& schema, Dialect d);
// The same in one round trip, for a driver that can send several statements and get each one's result back:
// `read_each` runs the statements (one SELECT per table) and returns their outcomes in order.
using ReadEach = std::function<std::vector<Outcome>(const std::vector<std::string>&)>;
DatabaseState read_tables(const ReadEach& read_each, const Schema& schema, Dialect d);

// Connects to the target and creates this process's test database; throws TargetError with a one-line message.
std::unique_ptr<Driver> open_driver(const TargetConfig& config);

// A name no other test process uses, on any host: txprop_<pid>_<16 hex digits, random> (framework/engines/cleanup.hpp).
std::string unique_database_name();

// How long any single call on a control connection may take (reset, state read, wait probe, cancel):
// TXPROP_HANG_LIMIT_MS (30 s by default). A call past it fails as a lost connection.
std::chrono::milliseconds control_timeout();

}  // namespace txprop::drivers
