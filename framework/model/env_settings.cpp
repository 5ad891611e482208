#include "txprop/internal/env_settings.hpp"

#include <cerrno>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <string_view>

#include <fmt/format.h>

namespace txprop {

namespace {

std::string printable(std::string_view v) {
  std::string out;
  for (char c : v.substr(0, 40)) out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  if (v.size() > 40) out += "...";
  return out;
}

}  // namespace

std::optional<long long> env_integer(const char* name, long long min, long long max) {
  const char* raw = std::getenv(name);
  if (!raw || !*raw) return std::nullopt;
  std::string_view v(raw);
  auto range = [&] { return fmt::format("a whole number from {} to {}", min, max); };
  long long n = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec == std::errc::result_out_of_range)
    throw SettingError(fmt::format("txprop: {}={} is out of range (expected {})", name, printable(v), range()));
  if (ec != std::errc() || end != v.data() + v.size())
    throw SettingError(fmt::format("txprop: {}={} is not a number (expected {})", name, printable(v), range()));
  if (n < min || n > max)
    throw SettingError(fmt::format("txprop: {}={} is out of range (expected {})", name, printable(v), range()));
  return n;
}

std::optional<unsigned long long> env_unsigned(const char* name) {
  const char* raw = std::getenv(name);
  if (!raw || !*raw) return std::nullopt;
  std::string_view v(raw);
  unsigned long long n = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || end != v.data() + v.size())
    throw SettingError(fmt::format("txprop: {}={} is not a number (expected a whole number from 0 to {})", name,
                                   printable(v), std::numeric_limits<unsigned long long>::max()));
  return n;
}

void validate_environment() {
  env_integer("TXPROP_CASES", 1, kMaxCases);
  env_integer("TXPROP_MAX_SIZE", 1, kMaxSize);
  env_integer("TXPROP_SHRINK_ATTEMPTS", 0, kMaxShrinkAttempts);
  env_integer("TXPROP_SHRINK_SECONDS", 0, kMaxShrinkSeconds);
  env_integer("TXPROP_HANG_LIMIT_MS", 1, kMaxHangLimitMs);
  env_unsigned("TXPROP_SEED");
  env_integer("TXPROP_JOBS", 1, kMaxJobs);
  env_integer("TXPROP_SHRINK_JOBS", 1, kMaxJobs);
  env_integer("TXPROP_MIX_LEVELS", 0, 1);
  env_integer("TXPROP_CONTENTION", 0, 1);
  env_integer("TXPROP_KEEP_TABLES", 0, 1);
}

}  // namespace txprop
