// The RapidCheck functions the harness declares itself (framework/gtest/rapidcheck_glue.hpp) still exist and still
// encode a reproduce map that RapidCheck reads back. If RapidCheck renames or changes them, this test fails (to link,
// or here) and names the cause.
#include <gtest/gtest.h>

#include "gtest/rapidcheck_glue.hpp"

TEST(RapidcheckGlue, ReproduceStringRoundTripsThroughRapidCheck) {
  rc::detail::Reproduce r;
  r.random = rc::Random(42);
  r.size = 17;
  r.shrinkPath = {3, 1, 4};
  const std::unordered_map<std::string, rc::detail::Reproduce> map{{"Wss/sqlite_serializable", r}};
  const std::string text = rc::detail::reproduceMapToString(map);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(rc::detail::stringToReproduceMap(text), map) << "RapidCheck's reproduce string format changed";
  (void)rc::detail::globalTestListener();  // the default listener the harness forwards to
}
