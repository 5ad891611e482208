// A cell value as txprop sees it on every engine: NULL, integer, real or text.
#pragma once

#include <compare>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <variant>
#include <vector>

namespace txprop {

enum class ValueType { Null, Integer, Real, Text };

class Value {
 public:
  Value() = default;  // NULL
  Value(std::int64_t v) : data_(v) {}
  Value(int v) : data_(static_cast<std::int64_t>(v)) {}
  Value(double v) : data_(v) {}
  Value(std::string v) : data_(std::move(v)) {}
  Value(const char* v) : data_(std::string(v)) {}

  static Value null() { return Value(); }

  ValueType type() const { return static_cast<ValueType>(data_.index()); }
  bool is_null() const { return type() == ValueType::Null; }
  std::int64_t as_int() const { return std::get<std::int64_t>(data_); }
  double as_real() const { return std::get<double>(data_); }
  const std::string& as_text() const { return std::get<std::string>(data_); }

  // A number as double whatever its stored type (integer or real); NULL and text are not numbers.
  bool is_number() const { return type() == ValueType::Integer || type() == ValueType::Real; }
  double as_number() const { return type() == ValueType::Integer ? static_cast<double>(as_int()) : as_real(); }

  // Total order used to sort rows into canonical multisets: NULL < numbers < text; numbers compare by value,
  // so an integer 2 and a real 2.0 read back from different engines compare equal.
  friend std::strong_ordering operator<=>(const Value& a, const Value& b);
  friend bool operator==(const Value& a, const Value& b) { return (a <=> b) == 0; }

  // Display form: NULL, 42, 1.5, 'text' (single quotes doubled).
  std::string to_string() const;

 private:
  std::variant<std::monostate, std::int64_t, double, std::string> data_;
};

std::ostream& operator<<(std::ostream& os, const Value& v);

using Row = std::vector<Value>;

std::string to_string(const Row& row);  // (1, 'a', NULL)
std::ostream& operator<<(std::ostream& os, const Row& row);

// Rows as a sorted multiset: the canonical form of a table state or a result set whose order is not asserted.
std::vector<Row> sorted_rows(std::vector<Row> rows);

}  // namespace txprop
