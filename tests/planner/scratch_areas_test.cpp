// ScratchAreas: free areas per step from an activation plan, intersection over several steps,
// take, growth at either edge, fragmentation; and the alignment helpers on negative addresses.
#include <gtest/gtest.h>

#include <stdexcept>

#include "planner/memory/scratch_areas.h"

namespace strider::memory {
namespace {

std::vector<std::pair<int64_t, int64_t>> ranges(const std::vector<Area>& areas) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const Area& a : areas) out.emplace_back(a.lo, a.hi);
  return out;
}

using R = std::vector<std::pair<int64_t, int64_t>>;

// Heap [0,100). step 0: [10,30) and [50,60) used; step 1: [0,40) used ([20,40) overlaps the
// step-0 buffer's addresses at another time).
ScratchAreas two_steps() {
  Problem p;
  Buffer a{"a", 0, 1, 20, 1, {}};
  Buffer b{"b", 0, 1, 10, 1, {}};
  Buffer c{"c", 1, 2, 40, 1, {}};
  p.buffers = {a, b, c};
  return ScratchAreas(p, {10, 50, 0}, 100, {0, 1});
}

TEST(ScratchAreas, GapsPerStepAndIntersection) {
  const ScratchAreas s = two_steps();
  EXPECT_EQ(ranges(s.free_areas(0, 1)), (R{{0, 10}, {30, 50}, {60, 100}}));
  EXPECT_EQ(ranges(s.free_areas(1, 2)), (R{{40, 100}}));
  // Free at both steps: [40,50) and [60,100).
  EXPECT_EQ(ranges(s.free_areas(0, 2)), (R{{40, 50}, {60, 100}}));
  // Step 0 free 10+20+40 = 70, largest 40 -> 30; step 1: one area -> 0.
  EXPECT_EQ(s.fragmentation(), 30);
}

TEST(ScratchAreas, TakeAndGrowUpdateEveryStep) {
  ScratchAreas s = two_steps();
  s.take(0, 2, 90, 100);  // the top 10 bytes at both steps
  EXPECT_EQ(ranges(s.free_areas(0, 1)), (R{{0, 10}, {30, 50}, {60, 90}}));
  s.grow_top(110);  // no area ends at 100 any more: a new area [100,110) at each step
  EXPECT_EQ(ranges(s.free_areas(1, 2)), (R{{40, 90}, {100, 110}}));
  s.grow_bottom(-8);  // step 0 extends [0,10) down; step 1 gets a new area [-8,0)
  EXPECT_EQ(ranges(s.free_areas(0, 1)), (R{{-8, 10}, {30, 50}, {60, 90}, {100, 110}}));
  EXPECT_EQ(ranges(s.free_areas(1, 2)), (R{{-8, 0}, {40, 90}, {100, 110}}));
  EXPECT_EQ(s.bottom(), -8);
  EXPECT_EQ(s.top(), 110);
  EXPECT_THROW(s.take(1, 2, 0, 5), std::logic_error);  // [0,5) is used at step 1
}

TEST(ScratchAreas, AlignmentOnNegativeAddresses) {
  EXPECT_EQ(align_down(-10, 8), -16);
  EXPECT_EQ(align_up(-10, 8), -8);
  EXPECT_EQ(align_up(17, 8), 24);
  EXPECT_EQ(align_down(17, 1), 17);
}

}  // namespace
}  // namespace strider::memory
