// Scratch planner: fast-region preference, each refinement criterion and input errors, with the
// expected offsets derived by hand in the comments.
#include <gtest/gtest.h>

#include <stdexcept>

#include "planner/memory/scratch_planner.h"
#include "planner/memory/verifier.h"

namespace strider::memory {
namespace {

Problem acts(const std::vector<std::pair<int64_t, int64_t>>& ranges_at_step0,
             Solution* plan) {
  Problem p;
  for (size_t i = 0; i < ranges_at_step0.size(); ++i) {
    Buffer b;
    b.id = "act" + std::to_string(i);
    b.lower = 0;
    b.upper = 1;
    b.size = ranges_at_step0[i].second - ranges_at_step0[i].first;
    p.buffers.push_back(b);
    plan->offsets.push_back(ranges_at_step0[i].first);
    plan->height = std::max(plan->height, ranges_at_step0[i].second);
  }
  return p;
}

ScratchRequest fixed(const std::string& id, int64_t size) {
  ScratchRequest r;
  r.id = id;
  r.size = size;
  return r;
}

TEST(ScratchFastRegion, LatencyCriticalPrefersTheFastRegion) {
  // Heap [0,100), step 0: [20,50) and [62,100) used; free [0,20) and [50,62). Fast [0,30).
  Solution plan;
  const Problem p = acts({{20, 50}, {62, 100}}, &plan);
  ScratchRequest crit = fixed("crit", 12);
  crit.latency_critical = true;
  ScratchOptions o;
  o.fast_bytes = 30;
  ScratchPlacement r = place_scratch(p, plan, 100, {crit}, o);
  // Fast part of [0,20) is all of it; it touches the heap bottom -> top side: 20-12 = 8.
  EXPECT_EQ(r.offsets[0], 8);
  EXPECT_EQ(r.fast_bytes_critical, 12);
  EXPECT_EQ(r.fast_bytes_used, 12);
  EXPECT_EQ(r.fast_begin, 0);
  EXPECT_EQ(r.fast_end, 30);
  // Not latency-critical: the smallest area holding 12, [50,62), outside the fast region.
  r = place_scratch(p, plan, 100, {fixed("slow", 12)}, o);
  EXPECT_EQ(r.offsets[0], 50);
  EXPECT_EQ(r.fast_bytes_used, 0);
}

TEST(ScratchFastRegion, PartOfAnAreaInsideTheFastRegion) {
  // Free [0,10) and [40,100) at step 0 ([10,40) used). Fast [0,50): its parts of the areas are
  // [0,10) (all of that area) and [40,50) (the lower edge of [40,100)).
  Solution plan;
  const Problem p = acts({{10, 40}}, &plan);
  ScratchRequest a = fixed("crit", 8);
  a.latency_critical = true;
  ScratchRequest b = fixed("crit2", 9);
  b.latency_critical = true;
  ScratchOptions o;
  o.fast_bytes = 50;
  const ScratchPlacement r = place_scratch(p, plan, 100, {a, b}, o);
  // Queue: crit2 (9) before crit (8). crit2: smallest fast part holding 9 is [0,10), a whole
  // area at the heap bottom -> top side: 10-9 = 1. crit: [0,1) is too small; [40,50) is the
  // lower edge of its area -> bottom side: 40.
  EXPECT_EQ(r.offsets, (std::vector<int64_t>{40, 1}));
  EXPECT_EQ(r.fast_bytes_critical, 17);
}

// Step 0: free X = [0,10) (heap bottom) and Y = [40,70); [10,40) and [70,100) used.
// a(12): smallest holding 12 is Y -> interior, bottom: [40,52). b(9, may stack): stacked on a at
// [52,61) (without stacking: the smallest area holding 9 is X (10 < 18) -> top side [1,10)).
Problem stack_problem(Solution* plan) { return acts({{10, 40}, {70, 100}}, plan); }

std::vector<ScratchRequest> stack_requests(bool with_variable) {
  std::vector<ScratchRequest> r = {fixed("a", 12), fixed("b", 9)};
  r[1].may_stack = true;
  if (with_variable) {
    ScratchRequest c;
    c.id = "c";
    c.variable = true;
    c.min_size = 15;
    r.push_back(c);
  }
  return r;
}

TEST(ScratchRefine, NoGrowthAndLeastHeapDropStacking) {
  Solution plan;
  const Problem p = stack_problem(&plan);
  // Default (stacking): left X [0,10) and [61,70); c (min 15) gets X = 10 < 15 -> fixed 15:
  // top grows 15 (no edge area), bottom: X counts -> at 10-15 = -5, grows 5. Shift 5:
  // a 45, b 57, c 0.
  ScratchPlacement r = place_scratch(p, plan, 100, stack_requests(true), {});
  EXPECT_EQ(r.offsets, (std::vector<int64_t>{45, 57, 0}));
  EXPECT_EQ(r.grow_bottom, 5);
  // Without stacking b takes [1,10), leaving [0,1) and [52,70): c gets [52,70), 18 bytes.
  for (ScratchCriterion c : {ScratchCriterion::kNoGrowth, ScratchCriterion::kLeastHeap}) {
    ScratchOptions o;
    o.refine = c;
    r = place_scratch(p, plan, 100, stack_requests(true), o);
    EXPECT_EQ(r.offsets, (std::vector<int64_t>{40, 1, 52})) << scratch_criterion_name(c);
    EXPECT_EQ(r.sizes, (std::vector<int64_t>{12, 9, 18}));
    EXPECT_EQ(r.heap_bytes, 100);
    EXPECT_EQ(r.variant, "edge/no_stack/cheaper");
  }
}

TEST(ScratchRefine, LeastFragmentation) {
  Solution plan;
  const Problem p = stack_problem(&plan);
  // Stacking leaves [0,10) and [61,70): 19 free bytes, largest 10 -> fragmentation 9.
  ScratchPlacement r = place_scratch(p, plan, 100, stack_requests(false), {});
  EXPECT_EQ(r.fragmentation, 9);
  // No stacking leaves [0,1) and [52,70): 19 - 18 = 1, the least over the variants.
  ScratchOptions o;
  o.refine = ScratchCriterion::kLeastFragmentation;
  r = place_scratch(p, plan, 100, stack_requests(false), o);
  EXPECT_EQ(r.fragmentation, 1);
  EXPECT_EQ(r.offsets, (std::vector<int64_t>{40, 1}));
  EXPECT_EQ(r.variant, "edge/no_stack/cheaper");
}

TEST(ScratchRefine, MostFastBytes) {
  // Free [0,20) only ([20,100) used); fast [0,10). Queue: plain(10) then crit(10) (input order).
  Solution plan;
  const Problem p = acts({{20, 100}}, &plan);
  ScratchRequest crit = fixed("crit", 10);
  crit.latency_critical = true;
  const std::vector<ScratchRequest> reqs = {fixed("plain", 10), crit};
  ScratchOptions o;
  o.fast_bytes = 10;
  o.side = ScratchSide::kBottom;
  // Side "bottom": plain takes [0,10), crit finds no fast part and gets [10,20).
  ScratchPlacement r = place_scratch(p, plan, 100, reqs, o);
  EXPECT_EQ(r.offsets, (std::vector<int64_t>{0, 10}));
  EXPECT_EQ(r.fast_bytes_critical, 0);
  // Refined: "edge" puts plain at the top of the heap-bottom area, [10,20); crit gets [0,10).
  o.refine = ScratchCriterion::kMostFastBytes;
  r = place_scratch(p, plan, 100, reqs, o);
  EXPECT_EQ(r.offsets, (std::vector<int64_t>{10, 0}));
  EXPECT_EQ(r.fast_bytes_critical, 10);
  EXPECT_EQ(r.variant, "edge/stack/cheaper");
}

TEST(ScratchRefine, CriterionNames) {
  EXPECT_EQ(scratch_criterion_from_name("least_heap"), ScratchCriterion::kLeastHeap);
  EXPECT_EQ(scratch_criterion_from_name(""), ScratchCriterion::kNone);
  EXPECT_EQ(scratch_criterion_name(ScratchCriterion::kMostFastBytes), "most_fast_bytes");
  try {
    scratch_criterion_from_name("smallest");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "unknown scratch refinement criterion 'smallest'; expected one of: no_growth, "
                 "least_heap, least_fragmentation, most_fast_bytes (or empty for none)");
  }
}

std::string error_of(const Problem& p, const Solution& s, int64_t heap_top,
                     const std::vector<ScratchRequest>& reqs) {
  try {
    place_scratch(p, s, heap_top, reqs, {});
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(ScratchErrors, BadInputNamesTheRequestOrBuffer) {
  Solution plan;
  const Problem p = acts({{0, 50}}, &plan);
  EXPECT_EQ(error_of(p, plan, 100, {fixed("w", 0)}),
            "scratch planner: scratch request 0 'w': fixed size 0 must be > 0");
  ScratchRequest v;
  v.id = "v";
  v.variable = true;
  v.steps = 2;
  EXPECT_EQ(error_of(p, plan, 100, {fixed("ok", 4), v}),
            "scratch planner: scratch request 1 'v': a variable-size request must live one "
            "step, not 2");
  ScratchRequest a = fixed("a", 4);
  a.alignment = 0;
  EXPECT_EQ(error_of(p, plan, 100, {a}),
            "scratch planner: scratch request 0 'a': alignment 0 must be >= 1");
  Solution overlapping;
  const Problem q = acts({{0, 50}, {40, 60}}, &overlapping);
  EXPECT_EQ(error_of(q, overlapping, 100, {}),
            "scratch planner: the activation plan is invalid: buffers 'act0' [0, 50) life [0, 1) "
            "and 'act1' [40, 60) life [0, 1) overlap at time 0");
  EXPECT_EQ(error_of(p, plan, 40, {}),
            "scratch planner: activation 'act0' at [0, 50) is outside the heap [0, 40)");
}

}  // namespace
}  // namespace strider::memory
