// The oracle "run": the run's own findings (crash, hang, invalid-statement; run_verdict in history.hpp), so that
// a scenario file expects them with 'run <target> <level> crash' (scenario.hpp), for engine bugs whose run ends in
// a run finding (a server that dies, cluster nodes that diverge) rather than in an isolation finding that another
// oracle judges.
#include <fmt/format.h>

#include "txprop/oracle.hpp"
#include "txprop/sql.hpp"

namespace txprop {

namespace {

class RunOracle final : public Oracle {
 public:
  std::string name() const override { return "run"; }
  // Only the run's own kinds, which every oracle may report (run_finding_kinds()).
  std::vector<std::string> finding_kinds() const override { return {}; }
  Verdict judge(Target& target, const History& h) const override { return run_verdict(h, target.dialect()); }
};

}  // namespace

std::unique_ptr<Oracle> run_oracle() { return std::make_unique<RunOracle>(); }

}  // namespace txprop
