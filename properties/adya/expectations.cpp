// What a level claims: its ANSI name read as Adya's level. What the engine promises is its profile's documented
// behaviour, read by check_adya as it is.
#include "txprop/adya.hpp"
#include "txprop/adya_levels.hpp"

namespace txprop {

adya::AdyaLevel adya_claimed_level(IsolationLevel level) {
  switch (level) {
    case IsolationLevel::ReadUncommitted: return adya::AdyaLevel::PL1;
    case IsolationLevel::ReadCommitted: return adya::AdyaLevel::PL2;
    case IsolationLevel::RepeatableRead: return adya::AdyaLevel::PL2_99;
    case IsolationLevel::Serializable: return adya::AdyaLevel::PL3;
  }
  return adya::AdyaLevel::PL3;
}

}  // namespace txprop
