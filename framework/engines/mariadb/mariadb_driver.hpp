#pragma once

#include <memory>

#include "txprop/driver.hpp"

namespace txprop::drivers {
std::unique_ptr<Driver> open_mariadb_driver(const TargetConfig& config);
}
