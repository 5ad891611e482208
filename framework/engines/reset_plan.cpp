#include "reset_plan.hpp"

#include <algorithm>
#include <utility>

#include "txprop/driver.hpp"
#include "txprop/internal/env_settings.hpp"

namespace txprop::drivers {

namespace {

// TXPROP_KEEP_TABLES=0 makes every reset recreate the tables (the path before tables were kept): for benchmarks
// that compare both, and as a way out should an engine ever tell a kept table from a fresh one.
bool keeping_allowed() {
  try {
    return env_integer("TXPROP_KEEP_TABLES", 0, 1).value_or(1) == 1;
  } catch (const SettingError&) {
    return false;  // reported by validate_environment(); the full reset is never wrong
  }
}

}  // namespace

std::string schema_shape(const Schema& schema, Dialect d) {
  Schema shape = schema;
  for (Table& t : shape.tables) t.rows.clear();
  std::string out;
  for (const auto& s : render_setup(shape, d)) out += s + ";\n";
  return out;
}

ResetPlan::ResetPlan(Dialect dialect, EmptyTable empty, Recreate recreate)
    : dialect_(dialect), empty_(empty), recreate_(recreate), allowed_(keeping_allowed()) {}

std::string ResetPlan::script(const Schema& schema) {
  pending_shape_ = schema.tables.empty() ? std::string() : schema_shape(schema, dialect_);
  kept_ = allowed_ && !shape_.empty() && pending_shape_ == shape_;
  std::string out = kept_ ? restore_script(schema) : recreate_script(schema);
  // InnoDB refuses to TRUNCATE a table another table references, even an empty one, and to DROP it before its
  // children (errors 1701 and 1451): the control session's script runs with foreign_key_checks=0, which InnoDB
  // documents for exactly this (https://mariadb.com/kb/en/foreign-keys/#disabling-foreign-key-checks). Its initial rows
  // are valid by construction (Schema::check_foreign_keys). Measured by tests/targets/reset_equivalence_test.cpp.
  if (dialect_ == Dialect::MySql) out = "SET foreign_key_checks=0;\n" + out + "SET foreign_key_checks=1;\n";
  // Until done(), both the old and the new tables may exist and their shape is unknown: the next reset drops all.
  for (const auto& t : schema.tables)
    if (std::find(created_.begin(), created_.end(), t.name) == created_.end()) created_.push_back(t.name);
  shape_.clear();
  return out;
}

void ResetPlan::done(const Schema& schema) {
  created_.clear();
  for (const auto& t : schema.tables) created_.push_back(t.name);
  shape_ = std::move(pending_shape_);  // rendered once per reset, by script()
}

std::string ResetPlan::recreate_script(const Schema& schema) const {
  return reset_script(recreate_ == Recreate::InPlace ? created_ : std::vector<std::string>(), schema, dialect_);
}

std::string ResetPlan::restore_script(const Schema& schema) const {
  std::string out;
  if (empty_ == EmptyTable::Truncate && dialect_ == Dialect::PostgreSql) {
    // One statement for all tables; RESTART IDENTITY resets any sequence a column owns
    // (https://www.postgresql.org/docs/15/sql-truncate.html).
    std::string names;
    for (const Table& t : schema.tables) names += (names.empty() ? "" : ", ") + quote_identifier(t.name, dialect_);
    out += "TRUNCATE TABLE " + names + " RESTART IDENTITY;\n";
  } else {
    // MariaDB's TRUNCATE takes one table and also resets AUTO_INCREMENT (https://mariadb.com/kb/en/truncate-table/).
    const char* verb = empty_ == EmptyTable::Truncate ? "TRUNCATE TABLE " : "DELETE FROM ";
    for (const Table& t : schema.tables) out += verb + quote_identifier(t.name, dialect_) + ";\n";
  }
  for (const Table& t : schema.tables)
    if (!t.rows.empty()) out += render_insert_rows(t, dialect_) + ";\n";
  return out;
}

}  // namespace txprop::drivers
