#include "shards.hpp"

#include <cstdlib>

#include <fmt/format.h>

#include "txprop/internal/env_settings.hpp"

namespace txprop::shards {

namespace {

Shard read_environment() {
  constexpr long long kMaxShards = 100'000;
  const auto total = env_integer("GTEST_TOTAL_SHARDS", 1, kMaxShards);
  const auto index = env_integer("GTEST_SHARD_INDEX", 0, kMaxShards - 1);
  // GoogleTest shards only when both are set (gtest.cc, ShouldShard); so do we.
  if (!total || !index) return {};
  if (*index >= *total)
    throw SettingError(fmt::format("txprop: GTEST_SHARD_INDEX={} is not below GTEST_TOTAL_SHARDS={}", *index, *total));
  return {static_cast<int>(*index), static_cast<int>(*total)};
}

// SplitMix64's finaliser, a bijection on 64-bit values (Steele, Lea, Flood: "Fast splittable pseudorandom number
// generators", OOPSLA 2014).
std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

std::string Shard::name() const { return fmt::format("{}/{}", index, total); }

const Shard& take_over() {
  struct Taken {
    Shard shard;
    std::string error;  // kept: the variables are gone after the first call, and every later call must fail too
  };
  static const Taken taken = [] {
    Taken t;
    try {
      t.shard = read_environment();
    } catch (const SettingError& e) {
      t.error = e.what();
    }
    ::unsetenv("GTEST_TOTAL_SHARDS");
    ::unsetenv("GTEST_SHARD_INDEX");
    return t;
  }();
  if (!taken.error.empty()) throw SettingError(taken.error);
  return taken.shard;
}

int cases_of(int cases, const Shard& s) { return cases / s.total + (s.index < cases % s.total ? 1 : 0); }

std::uint64_t seed_of(std::uint64_t seed, const Shard& s) {
  if (!s.sharded()) return seed;
  return mix(seed + static_cast<std::uint64_t>(s.index) * 0x9e3779b97f4a7c15ULL);
}

void apply(int& cases, std::optional<std::uint64_t>& seed, std::uint64_t random_seed) {
  const Shard& s = take_over();
  if (!s.sharded()) return;
  const int share = cases_of(cases, s);
  if (share == 0)
    throw SettingError(fmt::format("txprop: {} case(s) leave shard {} of GTEST_TOTAL_SHARDS={} without a case "
                                   "(TXPROP_CASES must be at least the number of shards)", cases, s.index, s.total));
  cases = share;
  // Without TXPROP_SEED each process draws its own seed: the shards differ but the campaign cannot be re-run.
  seed = seed_of(seed.value_or(random_seed), s);
}

void add_to_record(run_summary::Record& rec, std::uint64_t seed) {
  Shard s;
  try {
    s = take_over();
  } catch (const SettingError&) {
    return;  // the record's message already carries the line
  }
  if (!s.sharded()) return;
  rec.add("shard", s.name()).add("seed", std::to_string(seed));
}

}  // namespace txprop::shards
