// decide_standing, the one rule every oracle's findings take their standing from (issue 20 item 1). The oracles'
// standing per engine and level is pinned in standing_by_profile_test.cpp; these pin the rule itself.
#include <gtest/gtest.h>

#include <vector>

#include "txprop/verdict.hpp"

namespace txprop {
namespace {

// Levels by transaction index.
LevelStanding levels(std::vector<LevelStance> by_txn) {
  return [by_txn](int t) { return by_txn[static_cast<std::size_t>(t)]; };
}
constexpr LevelStance kProscribes{true, true};
constexpr LevelStance kDocuments{false, true};  // the engine documents it short of the claimed level
constexpr LevelStance kAllows{false, false};    // the level itself allows it

TEST(StandingRule, EveryDecidingLevelMustProscribe) {
  const auto l = levels({kProscribes, kDocuments});
  EXPECT_EQ(decide_standing({0}, {0, 1}, 2, l).standing, Standing::Fails);
  const StandingDecision d = decide_standing({0, 1}, {0, 1}, 2, l);
  EXPECT_EQ(d.standing, Standing::Documented);
  EXPECT_EQ(d.by, 1) << "the source is the level that does not proscribe it";
}

TEST(StandingRule, WithoutDecidingTransactionsOneProscribingInvolvedLevelFails) {
  const auto l = levels({kDocuments, kProscribes});
  EXPECT_EQ(decide_standing({}, {0, 1}, 2, l).standing, Standing::Fails);
  EXPECT_EQ(decide_standing({}, {0}, 2, l).standing, Standing::Documented);
}

// Promised and claimed are read separately: a level whose engine promises more than its claimed level (proscribed,
// not claimed) beside one that documents it does not make a deviation from the claimed levels.
TEST(StandingRule, PromisedAndClaimedLevelsAreReadSeparately) {
  const auto l = levels({LevelStance{true, false}, kDocuments, kAllows});
  EXPECT_EQ(decide_standing({0, 1}, {0, 1}, 3, l).standing, Standing::Allowed);
  const StandingDecision d = decide_standing({1, 2}, {1, 2}, 3, l);
  EXPECT_EQ(d.standing, Standing::Allowed);
  EXPECT_EQ(d.by, 2) << "the source of an allowed finding is a level that allows it";
}

TEST(StandingRule, NoTransactionsMeansNothingDocumentsIt) {
  EXPECT_EQ(decide_standing({}, {}, 2, levels({kAllows, kAllows})).standing, Standing::Fails);
  Finding whole;  // about the history as a whole: judged at the first transaction's level
  EXPECT_EQ(decide_standing(whole, 2, levels({kAllows, kProscribes})).standing, Standing::Allowed);
  EXPECT_EQ(decide_standing(whole, 2, levels({kProscribes, kAllows})).standing, Standing::Fails);
}

TEST(StandingRule, ATransactionOutsideTheCaseProscribesNothingAndGivesNoSource) {
  const StandingDecision d = decide_standing({0, 5}, {0, 5}, 1, levels({kProscribes}));
  EXPECT_EQ(d.standing, Standing::Allowed);
  EXPECT_EQ(d.by, -1);
}

}  // namespace
}  // namespace txprop
