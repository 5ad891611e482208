#include "txprop/value.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <sstream>

#include <fmt/format.h>

namespace txprop {

namespace {
// NULL < numbers < text.
int rank(ValueType t) {
  switch (t) {
    case ValueType::Null: return 0;
    case ValueType::Integer:
    case ValueType::Real: return 1;
    case ValueType::Text: return 2;
  }
  return 3;
}
}  // namespace

std::strong_ordering operator<=>(const Value& a, const Value& b) {
  const int ra = rank(a.type()), rb = rank(b.type());
  if (ra != rb) return ra <=> rb;
  switch (a.type()) {
    case ValueType::Null: return std::strong_ordering::equal;
    case ValueType::Integer:
    case ValueType::Real: {
      if (a.type() == ValueType::Integer && b.type() == ValueType::Integer) return a.as_int() <=> b.as_int();
      const double x = a.as_number(), y = b.as_number();
      if (x < y) return std::strong_ordering::less;
      if (x > y) return std::strong_ordering::greater;
      return std::strong_ordering::equal;
    }
    case ValueType::Text: return a.as_text().compare(b.as_text()) <=> 0;
  }
  return std::strong_ordering::equal;
}

std::string Value::to_string() const {
  switch (type()) {
    case ValueType::Null: return "NULL";
    case ValueType::Integer: return std::to_string(as_int());
    case ValueType::Real: {
      const double d = as_real();
      if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 1e15) return fmt::format("{:.1f}", d);
      return fmt::format("{}", d);  // shortest round-trip form
    }
    case ValueType::Text: {
      std::string out = "'";
      for (char ch : as_text()) {
        if (ch == '\'') out += '\'';
        out += ch;
      }
      return out + "'";
    }
  }
  return "?";
}

std::ostream& operator<<(std::ostream& os, const Value& v) { return os << v.to_string(); }

std::string to_string(const Row& row) {
  std::string out = "(";
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (i) out += ", ";
    out += row[i].to_string();
  }
  return out + ")";
}

std::ostream& operator<<(std::ostream& os, const Row& row) { return os << to_string(row); }

std::vector<Row> sorted_rows(std::vector<Row> rows) {
  std::sort(rows.begin(), rows.end());
  return rows;
}

}  // namespace txprop
