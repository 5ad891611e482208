// SQLite, embedded: what it is, what it can do, and what its documentation says about isolation. Checked on SQLite
// 3.40.1.
#include "sqlite_driver.hpp"
#include "txprop/engine.hpp"

namespace txprop {

namespace {

class SqliteProfile final : public EngineProfile {
 public:
  std::string name() const override { return "sqlite"; }
  std::vector<std::string> schemes() const override { return {"sqlite"}; }
  Dialect dialect() const override { return Dialect::Sqlite; }
  // Separate connections to one file are always serializable (READ UNCOMMITTED needs a shared cache).
  std::vector<IsolationLevel> levels() const override { return {IsolationLevel::Serializable}; }
  bool embedded() const override { return true; }
  std::vector<EngineParameter> parameters() const override {
    return {{"journal_mode", EngineParameter::Type::Choice, {"wal", "delete"}, 0, 0,
             "wal (default) or delete, the rollback journal"}};
  }
  std::string kind(const TargetConfig& config) const override {
    return config.param("journal_mode", "wal") == "delete" ? "sqlite_journal" : "sqlite";
  }
  std::vector<std::string> kinds() const override { return {"sqlite", "sqlite_journal"}; }
  std::string configuration(const TargetConfig& config) const override {
    return "journal_mode=" + config.param("journal_mode", "wal");
  }

  EngineCapabilities capabilities() const override {
    EngineCapabilities c;
    c.insert_returning = c.update_returning = c.delete_returning = true;  // RETURNING since 3.35
    c.locking_reads = false;  // no SELECT ... FOR UPDATE at all, so no lock strengths, NOWAIT or SKIP LOCKED either
    // UPDATE ... FROM since 3.33 (https://www.sqlite.org/lang_update.html#update_from); no DELETE ... USING.
    c.update_join = true;
    // RETURNING on UPDATE ... FROM names only the updated table (https://www.sqlite.org/lang_returning.html, 7.
    // Limitations: "the auxiliary tables named in the FROM clause may not participate in the RETURNING clause").
    c.joined_write_returning = true;
    // UPSERT since 3.24 (https://www.sqlite.org/lang_upsert.html: ON CONFLICT (k) DO NOTHING | DO UPDATE SET ...
    // WHERE ...) and the conflict clauses INSERT OR IGNORE / OR REPLACE (https://www.sqlite.org/lang_conflict.html).
    c.upserts = {Upsert::DoNothing, Upsert::DoUpdate, Upsert::Ignore, Upsert::Replace};
    c.upsert_update_where = true;
    // A write that is a transaction's first statement and gets SQLITE_BUSY holds no read transaction; its retry reads
    // the database as it is then (https://www.sqlite.org/lang_transaction.html, "deferred"; with WAL,
    // https://www.sqlite.org/wal.html#concurrency: a read transaction keeps its snapshot, and its write fails with
    // SQLITE_BUSY_SNAPSHOT when the database changed since).
    c.first_write_snapshot_after_wait = true;
    // An UPDATE that rewrites a row with the bytes it has leaves its page clean (btree.c, btreeOverwriteContent calls
    // sqlite3PagerWrite only where memcmp finds a difference), so a transaction whose writes changed nothing commits
    // no page: a WAL reader's snapshot stays current (its later write does not fail with SQLITE_BUSY_SNAPSHOT), and a
    // rollback-journal COMMIT needs no EXCLUSIVE lock. Checked by hand on 3.40.1 (a reader's write after another's
    // `UPDATE t SET x = 1` of x = 1 committed succeeds; after `SET x = 2`, 517). A writer-list column that every UPDATE
    // changes made such a commit a real one (the instrumentation differential at 2,000 cases, SQLite SERIALIZABLE,
    // cases 1295, 1554, 1806); tests/targets/sdg_first_write_lock_test.cpp.
    c.update_skips_unchanged_rows = true;
    // "foreign key actions are executed much like triggers" and fire the child's own triggers, also with
    // recursive_triggers off (https://www.sqlite.org/foreignkeys.html section 4.3; checked on 3.40.1).
    c.cascaded_writes_unrecorded.clear();
    c.wait_detection = "SQLITE_BUSY with busy timeout 0: the statement would wait; the runner retries it when "
                       "another transaction ends";
    c.aborting_errors = "SQLITE_BUSY_SNAPSHOT (a WAL reader's stale snapshot cannot write) ends the transaction; "
                        "other errors end only the statement";
    return c;
  }

  DocumentedBehaviour documented(IsolationLevel, const TargetConfig& config) const override {
    DocumentedBehaviour d;
    d.promise = "PL-3";
    d.prevented = {"G0", "G1a", "G1b", "G1c", "G-single", "G2-item", "G2"};
    d.source = "SQLite isolation: \"SQLite implements serializable transactions\", https://www.sqlite.org/isolation.html";
    // One writer at a time: every write-write conflict waits (SQLITE_BUSY) or aborts (BUSY_SNAPSHOT). In WAL mode a
    // reader keeps the snapshot of its first read, so a read-only transaction is serialized where it started, not
    // where it ended.
    d.wss.reads_serializable = true;
    d.wss.any_serial_order = config.param("journal_mode", "wal") == "wal";
    d.wss.source =
        "SQLite isolation: https://www.sqlite.org/isolation.html (\"SQLite implements serializable transactions\"; "
        "WAL readers see a snapshot from the start of their read transaction)";
    // One writer at a time, and a reader whose snapshot is stale cannot write (SQLITE_BUSY_SNAPSHOT): a write never
    // overwrites a version newer than what the transaction read.
    d.sdg.assumption_a3 = true;
    d.sdg.source =
        "SQLite isolation: one writer at a time; a WAL reader whose snapshot is stale gets SQLITE_BUSY_SNAPSHOT when "
        "it writes, https://www.sqlite.org/isolation.html";
    return d;
  }

  // Troc's tables for SQLite: a transaction (BEGIN DEFERRED) reads one snapshot from its first statement on (WAL: the
  // read transaction's end mark; rollback journal: the SHARED lock keeps writers from committing), sees its own
  // writes, and writes under one database-wide write lock (a second writer gets SQLITE_BUSY, which the runner treats
  // as waiting). A WAL transaction whose snapshot is older than the last commit cannot write (SQLITE_BUSY_SNAPSHOT).
  VisibilityRules visibility(IsolationLevel, const TargetConfig&) const override {
    VisibilityRules v;
    v.modelled = true;
    const std::string reads = "SQLite isolation: \"a read transaction ... sees a snapshot of the database as it "
                              "existed at the moment the read transaction started\" (WAL) and the SHARED lock "
                              "(rollback journal), https://www.sqlite.org/isolation.html";
    const std::string writes = "SQLite locking: one RESERVED (write) lock per database; a second writer gets "
                               "SQLITE_BUSY, https://www.sqlite.org/lockingv3.html";
    v.select = v.select_share = v.select_update = {ViewRule::Snapshot, LockStrength::None, false, reads};
    v.update = v.insert = v.delete_ = {ViewRule::Snapshot, LockStrength::Exclusive, false, reads + "; " + writes};
    v.snapshot_point = SnapshotPoint::FirstStatement;
    v.snapshot_source = "SQLite BEGIN DEFERRED: no lock until the database is first accessed, "
                        "https://www.sqlite.org/lang_transaction.html";
    v.snapshot_after_wait = true;
    v.waits_by_retry = true;  // the runner retries a statement that got SQLITE_BUSY from its start
    v.database_locks = true;
    v.lock_source = writes;
    v.snapshot_write_conflict = true;
    v.conflict_on_any_commit = true;
    v.conflict_error = ErrorClass::SerializationFailure;
    v.conflict_source = "SQLite WAL: a read transaction whose snapshot is older than the latest commit cannot become a "
                        "write transaction (SQLITE_BUSY_SNAPSHOT), https://www.sqlite.org/rescode.html#busy_snapshot";
    return v;
  }

  std::unique_ptr<drivers::Driver> open(const TargetConfig& config) const override {
    return drivers::open_sqlite_driver(config);
  }
};

}  // namespace

std::unique_ptr<EngineProfile> sqlite_profile() { return std::make_unique<SqliteProfile>(); }

}  // namespace txprop
