#include "txprop/comparison.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace txprop {

std::string compare_outcomes(const Outcome& expected, const Outcome& actual) {
  if (expected.status != actual.status) return fmt::format("{} vs {}", summary(expected), summary(actual));
  if (expected.status == Outcome::Status::Error) {
    if (expected.error.cls != actual.error.cls) return fmt::format("{} vs {}", summary(expected), summary(actual));
    return {};
  }
  if (expected.affected != actual.affected)
    return fmt::format("{} vs {} row(s) affected", expected.affected, actual.affected);
  if (sorted_rows(expected.rows) != sorted_rows(actual.rows)) return fmt::format("{} vs {}", summary(expected), summary(actual));
  return {};
}

std::string compare_states(const DatabaseState& expected, const DatabaseState& actual, const std::string& expected_name,
                           const std::string& actual_name) {
  std::string out;
  for (const auto& [table, rows] : expected) {
    auto it = actual.find(table);
    const std::vector<Row> other = it == actual.end() ? std::vector<Row>{} : it->second;
    if (rows == other) continue;
    std::vector<Row> only_expected, only_actual;
    std::set_difference(rows.begin(), rows.end(), other.begin(), other.end(), std::back_inserter(only_expected));
    std::set_difference(other.begin(), other.end(), rows.begin(), rows.end(), std::back_inserter(only_actual));
    out += fmt::format("table {}:", table);
    for (const Row& r : only_expected) out += fmt::format("\n    only {}: {}", expected_name, to_string(r));
    for (const Row& r : only_actual) out += fmt::format("\n    only {}: {}", actual_name, to_string(r));
    out += "\n";
  }
  return out;
}

}  // namespace txprop
