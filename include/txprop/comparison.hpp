// Comparing what two runs of the same statements gave, the way every oracle needs it: rows as multisets of
// whole rows (no order is asserted without ORDER BY), the affected count, the error class (not its text).
#pragma once

#include <string>

#include "txprop/history.hpp"
#include "txprop/outcome.hpp"

namespace txprop {

// Empty if equal; otherwise a short description of the first difference.
std::string compare_outcomes(const Outcome& expected, const Outcome& actual);
// Empty if equal; otherwise, per table, the rows only in one side.
std::string compare_states(const DatabaseState& expected, const DatabaseState& actual,
                           const std::string& expected_name = "expected", const std::string& actual_name = "actual");

}  // namespace txprop
