// MySQL: InnoDB behind the MySQL protocol, on the MariaDB driver. No MySQL server can be installed here, so this
// profile follows the MySQL 8.0 manual and is marked untested; a user who configures mysql:// is told so once.
#include "../mariadb/mariadb_profile.hpp"

namespace txprop {

namespace {

class MysqlProfile final : public InnodbProfile {
 public:
  std::string name() const override { return "mysql"; }
  std::vector<std::string> schemes() const override { return {"mysql"}; }
  std::string untested() const override {
    return "the MySQL profile (MariaDB driver, MySQL 8.0 manual) was never checked against a MySQL server; its "
           "documented-behaviour table may be wrong for your version";
  }
  // innodb_snapshot_isolation is MariaDB's (10.6.18 and later); MySQL has no such variable.
  std::vector<EngineParameter> parameters() const override { return {}; }
  std::string kind(const TargetConfig&) const override { return name(); }
  std::vector<std::string> kinds() const override { return {name()}; }
  std::string configuration(const TargetConfig&) const override { return {}; }
  EngineCapabilities capabilities() const override {
    EngineCapabilities c = InnodbProfile::capabilities();
    c.insert_returning = c.delete_returning = false;  // MySQL 8.0 has no RETURNING
    return c;
  }
  DocumentedBehaviour documented(IsolationLevel level, const TargetConfig& config) const override {
    DocumentedBehaviour d = InnodbProfile::documented(level, config);
    d.tested = false;
    if (level == IsolationLevel::ReadUncommitted)
      d.allowed["G1a"] = d.allowed["G1b"] = d.allowed["G1c"] =
          "MySQL 8.0 reference manual 15.7.2.1: READ UNCOMMITTED permits dirty reads, "
          "https://dev.mysql.com/doc/refman/8.0/en/innodb-transaction-isolation-levels.html";
    return d;
  }
};

}  // namespace

std::unique_ptr<EngineProfile> mysql_profile() { return std::make_unique<MysqlProfile>(); }

}  // namespace txprop
