// The JSON of the run records (framework/gtest/run_summary.hpp) as `txprop summary` reads it: objects, arrays,
// strings, numbers, one record per line.
#pragma once

#include <cctype>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>

namespace txprop::records {

// The subset of JSON the records use: objects, arrays, strings, numbers.
struct Json {
  std::variant<std::nullptr_t, bool, double, std::string, std::vector<Json>, std::vector<std::pair<std::string, Json>>> v;

  const Json* get(const std::string& key) const {
    if (auto* o = std::get_if<std::vector<std::pair<std::string, Json>>>(&v))
      for (const auto& [k, value] : *o)
        if (k == key) return &value;
    return nullptr;
  }
  std::string str(const std::string& key, const std::string& fallback = "") const {
    const Json* j = get(key);
    if (!j) return fallback;
    if (auto* s = std::get_if<std::string>(&j->v)) return *s;
    if (auto* d = std::get_if<double>(&j->v)) return fmt::format("{}", *d);
    return fallback;
  }
  double num(const std::string& key) const {
    const Json* j = get(key);
    if (!j) return 0;
    if (auto* d = std::get_if<double>(&j->v)) return *d;
    return 0;
  }
  std::vector<Json> list(const std::string& key) const {
    const Json* j = get(key);
    if (!j) return {};
    if (auto* a = std::get_if<std::vector<Json>>(&j->v)) return *a;
    return {};
  }
};

class Parser {
 public:
  explicit Parser(const std::string& text) : s_(text) {}
  Json parse() {
    Json j = value();
    ws();
    if (i_ != s_.size()) fail("trailing text");
    return j;
  }

 private:
  [[noreturn]] void fail(const std::string& what) { throw std::runtime_error(fmt::format("{} at column {}", what, i_ + 1)); }
  void ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(char c) {
    ws();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  Json value() {
    ws();
    if (i_ >= s_.size()) fail("unexpected end");
    const char c = s_[i_];
    if (c == '{') {
      ++i_;
      std::vector<std::pair<std::string, Json>> o;
      if (eat('}')) return Json{o};
      do {
        ws();
        std::string k = string();
        if (!eat(':')) fail("expected ':'");
        o.emplace_back(std::move(k), value());
      } while (eat(','));
      if (!eat('}')) fail("expected '}'");
      return Json{o};
    }
    if (c == '[') {
      ++i_;
      std::vector<Json> a;
      if (eat(']')) return Json{a};
      do a.push_back(value());
      while (eat(','));
      if (!eat(']')) fail("expected ']'");
      return Json{a};
    }
    if (c == '"') return Json{string()};
    if (s_.compare(i_, 4, "true") == 0) return i_ += 4, Json{true};
    if (s_.compare(i_, 5, "false") == 0) return i_ += 5, Json{false};
    if (s_.compare(i_, 4, "null") == 0) return i_ += 4, Json{nullptr};
    std::size_t used = 0;
    const double d = std::stod(s_.substr(i_), &used);
    i_ += used;
    return Json{d};
  }
  std::string string() {
    if (i_ >= s_.size() || s_[i_] != '"') fail("expected a string");
    ++i_;
    std::string out;
    while (i_ < s_.size() && s_[i_] != '"') {
      char c = s_[i_++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size()) fail("bad escape");
      c = s_[i_++];
      switch (c) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          const unsigned code = static_cast<unsigned>(std::stoul(s_.substr(i_, 4), nullptr, 16));
          i_ += 4;
          if (code < 0x80) out += static_cast<char>(code);
          else if (code < 0x800) out += {static_cast<char>(0xC0 | (code >> 6)), static_cast<char>(0x80 | (code & 0x3F))};
          else out += {static_cast<char>(0xE0 | (code >> 12)), static_cast<char>(0x80 | ((code >> 6) & 0x3F)),
                       static_cast<char>(0x80 | (code & 0x3F))};
          break;
        }
        default: out += c;
      }
    }
    if (i_ >= s_.size()) fail("unterminated string");
    ++i_;
    return out;
  }
  const std::string& s_;
  std::size_t i_ = 0;
};

}  // namespace txprop::records
