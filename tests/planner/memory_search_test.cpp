// The search allocator's parts: peak pressure, the peak sweep, order search seeds, the window
// refiner, and the search on a real trace.
#include <gtest/gtest.h>

#include "tests/planner/memory_test_util.h"

#include <string>

#include "planner/memory/allocator.h"
#include "planner/memory/csv_io.h"
#include "planner/memory/order_search.h"
#include "planner/memory/peak_sweep.h"
#include "planner/memory/verifier.h"
#include "planner/memory/window_refiner.h"

namespace strider::memory {
namespace {

// a [2,4) 1, b [1,3) 2, c [3,5) 3, d [2,3) 2, e [1,2) 3. Live bytes: 5 at steps 1 and 2
// (b+e, a+b+d), 4 at 3 (a+c), 3 at 4 (c): LB = 5. Greedy by size, by conflicts and best fit
// all end at 6.
Problem tricky() {
  Problem p;
  p.buffers = {buf("a", 2, 4, 1), buf("b", 1, 3, 2), buf("c", 3, 5, 3), buf("d", 2, 3, 2),
               buf("e", 1, 2, 3)};
  return p;
}

Solution run(const std::string& name, const Problem& p) {
  AllocatorOptions opt;
  opt.name = name;
  opt.time_limit_s = 2.0;
  return allocate(p, opt);
}

TEST(MemorySearch, PeakPressure) {
  // Each buffer's largest live total over its lifetime: c sees 4 (step 3) and 3 (step 4).
  EXPECT_EQ(peak_pressure(tricky()), (std::vector<int64_t>{5, 5, 4, 5, 5}));
}

TEST(MemorySearch, GreedyAllocatorsMissTheLowerBound) {
  EXPECT_EQ(lower_bound(tricky()), 5);
  EXPECT_EQ(run("greedy_by_size", tricky()).height, 6);
  EXPECT_EQ(run("greedy_by_conflicts", tricky()).height, 6);
  EXPECT_EQ(run("best_fit", tricky()).height, 6);
}

TEST(MemorySearch, PeakSweepPacksThePeakAndSweepsOutward) {
  Problem p = tricky();
  PeakSweep sweep(p);
  EXPECT_EQ(sweep.peak_time(), 1);
  // Stack at step 1 by lower (ties: index): b [0,2), e [2,5). Forward: at 2 e ends (top back to
  // 2), d (larger first) takes [2,4), a [4,5); at 3 b and d end, coalescing [0,4); c takes 0.
  std::vector<int64_t> offsets = sweep.decode({2, 1, 3, 2, 1});
  EXPECT_EQ(offsets, (std::vector<int64_t>{4, 0, 0, 2, 2}));
  EXPECT_EQ(sweep.height(), 5);
}

TEST(MemorySearch, SearchReachesTheLowerBound) {
  Solution s = run("search", tricky());
  // The pressure and greedy seeds end at 6; the peak sweep's plan (above) is decoded again by
  // first fit in offset order b, c, d, e, a: b 0, c 0, d above b -> 2, e above b -> 2,
  // a above b, c, d -> 4.
  EXPECT_EQ(s.offsets, (std::vector<int64_t>{4, 0, 0, 2, 2}));
  EXPECT_EQ(s.height, 5);
  EXPECT_TRUE(s.proven_optimal);
}

TEST(MemorySearch, AutoReachesTheLowerBound) {
  Solution s = run("auto", tricky());
  EXPECT_EQ(s.height, 5);
  EXPECT_EQ(s.allocator, "auto/search");
  EXPECT_TRUE(s.proven_optimal);
}

TEST(MemorySearch, OrderSearchWithFixedObstacles) {
  // d is fixed at [0,2) over [2,3). Then 5 is out of reach: at step 2, a and b share [2,5); e
  // (step 1) needs 3 bytes beside b, so b sits at 3 and a at 2; at step 3, c (3 bytes) finds only
  // [0,2) below a and must go to [3,6). The search finds that optimum, 6, around the obstacle.
  Problem p = tricky();
  p.buffers[3].fixed_offset = 0;
  OrderSearch search(p, 1.0, 1);
  search.seeds();
  search.squeaky_wheel();
  Solution s = search.solution("search");
  EXPECT_TRUE(verify(p, s).empty());
  EXPECT_EQ(s.offsets[3], 0);
  EXPECT_EQ(s.height, 6);
}

TEST(MemorySearch, WindowRefinerNeverWorsensAPlan) {
  Problem p = tricky();
  // A valid but poor plan: everything stacked (naive), height 11.
  std::vector<int64_t> offsets = {0, 1, 3, 6, 8};
  const int64_t h = WindowRefiner(p).refine(&offsets, 0.5, 1);
  Solution s;
  s.offsets = offsets;
  s.height = h;
  EXPECT_TRUE(verify(p, s).empty());
  EXPECT_LE(h, 11);
  EXPECT_GE(h, 5);
}

TEST(MemorySearch, RealTraceG1ReachesLowerBound) {
  // IOPDDL G_1 (816 buffers): the first peak-pressure seed packs it at the lower bound
  // (greedy by size is 2,561 bytes above it).
  const std::string path = std::string(STRIDER_SOURCE_DIR) + "/../shared/benchmarks/idealloc/G_1.csv";
  Problem p = read_problem_csv_file(path);
  EXPECT_EQ(lower_bound(p), 3030937746);
  EXPECT_EQ(run("greedy_by_size", p).height, 3030940307);
  Solution s = run("search", p);
  EXPECT_EQ(s.height, 3030937746);
  EXPECT_TRUE(s.proven_optimal);
}

}  // namespace
}  // namespace strider::memory
