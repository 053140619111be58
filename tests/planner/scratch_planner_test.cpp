// Scratch planner: a worked example built step by step (top and bottom of free areas, stacking,
// heap growth at the top then the bottom, growth by only the difference, variable-size sharing,
// a minimum that fits nowhere), with every offset derived by hand in the comments.
#include <gtest/gtest.h>

#include "planner/memory/scratch_planner.h"
#include "planner/memory/verifier.h"

namespace strider::memory {
namespace {

struct Act {
  std::string id;
  int64_t offset, size, lower, upper;
};

// The activation plan as a Problem plus its offsets.
struct Plan {
  Problem problem;
  Solution solution;
};

Plan plan_of(const std::vector<Act>& acts) {
  Plan p;
  for (const Act& a : acts) {
    Buffer b;
    b.id = a.id;
    b.lower = a.lower;
    b.upper = a.upper;
    b.size = a.size;
    p.problem.buffers.push_back(b);
    p.solution.offsets.push_back(a.offset);
    p.solution.height = std::max(p.solution.height, a.offset + a.size);
  }
  return p;
}

ScratchRequest fixed(const std::string& id, int64_t step, int64_t size) {
  ScratchRequest r;
  r.id = id;
  r.step = step;
  r.size = size;
  return r;
}

ScratchRequest variable(const std::string& id, int64_t step, int64_t min_size) {
  ScratchRequest r;
  r.id = id;
  r.step = step;
  r.variable = true;
  r.min_size = min_size;
  return r;
}

// Heap [0, 100). Activations per step (address ranges):
//   step 0: A [20,50) B [70,94)   free [0,20) [50,70) [94,100)
//   step 1: C [3,60)  D [60,96)   free [0,3) [96,100)
//   step 2: E [0,100)             free none
//   step 3: F [10,40) G [60,100)  free [0,10) [40,60)
//   step 4: H [0,100)             free none
Plan worked_activations() {
  return plan_of({{"A", 20, 30, 0, 1},
                  {"B", 70, 24, 0, 1},
                  {"C", 3, 57, 1, 2},
                  {"D", 60, 36, 1, 2},
                  {"E", 0, 100, 2, 3},
                  {"F", 10, 30, 3, 4},
                  {"G", 60, 40, 3, 4},
                  {"H", 0, 100, 4, 5}});
}

std::vector<ScratchRequest> worked_requests() {
  std::vector<ScratchRequest> r;
  r.push_back(fixed("s0c", 0, 6));
  r.back().may_stack = true;
  r.push_back(fixed("s0a", 0, 12));
  r.push_back(fixed("s0b", 0, 10));
  r.push_back(fixed("s1b", 1, 8));
  r.push_back(fixed("s1a", 1, 10));
  r.push_back(fixed("s2a", 2, 16));
  r.push_back(variable("v_d", 3, 1));
  r.push_back(variable("v_a", 3, 8));
  r.push_back(fixed("s3a", 3, 5));
  r.push_back(variable("v_c", 3, 2));
  r.push_back(variable("v_b", 3, 4));
  r.push_back(variable("w2", 4, 2));
  r.push_back(variable("w1", 4, 20));
  return r;
}

TEST(ScratchPlanner, WorkedExample) {
  const Plan acts = worked_activations();
  const ScratchPlacement p =
      place_scratch(acts.problem, acts.solution, 100, worked_requests(), ScratchOptions{});
  // Placement in activation-plan addresses (the output adds the final bottom growth, 20):
  // step 0, queue s0a(12) s0b(10) s0c(6) (largest first):
  //   s0a: smallest area holding 12: [0,20) and [50,70) both 20, lowest wins -> [0,20); it
  //        touches the heap bottom, so s0a goes at its top: [8,20). Free: [0,8) [50,70) [94,100)
  //   s0b: [0,8) and [94,100) too small -> [50,70), interior, bottom: [50,60). Free [60,70).
  //   s0c: may stack: the area [60,70) starts at the end of s0b -> [60,66) (without stacking
  //        the smallest area, [94,100), would be taken).
  // step 1, queue s1a(10) s1b(8); free [0,3) [96,100):
  //   s1a: nothing fits. Top: the edge area [96,100) counts -> at 96, grow 96+10-100 = 6.
  //        Bottom: edge area [0,3) -> at 3-10 = -7, grow 7. Top is cheaper: heap top 106.
  //   s1b: free [0,3). Top: no edge area (106 is used) -> grow 8. Bottom: at 3-8 = -5, grow 5.
  //        Bottom is cheaper: heap bottom -5, s1b at -5.
  // step 2: free [-5,0) [100,106) (the growth, at every step):
  //   s2a(16): top: edge area [100,106) -> at 100, grow 100+16-106 = 10 (the difference 16-6);
  //        bottom: at 0-16 = -16, grow 11. Top: heap top 116.
  // step 3: free [-5,10) [40,60) [100,116); queue s3a(5) then variables v_a v_b v_c v_d
  //        (largest minimum first):
  //   s3a: smallest holding 5 is [-5,10) (15), at the heap bottom -> its top: [5,10).
  //   areas by size: [40,60) 20, [100,116) 16, [-5,5) 10; 4 buffers > 3 areas: i mod 3 ->
  //        v_a and v_d share [40,60): [40,50) and [50,60); v_b [100,116) 16; v_c [-5,5) 10.
  // step 4: free [-5,0) 5, [100,116) 16; queue w1 (min 20) then w2 (min 2):
  //   2 buffers <= 2 areas: w1 -> [100,116) = 16 < 20: w1 drops out; w2 alone -> [100,116).
  //   w1 as fixed 20: nothing fits; top: grow 20 (no edge area); bottom: edge area [-5,0) ->
  //        at 0-20 = -20, grow 15. Bottom: heap bottom -20.
  // Final heap [-20,116): shift +20, grow_bottom 20, grow_top 16, 136 bytes.
  // Requests in input order: s0c s0a s0b s1b s1a s2a v_d v_a s3a v_c v_b w2 w1.
  EXPECT_EQ(p.offsets, (std::vector<int64_t>{80, 28, 70, 15, 116, 120, 70, 60, 25, 15, 120, 120,
                                             0}));
  EXPECT_EQ(p.sizes, (std::vector<int64_t>{6, 12, 10, 8, 10, 16, 10, 10, 5, 10, 16, 16, 20}));
  EXPECT_EQ(p.grow_top, 16);
  EXPECT_EQ(p.grow_bottom, 20);
  EXPECT_EQ(p.heap_bytes, 136);
  EXPECT_EQ(p.growth_events, 4);  // s1a, s1b, s2a, w1
  // Activations A..H shifted by 20.
  EXPECT_EQ(p.activation_offsets, (std::vector<int64_t>{40, 90, 23, 80, 20, 30, 80, 20}));
  EXPECT_EQ(p.variant, "edge/stack/cheaper");
  EXPECT_EQ(p.combined.buffers.size(), 21u);
  EXPECT_EQ(p.combined.buffers[8].id, "scratch:s0c");
  EXPECT_EQ(p.combined_plan.height, 136);
  EXPECT_TRUE(verify(p.combined, p.combined_plan).empty());
}

TEST(ScratchPlanner, WithoutStackingTakesTheSmallestArea) {
  const Plan acts = worked_activations();
  ScratchOptions o;
  o.stacking = false;
  const ScratchPlacement p = place_scratch(acts.problem, acts.solution, 100, worked_requests(), o);
  // s0c(6) now goes to the smallest area holding it, [94,100) (touches the top: bottom side),
  // i.e. 94 + 20 = 114; the rest of the plan is unchanged.
  EXPECT_EQ(p.offsets[0], 114);
  EXPECT_EQ(p.offsets[1], 28);
  EXPECT_EQ(p.heap_bytes, 136);
  EXPECT_EQ(p.variant, "edge/no_stack/cheaper");
}

TEST(ScratchPlanner, SideRulesBottomAndTop) {
  // One step, free [0,20) (heap bottom edge) and [50,70) (interior), top [70,100) used.
  const Plan acts = plan_of({{"A", 20, 30, 0, 1}, {"B", 70, 30, 0, 1}});
  const std::vector<ScratchRequest> reqs = {fixed("x", 0, 12)};
  ScratchOptions o;
  // Smallest fit: both areas 20, lowest [0,20). edge: at the heap bottom -> top: 20-12 = 8.
  EXPECT_EQ(place_scratch(acts.problem, acts.solution, 100, reqs, o).offsets[0], 8);
  o.side = ScratchSide::kBottom;
  EXPECT_EQ(place_scratch(acts.problem, acts.solution, 100, reqs, o).offsets[0], 0);
  o.side = ScratchSide::kTop;
  EXPECT_EQ(place_scratch(acts.problem, acts.solution, 100, reqs, o).offsets[0], 8);
}

TEST(ScratchPlanner, MultiStepRequestUsesAreasFreeAtEveryStep) {
  // step 0: A [0,30) -> free [30,100); step 1: B [50,100) -> free [0,50). Both: [30,50).
  const Plan acts = plan_of({{"A", 0, 30, 0, 1}, {"B", 50, 50, 1, 2}});
  ScratchRequest prefetch = fixed("prefetch", 0, 20);
  prefetch.steps = 2;
  ScratchPlacement p = place_scratch(acts.problem, acts.solution, 100, {prefetch}, {});
  EXPECT_EQ(p.offsets[0], 30);  // interior area [30,50), bottom side
  EXPECT_EQ(p.grow_top, 0);
  // 25 bytes fit nowhere: top has no common edge area -> grow 25; bottom likewise 25; tie: top.
  prefetch.size = 25;
  p = place_scratch(acts.problem, acts.solution, 100, {prefetch}, {});
  EXPECT_EQ(p.offsets[0], 100);
  EXPECT_EQ(p.grow_top, 25);
  EXPECT_EQ(p.heap_bytes, 125);
}

TEST(ScratchPlanner, BottomGrowthKeepsEveryAlignment) {
  Plan acts = plan_of({{"A", 0, 100, 0, 1}});
  acts.problem.buffers[0].alignment = 16;
  ScratchRequest r = fixed("w", 0, 10);
  r.alignment = 8;
  ScratchOptions o;
  o.grow = ScratchGrow::kBottom;
  const ScratchPlacement p = place_scratch(acts.problem, acts.solution, 100, {r}, o);
  // At align_down(0 - 10, 8) = -16; growth 16 is already a multiple of lcm(16, 8) = 16.
  // Shifted by 16: w at 0, A at 16 (still 16-aligned).
  EXPECT_EQ(p.grow_bottom, 16);
  EXPECT_EQ(p.offsets[0], 0);
  EXPECT_EQ(p.activation_offsets[0], 16);
  EXPECT_EQ(p.heap_bytes, 116);
}

TEST(ScratchPlanner, VariableWithNoFreeAreaAndZeroMinimumGetsNothing) {
  const Plan acts = plan_of({{"A", 0, 100, 0, 1}});
  const ScratchPlacement p =
      place_scratch(acts.problem, acts.solution, 100, {variable("v", 0, 0)}, {});
  EXPECT_EQ(p.sizes[0], 0);
  EXPECT_EQ(p.heap_bytes, 100);
}

}  // namespace
}  // namespace strider::memory
