// Shards across machines: K processes (K CI jobs, a batch array) each run part of one campaign. GoogleTest's own
// sharding variables say which part (https://google.github.io/googletest/advanced.html#distributing-test-functions-to-multiple-machines):
// GTEST_TOTAL_SHARDS=K and GTEST_SHARD_INDEX=i. GoogleTest alone would hand each test (a property suite: one target
// and level) to one shard, so a campaign of fewer suites than shards could not use them, and one long suite would
// sit on one machine. A program with property suites takes the variables over instead: every shard runs every
// suite, with its share of the cases (the shares add up to the campaign's case count) and a seed of its own derived
// from the campaign's (TXPROP_SEED), so no two shards generate the same cases and the campaign stays reproducible.
// Each suite record (TXPROP_SUMMARY_FILE) names its shard and seed; `txprop summary` merges the shards' records.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "run_summary.hpp"

namespace txprop::shards {

struct Shard {
  int index = 0;
  int total = 1;
  bool sharded() const { return total > 1; }
  std::string name() const;  // "2/4"
};

// This process's shard. The first call reads GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX and removes them from the
// environment, so GoogleTest runs every test (property_suites() calls it before GoogleTest decides). Throws
// SettingError (one line naming the variable) for values GoogleTest itself would reject.
const Shard& take_over();

// The cases of `cases` this shard runs: an even split, the first `cases % total` shards one more.
int cases_of(int cases, const Shard& s);
// The seed shard `s` runs with: `seed` itself when not sharded; otherwise distinct for every index (a bijection
// applied to seed + index * an odd constant).
std::uint64_t seed_of(std::uint64_t seed, const Shard& s);

// A suite's settings under sharding: its share of `cases`, and its shard's seed derived from `seed` (or from
// `random_seed`, RapidCheck's seed for this process, when no seed was given). Unchanged when not sharded. Throws
// SettingError when the share is no case at all.
void apply(int& cases, std::optional<std::uint64_t>& seed, std::uint64_t random_seed);
// Adds "shard" ("2/4") and "seed" (a string: JSON numbers lose 64-bit precision) to a suite record, when sharded.
void add_to_record(run_summary::Record& rec, std::uint64_t seed);

}  // namespace txprop::shards
