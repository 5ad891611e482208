// What a level claims (its ANSI name read as Adya's level) and what the engine promises (its profile's documented
// behaviour), in Adya's terms.
#include "txprop/adya_levels.hpp"
#include "txprop/adya.hpp"
#include "txprop/engine.hpp"

namespace txprop {

namespace {

adya::AdyaLevel claimed_level(IsolationLevel level) {
  switch (level) {
    case IsolationLevel::ReadUncommitted: return adya::AdyaLevel::PL1;
    case IsolationLevel::ReadCommitted: return adya::AdyaLevel::PL2;
    case IsolationLevel::RepeatableRead: return adya::AdyaLevel::PL2_99;
    case IsolationLevel::Serializable: return adya::AdyaLevel::PL3;
  }
  return adya::AdyaLevel::PL3;
}

}  // namespace

AdyaExpectation adya_expectation(const TargetConfig& target, IsolationLevel level) {
  AdyaExpectation e;
  e.claimed_level = std::string(adya::to_string(claimed_level(level)));
  e.claimed = adya::proscribed(claimed_level(level));
  const DocumentedBehaviour d = target.profile().documented(level, target);
  e.promised_level = d.promise;
  e.promised = d.prevented;
  e.source = d.source;
  e.allowed = d.allowed;
  return e;
}

}  // namespace txprop
