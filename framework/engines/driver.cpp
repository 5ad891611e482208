#include "txprop/driver.hpp"

#include <unistd.h>

#include <atomic>
#include <random>

#include <fmt/format.h>

#include "cleanup.hpp"
#include "txprop/engine.hpp"
#include "txprop/env_settings.hpp"

namespace txprop::drivers {

std::unique_ptr<Driver> open_driver(const TargetConfig& config) { return config.profile().open(config); }

std::string reset_script(const std::vector<std::string>& previous_tables, const Schema& schema, Dialect d) {
  std::string script;
  for (const auto& t : previous_tables) script += "DROP TABLE IF EXISTS " + quote_identifier(t, d) + ";\n";
  for (const auto& s : render_setup(schema, d)) script += s + ";\n";
  return script;
}

DatabaseState read_tables(Session& control, const Schema& schema, Dialect d) {
  DatabaseState state;
  for (const auto& t : schema.tables) {
    Outcome o = control.execute("SELECT * FROM " + quote_identifier(t.name, d));
    if (!o.ok()) throw DriverError("txprop: cannot read table " + t.name + ": " + o.error.message);
    state[t.name] = sorted_rows(std::move(o.rows));
  }
  return state;
}

std::chrono::milliseconds control_timeout() {
  try {
    if (auto ms = env_integer("TXPROP_HANG_LIMIT_MS", 1, kMaxHangLimitMs)) return std::chrono::milliseconds(*ms);
  } catch (const SettingError&) {
    // Reported where the setting is read for the runner; the default bounds the control calls meanwhile.
  }
  return std::chrono::milliseconds(30000);
}

std::string unique_database_name() {
  // Distinct within the process for 65536 names, random across processes.
  static std::atomic<std::uint32_t> next{static_cast<std::uint32_t>(std::random_device{}())};
  // The host marker lets a later run reclaim what a dead process of this host left, and never touch another host's.
  return fmt::format("txprop_{}_{}{:04x}", static_cast<long>(::getpid()), host_marker(),
                     next++ & 0xffff);
}

}  // namespace txprop::drivers
