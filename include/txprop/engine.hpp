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
#include "txprop/driver.hpp"
#include "txprop/isolation.hpp"
#include "txprop/outcome.hpp"
#include "txprop/sql.hpp"
#include "txprop/target_config.hpp"

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

struct EngineCapabilities {
  bool insert_returning = false;  // INSERT ... RETURNING
  bool update_returning = false;  // UPDATE ... RETURNING
  bool delete_returning = false;  // DELETE ... RETURNING
  bool locking_reads = false;     // SELECT ... FOR UPDATE / FOR SHARE (LOCK IN SHARE MODE)
  // The locking clauses it has beyond FOR UPDATE / FOR SHARE (PostgreSQL's FOR KEY SHARE, FOR NO KEY UPDATE) and
  // what its locking reads may do instead of waiting (NOWAIT, SKIP LOCKED). The generator makes only these.
  std::vector<LockMode> lock_strengths;
  std::vector<LockWait> lock_waits;
  bool lock_table = false;  // LOCK TABLE t IN <mode> MODE [NOWAIT] inside a transaction (PostgreSQL)
  // Isolation levels at which a plain SELECT takes locks (InnoDB SERIALIZABLE turns it into LOCK IN SHARE MODE): an
  // extra read added by instrumentation would change the schedule there, so none is added.
  std::vector<IsolationLevel> locking_plain_reads;
  // UPDATE and DELETE evaluate their WHERE on the row versions a plain SELECT just before them would read (the
  // statement's snapshot: PostgreSQL, SQLite). False for InnoDB, whose writes read the latest committed versions.
  bool writes_read_snapshot = true;
  // A matched row that an UPDATE sets to the values it already has is not written: no new version, not counted as
  // changed, and the transaction's later consistent reads do not see it as its own (InnoDB: MDEV-26642). An
  // instrumentation column that every UPDATE changes would turn it into a write (issue 21, the differential check).
  bool update_skips_unchanged_rows = false;
  // A transaction's first statement that waits takes the snapshot when it finally runs (SQLite: a write that got
  // SQLITE_BUSY holds no read transaction and is retried); a read added before it would take the snapshot earlier and
  // turn the retried write into SQLITE_BUSY_SNAPSHOT.
  bool first_write_snapshot_after_wait = false;
  // UPDATE and DELETE joined to another table, rendered in the engine's dialect: MariaDB's multi-table
  // `UPDATE t JOIN u ON ... SET ...` and `DELETE t FROM t JOIN u ON ...`; PostgreSQL's `UPDATE t SET ... FROM u WHERE
  // ...` and `DELETE FROM t USING u WHERE ...`; SQLite has UPDATE ... FROM (3.33) but no DELETE ... USING.
  bool update_join = false;
  bool delete_join = false;
  // A joined UPDATE may set columns of both tables (MariaDB's multi-table UPDATE; PostgreSQL's FROM form sets only
  // the target table).
  bool update_joined_table = false;
  // RETURNING on a joined UPDATE / DELETE: of the written table's columns (PostgreSQL; SQLite's UPDATE ... FROM), and
  // also of the joined table's (PostgreSQL: "any column names of the table named by table_name or table(s) listed in
  // FROM"; SQLite: "the auxiliary tables named in the FROM clause may not participate in the RETURNING clause").
  // MariaDB's multi-table UPDATE and DELETE take no RETURNING.
  bool joined_write_returning = false;
  bool joined_write_returning_joined_table = false;
  // A joined DELETE may delete the joined table's matching rows too (MariaDB's `DELETE t, u FROM t JOIN u ON ...`;
  // PostgreSQL's USING form deletes from its target table only).
  bool delete_joined_table = false;
  // The upsert forms the engine has (statement.hpp), and whether its DO UPDATE takes a WHERE (PostgreSQL, SQLite;
  // MariaDB's ON DUPLICATE KEY UPDATE has none). The generator makes only these.
  std::vector<Upsert> upserts;
  bool upsert_update_where = false;
  // Forms a server has from some version on (EngineProfile::capabilities(config)): MERGE (statement.hpp), and unique
  // indexes whose NULLs are not distinct (CREATE UNIQUE INDEX ... NULLS NOT DISTINCT; the SQL model does not make
  // them yet).
  bool merge = false;
  bool unique_nulls_not_distinct = false;
  // COMMIT AND CHAIN / ROLLBACK AND CHAIN (PostgreSQL 12+, MariaDB; not SQLite).
  bool chain = false;
  std::string wait_detection;     // how the runner learns that a statement waits on a lock, in words
  std::string aborting_errors;    // which errors end the whole transaction, in words (the driver decides)
};

// "T1.2 is MERGE (...), which <what> does not have" for the first statement of `c` in a form `capabilities` lack (MERGE
// where `merge` is false), "" if none: Target::run refuses such a case with this line before it sends anything.
std::string missing_capability(const TestCase& c, const EngineCapabilities& capabilities, const std::string& what);

// What the engine's documentation says about one isolation level under one configuration. Every oracle reads its
// facts from here, so each is written once, with its source.
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
  // WriteCheck's write-specific serializability (shared/notes/seed-troc-writecheck.md B2): the engine detects every
  // write-write conflict, predicate ones included, so the committed writes equal a serial replay.
  bool write_serializable = true;
  bool reads_serializable = false;  // the reads match that replay too
  bool any_serial_order = false;    // serializable, but not necessarily in the order transactions ended
  std::string serializability_source;
  bool tested = true;  // false for profiles no server here could check (MySQL)
  // TxCheck's Assumption A3 (shared/notes/seed-txcheck-thesis.md section 1.4): no transaction overwrites a version
  // newer than one it read, so a plain SELECT run right before a write (in the same transaction, nothing in between)
  // returns exactly the versions the write overwrites. The SDG oracle's item dependencies are exact only where it
  // holds; elsewhere what it finds in that pattern is documented behaviour with `assumption_a3_source`.
  bool assumption_a3 = true;
  std::string assumption_a3_source;

  // The source that allows `phenomenon`, or "" when the documentation does not allow it.
  std::string allows(const std::string& phenomenon) const;
};

// Troc's visibility and lock tables (shared/notes/seed-troc-writecheck.md A5, A6) as data: for one isolation level
// under one configuration, which row versions each kind of statement sees, which locks it takes, and when a
// transaction's snapshot is taken. The Troc oracle (properties/troc/) rebuilds every statement's view from these rows;
// every row carries the passage it comes from.
enum class ViewRule {
  Latest,             // V1+V2: the latest version of every row, committed or not (dirty reads)
  LatestCommitted,    // V1+V3: own writes, and the latest committed version of the others ("current read")
  Snapshot,           // V1+V4: own writes, and versions committed before the transaction's snapshot
  StatementSnapshot,  // own writes, and versions committed before the statement started; a row found locked is
                      // re-checked on its latest committed version once the lock is released (PostgreSQL READ
                      // COMMITTED); without a wait this is LatestCommitted
};
enum class LockStrength { None, Shared, Exclusive };
enum class SnapshotPoint {
  Begin,           // BEGIN takes it
  FirstStatement,  // the first statement of any kind after BEGIN (PostgreSQL, SQLite WAL)
  FirstRead,       // the first plain (consistent) SELECT (InnoDB's read view)
};

struct StatementRule {
  ViewRule view = ViewRule::LatestCommitted;
  LockStrength lock = LockStrength::None;
  bool predicate = false;  // also locks its predicate (next-key / gap locks): a row another transaction inserts or
                           // updates into its WHERE must wait
  // A statement that does not wait reads or writes (and locks) only rows that match on start_view too (InnoDB's
  // semi-consistent UPDATE at READ UNCOMMITTED: a row whose uncommitted version does not match is skipped without
  // waiting). After a wait the statement sees `view` as it is when it completes (Troc's rule).
  std::string source;
  bool recheck_from_start = false;
  ViewRule start_view = ViewRule::LatestCommitted;
  // Which versions a subquery inside this statement reads, where that differs from `view` (InnoDB: the subquery of a
  // SELECT ... FOR UPDATE is a consistent read; that of an UPDATE at REPEATABLE READ is a locking read), with where
  // that is documented or observed. nullopt: the statement's own `view`.
  std::optional<ViewRule> subquery_view = std::nullopt;
  std::string subquery_source = {};

  // The view a subquery of this statement reads.
  ViewRule subquery() const { return subquery_view.value_or(view); }
};

struct VisibilityRules {
  bool modelled = false;  // false: no rules for this engine or level; the Troc oracle cannot judge it
  StatementRule select, select_share, select_update, update, insert, delete_;
  SnapshotPoint snapshot_point = SnapshotPoint::FirstStatement;
  std::string snapshot_source;
  // A first statement that waits takes its snapshot when it finally runs, not when it was sent (SQLite: a statement
  // that got SQLITE_BUSY holds no read transaction and is retried).
  bool snapshot_after_wait = false;
  // The first consistent read takes the snapshot only if the engine reads a table for it (InnoDB opens its read view
  // in the row search: a SELECT the optimizer answers without asking the storage engine for a row, e.g. "Impossible
  // WHERE", takes none). The profile's statement_reads_tables() says which; the source is in snapshot_source.
  bool snapshot_needs_table_read = false;
  // A locking read that waits partway through its scan has read the rows before the wait earlier, and the locks of
  // those it did not return are released at once, so others may change them meanwhile: each row of its result is a
  // version the row had at some point between its start and its completion (InnoDB READ COMMITTED and below).
  bool rows_read_during_wait = false;
  std::string rows_read_during_wait_source = {};
  // A statement that waited ran again from its start once it could (SQLite: SQLITE_BUSY, retried): every part of it,
  // subqueries included, reads as at its completion.
  bool waits_by_retry = false;
  // Locks cover the whole database (SQLite: one writer at a time); otherwise rows and unique-index values.
  bool database_locks = false;
  // An INSERT, or an UPDATE setting a unique value, waits while another active transaction has written that value
  // (inserted, deleted, or updated from or to it).
  bool unique_value_waits = true;
  std::string lock_source;
  // First-updater-wins: a write (or locking read, with conflict_on_locking_reads) that finds a row whose latest
  // committed version is not in its transaction's snapshot fails with conflict_error; with
  // conflict_on_any_commit, any commit after the snapshot that changed rows makes the next write fail (SQLite WAL).
  bool snapshot_write_conflict = false;
  bool conflict_on_locking_reads = false;
  bool conflict_on_any_commit = false;
  ErrorClass conflict_error = ErrorClass::SerializationFailure;
  std::string conflict_source;

  // A joined UPDATE (UPDATE t JOIN u / UPDATE ... FROM), where its rule differs from a single-table UPDATE's (InnoDB
  // READ UNCOMMITTED: no semi-consistent read); nullopt: `update`.
  std::optional<StatementRule> joined_update;

  const StatementRule& rule(StatementKind kind, LockMode lock) const;
  // The rule of a statement, a joined write's included.
  const StatementRule& rule(StatementKind kind, LockMode lock, bool joined) const {
    return joined && kind == StatementKind::Update && joined_update ? *joined_update : rule(kind, lock);
  }
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
  // Troc's visibility and lock rules for a transaction at `level` (not modelled by default).
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
