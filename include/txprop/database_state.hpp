// The contents of a database: every table's rows. What a run ends with and what replays are compared on.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "txprop/value.hpp"

namespace txprop {

using DatabaseState = std::map<std::string, std::vector<Row>>;  // table -> rows, sorted (a multiset)

}  // namespace txprop
