#include "reset_plan.hpp"

#include <algorithm>
#include <set>
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
  left_ = 0;
  std::string out;
  if (kept_) {
    const std::vector<const Table*> restored = to_restore(schema);
    left_ = schema.tables.size() - restored.size();
    out = restore_script(schema, restored);
  } else {
    out = recreate_script(schema);
  }
  unchanged_.clear();
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
  last_ = schema;
  created_.clear();
  for (const auto& t : schema.tables) created_.push_back(t.name);
  shape_ = std::move(pending_shape_);  // rendered once per reset, by script()
}

std::string ResetPlan::recreate_script(const Schema& schema) const {
  return reset_script(recreate_ == Recreate::InPlace ? created_ : std::vector<std::string>(), schema, dialect_);
}

// The tables of `schema` (kept: same shape as last_) that the script empties and fills, in schema order: all but those
// no write reached since the last reset (unchanged_) that get the rows they hold. Leaving a table as it is leaves it
// as a fresh one because its last reset made it so and nothing wrote it since (tests/targets/reset_equivalence_test.cpp,
// UnchangedTablesLeftAsTheyWere). Restored as well: a table whose foreign key references a restored one (PostgreSQL
// refuses to TRUNCATE a referenced table without its referencing ones, https://www.postgresql.org/docs/15/sql-truncate.html),
// and the log table of a restored table's cascade triggers (SQLite's DELETE fires them: render_cascade_log).
std::vector<const Table*> ResetPlan::to_restore(const Schema& schema) const {
  std::set<std::string> restored;
  for (const Table& t : schema.tables) {
    const Table* before = last_.find_table(t.name);
    const bool unchanged = std::find(unchanged_.begin(), unchanged_.end(), t.name) != unchanged_.end() && before &&
                           before->rows == t.rows;
    if (!unchanged) restored.insert(t.name);
  }
  for (bool grew = true; grew;) {
    grew = false;
    for (const Table& t : schema.tables) {
      for (const ForeignKey& k : t.foreign_keys)
        if (restored.count(k.table)) grew |= restored.insert(t.name).second;
      if (t.cascade_log && restored.count(t.name)) grew |= restored.insert(t.cascade_log->log_table).second;
    }
  }
  std::vector<const Table*> out;
  for (const Table& t : schema.tables)
    if (restored.count(t.name)) out.push_back(&t);
  return out;
}

std::string ResetPlan::restore_script(const Schema& schema, const std::vector<const Table*>& restored) const {
  // Nothing to restore: a statement all the same, so that a lost control connection is found (and reconnected) by
  // the reset as before, not by the final-state read after the run (MariaDB's script has its SET statements).
  if (restored.empty()) return dialect_ == Dialect::PostgreSql && !schema.tables.empty() ? "SELECT 1;\n" : "";
  std::string out;
  if (empty_ == EmptyTable::Truncate && dialect_ == Dialect::PostgreSql) {
    // One statement for all tables; RESTART IDENTITY resets any sequence a column owns
    // (https://www.postgresql.org/docs/15/sql-truncate.html).
    std::string names;
    for (const Table* t : restored) names += (names.empty() ? "" : ", ") + quote_identifier(t->name, dialect_);
    out += "TRUNCATE TABLE " + names + " RESTART IDENTITY;\n";
  } else {
    // MariaDB's TRUNCATE takes one table and also resets AUTO_INCREMENT (https://mariadb.com/kb/en/truncate-table/).
    const char* verb = empty_ == EmptyTable::Truncate ? "TRUNCATE TABLE " : "DELETE FROM ";
    for (const Table* t : restored) out += verb + quote_identifier(t->name, dialect_) + ";\n";
  }
  for (const Table* t : restored)
    if (!t->rows.empty()) out += render_insert_rows(*t, dialect_) + ";\n";
  return out;
}

}  // namespace txprop::drivers
