#pragma once

#include <memory>
#include <string>

#include "txprop/driver.hpp"

namespace txprop::drivers {
// With `attach_to`, a driver that works in that existing database (made by the driver of another node of the same
// cluster) on config.host:config.port, and neither creates nor drops it.
std::unique_ptr<Driver> open_mariadb_driver(const TargetConfig& config, const std::string& attach_to = {});

// Engine knowledge of the MariaDB/MySQL driver, exposed for its server-free unit tests
// (tests/unit/driver_faults_test.cpp). `timed_out`: the call used up its client timeout.
ErrorClass classify_errno(unsigned int code);
Fault fault_of_errno(unsigned code, bool timed_out);
Fault connect_fault(unsigned code, bool timed_out);
}
