// A MariaDB Galera cluster: one MariaDB driver per node (engines/mariadb/), all working in the one test database the
// first node's driver creates (DDL replicates in total order to every node).
//
// - A session is opened on the node the case places its connection on (Driver::open_session_on), and remembers it:
//   whether it waits is asked of that node (InnoDB locks are local to a node: a replicated write set never waits for
//   a local lock, it aborts the local holder), and a cancel goes to that node.
// - The reset runs on the first node; then every other node reads one of the new tables with wsrep_sync_wait=1,
//   which makes the node apply every write set the cluster ordered before the read (MariaDB KB, wsrep_sync_wait:
//   "1 - READ (SELECT, SHOW, and BEGIN/START TRANSACTION)"), so each session starts from the case's rows.
// - The final state is read on every node with wsrep_sync_wait=1: each node's applied state. Nodes that disagree are
//   a finding of their own (a divergence run finding naming both nodes), never averaged.
// - Errors: MariaDB answers 1213 both to a local deadlock and to a transaction Galera aborted (a COMMIT that failed
//   certification, or a transaction a replicated write set brute-force aborted). At COMMIT only the latter are
//   possible (a local COMMIT takes no row lock), so 1213 there is a certification failure; both roll the transaction
//   back. A COMMIT that loses its connection, or meets a node that left the primary component (1047), may or may not
//   have committed on the cluster: "commit outcome unknown", never guessed.
#include <mysqld_error.h>

#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/format.h>

#include "../mariadb/mariadb_driver.hpp"
#include "../session_errors.hpp"
#include "galera_driver.hpp"
#include "txprop/driver.hpp"

namespace txprop::drivers {

namespace {

class GaleraSession final : public Session {
 public:
  GaleraSession(std::unique_ptr<Session> inner, int node) : inner_(std::move(inner)), node_(node) {}

  Outcome execute(const std::string& sql) override {
    Outcome o = inner_->execute(sql);
    if (!o.failed() || !is_commit(sql)) return o;
    // A lost connection on a COMMIT is CommitOutcomeUnknown already (the MariaDB session, session_errors.hpp).
    if (o.error.code == std::to_string(ER_LOCK_DEADLOCK)) o.error.cls = ErrorClass::CertificationFailure;
    else if (o.error.code == std::to_string(ER_UNKNOWN_COM_ERROR) || o.error.code == std::to_string(ER_ERROR_DURING_COMMIT))
      o.error.cls = ErrorClass::CommitOutcomeUnknown;
    return o;
  }
  std::string server_id() const override { return inner_->server_id(); }
  void abandon() override { inner_->abandon(); }

  const Session& inner() const { return *inner_; }
  int node() const { return node_; }

 private:
  std::unique_ptr<Session> inner_;
  int node_;
};

class GaleraDriver final : public Driver {
 public:
  explicit GaleraDriver(const TargetConfig& config) : config_(config) {
    for (std::size_t k = 0; k < config.hosts.size(); ++k) {
      TargetConfig node = config;
      node.host = config.hosts[k].first;
      node.port = config.hosts[k].second;
      nodes_.push_back(open_mariadb_driver(node, k == 0 ? std::string() : database_));
      if (k == 0) database_ = database_of(*nodes_[0]);
      readers_.push_back(nodes_[k]->open_session());
      // The reader sees every write set ordered before each of its reads (the reset's wait, the final state).
      if (Outcome o = readers_[k]->execute("SET SESSION wsrep_sync_wait = 1"); !o.ok())
        throw TargetError(fmt::format("txprop: target {}: node {} is not a Galera node ({})", config.masked_uri(), k + 1,
                                      o.error.message));
    }
    Outcome v = readers_[0]->execute("SHOW STATUS LIKE 'wsrep_provider_version'");
    provider_ = v.ok() && !v.rows.empty() && v.rows[0].size() > 1 ? v.rows[0][1].as_text() : "?";
  }

  ~GaleraDriver() override {
    readers_.clear();
    while (nodes_.size() > 1) nodes_.pop_back();  // the attached nodes before the one that drops the database
  }

  int nodes() const override { return static_cast<int>(nodes_.size()); }
  Dialect dialect() const override { return Dialect::MySql; }
  std::string server_version() override {
    return fmt::format("{} (Galera {}, {} nodes)", nodes_[0]->server_version(), provider_, nodes_.size());
  }

  std::unique_ptr<Session> open_session() override { return open_session_on(0); }
  std::unique_ptr<Session> open_session_on(int node) override {
    const auto k = static_cast<std::size_t>(node) % nodes_.size();
    auto s = nodes_[k]->open_session();
    if (const std::string wait = config_.param("wsrep_sync_wait"); !wait.empty())
      if (Outcome o = s->execute("SET SESSION wsrep_sync_wait = " + wait); !o.ok())
        throw DriverError("txprop: session setup failed: " + o.error.message, fault_of(o.error));
    return std::make_unique<GaleraSession>(std::move(s), static_cast<int>(k));
  }

  std::vector<WaitState> probe(const std::vector<const Session*>& sessions) override {
    std::vector<WaitState> out(sessions.size());
    std::map<int, std::vector<std::size_t>> by_node;
    for (std::size_t i = 0; i < sessions.size(); ++i) by_node[as_galera(*sessions[i]).node()].push_back(i);
    for (const auto& [node, indexes] : by_node) {
      std::vector<const Session*> inner;
      for (std::size_t i : indexes) inner.push_back(&as_galera(*sessions[i]).inner());
      const std::vector<WaitState> got = nodes_[static_cast<std::size_t>(node)]->probe(inner);
      // Blockers are indexes into the probed list: mapped back to the caller's.
      for (std::size_t j = 0; j < indexes.size(); ++j) {
        out[indexes[j]].waiting = got[j].waiting;
        if (got[j].blockers) {
          std::vector<int> mapped;
          for (int b : *got[j].blockers) mapped.push_back(static_cast<int>(indexes[static_cast<std::size_t>(b)]));
          out[indexes[j]].blockers = mapped;
        }
      }
    }
    return out;
  }

  bool may_wait(const Statement& s, IsolationLevel level) const override { return nodes_[0]->may_wait(s, level); }
  std::string session_refresh_sql() const override { return nodes_[0]->session_refresh_sql(); }

  void cancel(const Session& session) override {
    const GaleraSession& g = as_galera(session);
    nodes_[static_cast<std::size_t>(g.node())]->cancel(g.inner());
  }

  ErrorEffect effect(const Error& e) const override {
    if (e.cls == ErrorClass::CertificationFailure) return ErrorEffect::TransactionAborted;
    if (e.cls == ErrorClass::CommitOutcomeUnknown) return ErrorEffect::Fatal;
    return nodes_[0]->effect(e);
  }

  void check_alive() override {
    for (auto& n : nodes_) n->check_alive();
  }

  void reset(const Schema& schema) override {
    nodes_[0]->reset(schema);
    if (schema.tables.empty()) return;
    const std::string wait = "SELECT 1 FROM " + quote_identifier(schema.tables.front().name, Dialect::MySql) + " LIMIT 1";
    for (std::size_t k = 1; k < readers_.size(); ++k)
      if (Outcome o = readers_[k]->execute(wait); !o.ok())
        throw target_fault(config_, fault_of(o.error), fmt::format("node {} did not apply the reset: {}", k + 1, summary(o)));
  }

  DatabaseState read_state(const Schema& schema) override {
    DatabaseState first = read_tables(*readers_[0], schema, Dialect::MySql);
    for (std::size_t k = 1; k < readers_.size(); ++k)
      if (DatabaseState other = read_tables(*readers_[k], schema, Dialect::MySql); !(other == first))
        // The nodes answered, but disagree: a finding about the engine (a divergence), not a fault of the target.
        throw NodesDiverge(target_fault(config_, Fault::None,
                                        fmt::format("nodes diverge: node {}'s applied state differs from node 1's "
                                                    "after the run", k + 1)).what());
    return first;
  }

 private:
  static const GaleraSession& as_galera(const Session& s) {
    const auto* g = dynamic_cast<const GaleraSession*>(&s);
    if (!g) throw DriverError("txprop: a session of another driver was given to the Galera driver");
    return *g;
  }

  // The database the first node's driver created: its sessions work in it.
  std::string database_of(Driver& d) const {
    Outcome o = d.open_session()->execute("SELECT DATABASE()");
    if (!o.ok() || o.rows.empty() || o.rows[0].empty() || o.rows[0][0].is_null())
      throw TargetError(fmt::format("txprop: target {}: cannot tell the test database ({})", config_.masked_uri(),
                                    summary(o)));
    return o.rows[0][0].as_text();
  }

  TargetConfig config_;
  std::string database_;
  std::string provider_;
  std::vector<std::unique_ptr<Driver>> nodes_;
  std::vector<std::unique_ptr<Session>> readers_;
};

}  // namespace

std::unique_ptr<Driver> open_galera_driver(const TargetConfig& config) {
  try {
    return std::make_unique<GaleraDriver>(config);
  } catch (const DriverError& e) {
    throw TargetError(e.what(), e.fault());
  }
}

}  // namespace txprop::drivers
