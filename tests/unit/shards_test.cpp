// Shards (framework/gtest/shards.hpp): the shares of a campaign's cases add up to its case count, and every shard
// of a campaign gets a seed of its own.
#include <gtest/gtest.h>

#include <set>

#include "gtest/shards.hpp"

using namespace txprop;

TEST(Shards, SharesAddUpToTheCampaign) {
  for (int total : {1, 2, 3, 4, 7})
    for (int cases : {7, 8, 100, 101}) {
      int sum = 0;
      for (int i = 0; i < total; ++i) {
        const int share = shards::cases_of(cases, {i, total});
        EXPECT_GE(share, cases / total);
        EXPECT_LE(share, cases / total + 1);
        sum += share;
      }
      EXPECT_EQ(sum, cases) << total << " shards";
    }
}

TEST(Shards, SeedsDifferPerShardAndStayWhenNotSharded) {
  EXPECT_EQ(shards::seed_of(42, {0, 1}), 42u);
  for (std::uint64_t seed : {0ULL, 1ULL, 42ULL, ~0ULL}) {
    std::set<std::uint64_t> seeds;
    for (int i = 0; i < 1000; ++i) seeds.insert(shards::seed_of(seed, {i, 1000}));
    EXPECT_EQ(seeds.size(), 1000u);
  }
  // The same campaign seed gives the same shard seeds on every machine.
  EXPECT_EQ(shards::seed_of(7, {2, 4}), shards::seed_of(7, {2, 4}));
}
