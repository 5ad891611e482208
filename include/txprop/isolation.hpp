// Isolation levels as the SQL standard names them; each engine's profile says which it supports.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

namespace txprop {

enum class IsolationLevel { ReadUncommitted, ReadCommitted, RepeatableRead, Serializable };

inline constexpr IsolationLevel kAllIsolationLevels[] = {
    IsolationLevel::ReadUncommitted, IsolationLevel::ReadCommitted, IsolationLevel::RepeatableRead,
    IsolationLevel::Serializable};

// "READ COMMITTED" etc., as in SQL.
std::string sql_name(IsolationLevel level);
// "read_committed" etc., as in test names and scenario files.
std::string short_name(IsolationLevel level);
// Accepts the short name, the SQL name in any case, and the abbreviations ru, rc, rr, ser.
std::optional<IsolationLevel> parse_isolation_level(std::string_view text);

std::ostream& operator<<(std::ostream& os, IsolationLevel level);

}  // namespace txprop
