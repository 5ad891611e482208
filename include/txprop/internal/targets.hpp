// The configured targets of this test process, each opened once and shared by every test that uses it.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "txprop/target.hpp"

namespace txprop {

// The first configured target (TXPROP_TARGETS) that satisfies `pred`, if any.
std::optional<TargetConfig> find_configured_target(const std::function<bool(const TargetConfig&)>& pred);

// The live Target for `config`, opened on first use and kept for the rest of the process. Throws TargetError.
Target& shared_target(const TargetConfig& config);

// Closes every shared target (drops their test databases). Test programs that include txprop/property.hpp do this
// when GoogleTest tears down; a target never closed leaves its test database behind.
void close_shared_targets();

// True when the environment says this is CI (CI is set and not "0"/"false"): a test that needs an engine must
// then fail, not skip, when the engine is not configured.
bool running_in_ci();

}  // namespace txprop
