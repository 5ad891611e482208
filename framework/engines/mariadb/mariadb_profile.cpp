// MariaDB (InnoDB): what it is, what it can do, and what its documentation says about each isolation level under
// innodb_snapshot_isolation OFF (the 10.11 default) and ON. Checked on MariaDB 10.11.19. The MySQL profile
// (engines/mysql/) reuses this driver.
#include "mariadb_profile.hpp"

#include "mariadb_driver.hpp"

namespace txprop {

namespace {

constexpr const char* kReadUncommitted = "https://mariadb.com/kb/en/set-transaction/#read-uncommitted";
constexpr const char* kReadCommitted = "https://mariadb.com/kb/en/set-transaction/#read-committed";
constexpr const char* kRepeatableRead = "https://dev.mysql.com/doc/refman/8.0/en/innodb-transaction-isolation-levels.html";
constexpr const char* kSnapshotIsolation = "https://mariadb.com/kb/en/innodb-system-variables/#innodb_snapshot_isolation";
constexpr const char* kSerializable = "https://mariadb.com/kb/en/set-transaction/#serializable";

}  // namespace

std::vector<IsolationLevel> InnodbProfile::levels() const {
  return {IsolationLevel::ReadUncommitted, IsolationLevel::ReadCommitted, IsolationLevel::RepeatableRead,
          IsolationLevel::Serializable};
}

std::vector<EngineParameter> InnodbProfile::parameters() const {
  return {{"innodb_snapshot_isolation", EngineParameter::Type::Flag, {}, 0, 0,
           "set per session; ON makes a write to a row changed after the read view fail with error 1020"}};
}

std::string InnodbProfile::kind(const TargetConfig& config) const {
  return config.flag("innodb_snapshot_isolation").value_or(false) ? name() + "_si" : name();
}

std::string InnodbProfile::configuration(const TargetConfig& config) const {
  return std::string("innodb_snapshot_isolation=") +
         (config.flag("innodb_snapshot_isolation").value_or(false) ? "ON" : "OFF");
}

EngineCapabilities InnodbProfile::capabilities() const {
  EngineCapabilities c;
  c.insert_returning = c.delete_returning = true;  // MariaDB >= 10.5 / 10.0.5
  c.update_returning = false;                      // not in 10.11
  c.locking_reads = true;
  c.locking_plain_reads = {IsolationLevel::Serializable};  // plain SELECTs are LOCK IN SHARE MODE there
  c.writes_read_snapshot = false;  // UPDATE/DELETE read the latest committed versions (locking reads)
  c.wait_detection = "InnoDB lock waits (information_schema) on a control connection";
  c.aborting_errors = "deadlock (1213) and snapshot conflict (1020) roll the transaction back; a lock wait timeout "
                      "(1205) ends only the statement";
  return c;
}

DocumentedBehaviour InnodbProfile::documented(IsolationLevel level, const TargetConfig& config) const {
  DocumentedBehaviour d;
  const bool snapshot_isolation = config.flag("innodb_snapshot_isolation").value_or(false);
  switch (level) {
    case IsolationLevel::ReadUncommitted:
    case IsolationLevel::ReadCommitted: {
      if (level == IsolationLevel::ReadUncommitted) {
        d.promise = "PL-1";
        d.prevented = {"G0"};
        d.source = std::string("MariaDB SET TRANSACTION, READ UNCOMMITTED: dirty reads are possible, ") + kReadUncommitted;
        d.allowed["G1a"] = std::string("MariaDB SET TRANSACTION: READ UNCOMMITTED reads may see \"a possible earlier "
                                       "version of a row\" (dirty read), ") + kReadUncommitted;
        d.allowed["G1b"] = d.allowed["G1c"] = d.allowed["G1a"];
      } else {
        d.promise = "PL-2";
        d.prevented = {"G0", "G1a", "G1b", "G1c"};
        d.source = std::string("MariaDB SET TRANSACTION, READ COMMITTED: each consistent read sees its own fresh "
                               "snapshot, ") + kReadCommitted;
      }
      // Semi-consistent read: an UPDATE skips a locked row whose last committed version does not match its WHERE,
      // without waiting; and no gap locks, so an INSERT into another's predicate does not wait.
      d.write_serializable = false;
      d.serializability_source =
          std::string("MariaDB SET TRANSACTION, READ COMMITTED: only index records are locked, not the gaps, and "
                      "UPDATE uses a \"semi-consistent\" read, ") + kReadCommitted +
          " (MySQL 8.0 manual 15.7.2.1 says the same; WriteCheck section 6.4)";
      d.allowed["semi-consistent-read"] = d.serializability_source;
      return d;
    }
    case IsolationLevel::RepeatableRead:
      // Writes take next-key locks and read the latest committed version: writes serialize in commit order. Plain
      // SELECTs read the snapshot, so reads are not compared.
      d.serializability_source = std::string("MySQL 8.0 manual 15.7.2.1 REPEATABLE READ: locking reads, UPDATE and "
                                             "DELETE use next-key locks, ") + kRepeatableRead;
      if (snapshot_isolation) {
        // Not PL-SI as such: InnoDB's read view starts at the first consistent read, and locking reads and writes
        // before it read the latest version, so Adya's start points (G-SIa, G-SIb) do not apply. What the variable
        // promises is that no anti-dependency is overwritten: no G-single.
        d.promise = "PL-2 + no G-single";
        d.prevented = {"G0", "G1a", "G1b", "G1c", "G-single"};
        d.source = std::string("MariaDB innodb_snapshot_isolation=ON: a write to a record changed after the "
                               "transaction's read view fails with ER_CHECKREAD (1020), so lost updates and read skew "
                               "cannot commit; write skew remains possible, ") + kSnapshotIsolation;
        d.allowed["write-skew"] = d.allowed["G2-item"] = d.allowed["G2"] = d.source;
      } else {
        d.promise = "PL-2";
        d.prevented = {"G0", "G1a", "G1b", "G1c"};
        d.source = std::string("MariaDB innodb_snapshot_isolation=OFF (the 10.11 default): REPEATABLE READ reads from "
                               "a snapshot but UPDATE and DELETE read and overwrite the latest committed version, so "
                               "lost updates are possible (MDEV-26642, \"won't fix\"; the variable exists to prevent "
                               "them), ") + kSnapshotIsolation;
        d.allowed["lost-update"] = d.allowed["read-skew"] = d.allowed["G-single"] = d.source;
        d.allowed["write-skew"] = d.allowed["G2-item"] = d.allowed["G2"] = d.source;
      }
      return d;
    case IsolationLevel::Serializable:
      // Plain SELECTs take shared locks: two-phase locking, so commit order is the serialization order.
      d.promise = "PL-3";
      d.prevented = {"G0", "G1a", "G1b", "G1c", "G-single", "G2-item", "G2"};
      d.source = std::string("MariaDB SET TRANSACTION, SERIALIZABLE: plain SELECTs are locking reads (two-phase "
                             "locking), ") + kSerializable;
      d.reads_serializable = true;
      d.serializability_source =
          std::string("MariaDB SET TRANSACTION, SERIALIZABLE: like REPEATABLE READ but plain SELECTs are SELECT ... "
                      "LOCK IN SHARE MODE, ") + kSerializable;
      return d;
  }
  return d;
}

std::unique_ptr<drivers::Driver> InnodbProfile::open(const TargetConfig& config) const {
  return drivers::open_mariadb_driver(config);
}

namespace {

class MariadbProfile final : public InnodbProfile {
 public:
  std::string name() const override { return "mariadb"; }
  std::vector<std::string> schemes() const override { return {"mariadb"}; }
};

}  // namespace

std::unique_ptr<EngineProfile> mariadb_profile() { return std::make_unique<MariadbProfile>(); }

}  // namespace txprop
