// Scratch planner on random activation plans (made by the greedy allocator) and random requests:
// every result passes the independent verifier, fixed requests get their size, variable ones at
// least their minimum, the heap accounting adds up, and refinement never does worse than the
// default by its own criterion. Fixed seed: deterministic.
#include <gtest/gtest.h>

#include <random>

#include "planner/memory/allocator.h"
#include "planner/memory/scratch_planner.h"
#include "planner/memory/verifier.h"

namespace strider::memory {
namespace {

int64_t pick(std::mt19937_64& rng, int64_t lo, int64_t hi) {  // in [lo, hi]
  return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
}

TEST(ScratchRandom, PlansVerifyAndAccountingAddsUp) {
  std::mt19937_64 rng(12345);
  constexpr int64_t kSteps = 12;
  for (int round = 0; round < 60; ++round) {
    Problem p;
    const int64_t n = pick(rng, 0, 14);
    for (int64_t i = 0; i < n; ++i) {
      Buffer b;
      b.id = "t" + std::to_string(i);
      b.lower = pick(rng, 0, kSteps - 1);
      b.upper = pick(rng, b.lower + 1, kSteps);
      b.size = pick(rng, 1, 64);
      b.alignment = int64_t{1} << pick(rng, 0, 3);
      p.buffers.push_back(b);
    }
    AllocatorOptions ao;
    ao.name = "greedy_by_size";
    const Solution plan = allocate(p, ao);
    const int64_t heap_top = plan.height + pick(rng, 0, 16);

    std::vector<ScratchRequest> reqs;
    const int64_t m = pick(rng, 1, 12);
    for (int64_t i = 0; i < m; ++i) {
      ScratchRequest r;
      r.id = "s" + std::to_string(i);
      r.step = pick(rng, 0, kSteps - 1);
      r.variable = pick(rng, 0, 3) == 0;
      if (r.variable) {
        r.min_size = pick(rng, 0, 40);
      } else {
        r.size = pick(rng, 1, 80);
        r.steps = pick(rng, 1, 2);
      }
      r.latency_critical = pick(rng, 0, 1) == 1;
      r.may_stack = pick(rng, 0, 1) == 1;
      r.alignment = int64_t{1} << pick(rng, 0, 4);
      reqs.push_back(r);
    }
    ScratchOptions o;
    o.fast_bytes = pick(rng, 0, 64);
    const ScratchPlacement base = place_scratch(p, plan, heap_top, reqs, o);
    SCOPED_TRACE("round " + std::to_string(round));
    EXPECT_TRUE(verify(base.combined, base.combined_plan).empty());
    EXPECT_EQ(base.heap_bytes, heap_top + base.grow_top + base.grow_bottom);
    for (size_t i = 0; i < reqs.size(); ++i) {
      if (reqs[i].variable) {
        EXPECT_GE(base.sizes[i], reqs[i].min_size) << reqs[i].id;
      } else {
        EXPECT_EQ(base.sizes[i], reqs[i].size) << reqs[i].id;
      }
      EXPECT_GE(base.offsets[i], 0);
      EXPECT_LE(base.offsets[i] + base.sizes[i], base.heap_bytes);
    }
    for (size_t i = 0; i < p.buffers.size(); ++i) {
      EXPECT_EQ(base.activation_offsets[i], plan.offsets[i] + base.grow_bottom);
    }

    o.refine = ScratchCriterion::kLeastHeap;
    EXPECT_LE(place_scratch(p, plan, heap_top, reqs, o).heap_bytes, base.heap_bytes);
    o.refine = ScratchCriterion::kNoGrowth;
    const ScratchPlacement ng = place_scratch(p, plan, heap_top, reqs, o);
    EXPECT_LE(ng.grow_top + ng.grow_bottom, base.grow_top + base.grow_bottom);
    o.refine = ScratchCriterion::kLeastFragmentation;
    EXPECT_LE(place_scratch(p, plan, heap_top, reqs, o).fragmentation, base.fragmentation);
    o.refine = ScratchCriterion::kMostFastBytes;
    EXPECT_GE(place_scratch(p, plan, heap_top, reqs, o).fast_bytes_critical,
              base.fast_bytes_critical);
  }
}

}  // namespace
}  // namespace strider::memory
