#pragma once

#include <memory>
#include <vector>

#include "txprop/driver.hpp"

namespace txprop::drivers {
std::unique_ptr<Driver> open_sqlite_driver(const TargetConfig& config);
// The SQLite driver's deadlock rule (Driver::deadlock_victim), exposed for its unit test.
int sqlite_deadlock_victim(const std::vector<CycleMember>& cycle);
}
