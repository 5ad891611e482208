// WSS as a registered oracle: no preparation, the judge is check_wss.
#include "txprop/oracle.hpp"
#include "txprop/wss.hpp"

namespace txprop {

namespace {

class WssOracle final : public Oracle {
 public:
  std::string name() const override { return "wss"; }
  std::vector<std::string> finding_kinds() const override {
    return {"final-state-mismatch", "result-mismatch", "write-outcome-mismatch"};
  }
  Verdict judge(Target& target, const History& h) const override { return check_wss(target, h); }
};

}  // namespace

std::unique_ptr<Oracle> wss_oracle() { return std::make_unique<WssOracle>(); }

}  // namespace txprop
