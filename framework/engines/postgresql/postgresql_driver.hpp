#pragma once

#include <memory>
#include <string>
#include <vector>

#include "txprop/driver.hpp"

namespace txprop::drivers {
std::unique_ptr<Driver> open_postgresql_driver(const TargetConfig& config);

// Engine knowledge of the PostgreSQL driver, exposed for its server-free unit tests
// (tests/unit/driver_faults_test.cpp).
ErrorClass classify_sqlstate(const std::string& state);
Fault fault_of_sqlstate(const std::string& state);
int pg_deadlock_victim(const std::vector<CycleMember>& cycle);
}
