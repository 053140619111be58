// Allocators on hand-made problems with exact offsets, plus the registry and allocate().
#include <gtest/gtest.h>

#include "tests/planner/memory_test_util.h"

#include <stdexcept>

#include "planner/memory/allocator.h"
#include "planner/memory/verifier.h"

namespace strider::memory {
namespace {

// x [0,2) 32, y [0,4) 16, z [0,2) 16, w [0,4) 16, v [2,4) 16. Live bytes: 80 on [0,2), 48 on
// [2,4), so LB = 80. At time 2 x and z end, leaving holes [0,32) and [48,64) for v.
Problem holes_problem() {
  Problem p;
  p.buffers = {buf("x", 0, 2, 32), buf("y", 0, 4, 16), buf("z", 0, 2, 16), buf("w", 0, 4, 16),
               buf("v", 2, 4, 16)};
  return p;
}

Solution run(const std::string& name, const Problem& p) {
  AllocatorOptions opt;
  opt.name = name;
  opt.time_limit_s = 1.0;
  return allocate(p, opt);
}

TEST(MemoryAllocator, LowerBound) { EXPECT_EQ(lower_bound(holes_problem()), 80); }

TEST(MemoryAllocator, PeakLiveSet) {
  PeakLiveSet peak = peak_live_set(holes_problem());
  EXPECT_EQ(peak.time, 0);
  EXPECT_EQ(peak.bytes, 80);
  EXPECT_EQ(peak.buffers, 4u);
}

TEST(MemoryAllocator, NaiveStacksEverything) {
  Solution s = run("naive", holes_problem());
  // 0, 0+32, 32+16, 48+16, 64+16: no reuse.
  EXPECT_EQ(s.offsets, (std::vector<int64_t>{0, 32, 48, 64, 80}));
  EXPECT_EQ(s.height, 96);
  EXPECT_EQ(s.allocator, "naive");
}

TEST(MemoryAllocator, NaiveAlignsAndSkipsFixed) {
  Problem p = holes_problem();
  p.buffers[1].alignment = 64;
  p.buffers[2].fixed_offset = 0;
  Solution s = run("naive", p);
  // Fixed z occupies [0,16): x from 16, y aligned 48 -> 64, z fixed 0, w 80, v 96.
  EXPECT_EQ(s.offsets, (std::vector<int64_t>{16, 64, 0, 80, 96}));
  EXPECT_EQ(s.height, 112);
}

TEST(MemoryAllocator, FirstFitTakesLowestHole) {
  Solution s = run("first_fit", holes_problem());
  // Time 0 stacks x,y,z,w at 0,32,48,64. Time 2 frees [0,32) and [48,64); v goes to the lowest.
  EXPECT_EQ(s.offsets, (std::vector<int64_t>{0, 32, 48, 64, 0}));
  EXPECT_EQ(s.height, 80);
}

TEST(MemoryAllocator, BestFitTakesSmallestHole) {
  Solution s = run("best_fit", holes_problem());
  // Same holes; [48,64) is exactly 16 bytes, smaller than [0,32).
  EXPECT_EQ(s.offsets, (std::vector<int64_t>{0, 32, 48, 64, 48}));
  EXPECT_EQ(s.height, 80);
}

TEST(MemoryAllocator, BestFitCoalescesNeighbours) {
  Problem p;
  // a [0,2) 16 at 0, b [0,2) 16 at 16, c [0,5) 8 at 32. At 2 a and b end and coalesce into
  // [0,32), so d (32 bytes) fits at 0 instead of on top at 40.
  p.buffers = {buf("a", 0, 2, 16), buf("b", 0, 2, 16), buf("c", 0, 5, 8), buf("d", 2, 5, 32)};
  Solution s = run("best_fit", p);
  EXPECT_EQ(s.offsets, (std::vector<int64_t>{0, 16, 32, 0}));
  EXPECT_EQ(s.height, 40);
}

TEST(MemoryAllocator, GreedyBySize) {
  Solution s = run("greedy_by_size", holes_problem());
  // Order: x (32), then the 16-byte ones by lower: y, z, w (index order at lower 0), v.
  // x -> 0; y above x -> 32; z above x,y -> 48; w above x,y,z -> 64;
  // v meets y [32,48) and w [64,80): gaps [0,32) (32 bytes) and [48,64) (16): smallest -> 48.
  EXPECT_EQ(s.offsets, (std::vector<int64_t>{0, 32, 48, 64, 48}));
  EXPECT_EQ(s.height, 80);
}

TEST(MemoryAllocator, GreedyByConflicts) {
  Solution s = run("greedy_by_conflicts", holes_problem());
  // Conflicts: x 3, y 4, z 3, w 4, v 2. Order y, w, x (32 before z's 16), z, v.
  // y -> 0; w -> 16; x above both -> 32; z above y,w,x -> 64; v meets y [0,16), w [16,32) -> 32.
  EXPECT_EQ(s.offsets, (std::vector<int64_t>{32, 0, 64, 16, 32}));
  EXPECT_EQ(s.height, 80);
}

TEST(MemoryAllocator, GreedyBestFitGapPrefersSmallestGap) {
  Problem p;
  // Big lives [0,4) 64 at 0; gaps are created by a [0,4) 16 placed at fixed 96 and b [0,4) 8 at
  // fixed 120: free gaps over [0,4) are [64,96) (32) and [112,120) (8). c (8 bytes) takes the
  // 8-byte gap at 112 under best fit.
  p.buffers = {buf("big", 0, 4, 64), buf("a", 0, 4, 16), buf("b", 0, 4, 8), buf("c", 1, 3, 8)};
  p.buffers[1].fixed_offset = 96;
  p.buffers[2].fixed_offset = 120;
  Solution s = run("greedy_by_size", p);
  EXPECT_EQ(s.offsets, (std::vector<int64_t>{0, 96, 120, 112}));
  EXPECT_EQ(s.height, 128);
}

TEST(MemoryAllocator, AlignmentHonouredByEveryAllocator) {
  Problem p;
  p.buffers = {buf("a", 0, 2, 10), buf("b", 1, 3, 10)};
  p.buffers[1].alignment = 64;
  for (const std::string& name : allocator_names()) {
    Solution s = run(name, p);
    if (name == "search" || name == "exact" || name == "auto") {
      // These reach the lower bound 20: b at 0 (aligned), a above it at 10.
      EXPECT_EQ(s.offsets, (std::vector<int64_t>{10, 0})) << name;
      EXPECT_EQ(s.height, 20) << name;
    } else {
      // a first at 0 occupies [0,10); b overlaps a in time and must sit at a multiple of 64.
      EXPECT_EQ(s.offsets, (std::vector<int64_t>{0, 64})) << name;
      EXPECT_EQ(s.height, 74) << name;
    }
  }
}

TEST(MemoryAllocator, FixedOffsetsHonouredByEveryAllocator) {
  Problem p;
  // f is fixed at [0,16) over [1,3); a [0,4) 16 must avoid it; after 3, g [3,5) 16 may use 0.
  p.buffers = {buf("a", 0, 4, 16), buf("f", 1, 3, 16), buf("g", 3, 5, 16)};
  p.buffers[1].fixed_offset = 0;
  for (const std::string& name : allocator_names()) {
    if (name == "naive") continue;
    Solution s = run(name, p);
    EXPECT_EQ(s.offsets, (std::vector<int64_t>{16, 0, 0})) << name;
    EXPECT_EQ(s.height, 32) << name;
  }
}

TEST(MemoryAllocator, OverlappingFixedBuffersAreAnError) {
  Problem p;
  p.buffers = {buf("a", 0, 4, 16), buf("b", 1, 3, 16)};
  p.buffers[0].fixed_offset = 0;
  p.buffers[1].fixed_offset = 8;
  try {
    run("greedy_by_size", p);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "fixed buffers 'a' and 'b' overlap in address and lifetime");
  }
}

TEST(MemoryAllocator, CapacityExceededNamesTheLiveSet) {
  Problem p = holes_problem();
  p.capacity = 64;
  try {
    run("greedy_by_size", p);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "allocator 'greedy_by_size': plan height 80 exceeds capacity 64 (lower bound 80; "
                 "largest live set: 4 buffers, 80 bytes at time 0)");
  }
}

TEST(MemoryAllocator, UnknownNameListsValidOnes) {
  try {
    make_allocator("bogus");
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    std::string what = e.what();
    EXPECT_EQ(what.rfind("unknown allocator 'bogus', valid: auto, naive, first_fit, best_fit, ", 0),
              0u)
        << what;
  }
}

TEST(MemoryAllocator, AutoReachesLowerBoundAndSaysSo) {
  Solution s = run("auto", holes_problem());
  EXPECT_EQ(s.height, 80);
  EXPECT_TRUE(s.proven_optimal);
  EXPECT_EQ(s.allocator.rfind("auto/", 0), 0u) << s.allocator;
}

TEST(MemoryAllocator, EmptyProblem) {
  for (const std::string& name : allocator_names()) {
    Solution s = run(name, Problem{});
    EXPECT_EQ(s.height, 0) << name;
    EXPECT_TRUE(s.offsets.empty()) << name;
  }
}

}  // namespace
}  // namespace strider::memory
