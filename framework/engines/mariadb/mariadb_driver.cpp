// MariaDB and MySQL through the MySQL C API (MariaDB Connector/C here; only standard mysql.h calls, so it links
// against libmysqlclient as well). Each test process works in its own database.
//
// Lock waits are read from SHOW ENGINE INNODB STATUS, which the server produces on demand: a waiting
// transaction's block has a "LOCK WAIT" line and "MariaDB thread id N," ("MySQL thread id N," on MySQL). The
// information_schema lock tables are not used: InnoDB serves them from a cache refreshed at most every 100 ms,
// and polling them faster freezes the cache (see shared/notes/engines.md).
#include <mysql.h>
#include <errmsg.h>
#include <mysqld_error.h>

#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "cleanup.hpp"
#include "mariadb_driver.hpp"
#include "reset_plan.hpp"
#include "session_errors.hpp"
#include "txprop/driver.hpp"

namespace txprop::drivers {

ErrorClass classify_errno(unsigned int code) {
  switch (code) {
    case 1213: return ErrorClass::Deadlock;             // ER_LOCK_DEADLOCK
    case 1205: return ErrorClass::LockTimeout;          // ER_LOCK_WAIT_TIMEOUT
    case 1020: return ErrorClass::SnapshotConflict;     // ER_CHECKREAD (innodb_snapshot_isolation=ON)
    case 1062: case 1048: case 1451: case 1452: case 1216: case 1217: case 1557: case 1586: case 4025: case 3819:
      return ErrorClass::ConstraintViolation;
    case 1064: case 1054: case 1146: case 1093: case 1149: case 1052: case 1111: case 1136: case 1241: case 1166:
      return ErrorClass::InvalidStatement;
    case 1242: case 1264: case 1292: case 1365: case 1366: case 1690: case 1406:
      return ErrorClass::DataError;
    case 1317: return ErrorClass::Canceled;              // ER_QUERY_INTERRUPTED
    case 1927: case 2006: case 2013: case 2055: case 2002: case 2003:
      return ErrorClass::LostConnection;
    default: return ErrorClass::Other;
  }
}

// The target's own failure behind a client error: ER_CONNECTION_KILLED (1927), CR_SERVER_GONE_ERROR (2006),
// CR_SERVER_LOST (2013) and CR_SERVER_LOST_EXTENDED (2055) lose the connection; CR_CONNECTION_ERROR (2002) and
// CR_CONN_HOST_ERROR (2003) mean it could not be made. A call that used up the read timeout (control connections
// only) met a server that did not answer: the client reports it as 2013 too.
// https://mariadb.com/kb/en/mariadb-error-codes/
Fault fault_of_errno(unsigned code, bool timed_out) {
  switch (code) {
    case 1927: case 2006: case 2013: case 2055: return timed_out ? Fault::Stalled : Fault::Lost;
    case 2002: case 2003: return timed_out ? Fault::Stalled : Fault::Unreachable;
    default: return Fault::None;
  }
}

// A connect that failed: CR_SERVER_LOST (2013) during the handshake, or any failure that used up the connect
// timeout, met a server that accepted the TCP connection but did not answer (a stalled server); others (refused,
// ER_ACCESS_DENIED_ERROR 1045, an unknown database) could not connect at all.
Fault connect_fault(unsigned code, bool timed_out) {
  return code == 2013 || timed_out ? Fault::Stalled : Fault::Unreachable;
}

namespace {

ValueType field_kind(enum_field_types t) {
  switch (t) {
    case MYSQL_TYPE_TINY: case MYSQL_TYPE_SHORT: case MYSQL_TYPE_LONG: case MYSQL_TYPE_INT24:
    case MYSQL_TYPE_LONGLONG: case MYSQL_TYPE_YEAR: case MYSQL_TYPE_BIT:
      return ValueType::Integer;
    case MYSQL_TYPE_DECIMAL: case MYSQL_TYPE_NEWDECIMAL: case MYSQL_TYPE_FLOAT: case MYSQL_TYPE_DOUBLE:
      return ValueType::Real;
    default: return ValueType::Text;
  }
}

// mysql_library_init is not thread-safe; every connection goes through this once.
void library_init() {
  static std::once_flag once;
  std::call_once(once, [] { mysql_library_init(0, nullptr, nullptr); });
}

class MySession final : public Session {
 public:
  MySession(const TargetConfig& c, const std::string& database, bool multi_statements) {
    library_init();
    mysql_ = mysql_init(nullptr);
    // At most 5 s, and within the hang limit: a stalled server is found out in time.
    unsigned int timeout = static_cast<unsigned int>(std::clamp<long long>((control_timeout().count() + 999) / 1000, 1, 5));
    mysql_options(mysql_, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
    if (multi_statements) {
      // The control connection (the one with multi-statements): every call is bounded, so a stalled server is a
      // finding within the hang limit, not a wait in poll() forever. Test sessions are abandoned instead.
      unsigned int io = static_cast<unsigned int>((control_timeout().count() + 999) / 1000);
      mysql_options(mysql_, MYSQL_OPT_READ_TIMEOUT, &io);
      mysql_options(mysql_, MYSQL_OPT_WRITE_TIMEOUT, &io);
    }
    // FOUND_ROWS: an UPDATE's affected count is the rows it matched (as on PostgreSQL and SQLite), not only the
    // rows whose values changed.
    unsigned long flags = CLIENT_FOUND_ROWS | (multi_statements ? CLIENT_MULTI_STATEMENTS : 0);
    if (multi_statements) read_timeout_ = std::chrono::seconds((control_timeout().count() + 999) / 1000);
    const auto start = std::chrono::steady_clock::now();
    if (!mysql_real_connect(mysql_, c.host.c_str(), c.user.c_str(), c.password.c_str(),
                            database.empty() ? nullptr : database.c_str(), static_cast<unsigned>(c.port), nullptr,
                            flags)) {
      std::string msg = mysql_error(mysql_);
      const unsigned code = mysql_errno(mysql_);
      mysql_close(mysql_);
      mysql_ = nullptr;
      const bool timed_out = std::chrono::steady_clock::now() - start >= std::chrono::seconds(timeout);
      throw TargetError(fmt::format("txprop: target {}: cannot connect: {}", c.masked_uri(), msg),
                        connect_fault(code, timed_out));
    }
    id_ = std::to_string(mysql_thread_id(mysql_));
    fd_ = static_cast<int>(mysql_get_socket(mysql_));
  }
  ~MySession() override {
    if (mysql_) mysql_close(mysql_);
  }

  Outcome execute(const std::string& sql) override { return commit_outcome(sql, query(sql)); }

  // The last result of `sql` (with the rows of the last result set before it), or its first error.
  Outcome query(const std::string& sql) {
    Outcome out;
    for (Outcome& o : query_each(sql)) {
      if (o.failed()) return std::move(o);
      if (!o.columns.empty()) out = std::move(o);  // a result set: MariaDB sends none without columns
      else out.affected = o.affected;
    }
    return out;
  }

  // Every result of a text of several statements (a connection opened with multi_statements), in order; the last one
  // is the first error, if any (the server runs no statement after it).
  std::vector<Outcome> query_each(const std::string& sql) {
    sent_at_.store(std::chrono::steady_clock::now().time_since_epoch().count());
    if (mysql_real_query(mysql_, sql.data(), sql.size()) != 0) return {error()};
    std::vector<Outcome> out;
    for (;;) {
      MYSQL_RES* res = mysql_store_result(mysql_);
      if (res) {
        out.push_back(rows_of(res));
        mysql_free_result(res);
      } else if (mysql_field_count(mysql_) == 0) {
        out.emplace_back().affected = static_cast<std::int64_t>(mysql_affected_rows(mysql_));
      } else {
        out.push_back(error());
        return out;
      }
      const int next = mysql_next_result(mysql_);
      if (next > 0) out.push_back(error());
      if (next != 0) return out;
    }
  }

  static Outcome rows_of(MYSQL_RES* res) {
    Outcome out;
    const unsigned n = mysql_num_fields(res);
    MYSQL_FIELD* fields = mysql_fetch_fields(res);
    for (unsigned i = 0; i < n; ++i) out.columns.emplace_back(fields[i].name);
    while (MYSQL_ROW row = mysql_fetch_row(res)) {
      unsigned long* lengths = mysql_fetch_lengths(res);
      Row values;
      values.reserve(n);
      for (unsigned i = 0; i < n; ++i) {
        if (!row[i]) {
          values.emplace_back();
          continue;
        }
        switch (field_kind(fields[i].type)) {
          case ValueType::Integer: values.emplace_back(static_cast<std::int64_t>(std::strtoll(row[i], nullptr, 10))); break;
          case ValueType::Real: values.emplace_back(std::strtod(row[i], nullptr)); break;
          default: values.emplace_back(std::string(row[i], lengths[i]));
        }
      }
      out.rows.push_back(std::move(values));
    }
    out.affected = -1;
    return out;
  }

  std::string server_id() const override { return id_; }
  // When the statement now running (or the last one) was sent.
  std::chrono::steady_clock::time_point sent_at() const {
    return std::chrono::steady_clock::time_point(std::chrono::steady_clock::duration(sent_at_.load()));
  }

  void abandon() override {
    if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
  }

 private:
  Outcome error() {
    const unsigned code = mysql_errno(mysql_);
    Outcome o = Outcome::failure(classify_errno(code), std::to_string(code), mysql_error(mysql_));
    const bool timed_out = read_timeout_.count() > 0 && std::chrono::steady_clock::now() - sent_at() >= read_timeout_;
    o.error.fault = fault_of_errno(code, timed_out);
    return o;
  }

  MYSQL* mysql_ = nullptr;
  std::string id_;
  std::atomic<std::chrono::steady_clock::rep> sent_at_{0};  // written by the session's worker, read by the probe
  int fd_ = -1;
  std::chrono::seconds read_timeout_{0};  // control connections: calls are bounded by MYSQL_OPT_READ_TIMEOUT
};

class MyDriver final : public Driver {
 public:
  // With `attach_to`, the driver works in that database, made by another driver of the same cluster (a Galera node
  // other than the first), and neither creates nor drops it. It holds the ownership lock on its own node too: lock
  // names are per node in a cluster (GET_LOCK is not replicated), and another run that reclaims through this node must
  // find the database owned there as well.
  MyDriver(const TargetConfig& config, const std::string& attach_to) : config_(config), attached_(!attach_to.empty()) {
    if (attached_) {
      database_ = attach_to;
      await_database();
      auto control = std::make_unique<MySession>(config_, config_.database, true);
      take_ownership(*control, 0);
      set_up_control(std::move(control));
    } else {
      database_ = unique_database_name();
      create_database();
    }
    Outcome v = control_->execute("SELECT VERSION()");
    version_ = v.ok() && !v.rows.empty() ? v.rows[0][0].as_text() : "?";
    is_mariadb_ = version_.find("MariaDB") != std::string::npos;
  }

  // Waits (bounded by the control timeout) until this server has the database another server of its cluster just
  // created: a replicated CREATE DATABASE reaches the other nodes a little later than the client's answer.
  void await_database() {
    MySession admin(config_, config_.database, true);
    const auto deadline = std::chrono::steady_clock::now() + control_timeout();
    const std::string query =
        "SELECT 1 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = '" + database_ + "'";
    for (;;) {
      Outcome o = admin.execute(query);
      if (o.ok() && !o.rows.empty()) return;
      if (std::chrono::steady_clock::now() > deadline)
        throw target_fault(config_, Fault::Stalled,
                           fmt::format("database {} did not appear on {}:{} within {} ms", database_, config_.host,
                                       config_.port, control_timeout().count()));
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }

  // Creates this process's database, owned by the control connection's lock. The clean-up is registered before
  // anything is created, so a signal during the setup leaves nothing: on SIGINT/SIGTERM this process's connections
  // to its database are killed, then the database is dropped (if it was created).
  void create_database() {
    cleanup_id_ = register_cleanup([config = config_, database = database_] {
      MySession s(config, "", true);
      Outcome ids = s.execute("SELECT ID FROM information_schema.PROCESSLIST WHERE DB = '" + database +
                              "' AND ID <> CONNECTION_ID()");
      for (const Row& r : ids.rows)
        s.execute("KILL " + (r[0].type() == ValueType::Integer ? std::to_string(r[0].as_int()) : r[0].as_text()));
      // IF EXISTS: the signal may have come before the database was created (a note, no line, then).
      if (s.execute("DROP DATABASE IF EXISTS " + quote_identifier(database, Dialect::MySql)).ok() &&
          s.execute("SHOW WARNINGS").rows.empty())
        std::cerr << fmt::format("[txprop] target {}: dropped database {}\n", config.masked_uri(), database);
    });
    bool created = false;
    try {
      // The control connection takes the ownership lock before the database exists and holds it until it ends.
      auto control = std::make_unique<MySession>(config_, config_.database, true);
      reclaim(*control);
      {
        CreationSection creating;  // a signal's clean-up runs before or after this, never in between
        take_ownership(*control, 0);
        run(*control, "CREATE DATABASE " + quote_identifier(database_, Dialect::MySql));
        created = true;
      }
      set_up_control(std::move(control));
    } catch (...) {
      // A setup that failed half-way (e.g. no innodb_snapshot_isolation): what it created goes now, with its clean-up.
      unregister_cleanup(cleanup_id_);
      if (created) drop_database();
      throw;
    }
  }

  // Makes `fresh` the control connection with its complete setup: this process's database (which must exist: it is
  // never created here) and innodb_snapshot_isolation. A connection that fails here leaves the old one in place.
  void set_up_control(std::unique_ptr<MySession> fresh) {
    run(*fresh, "USE " + quote_identifier(database_, Dialect::MySql));
    if (config_.flag("innodb_snapshot_isolation")) {
      // Checked once here so a server without the variable fails with one clear line, not in every session.
      Outcome o = fresh->execute("SET SESSION innodb_snapshot_isolation = " + snapshot_isolation_value());
      if (!o.ok())
        throw TargetError(fmt::format("txprop: target {}: this server has no innodb_snapshot_isolation ({})",
                                      config_.masked_uri(), o.error.message));
    }
    control_ = std::move(fresh);
  }

  // GET_LOCK(database) on `s`, waiting at most `seconds`: held for the connection's life, it is what tells another
  // run that this database is in use (lock names are server-wide, so every run on the server sees it).
  void take_ownership(MySession& s, int seconds) {
    Outcome o = s.execute(fmt::format("SELECT GET_LOCK('{}', {})", database_, seconds));
    if (!o.ok() || o.rows.empty() || o.rows[0][0] != Value(std::int64_t{1}))
      throw target_fault(config_, o.ok() ? Fault::Rejected : fault_of(o.error),
                         fmt::format("cannot take the lock that owns database {} ({})", database_,
                                     o.ok() ? "held by another session" : summary(o)));
  }

  void reconnect_control(const std::string& why) {
    std::cerr << fmt::format("[txprop] target {}: control connection lost ({}); reconnecting\n", config_.masked_uri(),
                             why);
    try {
      // The lost connection's lock is released once the server sees it gone: wait for it a little. Then the
      // database must still be there (USE fails if it is gone; a reconnect never creates it).
      auto fresh = std::make_unique<MySession>(config_, config_.database, true);
      take_ownership(*fresh, 5);
      set_up_control(std::move(fresh));
    } catch (const TargetError& e) {
      throw DriverError(e.what(), e.fault(), true);
    }
  }

  ~MyDriver() override {
    if (attached_) return;
    unregister_cleanup(cleanup_id_);
    drop_database();
  }

  void drop_database() noexcept {
    const std::string drop = "DROP DATABASE IF EXISTS " + quote_identifier(database_, Dialect::MySql);
    if (control_ && control_->execute(drop).ok()) return;
    try {
      MySession s(config_, "", true);  // no control connection (lost, or not set up): one fresh one to drop it
      s.execute(drop);
    } catch (const std::exception&) {
    }
  }

  void check_alive() override {
    Outcome o = control_->execute("SELECT 1");
    if (o.ok()) return;
    if (o.error.cls != ErrorClass::LostConnection) throw target_fault(config_, fault_of(o.error), summary(o));
    reconnect_control(o.error.message);
  }

  Dialect dialect() const override { return Dialect::MySql; }
  std::string server_version() override { return (is_mariadb_ ? "MariaDB " : "MySQL ") + version_; }

  std::unique_ptr<Session> open_session() override {
    auto s = std::make_unique<MySession>(config_, database_, false);
    // Lock waits are detected by asking the server; the lock wait timeout only has to outlast the hang limit.
    std::string setup = "SET SESSION innodb_lock_wait_timeout = 3600";
    if (config_.flag("innodb_snapshot_isolation")) setup += ", SESSION innodb_snapshot_isolation = " + snapshot_isolation_value();
    Outcome o = s->execute(setup);
    if (!o.ok()) throw DriverError("txprop: session setup failed: " + o.error.message, fault_of(o.error));
    return s;
  }

  std::vector<WaitState> probe(const std::vector<const Session*>& sessions) override {
    std::vector<WaitState> out(sessions.size());
    Outcome o = control_->execute("SHOW ENGINE INNODB STATUS");
    if (!o.ok() || o.rows.empty() || o.rows[0].size() < 3)
      throw DriverError("txprop: SHOW ENGINE INNODB STATUS failed (the user needs the PROCESS privilege): " +
                        summary(o), o.failed() ? fault_of(o.error) : Fault::Rejected);
    const auto looked = std::chrono::steady_clock::now();
    const std::string& status = o.rows[0][2].as_text();
    // One block per transaction, each starting with "---TRANSACTION ".
    std::size_t pos = status.find("---TRANSACTION ");
    while (pos != std::string::npos) {
      const std::size_t next = status.find("---TRANSACTION ", pos + 1);
      const std::string block = status.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
      pos = next;
      if (block.find("\nLOCK WAIT") == std::string::npos) continue;
      std::size_t id_at = block.find(" thread id ");
      if (id_at == std::string::npos) continue;
      id_at += 11;
      const std::size_t id_end = block.find_first_not_of("0123456789", id_at);
      const std::string id = block.substr(id_at, id_end - id_at);
      for (std::size_t i = 0; i < sessions.size(); ++i)
        if (sessions[i]->server_id() == id) out[i].waiting = !withdrawn_request(block, *sessions[i], looked);
    }
    return out;
  }

  // Whether a "LOCK WAIT" is a lock request InnoDB enqueues and withdraws at once rather than a wait. The
  // semi-consistent read of an UPDATE/DELETE at READ COMMITTED and below enqueues a waiting request on every row
  // another transaction holds, reads the row's last committed version instead, and withdraws the request if that
  // version does not match; a status taken meanwhile lists it as LOCK WAIT. Counted as blocked, it let the runner
  // submit the holder's COMMIT while the statement still scanned, which changed what it wrote
  // (tests/integration/runner_test.cpp, RunnerMariadb.SemiConsistentSkipIsNotAWait; CI once met "ok" in
  // tests/scenarios/troc_mdev26643_semi_consistent.txn that way). Such a request never suspends the thread, and only
  // a suspension sets the time the status prints ("TRX HAS BEEN WAITING <n> us", since lock_wait() began): for a
  // withdrawn request it is left from an earlier wait of the connection, or was never set. So a wait longer than the
  // statement has been running, by more than the server's coarse clock can err, is not this statement's wait.
  static bool withdrawn_request(const std::string& block, const Session& session, std::chrono::steady_clock::time_point looked) {
    const auto* my = dynamic_cast<const MySession*>(&session);
    const std::size_t at = block.find("TRX HAS BEEN WAITING ");
    if (!my || at == std::string::npos) return false;
    const std::size_t number = at + 21;
    const std::size_t number_end = block.find_first_not_of("0123456789", number);
    if (number_end == number || number_end == std::string::npos) return false;
    const double waited = std::stod(block.substr(number, number_end - number));
    // MariaDB prints microseconds ("<n> us"), MySQL seconds ("<n> SEC").
    const bool microseconds = block.compare(number_end, 3, " us") == 0;
    const auto waited_for = microseconds ? std::chrono::microseconds(static_cast<std::int64_t>(waited))
                                         : std::chrono::microseconds(static_cast<std::int64_t>(waited * 1e6));
    const auto running_for = std::chrono::duration_cast<std::chrono::microseconds>(looked - my->sent_at());
    const auto clock_error = microseconds ? std::chrono::microseconds(10'000) : std::chrono::microseconds(1'000'000);
    return waited_for > running_for + clock_error;
  }

  // Plain SELECTs are consistent (non-locking) reads except at SERIALIZABLE, where they take shared locks.
  bool may_wait(const Statement& s, IsolationLevel level) const override {
    if (s.is_transaction_control()) return false;
    return !(s.kind == StatementKind::Select && s.lock == LockMode::None && level != IsolationLevel::Serializable);
  }

  void cancel(const Session& session) override { control_->execute("KILL QUERY " + session.server_id()); }

  ErrorEffect effect(const Error& e) const override {
    switch (e.cls) {
      case ErrorClass::Deadlock:          // 1213 rolls back the whole transaction
      case ErrorClass::SnapshotConflict:  // 1020 rolls back the whole transaction (MDEV-35235)
        return ErrorEffect::TransactionAborted;
      case ErrorClass::LostConnection:
      case ErrorClass::CommitOutcomeUnknown: return ErrorEffect::Fatal;
      default: return ErrorEffect::StatementOnly;  // incl. 1205: only the statement (innodb_rollback_on_timeout=OFF)
    }
  }

  void unchanged_since_reset(std::vector<std::string> tables) override { reset_plan_.unchanged(std::move(tables)); }
  std::size_t tables_left_by_last_reset() const override { return reset_plan_.left_as_they_were(); }

  void reset(const Schema& schema) override {
    const std::string script = reset_plan_.script(schema);
    Outcome o = control_->execute(script);
    if (o.failed() && o.error.fault == Fault::Stalled)
      throw target_fault(config_, Fault::Stalled,
                         fmt::format("no answer within {} ms to the reset ({})", control_timeout().count(), o.error.message));
    if (o.failed() && o.error.cls == ErrorClass::LostConnection) {
      reconnect_control(o.error.message);
      o = control_->execute(script);
    }
    if (!o.ok())
      throw StatementRejected(fmt::format("txprop: target {}: the engine rejected the reset that creates the case's "
                                          "tables and rows: {}", config_.masked_uri(), summary(o)), true);
    reset_plan_.done(schema);
  }

  // Every table in one round trip (the control connection takes several statements): one fewer per further table
  // at the end of every run.
  DatabaseState read_state(const Schema& schema) override {
    return read_tables([this](const std::vector<std::string>& statements) {
      std::string sql;
      for (const std::string& s : statements) sql += s + ";";
      return control_->query_each(sql);
    }, schema, Dialect::MySql);
  }

 private:
  std::string snapshot_isolation_value() const { return *config_.flag("innodb_snapshot_isolation") ? "ON" : "OFF"; }

  // Databases whose owner's lock is free (their run was killed or crashed, on any host) are dropped; the lock is
  // held while dropping, so the owner cannot be a run that is starting right now.
  void reclaim(MySession& admin) {
    Outcome o = admin.execute("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE 'txprop\\_%'");
    for (const Row& r : o.rows) {
      const std::string name = r[0].as_text();
      if (name == database_ || !is_reclaimable_name(name)) continue;
      Outcome lock = admin.execute("SELECT GET_LOCK('" + name + "', 0)");
      if (!lock.ok() || lock.rows.empty() || lock.rows[0][0] != Value(std::int64_t{1})) continue;
      if (admin.execute("DROP DATABASE IF EXISTS " + quote_identifier(name, Dialect::MySql)).ok())
        std::cerr << reclaimed_line(config_.masked_uri(), "database " + name);
      admin.execute("SELECT RELEASE_LOCK('" + name + "')");
    }
  }

  void run(MySession& s, const std::string& sql) {
    Outcome o = s.execute(sql);
    if (!o.ok()) throw target_fault(config_, fault_of(o.error), summary(o));
  }

  TargetConfig config_;
  std::string database_;
  std::string version_;
  bool is_mariadb_ = true;
  bool attached_ = false;
  std::unique_ptr<MySession> control_;
  ResetPlan reset_plan_{Dialect::MySql, EmptyTable::Truncate};
  int cleanup_id_ = 0;
};

}  // namespace

std::unique_ptr<Driver> open_mariadb_driver(const TargetConfig& config, const std::string& attach_to) {
  try {
    return std::make_unique<MyDriver>(config, attach_to);
  } catch (const DriverError& e) {
    throw TargetError(e.what(), e.fault());
  }
}

}  // namespace txprop::drivers
