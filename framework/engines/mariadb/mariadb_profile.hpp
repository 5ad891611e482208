// InnoDB's behaviour as MariaDB documents it, shared with MySQL-protocol variants that reuse the MariaDB driver
// (engines/mysql/), which override what differs.
#pragma once

#include "txprop/engine.hpp"

namespace txprop {

class InnodbProfile : public EngineProfile {
 public:
  Dialect dialect() const override { return Dialect::MySql; }
  std::vector<IsolationLevel> levels() const override;
  int default_port() const override { return 3306; }
  std::vector<EngineParameter> parameters() const override;
  std::string kind(const TargetConfig& config) const override;
  std::vector<std::string> kinds() const override { return {name(), name() + "_si"}; }
  std::string configuration(const TargetConfig& config) const override;
  EngineCapabilities capabilities() const override;
  DocumentedBehaviour documented(IsolationLevel level, const TargetConfig& config) const override;
  VisibilityRules visibility(IsolationLevel level, const TargetConfig& config) const override;
  std::optional<bool> statement_reads_tables(drivers::Session& session, const std::string& select_sql) const override;
  std::unique_ptr<drivers::Driver> open(const TargetConfig& config) const override;
};

}  // namespace txprop
