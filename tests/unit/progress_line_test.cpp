// One progress line for a suite run as TXPROP_JOBS workers: each worker's snapshot file round-trips, the snapshots
// sum, and the line is the one a single process prints (framework/gtest/progress.hpp, workers.hpp).
#include <gtest/gtest.h>

#include "gtest/progress.hpp"

namespace txprop {
namespace {

ProgressSnapshot worker(int done, int inconclusive, int lost_updates) {
  ProgressSnapshot s;
  s.done = done;
  s.inconclusive = inconclusive;
  if (lost_updates) s.counted[Standing::Documented]["lost-update"] = lost_updates;
  return s;
}

TEST(ProgressLine, SnapshotRoundTripsThroughItsText) {
  ProgressSnapshot s = worker(12, 1, 3);
  s.counted[Standing::Allowed]["G-SIa"] = 2;
  s.shrink_steps = 4;
  s.shrink_tries = 9;
  s.seconds_shrinking = 1.5;
  const ProgressSnapshot back = ProgressSnapshot::parse(s.to_text());
  EXPECT_EQ(back.done, 12);
  EXPECT_EQ(back.inconclusive, 1);
  EXPECT_EQ(back.shrink_steps, 4);
  EXPECT_EQ(back.shrink_tries, 9);
  EXPECT_DOUBLE_EQ(back.seconds_shrinking, 1.5);
  EXPECT_EQ(back.counted, s.counted);
}

TEST(ProgressLine, HalfWrittenSnapshotKeepsWhatItCanRead) {
  const ProgressSnapshot back = ProgressSnapshot::parse("done 7\ncounted documented\nshri");
  EXPECT_EQ(back.done, 7);
  EXPECT_TRUE(back.counted.empty());
}

TEST(ProgressLine, WorkersSumIntoOneLine) {
  ProgressSnapshot sum;
  sum += worker(10, 0, 2);
  sum += worker(15, 1, 1);
  sum += ProgressSnapshot::parse("");  // a worker that has not written its first snapshot yet
  EXPECT_EQ(sum.done, 25);
  EXPECT_EQ(progress_line("Wss/mariadb_repeatable_read (3 workers)", 100, sum, 2.5),
            "[txprop] Wss/mariadb_repeatable_read (3 workers): 25/100 cases, 10.0 cases/s, documented: lost-update x3, "
            "1 without a verdict");
}

TEST(ProgressLine, ShrinkingIsTheLongestAnyWorkerHasShrunk) {
  ProgressSnapshot a = worker(5, 0, 0), b = worker(3, 0, 0);
  b.seconds_shrinking = 2.0;
  b.shrink_steps = 1;
  b.shrink_tries = 4;
  a += b;
  EXPECT_EQ(progress_line("Wss/s", 100, a, 1.0),
            "[txprop] Wss/s: found after 8 case(s), shrinking: step 1 accepted of 4 tried, 2.0 s");
}

}  // namespace
}  // namespace txprop
