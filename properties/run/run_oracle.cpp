// The run's own findings (crash, hang, invalid-statement) as one verdict named "run", and the oracle of that name:
// a scenario file expects them with 'run <target> <level> crash' (scenario.hpp), for engine bugs whose run ends in
// a run finding (a server that dies, cluster nodes that diverge) rather than in an isolation finding that another
// oracle judges.
#include <fmt/format.h>

#include "txprop/oracle.hpp"
#include "txprop/sql.hpp"

namespace txprop {

Verdict run_verdict(const History& h, Dialect dialect) {
  Verdict v = Verdict::pass("run");
  if (h.finding) {
    Finding f;
    f.kind = h.finding->kind == RunFinding::Kind::Crash ? "crash" : "hang";
    f.explanation = fmt::format("{} at {}: {}\n", f.kind, to_string(h.finding->step), h.finding->detail);
    v.findings.push_back(std::move(f));
  }
  for (std::size_t t = 0; t < h.outcomes.size(); ++t)
    for (std::size_t i = 0; i < h.outcomes[t].size(); ++i)
      if (h.outcomes[t][i].failed() && h.outcomes[t][i].error.cls == ErrorClass::InvalidStatement) {
        Finding f;
        f.kind = "invalid-statement";
        f.explanation = fmt::format("the engine rejected T{}.{} as invalid, a generator (or scenario) defect: {}\n  {}\n",
                                    t, i, render(h.test_case.transactions[t].step(i), dialect),
                                    h.outcomes[t][i].error.message);
        v.findings.push_back(std::move(f));
      }
  return v;
}

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
