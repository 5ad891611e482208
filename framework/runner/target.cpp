#include "txprop/target.hpp"

#include "txprop/engine.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>

#include <fmt/format.h>

#include "scheduler.hpp"
#include "session_worker.hpp"
#include "txprop/driver.hpp"
#include "txprop/internal/env_settings.hpp"

namespace txprop {

// The session pool: sessions (and their threads) live as long as the target, so a test case costs no connects.
struct Target::Sessions {
  runner::CompletionSignal signal;
  std::vector<std::unique_ptr<runner::SessionWorker>> workers;
  std::vector<int> nodes;  // the cluster node each worker's session is on
  // The driver's schema_generation() when each worker's session last had a current schema: opened, or refreshed.
  std::vector<std::uint64_t> refreshed;
};

Target::Target(TargetConfig config, RunOptions options)
    : config_(std::move(config)), options_(options), sessions_(std::make_unique<Sessions>()) {
  try {
    if (auto ms = env_integer("TXPROP_HANG_LIMIT_MS", 1, kMaxHangLimitMs)) options_.hang_limit = std::chrono::milliseconds(*ms);
  } catch (const SettingError& e) {
    throw TargetError(e.what());
  }
}

Target::~Target() {
  sessions_.reset();  // close sessions before the driver drops the test database
  driver_.reset();
}

std::unique_ptr<Target> Target::open(const TargetConfig& config, RunOptions options) {
  std::unique_ptr<Target> t(new Target(config, options));
  t->driver_ = drivers::open_driver(config);
  t->server_version_ = t->driver_->server_version();
  // Every question the profile is asked about this target from now on is asked with the version it runs.
  t->config_.server_version_num = t->driver_->server_version_num();
  return t;
}

std::unique_ptr<Target> Target::open_judged_as(const TargetConfig& run_on, const TargetConfig& judged_as,
                                              RunOptions options) {
  std::unique_ptr<Target> t = open(run_on, options);
  t->config_ = judged_as;  // the driver keeps its own configuration: it still runs on `run_on`
  return t;
}

Dialect Target::dialect() const { return driver_->dialect(); }

std::string Target::configuration() const { return config_.profile().configuration(config_); }

std::unique_ptr<runner::SessionWorker> Target::new_worker(int node) {
  auto w = std::make_unique<runner::SessionWorker>(driver_->open_session_on(node), sessions_->signal,
                                                   driver_->waits_are_errors());
  w->run_limit = options_.hang_limit;
  return w;
}

void Target::check_alive() {
  // Sessions idle in the pool may have lost their connections as well (a restarted server, terminated backends):
  // they are opened afresh, each with its complete setup, by the next run.
  for (auto& w : sessions_->workers) w->broken = true;
  unchanged_.clear();  // whatever lost the connection may have changed the tables too
  try {
    driver_->check_alive();
  } catch (const drivers::DriverError& e) {
    throw target_error(e);
  }
}

// The driver's error as one line naming the target (once), with its fault.
TargetError Target::target_error(const drivers::DriverError& e) const {
  return TargetError(e.names_target() ? e.what() : fmt::format("txprop: target {}: {}", config_.masked_uri(), e.what()),
                     e.fault());
}

// Only sessions that may hold a schema cached before the tables were last recreated run the driver's refresh: a reset
// that kept the tables changed no definition, so a session refreshed since the last recreation is current (SQLite:
// the refresh was a thread hand-off and a statement per session and reset, most of a kept reset's time).
void Target::refresh_sessions(std::size_t used) {
  const std::string refresh = driver_->session_refresh_sql();
  if (refresh.empty()) return;
  const std::uint64_t now = driver_->schema_generation();
  for (std::size_t i = 0; i < used; ++i) {
    if (sessions_->refreshed[i] == now) continue;
    ++metrics_.session_refreshes;
    if (sessions_->workers[i]->run(refresh).ok()) sessions_->refreshed[i] = now;
  }
}

namespace {

// The tables of the run's schema that changed_tables() does not name.
std::vector<std::string> unchanged_by(const History& h) {
  const std::vector<std::string> changed = changed_tables(h);
  std::vector<std::string> out;
  for (const Table& t : h.test_case.schema.tables)
    if (std::find(changed.begin(), changed.end(), t.name) == changed.end()) out.push_back(t.name);
  return out;
}

}  // namespace

History Target::run(const TestCase& c) {
  if (auto err = c.validate(); !err.empty()) throw std::invalid_argument("txprop: malformed test case: " + err);
  const int v = config_.server_version_num;
  const std::string server = v > 0 ? fmt::format("{} {}.{}", config_.kind, v / 10000, v % 10000) : config_.kind;
  if (auto err = missing_capability(c, config_.profile().capabilities(config_), server); !err.empty())
    throw CaseRejected(fmt::format("txprop: target {}: {}", config_.masked_uri(), err));
  auto& workers = sessions_->workers;
  // One worker per connection: transactions that share a session run on the same one, one after the other.
  const std::vector<std::vector<int>> connections = c.sessions();
  using Clock = std::chrono::steady_clock;
  auto t0 = Clock::now();
  try {
    // Replace sessions whose connection was lost or left stuck by the previous run, or that are on another node of
    // a cluster than this case places their connection on.
    const std::vector<int> placement = c.placement(driver_->nodes());
    auto& nodes = sessions_->nodes;
    for (std::size_t i = 0; i < workers.size(); ++i) {
      const int node = i < placement.size() ? placement[i] : nodes[i];
      if (!workers[i]->broken && nodes[i] == node) continue;
      workers[i] = new_worker(node);
      nodes[i] = node;
      sessions_->refreshed[i] = driver_->schema_generation();
    }
    while (workers.size() < connections.size()) {
      nodes.push_back(placement[workers.size()]);
      workers.push_back(new_worker(nodes.back()));
      sessions_->refreshed.push_back(driver_->schema_generation());
    }
    t0 = Clock::now();
    // Told just before the reset: nothing but this target's runs touched the tables since the last one.
    if (!untracked_ && !unchanged_.empty()) driver_->unchanged_since_reset(std::move(unchanged_));
    unchanged_.clear();
    driver_->reset(c.schema);
    metrics_.tables_left += driver_->tables_left_by_last_reset();
  } catch (const drivers::StatementRejected& e) {
    throw CaseRejected(target_error(e).what(), Fault::Rejected);
  } catch (const drivers::DriverError& e) {
    throw target_error(e);
  }
  std::vector<runner::SessionWorker*> used;
  for (std::size_t i = 0; i < connections.size(); ++i) used.push_back(workers[i].get());
  refresh_sessions(connections.size());
  ++metrics_.runs;
  auto t1 = Clock::now();
  History h = runner::schedule(c, *driver_, used, sessions_->signal, options_, metrics_);
  auto t2 = Clock::now();
  h.target = config_.name;
  // On a cluster the placement is part of the case as it ran: reports and scenario files name every session's node.
  if (const int n = driver_->nodes(); n > 1) {
    const std::vector<int> placement = c.placement(n);
    const std::vector<int> connection = c.connection_of();
    for (std::size_t t = 0; t < h.test_case.transactions.size(); ++t)
      h.test_case.transactions[t].node = placement[static_cast<std::size_t>(connection[t])];
  }
  h.server_version = server_version_;
  if (!h.finding) {
    try {
      h.final_state = driver_->read_state(c.schema);
    } catch (const drivers::NodesDiverge& e) {
      h.finding = RunFinding{RunFinding::Kind::Divergence, StepRef{-1, -1}, e.what(), Fault::None};
    } catch (const drivers::DriverError& e) {
      h.finding = RunFinding{RunFinding::Kind::Crash, StepRef{-1, -1}, e.what(), e.fault()};
    }
  }
  if (!h.finding) unchanged_ = unchanged_by(h);
  const auto t3 = Clock::now();
  metrics_.reset_seconds += std::chrono::duration<double>(t1 - t0).count();
  metrics_.schedule_seconds += std::chrono::duration<double>(t2 - t1).count();
  metrics_.state_seconds += std::chrono::duration<double>(t3 - t2).count();
  return h;
}

}  // namespace txprop
