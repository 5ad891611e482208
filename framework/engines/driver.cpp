#include "txprop/driver.hpp"

#include <unistd.h>

#include <random>

#include <fmt/format.h>

#include "txprop/engine.hpp"

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

std::string unique_database_name() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  return fmt::format("txprop_{}_{:08x}", static_cast<long>(::getpid()), static_cast<std::uint32_t>(rng()));
}

}  // namespace txprop::drivers
