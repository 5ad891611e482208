#pragma once

#include <memory>

#include "txprop/driver.hpp"

namespace txprop::drivers {
// One session per node of config.hosts, each a MariaDB driver; throws TargetError with one line.
std::unique_ptr<Driver> open_galera_driver(const TargetConfig& config);
}
