// PostgreSQL through libpqxx. Each test process works in its own schema of the configured database. Blocking is
// read from pg_blocking_pids() on a control connection, and a cycle of waits it shows is ended by the runner
// (deadlock_victim below), so a deadlock costs a wait probe, not deadlock_timeout. Any error inside a transaction aborts it
// (a later COMMIT would silently roll back), so the driver reports every error as ending the transaction.
#include <pqxx/pipeline>
#include <pqxx/pqxx>

#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>

#include <fmt/format.h>

#include "cleanup.hpp"
#include "postgresql_driver.hpp"
#include "reset_plan.hpp"
#include "session_errors.hpp"
#include "txprop/driver.hpp"
#include "watchdog.hpp"

namespace txprop::drivers {

// Every SQLSTATE goes through here, also those libpqxx 6 throws as classes without sqlstate() (the 40xxx family).
// https://www.postgresql.org/docs/15/errcodes-appendix.html
ErrorClass classify_sqlstate(const std::string& state) {
  if (state == "40001") return ErrorClass::SerializationFailure;
  if (state == "40P01") return ErrorClass::Deadlock;
  if (state == "40003") return ErrorClass::CommitOutcomeUnknown;  // statement_completion_unknown
  if (state == "40002") return ErrorClass::ConstraintViolation;   // transaction_integrity_constraint_violation
  if (state.starts_with("40")) return ErrorClass::SerializationFailure;  // 40000 transaction_rollback
  if (state == "55P03") return ErrorClass::LockTimeout;
  if (state == "25P02") return ErrorClass::TransactionAborted;
  if (state == "57014") return ErrorClass::Canceled;
  if (state.starts_with("23")) return ErrorClass::ConstraintViolation;
  if (state.starts_with("42")) return ErrorClass::InvalidStatement;
  if (state.starts_with("22") || state == "21000") return ErrorClass::DataError;
  if (state.starts_with("08") || state.starts_with("57P")) return ErrorClass::LostConnection;
  return ErrorClass::Other;
}

// The target's own failure behind a SQLSTATE: class 08 (connection exception) and 57P01-57P05 (the backend was
// terminated, the server shuts down or cannot accept connections now, the database was dropped, idle timeout) lose
// the connection; 40003 is a statement whose completion is unknown for the same reason.
Fault fault_of_sqlstate(const std::string& state) {
  if (state.starts_with("08") || state.starts_with("57P") || state == "40003") return Fault::Lost;
  return Fault::None;
}

// PostgreSQL looks for a deadlock only after deadlock_timeout, and the waiter whose timer expires first aborts itself:
// which one depends on timing (https://www.postgresql.org/docs/15/runtime-config-locks.html, deadlock_timeout; a busy
// machine changed the victim). The runner ends the cycle it sees in pg_blocking_pids itself: the youngest member, the
// one whose first step was submitted last (the transaction that began last gives way, as in wait-die schemes).
int pg_deadlock_victim(const std::vector<CycleMember>& cycle) {
  int victim = -1;
  for (std::size_t i = 0; i < cycle.size(); ++i)
    if (victim < 0 || cycle[i].began_at > cycle[static_cast<std::size_t>(victim)].began_at) victim = static_cast<int>(i);
  return victim;
}

namespace {

std::string first_line(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  if (auto nl = s.find('\n'); nl != std::string::npos) s.resize(nl);
  return s;
}

Outcome sql_failure(const std::string& state, const std::string& message) {
  Outcome o = Outcome::failure(classify_sqlstate(state), state, first_line(message));
  o.error.fault = fault_of_sqlstate(state);
  return o;
}

Value field_value(const pqxx::field& f, pqxx::oid type) {
  if (f.is_null()) return Value();
  switch (type) {
    case 20:  // int8
    case 21:  // int2
    case 23:  // int4
    case 26:  // oid
      return Value(static_cast<std::int64_t>(std::strtoll(f.c_str(), nullptr, 10)));
    case 16:  // bool
      return Value(static_cast<std::int64_t>(f.c_str()[0] == 't' ? 1 : 0));
    case 700:   // float4
    case 701:   // float8
    case 1700:  // numeric
      return Value(std::strtod(f.c_str(), nullptr));
    default: return Value(std::string(f.c_str(), f.size()));
  }
}

// libpq's connect_timeout: at most 5 s, and within the hang limit (libpq's minimum is 2 s).
std::chrono::seconds connect_timeout() {
  return std::chrono::seconds(std::clamp<long long>((control_timeout().count() + 999) / 1000, 2, 5));
}

// application_name is this process's schema name, so its own connections can be found (and ended on a signal).
std::string connection_string(const TargetConfig& c, const std::string& application_name) {
  auto quote = [](const std::string& v) {
    std::string out = "'";
    for (char ch : v) {
      if (ch == '\'' || ch == '\\') out += '\\';
      out += ch;
    }
    return out + "'";
  };
  std::string s = fmt::format("host={} port={} user={} dbname={} connect_timeout={} application_name={}",
                              quote(c.host), c.port, quote(c.user), quote(c.database), connect_timeout().count(),
                              application_name);
  if (!c.password.empty()) s += " password=" + quote(c.password);
  return s;
}

class PgSession final : public Session {
 public:
  explicit PgSession(const std::string& conninfo) : conn_(conninfo), pid_(std::to_string(conn_.backendpid())) {
    // libpqxx 6 silently reconnects a broken connection, without the session's settings (search_path: the next
    // statement would run in the user's schema). A lost connection must stay lost; the driver reconnects with the
    // complete setup where it may.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    conn_.inhibit_reactivation(true);
#pragma GCC diagnostic pop
    fd_ = conn_.sock();
  }

  void abandon() override {
    if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
  }
  int socket() const { return fd_; }

  Outcome execute(const std::string& sql) override {
    try {
      pqxx::nontransaction w(conn_);
      return outcome_of(w.exec(sql));
    } catch (const pqxx::serialization_failure& e) {  // libpqxx 6: these have no sqlstate(); each is one SQLSTATE
      return sql_failure("40001", e.what());
    } catch (const pqxx::deadlock_detected& e) {
      return sql_failure("40P01", e.what());
    } catch (const pqxx::statement_completion_unknown& e) {
      return sql_failure("40003", e.what());
    } catch (const pqxx::transaction_rollback& e) {
      return sql_failure("40000", e.what());
    } catch (const pqxx::broken_connection& e) {
      return commit_outcome(sql, sql_failure("08006", e.what()));
    } catch (const pqxx::sql_error& e) {
      return commit_outcome(sql, sql_failure(e.sqlstate(), e.what()));
    } catch (const std::exception& e) {
      // libpq's PQstatus: a connection that is no longer CONNECTION_OK was lost.
      if (!conn_.is_open()) return commit_outcome(sql, sql_failure("08006", e.what()));
      return Outcome::failure(ErrorClass::Other, "", first_line(e.what()));
    }
  }

  std::string server_id() const override { return pid_; }

  // Several queries in one round trip (libpqxx's pipeline sends them joined by semicolons), each one's outcome in
  // order; after an error, that error's outcome ends the list. For reads only: the queries run as one implicit
  // transaction, so an error undoes the ones before it.
  std::vector<Outcome> execute_each(const std::vector<std::string>& queries) {
    std::vector<Outcome> out;
    try {
      pqxx::nontransaction w(conn_);
      pqxx::pipeline p(w);
      p.retain(static_cast<int>(queries.size()));  // none is sent before all are in
      std::vector<pqxx::pipeline::query_id> ids;
      for (const std::string& q : queries) ids.push_back(p.insert(q));
      for (const auto id : ids) out.push_back(outcome_of(p.retrieve(id)));
      p.complete();
    } catch (const pqxx::broken_connection& e) {
      out.push_back(sql_failure("08006", e.what()));
    } catch (const pqxx::sql_error& e) {
      out.push_back(sql_failure(e.sqlstate(), e.what()));
    } catch (const std::exception& e) {
      out.push_back(conn_.is_open() ? Outcome::failure(ErrorClass::Other, "", first_line(e.what()))
                                    : sql_failure("08006", e.what()));
    }
    return out;
  }

 private:
  static Outcome outcome_of(const pqxx::result& r) {
    Outcome out;
    const auto ncol = r.columns();
    if (ncol == 0) {
      out.affected = r.affected_rows();
      return out;
    }
    for (pqxx::row::size_type j = 0; j < ncol; ++j) out.columns.emplace_back(r.column_name(j));
    std::vector<pqxx::oid> types;
    for (pqxx::row::size_type j = 0; j < ncol; ++j) types.push_back(r.column_type(j));
    out.rows.reserve(r.size());
    for (const auto& row : r) {
      Row values;
      values.reserve(ncol);
      for (pqxx::row::size_type j = 0; j < ncol; ++j) values.push_back(field_value(row[j], types[j]));
      out.rows.push_back(std::move(values));
    }
    return out;
  }

  pqxx::connection conn_;
  std::string pid_;
  int fd_ = -1;
};

// Ends this process's other connections to the target (their application name is the schema's name, generated by
// unique_database_name, so it needs no quoting), so that a drop of the schema does not wait on their locks.
std::string end_other_sessions_sql(const std::string& schema) {
  return "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '" + schema +
         "' AND pid <> pg_backend_pid()";
}

class PgDriver final : public Driver {
 public:
  explicit PgDriver(const TargetConfig& config)
      : config_(config), schema_(unique_database_name()), conninfo_(connection_string(config, schema_)) {
    // Registered before anything is created, so a signal during the setup leaves nothing. On SIGINT/SIGTERM this
    // process's other connections are ended, then its schema is dropped (if it was created).
    cleanup_id_ = register_cleanup([conninfo = conninfo_, schema = schema_, uri = config_.masked_uri()] {
      PgSession s(conninfo);
      s.execute("SET statement_timeout = 10000; SET client_min_messages = error");
      s.execute(end_other_sessions_sql(schema));
      const bool existed = !s.execute("SELECT 1 FROM pg_namespace WHERE nspname = '" + schema + "'").rows.empty();
      if (existed && s.execute("DROP SCHEMA IF EXISTS " + quote_identifier(schema, Dialect::PostgreSql) + " CASCADE").ok())
        std::cerr << fmt::format("[txprop] target {}: dropped schema {}\n", uri, schema);
    });
    bool created = false;
    try {
      control_ = connect();
      reclaim();
      {
        CreationSection creating;  // a signal's clean-up runs before or after this, never in between
        take_ownership(false);
        run_control("SET client_min_messages = error; CREATE SCHEMA " + quote_identifier(schema_, Dialect::PostgreSql));
        created = true;
      }
      setup_control();
    } catch (...) {
      // A setup that failed half-way: what it created goes now, with its clean-up.
      unregister_cleanup(cleanup_id_);
      if (created) drop_schema();
      throw;
    }
    Outcome su = control("SELECT current_setting('is_superuser')");
    superuser_ = su.ok() && !su.rows.empty() && su.rows[0][0] == Value("on");
  }

  ~PgDriver() override {
    unregister_cleanup(cleanup_id_);
    drop_schema();
  }

  void drop_schema() noexcept {
    const std::string drop = "DROP SCHEMA IF EXISTS " + quote_identifier(schema_, Dialect::PostgreSql) + " CASCADE";
    // Sessions of workers abandoned after a hang may still hold locks on the schema's tables: end them first (they
    // are this driver's own, by application name), so the drop does not wait for them.
    const std::string end_sessions = end_other_sessions_sql(schema_);
    if (control_) {
      control(end_sessions);
      Outcome o = control(drop);
      // A drop that timed out waits on a backend that cannot end (a stalled server process): the schema is left
      // for the next run's reclaim rather than waiting again on a fresh connection.
      if (o.ok() || o.error.cls != ErrorClass::LostConnection) return;
    }
    // The control connection was lost: one fresh connection (bounded by connect_timeout) to drop the schema.
    try {
      PgSession s(conninfo_);
      s.execute(fmt::format("SET statement_timeout = {}", timeout_.count()));
      s.execute(end_sessions);
      s.execute(drop);
    } catch (const std::exception&) {
    }
  }

  void check_alive() override {
    Outcome o = control("SELECT 1");
    if (o.ok()) return;
    if (o.error.cls != ErrorClass::LostConnection) throw target_fault(config_, fault_of(o.error), summary(o));
    reconnect_control(o.error.message);
  }

  Dialect dialect() const override { return Dialect::PostgreSql; }

  std::string server_version() override {
    Outcome o = control("SHOW server_version");
    return o.ok() && !o.rows.empty() ? "PostgreSQL " + o.rows[0][0].as_text() : "PostgreSQL";
  }

  // server_version_num is MAJOR * 10000 + MINOR from PostgreSQL 10 on (e.g. 170010), https://www.postgresql.org/docs/17/runtime-config-preset.html
  int server_version_num() override {
    Outcome o = control("SHOW server_version_num");
    if (!o.ok() || o.rows.empty()) return 0;
    try {
      return std::stoi(o.rows[0][0].as_text());
    } catch (const std::exception&) {
      return 0;
    }
  }

  std::unique_ptr<Session> open_session() override {
    auto s = connect();
    std::string setup = "SET client_min_messages = error; SET search_path TO " +
                        quote_identifier(schema_, Dialect::PostgreSql) + "; SET lock_timeout = 0; SET statement_timeout = 0";
    if (superuser_) setup += fmt::format("; SET deadlock_timeout = '{}ms'", deadlock_timeout_ms());
    Outcome o = s->execute(setup);
    if (!o.ok()) throw DriverError("txprop: session setup failed: " + o.error.message, fault_of(o.error));
    return s;
  }

  // The runner ends every cycle it sees in pg_blocking_pids (its victim: pg_deadlock_victim). PostgreSQL's own check
  // runs only after deadlock_timeout of waiting and is kept as the fallback for a cycle the probe cannot show; in
  // test sessions it is raised (a superuser may set it), so that it never races the runner for the victim.
  int deadlock_victim(const std::vector<CycleMember>& cycle) const override { return pg_deadlock_victim(cycle); }

  std::vector<WaitState> probe(const std::vector<const Session*>& sessions) override {
    std::vector<WaitState> out(sessions.size());
    if (sessions.empty()) return out;
    std::string pids;
    for (const Session* s : sessions) pids += (pids.empty() ? "" : ",") + s->server_id();
    Outcome o = control(
        "SELECT array_to_string(pg_blocking_pids(pid), ',') FROM unnest(ARRAY[" + pids +
        "]::int[]) WITH ORDINALITY AS u(pid, n) ORDER BY n");
    if (!o.ok()) throw DriverError("txprop: wait probe failed: " + o.error.message, fault_of(o.error));
    for (std::size_t i = 0; i < sessions.size() && i < o.rows.size(); ++i) {
      const std::string blockers = o.rows[i][0].is_null() ? "" : o.rows[i][0].as_text();
      if (blockers.empty()) continue;
      out[i].waiting = true;
      std::vector<int> known;
      std::size_t start = 0;
      while (start < blockers.size()) {
        auto comma = blockers.find(',', start);
        const std::string pid = blockers.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        for (std::size_t j = 0; j < sessions.size(); ++j)
          if (sessions[j]->server_id() == pid) known.push_back(static_cast<int>(j));
        start = comma == std::string::npos ? blockers.size() : comma + 1;
      }
      out[i].blockers = std::move(known);
    }
    return out;
  }

  // BEGIN, COMMIT, ROLLBACK and plain SELECTs take no lock a transaction could wait on (no DDL runs concurrently).
  bool may_wait(const Statement& s, IsolationLevel) const override {
    return !s.is_transaction_control() && !(s.kind == StatementKind::Select && s.lock == LockMode::None);
  }

  void cancel(const Session& session) override {
    control("SELECT pg_cancel_backend(" + session.server_id() + ")");
  }

  ErrorEffect effect(const Error& e) const override {
    if (e.cls == ErrorClass::LostConnection || e.cls == ErrorClass::CommitOutcomeUnknown) return ErrorEffect::Fatal;
    return ErrorEffect::TransactionAborted;
  }

  void unchanged_since_reset(std::vector<std::string> tables) override { reset_plan_.unchanged(std::move(tables)); }
  std::size_t tables_left_by_last_reset() const override { return reset_plan_.left_as_they_were(); }

  void reset(const Schema& schema) override {
    const std::string script = reset_plan_.script(schema);
    Outcome o = control(script);
    if (o.failed() && o.error.fault == Fault::Stalled)
      throw target_fault(config_, Fault::Stalled, o.error.message + " to the reset");
    if (o.failed() && o.error.cls == ErrorClass::LostConnection) {
      // Lost between cases (e.g. pg_terminate_backend): a new control connection with the complete setup, or fail.
      reconnect_control(o.error.message);
      o = control(script);
    }
    if (o.failed() && o.error.cls == ErrorClass::Canceled)  // statement_timeout: a lock holder that does not end
      throw target_fault(config_, Fault::Stalled,
                         fmt::format("no answer within {} ms to the reset ({})", timeout_.count(), o.error.message));
    if (!o.ok())
      throw StatementRejected(fmt::format("txprop: target {}: the engine rejected the reset that creates the case's "
                                          "tables and rows: {}", config_.masked_uri(), summary(o)), true);
    reset_plan_.done(schema);
  }

  DatabaseState read_state(const Schema& schema) override {
    SocketWatchdog::Guard guard(watchdog_, control_->socket(), timeout_ + std::chrono::seconds(1));
    // Every table in one round trip: one fewer per further table at the end of every run.
    return read_tables([this](const std::vector<std::string>& queries) { return control_->execute_each(queries); },
                       schema, Dialect::PostgreSql);
  }

 private:
  // libpq reports a failed connect as CONNECTION_BAD with no code: one that used up connect_timeout met a server
  // that did not answer (Stalled); one that failed sooner was refused or denied (Unreachable). libpq may end the
  // wait up to a second early (its timer has whole-second resolution before PostgreSQL 12), hence the margin.
  std::unique_ptr<PgSession> connect() {
    const auto start = std::chrono::steady_clock::now();
    try {
      return std::make_unique<PgSession>(conninfo_);
    } catch (const std::exception& e) {
      const bool timed_out = std::chrono::steady_clock::now() - start >= connect_timeout() - std::chrono::seconds(1);
      throw TargetError(fmt::format("txprop: target {}: cannot connect: {}", config_.masked_uri(), first_line(e.what())),
                        timed_out ? Fault::Stalled : Fault::Unreachable);
    }
  }

  // Every call on the control connection is bounded: statement_timeout on the server (lock waits), and the
  // watchdog on the socket (a server that does not answer at all).
  Outcome control(const std::string& sql) {
    SocketWatchdog::Guard guard(watchdog_, control_->socket(), timeout_ + std::chrono::seconds(1));
    Outcome o = control_->execute(sql);
    if (guard.fired() && o.failed()) {
      o = Outcome::failure(ErrorClass::LostConnection, o.error.code,
                           fmt::format("no answer within {} ms ({})", (timeout_ + std::chrono::seconds(1)).count(),
                                       o.error.message));
      o.error.fault = Fault::Stalled;
    }
    return o;
  }

  void setup_control() {
    run_control(fmt::format("SET client_min_messages = error; SET search_path TO {}; SET statement_timeout = {}",
                            quote_identifier(schema_, Dialect::PostgreSql), timeout_.count()));
  }

  // PostgreSQL's own deadlock check in test sessions, the fallback behind the runner's: deadlock_timeout= (validated as
  // a whole number of milliseconds when the URI was parsed, postgresql_profile.cpp), else half the hang limit, at most
  // 5 s, so that a cycle only the engine can see still ends well within the hang limit.
  long long deadlock_timeout_ms() const {
    if (const std::string v = config_.param("deadlock_timeout"); !v.empty()) return std::stoll(v);
    return std::clamp<long long>(control_timeout().count() / 2, 1, 5000);
  }

  // A session-level advisory lock keyed by the schema's name, held by the control connection for its whole life: it
  // is what tells another run that this schema is in use. Advisory locks belong to the database, as the schema does.
  // `wait`: after a reconnect, the lost connection's lock is released once its backend has ended; wait for that.
  void take_ownership(bool wait) {
    const std::int64_t key = *ownership_key(schema_);
    if (wait) control("SET lock_timeout = 5000");
    Outcome o = control(wait ? fmt::format("SELECT true FROM pg_advisory_lock({})", key)
                             : fmt::format("SELECT pg_try_advisory_lock({})", key));
    if (wait) control("SET lock_timeout = 0");
    if (!o.ok() || o.rows.empty() || o.rows[0][0] != Value(std::int64_t{1}))
      throw target_fault(config_, o.ok() ? Fault::Rejected : fault_of(o.error),
                         fmt::format("cannot take the lock that owns schema {} ({})", schema_,
                                     o.ok() ? "held by another session" : summary(o)));
  }

  // Schemas whose owner's lock is free (their run was killed or crashed, on any host) are dropped; the lock is held
  // while dropping, so the owner cannot be a run that is starting right now.
  void reclaim() {
    Outcome o = control("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'txprop\\_%'");
    for (const Row& r : o.rows) {
      const std::string name = r[0].as_text();
      const auto key = ownership_key(name);
      if (name == schema_ || !key) continue;
      Outcome lock = control(fmt::format("SELECT pg_try_advisory_lock({})", *key));
      if (!lock.ok() || lock.rows.empty() || lock.rows[0][0] != Value(std::int64_t{1})) continue;
      if (control("SET client_min_messages = error; DROP SCHEMA IF EXISTS " + quote_identifier(name, Dialect::PostgreSql) +
                  " CASCADE").ok())
        std::cerr << reclaimed_line(config_.masked_uri(), "schema " + name);
      control(fmt::format("SELECT pg_advisory_unlock({})", *key));
    }
  }

  // A new control connection, set up completely (its ownership lock, search_path to this process's schema, timeouts),
  // or DriverError.
  void reconnect_control(const std::string& why) {
    std::cerr << fmt::format("[txprop] target {}: control connection lost ({}); reconnecting\n", config_.masked_uri(),
                             first_line(why));
    std::unique_ptr<PgSession> fresh;
    try {
      fresh = connect();
    } catch (const TargetError& e) {
      throw DriverError(e.what(), e.fault(), true);  // the broken connection stays: every call on it fails at once
    }
    control_ = std::move(fresh);
    take_ownership(true);
    // The schema must still be there: a reconnect never creates anything outside it.
    Outcome o = control("SELECT 1 FROM pg_namespace WHERE nspname = '" + schema_ + "'");
    if (!o.ok() || o.rows.empty())
      throw target_fault(config_, o.ok() ? Fault::Lost : fault_of(o.error), fmt::format("the test schema {} is gone", schema_));
    setup_control();
  }

  void run_control(const std::string& script) {
    Outcome o = control(script);
    if (!o.ok()) throw target_fault(config_, fault_of(o.error), summary(o));
  }

  TargetConfig config_;
  std::string schema_;
  std::string conninfo_;
  std::chrono::milliseconds timeout_ = control_timeout();
  SocketWatchdog watchdog_;
  std::unique_ptr<PgSession> control_;
  int cleanup_id_ = 0;
  bool superuser_ = false;
  ResetPlan reset_plan_{Dialect::PostgreSql, EmptyTable::Truncate};
};

}  // namespace

std::unique_ptr<Driver> open_postgresql_driver(const TargetConfig& config) {
  try {
    return std::make_unique<PgDriver>(config);
  } catch (const DriverError& e) {
    throw TargetError(e.what(), e.fault());
  }
}

}  // namespace txprop::drivers
