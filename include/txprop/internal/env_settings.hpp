// Settings read from the environment (TXPROP_CASES, TXPROP_SEED, TXPROP_HANG_LIMIT_MS, ...), validated: a value
// that is not a whole number in the variable's range is an error naming the variable, never a silent clamp, a
// wrap-around or an abort.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

namespace txprop {

// An environment setting that cannot be used; the message is one line naming the variable and its range.
class SettingError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// The integer in environment variable `name`, or nullopt when it is unset or empty. Throws SettingError unless
// the whole value is a decimal integer in [min, max].
std::optional<long long> env_integer(const char* name, long long min, long long max);
// Same for an unsigned 64-bit value (seeds).
std::optional<unsigned long long> env_unsigned(const char* name);

// The accepted ranges.
inline constexpr long long kMaxCases = 100'000'000;
inline constexpr long long kMaxSize = 1'000'000;
inline constexpr long long kMaxShrinkAttempts = 100'000'000;
inline constexpr long long kMaxShrinkSeconds = 7 * 24 * 3600;
inline constexpr long long kMaxHangLimitMs = 24 * 3600 * 1000LL;

// Checks every TXPROP_* integer setting at once; throws SettingError for the first bad one. Property suites call
// this before registering their tests, so a bad value fails one test with one line.
void validate_environment();

}  // namespace txprop
