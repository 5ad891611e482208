// A property suite's settings: what the property's TXPROP_SETTINGS hooks set, then the environment (TXPROP_CASES,
// TXPROP_SEED, ..., RC_PARAMS), then the engine's capabilities and the suite's level (settings_for, property.hpp).
#pragma once

#include <string>

#include "txprop/property.hpp"

namespace txprop {

// What the property's TXPROP_SETTINGS hooks say, before the environment: which suites exist depends on this alone.
PropertySettings hooked_settings(const std::string& property, const SuiteParam& param);

}  // namespace txprop
