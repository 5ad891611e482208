// What a foreign key makes an engine do beyond the statement's own rows, for the oracles whose instrumentation records
// it or refuses it (issue 17 item 3): one owner, so that Adya and SDG refuse and record the same keys.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "txprop/schema.hpp"
#include "txprop/statement.hpp"

namespace txprop {

// "table t1 has a foreign key to t0 ON DELETE CASCADE" for the first foreign key whose action writes the referencing
// rows (CASCADE or SET NULL, on delete or update), "" if none (refusals of the oracles that cannot record those
// writes, as Schema::first_foreign_key).
std::string first_writing_foreign_key(const Schema& schema);

// The tables whose rows the engine reads to check the foreign keys a write of `s` touches: for each table it writes,
// the referenced tables of the keys whose columns it sets (an INSERT sets them all), and the referencing tables of the
// keys to it whose referenced columns it deletes or sets. Empty for a read, and where no key is touched.
std::vector<std::string> foreign_key_checked_tables(const Schema& schema, const Statement& s);

// The tables whose rows a successful `kind` (UPDATE or DELETE) of `table`'s rows may write through foreign-key actions,
// transitively: a DELETE's CASCADE deletes (which cascade on), a SET NULL or an ON UPDATE action's update (which may
// cascade as an update of the referenced columns). Adya and SDG record those writes with triggers on these tables
// (schema.hpp, CascadeLog) where the engine fires them (EngineCapabilities::cascaded_writes_unrecorded).
std::vector<std::string> cascaded_tables(const Schema& schema, const std::string& table, StatementKind kind);
// What SDG's triggers add to a cascaded version's version key (schema.hpp, CascadeLog in SDG's form): above every
// version key a statement of a case installs (one per write, counted from 1), so each cascaded version is a new one;
// BIGINT on the engines whose triggers fire (PostgreSQL; SQLite's INTEGER is 64-bit).
inline constexpr std::int64_t kCascadedVersionStep = 1'000'000'000'000;
// Every table some key's action may write (cascaded_tables of every table, UPDATE and DELETE), in schema order.
std::vector<std::string> cascading_tables(const Schema& schema);

}  // namespace txprop
