#pragma once

#include <memory>
#include <string>

#include "txprop/driver.hpp"

namespace txprop::drivers {
// With `attach_to`, a driver that works in that existing database (made by the driver of another node of the same
// cluster) on config.host:config.port, and neither creates nor drops it.
std::unique_ptr<Driver> open_mariadb_driver(const TargetConfig& config, const std::string& attach_to = {});
}
