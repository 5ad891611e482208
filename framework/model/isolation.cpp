#include "txprop/isolation.hpp"

#include <algorithm>
#include <cctype>
#include <ostream>

namespace txprop {

std::string sql_name(IsolationLevel level) {
  switch (level) {
    case IsolationLevel::ReadUncommitted: return "READ UNCOMMITTED";
    case IsolationLevel::ReadCommitted: return "READ COMMITTED";
    case IsolationLevel::RepeatableRead: return "REPEATABLE READ";
    case IsolationLevel::Serializable: return "SERIALIZABLE";
  }
  return "?";
}

std::string short_name(IsolationLevel level) {
  switch (level) {
    case IsolationLevel::ReadUncommitted: return "read_uncommitted";
    case IsolationLevel::ReadCommitted: return "read_committed";
    case IsolationLevel::RepeatableRead: return "repeatable_read";
    case IsolationLevel::Serializable: return "serializable";
  }
  return "?";
}

std::optional<IsolationLevel> parse_isolation_level(std::string_view text) {
  std::string t;
  for (char c : text) t += (c == ' ' || c == '-') ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t == "read_uncommitted" || t == "ru") return IsolationLevel::ReadUncommitted;
  if (t == "read_committed" || t == "rc") return IsolationLevel::ReadCommitted;
  if (t == "repeatable_read" || t == "rr") return IsolationLevel::RepeatableRead;
  if (t == "serializable" || t == "ser") return IsolationLevel::Serializable;
  return std::nullopt;
}

std::ostream& operator<<(std::ostream& os, IsolationLevel level) { return os << sql_name(level); }

}  // namespace txprop
