// Tests of the exact solver's parts: the unit and section preprocessing (ExactInstance), the
// decision search (PackingSearch), the portfolio's determinism across thread counts, the time
// limit, and two benchmark instances of ../shared/benchmarks/minimalloc/challenging.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include "planner/memory/csv_io.h"
#include "planner/memory/exact/exact_instance.h"
#include "planner/memory/exact/packing_search.h"
#include "planner/memory/exact/search_portfolio.h"
#include "planner/memory/exact_allocator.h"
#include "planner/memory/verifier.h"

namespace strider::memory {
namespace {

using exact::ExactInstance;
using exact::PackingSearch;
using exact::SearchPortfolio;

Buffer buf(const std::string& id, int64_t lower, int64_t upper, int64_t size,
           int64_t alignment = 1) {
  Buffer b;
  b.id = id;
  b.lower = lower;
  b.upper = upper;
  b.size = size;
  b.alignment = alignment;
  return b;
}

const auto kFar = std::chrono::steady_clock::now() + std::chrono::hours(1);

TEST(ExactInstance, UnitIsTheSizeGcdWhenAlignmentsDivideIt) {
  Problem p;
  p.buffers = {buf("a", 0, 2, 1024), buf("b", 1, 3, 3072, 4096), buf("c", 2, 4, 2048, 512)};
  const ExactInstance inst(p);
  EXPECT_EQ(inst.unit(), 1024);
  EXPECT_EQ(inst.alignment(1), 4);  // 4096 / 1024
  EXPECT_EQ(inst.alignment(2), 1);  // 512 divides 1024: every unit offset is aligned
  EXPECT_EQ(inst.lower_bound_units(), 5);  // time 2: b + c = 3 + 2 units
}

TEST(ExactInstance, UnitShrinksUntilEveryAlignmentDividesItOrIsAMultiple) {
  // Size gcd 24; alignment 36 forces gcd(24, 36) = 12, then 8 forces gcd(12, 8) = 4.
  Problem p;
  p.buffers = {buf("a", 0, 2, 24, 8), buf("b", 1, 3, 48, 36)};
  const ExactInstance inst(p);
  EXPECT_EQ(inst.unit(), 4);
  EXPECT_EQ(inst.alignment(0), 2);  // 8 / 4
  EXPECT_EQ(inst.alignment(1), 9);  // 36 / 4
}

TEST(ExactInstance, SectionsAndOverlaps) {
  // End points 0, 2, 3, 5 give sections [0,2) [2,3) [3,5); a spans 0-1, b 1-2, c 2.
  Problem p;
  p.buffers = {buf("a", 0, 3, 1), buf("b", 2, 5, 2), buf("c", 3, 5, 3)};
  const ExactInstance inst(p);
  EXPECT_EQ(inst.num_sections(), 3);
  EXPECT_EQ(inst.section_lo(1), 1);
  EXPECT_EQ(inst.section_hi(1), 3);
  EXPECT_EQ(inst.section_total(2), 5);  // b + c
  const std::vector<int> a_overlaps(inst.overlaps_begin(0), inst.overlaps_end(0));
  EXPECT_EQ(a_overlaps, std::vector<int>({1}));  // a and c never share a step
}

TEST(ExactInstance, TooLargeProblemsAreNotSearched) {
  Problem p;
  p.buffers = {buf("a", 0, 3, 1), buf("b", 2, 5, 2), buf("c", 3, 5, 3)};
  const ExactInstance inst(p, /*max_buffers=*/2);
  EXPECT_FALSE(inst.searchable());
  EXPECT_EQ(inst.lower_bound_units(), 5);
}

TEST(PackingSearch, DecidesEachHeight) {
  // The 9-buffer instance of exact_allocator_test: live peak 5, optimum 6.
  Problem p;
  p.buffers = {buf("a", 7, 8, 2), buf("b", 3, 5, 1), buf("c", 1, 4, 2),
               buf("d", 0, 2, 3), buf("e", 6, 7, 1), buf("f", 5, 8, 3),
               buf("g", 3, 6, 1), buf("h", 4, 7, 1), buf("i", 3, 5, 1)};
  const ExactInstance inst(p);
  PackingSearch search(inst, "TWA");
  EXPECT_EQ(search.run(5, 0, kFar), PackingSearch::Outcome::kInfeasible);
  EXPECT_EQ(search.run(6, 0, kFar), PackingSearch::Outcome::kFound);
  EXPECT_EQ(search.run(6, 1, kFar), PackingSearch::Outcome::kAborted);  // one node is not enough
}

std::string challenging(const std::string& name) {
  return std::string(STRIDER_SOURCE_DIR) + "/../shared/benchmarks/minimalloc/challenging/" + name;
}

TEST(SearchPortfolio, SameResultOnOneOrThreeThreads) {
  // B stopped after the 4000-node round is mid-search (hi above lo), which exercises the
  // parallel rounds' merge: the outcome must not depend on the number of threads.
  const std::string path = challenging("B.1048576.csv");
  if (!std::ifstream(path)) GTEST_SKIP() << "benchmark not present: " << path;
  const ExactInstance inst(read_problem_csv_file(path));
  const int n = inst.num_buffers();
  SearchPortfolio one(inst, inst.lower_bound_units(), SearchPortfolio::kNone,
                      std::vector<int64_t>(n, 0), 1024, 1);
  SearchPortfolio three(inst, inst.lower_bound_units(), SearchPortfolio::kNone,
                        std::vector<int64_t>(n, 0), 1024, 3);
  one.run(kFar, 4000);
  three.run(kFar, 4000);
  EXPECT_EQ(inst.lower_bound_units(), 1024);  // 1,048,576 bytes in units of 1024
  EXPECT_EQ(one.lo(), 1024);
  EXPECT_GT(one.hi(), one.lo());
  EXPECT_EQ(one.hi(), three.hi());
  EXPECT_EQ(one.best(), three.best());
}

TEST(ExactAllocatorBenchmark, CPacksAtItsLowerBound) {
  const std::string path = challenging("C.1048576.csv");
  if (!std::ifstream(path)) GTEST_SKIP() << "benchmark not present: " << path;
  Problem p = read_problem_csv_file(path);
  p.capacity = 1048576;
  AllocatorOptions opt;
  opt.time_limit_s = 60;
  const Solution s = make_exact_allocator()->solve(p, opt);
  EXPECT_TRUE(verify(p, s).empty());
  EXPECT_EQ(s.height, 1039360);  // the live peak, so optimal
  EXPECT_TRUE(s.proven_optimal);
}

TEST(ExactAllocatorBenchmark, HonoursTheTimeLimitOnAnOpenInstance) {
  // D's optimum is unknown (live peak 986,112); the search cannot finish, so it must stop at
  // the limit with a valid plan.
  const std::string path = challenging("D.1048576.csv");
  if (!std::ifstream(path)) GTEST_SKIP() << "benchmark not present: " << path;
  Problem p = read_problem_csv_file(path);
  AllocatorOptions opt;
  opt.time_limit_s = 0.3;
  const auto t0 = std::chrono::steady_clock::now();
  const Solution s = make_exact_allocator()->solve(p, opt);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(verify(p, s).empty());
  EXPECT_FALSE(s.proven_optimal);
  EXPECT_GE(s.height, 986112);
  EXPECT_LT(seconds, 3.0);  // the limit plus generous slack for a loaded machine
}

}  // namespace
}  // namespace strider::memory
