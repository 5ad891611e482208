#include "txprop/driver.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdint>
#include <mutex>
#include <random>

#include <fmt/format.h>

#include "cleanup.hpp"
#include "session_errors.hpp"
#include "txprop/engine.hpp"
#include "txprop/internal/env_settings.hpp"

namespace txprop::drivers {

std::unique_ptr<Driver> open_driver(const TargetConfig& config) { return config.profile().open(config); }

DriverError target_fault(const TargetConfig& config, Fault fault, const std::string& detail) {
  return DriverError(fmt::format("txprop: target {}: {}", config.masked_uri(), detail), fault, true);
}

Fault fault_of(const Error& e) { return e.fault != Fault::None ? e.fault : Fault::Rejected; }

bool is_commit(const std::string& sql) {
  std::string head;
  for (char c : sql) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == ';') {
      if (!head.empty()) break;
      continue;
    }
    head += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return head == "COMMIT";
}

Outcome commit_outcome(const std::string& sql, Outcome o) {
  if (o.failed() && o.error.cls == ErrorClass::LostConnection && is_commit(sql))
    o.error.cls = ErrorClass::CommitOutcomeUnknown;
  return o;
}

namespace {

// MariaDB/MySQL: a table's indexes declared in its CREATE TABLE (`[UNIQUE] KEY name (columns)`), one DDL statement per
// table, where each CREATE INDEX costs InnoDB another new table definition: a table with two indexes took 23.7 ms
// with CREATE INDEX and 10.5 ms inline on this machine (issue 22). InnoDB builds the same table either way, the
// clustered index included (tests/targets/reset_equivalence_test.cpp, InlineIndexesBuildTheSameTableMariadb).
// render_create_table ends in ") ENGINE=InnoDB" for this dialect; the keys go before it.
std::string create_table_with_indexes(const Table& t) {
  static const std::string tail = ") ENGINE=InnoDB";
  const std::string create = render_create_table(t, Dialect::MySql);
  if (t.indexes.empty() || !create.ends_with(tail)) return create;
  std::string keys;
  for (const Index& i : t.indexes) {
    std::string columns;
    for (const std::string& c : i.columns) columns += (columns.empty() ? "" : ", ") + quote_identifier(c, Dialect::MySql);
    keys += fmt::format(", {}KEY {} ({})", i.unique ? "UNIQUE " : "", quote_identifier(i.name, Dialect::MySql), columns);
  }
  return create.substr(0, create.size() - tail.size()) + keys + tail;
}

// render_setup's statements, with MariaDB's indexes inline.
std::vector<std::string> setup_statements(const Schema& schema, Dialect d) {
  if (d != Dialect::MySql) return render_setup(schema, d);
  std::vector<std::string> out;
  for (const Table& t : schema.tables) {
    out.push_back(create_table_with_indexes(t));
    if (!t.rows.empty()) out.push_back(render_insert_rows(t, d));
  }
  return out;
}

}  // namespace

std::string reset_script(const std::vector<std::string>& previous_tables, const Schema& schema, Dialect d) {
  std::string script;
  // Children before parents (a schema declares referenced tables first, TestCase::validate): a referenced table is
  // not dropped while a table that references it remains. PostgreSQL's CASCADE also drops the foreign keys of a
  // referencing table the list may not name (https://www.postgresql.org/docs/15/sql-droptable.html); MariaDB's
  // script runs with foreign_key_checks=0 (ResetPlan), SQLite's with foreign_keys=OFF (its driver).
  const char* cascade = d == Dialect::PostgreSql ? " CASCADE" : "";
  for (auto t = previous_tables.rbegin(); t != previous_tables.rend(); ++t)
    script += "DROP TABLE IF EXISTS " + quote_identifier(*t, d) + cascade + ";\n";
  for (const auto& s : setup_statements(schema, d)) script += s + ";\n";
  return script;
}

namespace {

std::string read_table_sql(const Table& t, Dialect d) { return "SELECT * FROM " + quote_identifier(t.name, d); }

void add_table(DatabaseState& state, const Table& t, Outcome o) {
  if (!o.ok()) throw DriverError("txprop: cannot read table " + t.name + ": " + o.error.message, fault_of(o.error));
  state[t.name] = sorted_rows(std::move(o.rows));
}

}  // namespace

DatabaseState read_tables(Session& control, const Schema& schema, Dialect d) {
  DatabaseState state;
  for (const auto& t : schema.tables) add_table(state, t, control.execute(read_table_sql(t, d)));
  return state;
}

DatabaseState read_tables(const ReadEach& read_each, const Schema& schema, Dialect d) {
  std::vector<std::string> statements;
  for (const auto& t : schema.tables) statements.push_back(read_table_sql(t, d));
  std::vector<Outcome> outcomes = statements.empty() ? std::vector<Outcome>() : read_each(statements);
  DatabaseState state;
  for (std::size_t i = 0; i < schema.tables.size(); ++i)
    add_table(state, schema.tables[i],
              i < outcomes.size() ? std::move(outcomes[i]) : Outcome::failure(ErrorClass::Other, "", "no result"));
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
  // 64 random bits make the name unique across hosts and PID namespaces, where the pid alone is not (two runs in
  // containers may both be pid 7); the pid only helps a person find the process. Ownership is a lock named for the
  // object (cleanup.hpp), so the name carries no host: any host may reclaim an object whose lock is free.
  static std::mutex mutex;
  static std::random_device device;
  std::lock_guard lock(mutex);
  const std::uint64_t random = (static_cast<std::uint64_t>(device()) << 32) | device();
  return fmt::format("txprop_{}_{:016x}", static_cast<long>(::getpid()), random);
}

}  // namespace txprop::drivers
