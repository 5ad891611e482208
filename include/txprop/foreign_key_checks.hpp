// What a foreign key makes an engine do beyond the statement's own rows, for the oracles whose instrumentation records
// it or refuses it (issue 17 item 3): one owner, so that Adya and SDG refuse and record the same keys.
#pragma once

#include <cstdint>
#include <optional>
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

// The keys an INSERT's foreign-key check of `fk` looks up in the referenced table, one per inserted row whose every key
// column is a literal other than NULL (a row with a NULL there is not checked, MATCH SIMPLE: PostgreSQL manual 5.4.5,
// SQLite foreignkeys.html section 3; a column the INSERT does not name is NULL), each in `fk.columns`' order. nullopt
// where it is not known before the INSERT runs: a value that is no literal, or an upsert (whether it inserts, and so
// checks, depends on the rows it meets). Empty: nothing is checked.
std::optional<std::vector<std::vector<Value>>> inserted_keys(const Statement& insert, const ForeignKey& fk);
// The rows whose `columns` hold one of `keys` (each in `columns`' order): (c1 = v1 AND c2 = v2 ...) OR ...; nullopt for
// no key. An INSERT's check looks its keys up by `fk.referenced`, a DELETE's by `fk.columns`.
std::optional<Expr> key_lookup(const std::vector<std::string>& columns, const std::vector<std::vector<Value>>& keys);

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
