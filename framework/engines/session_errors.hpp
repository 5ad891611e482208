// What the drivers share about a session's errors (internal to framework/engines).
#pragma once

#include <string>

#include "txprop/outcome.hpp"

namespace txprop::drivers {

// Whether `sql` (a statement txprop rendered, not an engine's message) is a COMMIT.
bool is_commit(const std::string& sql);

// A COMMIT whose connection was lost may have committed or not: the client cannot know (libpqxx documents the same
// for its in_doubt_error; MariaDB KB, "Galera Cluster: Known Limitations"). `sql` is the statement txprop sent; a lost
// connection on a COMMIT becomes ErrorClass::CommitOutcomeUnknown, anything else is returned unchanged.
Outcome commit_outcome(const std::string& sql, Outcome o);

}  // namespace txprop::drivers
