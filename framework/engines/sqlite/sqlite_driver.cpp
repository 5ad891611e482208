// SQLite, embedded. Each test process gets its own database file; WAL mode by default (readers never block
// writers, a stale writer gets SQLITE_BUSY_SNAPSHOT). The busy timeout is 0, so a statement that would wait
// returns SQLITE_BUSY at once: the runner treats that as "blocked" and retries the statement when another
// transaction ends.
#include <sqlite3.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "cleanup.hpp"
#include "sqlite_driver.hpp"
#include "reset_plan.hpp"
#include "txprop/driver.hpp"

namespace txprop::drivers {

// SQLite never breaks a cycle of SQLITE_BUSY waits itself (rollback-journal mode: a writer's COMMIT waits for
// readers, one of which waits to write); the runner asks here once every unfinished transaction is busy. As the
// documentation of sqlite3_busy_handler describes (https://www.sqlite.org/c3ref/busy_handler.html: of a process
// promoting a read lock to RESERVED and one promoting RESERVED to EXCLUSIVE, the first is expected to release its
// read lock), a transaction trying to write gives way to one trying to commit; among several, the one blocked last.
int sqlite_deadlock_victim(const std::vector<CycleMember>& cycle) {
  int victim = -1;
  for (std::size_t i = 0; i < cycle.size(); ++i) {
    if (victim < 0) {
      victim = static_cast<int>(i);
      continue;
    }
    const CycleMember& v = cycle[static_cast<std::size_t>(victim)];
    const CycleMember& m = cycle[i];
    if ((v.committing && !m.committing) || (v.committing == m.committing && m.blocked_seq > v.blocked_seq))
      victim = static_cast<int>(i);
  }
  return victim;
}

namespace {

Error classify(sqlite3* db, int rc, bool at_prepare) {
  const int ext = sqlite3_extended_errcode(db);
  Error e;
  e.code = std::to_string(ext);
  e.message = sqlite3_errmsg(db);
  switch (rc & 0xff) {
    case SQLITE_BUSY:
      e.cls = ext == SQLITE_BUSY_SNAPSHOT ? ErrorClass::SerializationFailure : ErrorClass::Busy;
      break;
    case SQLITE_LOCKED: e.cls = ErrorClass::Busy; break;
    case SQLITE_CONSTRAINT: e.cls = ErrorClass::ConstraintViolation; break;
    case SQLITE_MISMATCH:
    case SQLITE_RANGE:
    case SQLITE_TOOBIG: e.cls = ErrorClass::DataError; break;
    case SQLITE_INTERRUPT: e.cls = ErrorClass::Canceled; break;
    case SQLITE_ERROR: e.cls = at_prepare ? ErrorClass::InvalidStatement : ErrorClass::Other; break;
    default: e.cls = ErrorClass::Other;
  }
  return e;
}

Value column_value(sqlite3_stmt* st, int i) {
  switch (sqlite3_column_type(st, i)) {
    case SQLITE_NULL: return Value();
    case SQLITE_INTEGER: return Value(static_cast<std::int64_t>(sqlite3_column_int64(st, i)));
    case SQLITE_FLOAT: return Value(sqlite3_column_double(st, i));
    default: {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(st, i));
      return Value(std::string(text ? text : "", static_cast<std::size_t>(sqlite3_column_bytes(st, i))));
    }
  }
}

class SqliteSession final : public Session {
 public:
  SqliteSession(const std::string& path, const std::string& journal_mode) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                        nullptr) != SQLITE_OK) {
      const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
      sqlite3_close(db_);
      throw DriverError(fmt::format("txprop: cannot open SQLite database {}: {}", path, msg), Fault::Unreachable);
    }
    sqlite3_extended_result_codes(db_, 1);
    sqlite3_busy_timeout(db_, 0);
    // SQLite enforces foreign keys only on a connection that asks for it, each time it opens
    // (https://www.sqlite.org/foreignkeys.html#fk_enable): every session does, as the other engines always do.
    for (const std::string& pragma : {"PRAGMA journal_mode=" + journal_mode, std::string("PRAGMA synchronous=OFF"),
                                      std::string("PRAGMA foreign_keys=ON")}) {
      Outcome o = execute(pragma);
      if (!o.ok()) throw DriverError(fmt::format("txprop: SQLite {} failed: {}", pragma, o.error.message), Fault::Rejected);
    }
    register_writer_functions();
  }
  ~SqliteSession() override {
    for (auto& [sql, st] : prepared_) sqlite3_finalize(st);
    sqlite3_close_v2(db_);
  }

  Outcome execute(const std::string& sql) override {
    Outcome out;
    const char* tail = sql.c_str();
    const char* end = sql.c_str() + sql.size();
    while (tail < end) {
      const bool first = tail == sql.c_str();
      sqlite3_stmt* st = first ? take_prepared(sql) : nullptr;
      int rc = SQLITE_OK;
      if (st) tail = end;
      else rc = sqlite3_prepare_v2(db_, tail, static_cast<int>(end - tail), &st, &tail);
      if (rc != SQLITE_OK) {
        Error e = classify(db_, rc, true);
        return Outcome::failure(e.cls, e.code, e.message);
      }
      if (!st) break;  // whitespace or comment only
      const bool whole = first && std::all_of(tail, end, [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
      out.rows.clear();
      out.columns.clear();
      // Column metadata is read after the first step: when the schema changed since the statement was prepared
      // (another connection reset the database), sqlite3_step re-prepares it and the column count may change.
      rc = sqlite3_step(st);
      const int ncol = sqlite3_column_count(st);
      for (int i = 0; i < ncol; ++i) out.columns.emplace_back(sqlite3_column_name(st, i));
      for (; rc == SQLITE_ROW; rc = sqlite3_step(st)) {
        Row row;
        row.reserve(static_cast<std::size_t>(ncol));
        for (int i = 0; i < ncol; ++i) row.push_back(column_value(st, i));
        out.rows.push_back(std::move(row));
      }
      const bool is_write = !sqlite3_stmt_readonly(st);
      if (whole) keep_prepared(sql, st);
      else sqlite3_finalize(st);
      if (rc != SQLITE_DONE) {
        Error e = classify(db_, rc, false);
        return Outcome::failure(e.cls, e.code, e.message);
      }
      out.affected = is_write ? sqlite3_changes64(db_) : -1;
    }
    return out;
  }

  std::string server_id() const override { return fmt::format("{}", static_cast<const void*>(db_)); }
  sqlite3* handle() const { return db_; }

 private:
  // Prepared statements kept by their SQL text (a text of one statement only): a case's statements run again in its
  // replays, and BEGIN, COMMIT, the session refresh and the state read in every run; preparing was a third of the CPU
  // time of a SQLite suite (perf, txprop_property_suites Wss.check/sqlite_serializable). A kept statement is reset
  // after each use, as finalize would, so it holds no lock and no read transaction between uses. One prepared before a
  // schema change is compiled again by sqlite3_step against the new schema: the schema cookie and the connection's
  // schema generation it was compiled with are checked when it starts (OP_Transaction, https://www.sqlite.org/c3ref/prepare.html:
  // "If the database schema changes, ... sqlite3_step() will automatically recompile the SQL statement"), and a
  // flag PRAGMA (foreign_keys) expires every prepared statement of its connection.
  sqlite3_stmt* take_prepared(const std::string& sql) {
    auto it = prepared_.find(sql);
    if (it == prepared_.end()) return nullptr;
    sqlite3_stmt* st = it->second;
    prepared_.erase(it);
    return st;
  }
  void keep_prepared(const std::string& sql, sqlite3_stmt* st) {
    sqlite3_reset(st);
    if (prepared_.size() >= kMaxPrepared) {  // a bound on memory; a campaign's statements rarely repeat across cases
      for (auto& [text, old] : prepared_) sqlite3_finalize(old);
      prepared_.clear();
    }
    prepared_.emplace(sql, st);
  }
  static constexpr std::size_t kMaxPrepared = 256;
  std::unordered_map<std::string, sqlite3_stmt*> prepared_;

  // SQLite has no session variables: txp_set_writer(w) (render_set_writer) keeps the connection's writer id and
  // txp_writer() returns it, NULL until set, for the triggers of a CascadeLog (render_cascade_log). Neither touches the
  // database: a SELECT of them takes no lock and starts no read transaction. txp_writer is innocuous (no side effect),
  // so that a trigger may call it whatever trusted_schema says (https://www.sqlite.org/c3ref/c_deterministic.html).
  void register_writer_functions() {
    const auto set = [](sqlite3_context* ctx, int, sqlite3_value** argv) {
      auto* self = static_cast<SqliteSession*>(sqlite3_user_data(ctx));
      const unsigned char* text = sqlite3_value_text(argv[0]);
      self->writer_ = text ? std::optional<std::string>(reinterpret_cast<const char*>(text)) : std::nullopt;
      sqlite3_result_null(ctx);
    };
    const auto get = [](sqlite3_context* ctx, int, sqlite3_value**) {
      const auto& writer = static_cast<SqliteSession*>(sqlite3_user_data(ctx))->writer_;
      if (writer) sqlite3_result_text(ctx, writer->c_str(), static_cast<int>(writer->size()), SQLITE_TRANSIENT);
      else sqlite3_result_null(ctx);
    };
    if (sqlite3_create_function_v2(db_, "txp_set_writer", 1, SQLITE_UTF8, this, set, nullptr, nullptr, nullptr) !=
            SQLITE_OK ||
        sqlite3_create_function_v2(db_, "txp_writer", 0, SQLITE_UTF8 | SQLITE_INNOCUOUS, this, get, nullptr, nullptr,
                                   nullptr) != SQLITE_OK)
      throw DriverError(fmt::format("txprop: SQLite cannot register txp_writer: {}", sqlite3_errmsg(db_)),
                        Fault::Rejected);
  }

  sqlite3* db_ = nullptr;
  std::optional<std::string> writer_;
};

class SqliteDriver final : public Driver {
 public:
  explicit SqliteDriver(const TargetConfig& config) : journal_mode_(config.param("journal_mode", "wal")) {
    const char* tmp = std::getenv("TMPDIR");
    const std::filesystem::path dir(tmp && *tmp ? tmp : "/tmp");
    const std::string name = unique_database_name();
    path_ = (dir / (name + ".db")).string();
    lock_path_ = (dir / (name + ".lock")).string();
    // Registered before anything is created, so a signal during the setup leaves nothing.
    cleanup_id_ = register_cleanup([path = path_, lock = lock_path_] {
      if (remove_database_files(path)) std::cerr << fmt::format("[txprop] target sqlite: removed {}\n", path);
      std::remove(lock.c_str());
    });
    reclaim(dir);
    CreationSection creating;  // a signal's clean-up runs before or after this, never in between
    try {
      lock_fd_ = take_ownership(dir, name);
      control_ = std::make_unique<SqliteSession>(path_, journal_mode_);
    } catch (...) {
      // A setup that failed half-way: what it created goes now, with its clean-up.
      unregister_cleanup(cleanup_id_);
      remove_files();
      throw;
    }
  }
  ~SqliteDriver() override {
    unregister_cleanup(cleanup_id_);
    control_.reset();
    remove_files();
  }

  void remove_files() {
    remove_database_files(path_);
    if (lock_fd_ < 0) return;
    // The lock file goes last: while it is there and locked, no other run takes the files for abandoned.
    std::remove(lock_path_.c_str());
    ::close(lock_fd_);
  }

  Dialect dialect() const override { return Dialect::Sqlite; }
  std::string server_version() override { return std::string("SQLite ") + sqlite3_libversion(); }
  std::unique_ptr<Session> open_session() override { return std::make_unique<SqliteSession>(path_, journal_mode_); }
  std::vector<WaitState> probe(const std::vector<const Session*>& sessions) override {
    return std::vector<WaitState>(sessions.size());
  }
  bool waits_are_errors() const override { return true; }
  // Reading sqlite_master checks the schema cookie and reloads a stale cached schema. Without it, a statement
  // prepared against the schema of the previous case can resolve a column to the wrong table (SQLite only retries
  // a prepare after "no such table/column" errors).
  std::string session_refresh_sql() const override { return "SELECT count(*) FROM sqlite_master"; }
  void cancel(const Session& session) override {
    sqlite3_interrupt(static_cast<const SqliteSession&>(session).handle());
  }

  int deadlock_victim(const std::vector<CycleMember>& cycle) const override { return sqlite_deadlock_victim(cycle); }

  ErrorEffect effect(const Error& e) const override {
    switch (e.cls) {
      case ErrorClass::Busy: return ErrorEffect::Blocked;
      // A WAL reader whose snapshot is stale can never write: the transaction has to roll back.
      case ErrorClass::SerializationFailure:
      // The runner broke a cycle of SQLITE_BUSY waits by choosing this transaction: it rolls back.
      case ErrorClass::Deadlock: return ErrorEffect::TransactionAborted;
      default: return ErrorEffect::StatementOnly;
    }
  }

  // A reset to the shape the file holds empties the kept tables and inserts the rows (ResetPlan). A reset to another
  // shape builds the new tables and rows in an empty in-memory database and copies its pages over the file with the
  // backup API (https://www.sqlite.org/backup.html): no DROP TABLE of the old tables, which took about half the CPU
  // time of a recreating reset (two tables and an index: 237 us with DROP and CREATE in the file, 128 us built in
  // memory and copied; over txprop_wss_bench 500, 110 -> 88 us per reset of any kind), and the file holds what a
  // fresh database would (tests/targets/reset_equivalence_test.cpp, ResetToAnotherShape). The
  // backup increments the schema cookie of the file (sqlite3_backup_step: iDestSchema+1), so every session reloads
  // its schema as after a DROP and CREATE (session_refresh_sql).
  void unchanged_since_reset(std::vector<std::string> tables) override { reset_plan_.unchanged(std::move(tables)); }
  std::size_t tables_left_by_last_reset() const override { return reset_plan_.left_as_they_were(); }

  void reset(const Schema& schema) override {
    const std::string script = reset_plan_.script(schema);
    if (reset_plan_.kept_tables()) {
      if (!script.empty()) run_reset_script(*control_, script);  // empty: every table left as it was
    } else {
      ++schema_generation_;  // before the copy: one that fails half-way may have changed the file's schema too
      restore_image(script);
    }
    reset_plan_.done(schema);
  }
  // A kept reset's DELETE and INSERT leave the schema cookie as it was: only a copied image changes the definitions.
  std::uint64_t schema_generation() const override { return schema_generation_; }

  DatabaseState read_state(const Schema& schema) override { return read_tables(*control_, schema, Dialect::Sqlite); }

 private:
  // Runs a reset script in one transaction. Without enforcement while the tables are dropped or emptied: with it,
  // DROP TABLE and DELETE of a referenced table would cascade, or fail on RESTRICT, in whatever order they come
  // (foreignkeys.html section 5). The PRAGMA is a no-op inside a transaction, hence before BEGIN and after COMMIT.
  static void run_reset_script(SqliteSession& on, const std::string& script) {
    const std::string wrapped = "PRAGMA foreign_keys=OFF;\nBEGIN;\n" + script + "COMMIT;";
    char* err = nullptr;
    const int rc = sqlite3_exec(on.handle(), wrapped.c_str(), nullptr, nullptr, &err);
    if (rc != SQLITE_OK) sqlite3_exec(on.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_exec(on.handle(), "PRAGMA foreign_keys=ON", nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) {
      const std::string msg = err ? err : "unknown error";
      sqlite3_free(err);
      throw StatementRejected("txprop: SQLite rejected the reset that creates the case's tables and rows: " + msg);
    }
  }

  // `script` (the tables and rows of a case, nothing to drop: Recreate::InEmptyDatabase) run in a new in-memory
  // database, whose pages then replace the file's, in one write transaction of the control connection. The image
  // session registers the writer functions too, for a trigger the script's rows fire.
  void restore_image(const std::string& script) {
    SqliteSession& image = empty_image();
    run_reset_script(image, script);
    sqlite3_backup* backup = sqlite3_backup_init(control_->handle(), "main", image.handle(), "main");
    if (!backup)
      throw StatementRejected(fmt::format("txprop: SQLite cannot copy the case's tables and rows into {}: {}", path_,
                                          sqlite3_errmsg(control_->handle())));
    // One step copies every page in one write transaction; one that fails is rolled back.
    const int rc = sqlite3_backup_step(backup, -1);
    sqlite3_backup_finish(backup);
    if (rc != SQLITE_DONE)
      throw StatementRejected(fmt::format("txprop: SQLite could not copy the case's tables and rows into {}: {}", path_,
                                          sqlite3_errstr(rc)));
  }

  // The in-memory database the images are built in, empty. One connection for the driver's life, emptied by
  // deserializing an empty image into it (https://www.sqlite.org/c3ref/deserialize.html: the schema's previous content
  // is discarded): opening a new in-memory connection with its pragmas and functions was a fifth of an image's CPU
  // time (113 us open, build and close, 87 us emptied and built, for two tables with an index; SQLite 3.40).
  SqliteSession& empty_image() {
    if (!image_) {
      image_ = std::make_unique<SqliteSession>(":memory:", "memory");
      return *image_;
    }
    if (sqlite3_deserialize(image_->handle(), "main", nullptr, 0, 0,
                            SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE) != SQLITE_OK) {
      const std::string msg = sqlite3_errmsg(image_->handle());
      image_.reset();  // the next reset starts from a new connection
      throw StatementRejected("txprop: SQLite cannot empty the in-memory database of the case's tables: " + msg);
    }
    return *image_;
  }

  // Removes the database file and its companions; whether the database file was there.
  static bool remove_database_files(const std::string& path) {
    const bool existed = std::remove(path.c_str()) == 0;
    for (const char* suffix : {"-wal", "-shm", "-journal"}) std::remove((path + suffix).c_str());
    return existed;
  }

  // The ownership lock: <name>.lock, locked with flock for the driver's life. It is made under a name no reclaim
  // looks at, locked, then renamed into place, so a <name>.lock file is locked from the moment it exists until its
  // owner ends (flock locks belong to the open file, across PID namespaces; SQLite's own locks are fcntl locks on
  // the database file, which flock does not disturb). Returns the descriptor that holds it; throws DriverError.
  static int take_ownership(const std::filesystem::path& dir, const std::string& name) {
    const std::string fresh = (dir / ("." + name + ".lock-new")).string();
    const int fd = ::open(fresh.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 || ::flock(fd, LOCK_EX | LOCK_NB) != 0 || ::rename(fresh.c_str(), (dir / (name + ".lock")).c_str()) != 0) {
      const std::string why = std::strerror(errno);
      if (fd >= 0) ::close(fd);
      std::remove(fresh.c_str());
      throw DriverError(fmt::format("cannot make the lock file of {} in {}: {}", name, dir.string(), why), Fault::Unreachable);
    }
    return fd;
  }

  // Database files whose owner's lock is free (its run was killed or crashed, in any PID namespace) are removed, the
  // lock held meanwhile; a database file without its lock file is one whose owner ended or whose reclaim was cut.
  static void reclaim(const std::filesystem::path& dir) {
    std::error_code ec;
    std::set<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      const std::string file = entry.path().filename().string();
      const auto dot = file.find('.');
      const std::string suffix = dot == std::string::npos ? "" : file.substr(dot);
      if (dot != std::string::npos && is_reclaimable_name(file.substr(0, dot)) &&
          (suffix == ".db" || suffix == ".db-wal" || suffix == ".db-shm" || suffix == ".db-journal" || suffix == ".lock"))
        names.insert(file.substr(0, dot));
    }
    for (const std::string& name : names) {
      const std::string lock = (dir / (name + ".lock")).string();
      const int fd = ::open(lock.c_str(), O_RDWR | O_CLOEXEC);
      if (fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        ::close(fd);  // held: its owner lives
        continue;
      }
      const std::string path = (dir / (name + ".db")).string();
      if (remove_database_files(path)) std::cerr << reclaimed_line("sqlite", path);
      std::remove(lock.c_str());
      if (fd >= 0) ::close(fd);
    }
  }

  int lock_fd_ = -1;
  std::string lock_path_;
  int cleanup_id_ = 0;
  std::string journal_mode_;
  std::string path_;
  std::unique_ptr<SqliteSession> control_;
  std::unique_ptr<SqliteSession> image_;  // empty_image()
  std::uint64_t schema_generation_ = 0;
  ResetPlan reset_plan_{Dialect::Sqlite, EmptyTable::Delete, Recreate::InEmptyDatabase};
};

}  // namespace

std::unique_ptr<Driver> open_sqlite_driver(const TargetConfig& config) {
  try {
    return std::make_unique<SqliteDriver>(config);
  } catch (const DriverError& e) {
    throw TargetError(fmt::format("txprop: target {}: {}", config.masked_uri(), e.what()), e.fault());
  }
}

}  // namespace txprop::drivers
