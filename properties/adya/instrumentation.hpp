// IsoRel's instrumentation (shared/notes/seed-isorel.md sections 1-2), the one mechanism through which properties
// get row identity and version order: every table gets a row id (txp_rid) and a writer list (txp_wl, the ids of
// the transactions that wrote the row, oldest first, comma separated; 0 is the initial state). Generated
// statements never name these columns:
//   SELECT *      returns them (explicit column lists get them appended)
//   INSERT        sets a fresh txp_rid and txp_wl = '<id>'
//   UPDATE        appends ',<id>' to txp_wl; RETURNING txp_rid, txp_wl where the engine has UPDATE ... RETURNING
//   DELETE        RETURNING txp_rid, txp_wl (PostgreSQL, SQLite >= 3.35 and MariaDB >= 10.0.5 all have it)
// and a committed observer transaction reads every table after everything else, so every surviving row's whole
// writer list is seen. Transaction i of the case gets id i + 1. No constraint or index is put on the columns, so
// they add no locking of their own.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "txprop/engine.hpp"
#include "txprop/test_case.hpp"

namespace txprop::adya {

inline constexpr const char* kRowIdColumn = "txp_rid";
inline constexpr const char* kWriterListColumn = "txp_wl";

struct InstrumentationOptions {
  bool update_returning = true;  // false for engines without UPDATE ... RETURNING (MariaDB, MySQL)
  bool delete_returning = true;  // false for engines without DELETE ... RETURNING (MySQL): deletes go unseen
  bool observer = true;          // append the read-all observer transaction
};

InstrumentationOptions instrumentation_options(const EngineCapabilities& engine);

TestCase instrument(const TestCase& c, const InstrumentationOptions& options);
bool is_instrumented(const TestCase& c);
// The case as it was generated: instrumentation columns, SET items, RETURNING lists and the observer removed.
TestCase strip_instrumentation(const TestCase& c);
// One statement without its instrumentation (for explanations that quote the statement as generated).
::txprop::Statement strip_instrumentation_of(const ::txprop::Statement& s);

// "0,3,5" -> {0, 3, 5}; nullopt if it is not such a list.
std::optional<std::vector<std::uint32_t>> parse_writer_list(const std::string& text);

}  // namespace txprop::adya
