// The SDG property as a registered oracle "sdg": prepared with TxCheck's instrumentation, judged by check_sdg.
#include "instrumentation.hpp"
#include "sdg.hpp"
#include "txprop/adya_levels.hpp"
#include "txprop/oracle.hpp"

namespace txprop {

namespace {

class SdgOracle final : public Oracle {
 public:
  std::string name() const override { return "sdg"; }
  std::vector<std::string> finding_kinds() const override {
    std::vector<std::string> kinds = {"result-mismatch", "final-state-mismatch", "a3-violation"};
    for (const std::string& k : adya::adya_kinds()) kinds.push_back(k);
    return kinds;
  }
  TestCase prepare(const TestCase& c, const EngineProfile&) const override { return sdg::instrument(c); }
  TestCase strip(const TestCase& prepared) const override { return sdg::strip(prepared); }
  Verdict judge(Target& target, const History& h) const override { return sdg::check_sdg(target, h); }
};

}  // namespace

std::unique_ptr<Oracle> sdg_oracle() { return std::make_unique<SdgOracle>(); }

}  // namespace txprop
