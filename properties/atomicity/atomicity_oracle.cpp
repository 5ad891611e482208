// Atomicity as a registered oracle: no preparation, the judge is check_atomicity.
#include "txprop/atomicity.hpp"
#include "txprop/oracle.hpp"

namespace txprop {

namespace {

class AtomicityOracle final : public Oracle {
 public:
  std::string name() const override { return "atomicity"; }
  std::vector<std::string> finding_kinds() const override { return {"aborted-effect"}; }
  Verdict judge(Target& target, const History& h) const override { return check_atomicity(target, h); }
};

}  // namespace

std::unique_ptr<Oracle> atomicity_oracle() { return std::make_unique<AtomicityOracle>(); }

}  // namespace txprop
