// What went wrong with the target itself, as opposed to what an engine answered to a statement. Each driver decides
// it from its own native codes (MySQL client errno, libpq's connection status and SQLSTATE class 08 / 57P, SQLite
// result codes) and the time a call took; nothing outside a driver reads a message's text to decide it.
#pragma once

#include <string>

namespace txprop {

enum class Fault {
  None,
  Unreachable,  // a connect was refused or denied (MySQL 2002/2003/1045, libpq CONNECTION_BAD before the timeout)
  Stalled,      // the server did not answer within the limit: a connect that timed out, a call past the hang limit
  Lost,         // the connection was lost mid-call (MySQL 2006/2013/2055, libpq broken_connection, 08xxx, 57P01-57P05)
  Rejected,     // the engine refused a statement txprop sent for its own purposes: the same again on a re-run
};

std::string to_string(Fault f);

}  // namespace txprop
