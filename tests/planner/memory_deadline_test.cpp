// Deadlines (issue 31, item 4): every allocator and search returns within 2 s when given a 1 s
// limit on 10^6 heavily overlapping buffers (each live alongside about 3,000 others), with a plan
// the verifier accepts. The instance: tests/planner/heavy_problem.h.
#include <gtest/gtest.h>
#include <time.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "planner/memory/allocator.h"
#include "planner/memory/verifier.h"
#include "tests/planner/heavy_problem.h"

namespace strider::memory {
namespace {

const Problem& heavy() {
  static const Problem p = heavy_problem();
  return p;
}

// This thread's processor time.
double cpu_seconds() { return memory::cpu_seconds(CLOCK_THREAD_CPUTIME_ID); }

class MemoryDeadline : public ::testing::TestWithParam<std::string> {};

TEST_P(MemoryDeadline, ReturnsWithinTwiceItsLimit) {
  const Problem& p = heavy();
  AllocatorOptions opt;
  opt.name = GetParam();
  opt.time_limit_s = 1.0;
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = cpu_seconds();
  // The allocator itself is timed; the independent verifier (allocate() runs it after every
  // solve) checks the plan below, untimed, so the bound is the allocator's and not the checker's.
  const Solution s = make_allocator(opt.name)->solve(p, opt);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = cpu_seconds() - c0;
  // Within 2 s of the processor: the wall clock too on a machine of its own (CI); on a shared
  // one the wall time also holds the time other processes ran.
  // Under AddressSanitizer (make test-asan) every step past the deadline (stacking the rest,
  // verifying the plan) runs 2-4x slower: the bound is scaled by 4 there.
  const double bound = sanitizer_scaled(2.0);
  EXPECT_LT(cpu, bound) << GetParam() << ": wall " << wall << " s";
  EXPECT_EQ(s.offsets.size(), p.buffers.size());
  const std::vector<std::string> errors = verify(p, s);
  EXPECT_TRUE(errors.empty()) << GetParam() << ": " << (errors.empty() ? "" : errors[0]);
  std::printf("%s: %.2f s wall, %.2f s cpu, height %lld\n", GetParam().c_str(), wall, cpu,
              (long long)s.height);
}

INSTANTIATE_TEST_SUITE_P(Allocators, MemoryDeadline,
                         ::testing::Values("naive", "first_fit", "best_fit", "greedy_by_size",
                                           "greedy_by_conflicts", "search", "exact", "auto"));

}  // namespace
}  // namespace strider::memory
