// Troc as a registered oracle: the case gets row ids and writer lists; the judge rebuilds every statement's view.
#include "txprop/oracle.hpp"
#include "troc.hpp"

namespace txprop {

namespace {

class TrocOracle final : public Oracle {
 public:
  std::string name() const override { return "troc"; }
  std::vector<std::string> finding_kinds() const override {
    return {"inconsistent-blocking", "incorrect-result", "incorrect-final-state", "missing-abort"};
  }
  TestCase prepare(const TestCase& c, const EngineProfile&) const override { return troc::prepare(c); }
  TestCase strip(const TestCase& prepared) const override { return troc::strip(prepared); }
  Verdict judge(Target& target, const History& h) const override { return troc::check_troc(target, h); }
};

}  // namespace

std::unique_ptr<Oracle> troc_oracle() { return std::make_unique<TrocOracle>(); }

}  // namespace txprop
