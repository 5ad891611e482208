// What a foreign key makes an engine do beyond the statement's own rows, for the oracles whose instrumentation records
// it or refuses it (issue 17 item 3): one owner, so that Adya and SDG refuse and record the same keys.
#pragma once

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

}  // namespace txprop
