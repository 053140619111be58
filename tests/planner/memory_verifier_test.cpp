// The independent verifier rejects each kind of broken plan with a message naming the buffers.
#include <gtest/gtest.h>

#include "tests/planner/memory_test_util.h"

#include "planner/memory/verifier.h"

namespace strider::memory {
namespace {

Problem two() {
  Problem p;
  p.buffers = {buf("a", 0, 4, 16), buf("b", 2, 6, 16)};
  return p;
}

Solution plan(std::vector<int64_t> offsets, int64_t height) {
  Solution s;
  s.offsets = std::move(offsets);
  s.height = height;
  return s;
}

TEST(MemoryVerifier, AcceptsValidPlan) {
  EXPECT_TRUE(verify(two(), plan({0, 16}, 32)).empty());
}

TEST(MemoryVerifier, TouchingLifetimesMayShareAddresses) {
  Problem p;
  p.buffers = {buf("a", 0, 3, 16), buf("b", 3, 9, 16)};  // upper is exclusive
  EXPECT_TRUE(verify(p, plan({0, 0}, 16)).empty());
}

TEST(MemoryVerifier, RejectsOverlap) {
  EXPECT_EQ(verify(two(), plan({0, 8}, 24)),
            (std::vector<std::string>{"buffers 'a' [0, 16) life [0, 4) and 'b' [8, 24) life [2, 6) "
                                      "overlap at time 2"}));
}

TEST(MemoryVerifier, RejectsOverlapWithEveryLiveBuffer) {
  Problem p = two();
  p.buffers.push_back(buf("c", 1, 5, 8));
  // a [0,16) and c [16,24) are fine; b [8,24) from time 2 overlaps both of them.
  EXPECT_EQ(verify(p, plan({0, 8, 16}, 24)),
            (std::vector<std::string>{
                "buffers 'a' [0, 16) life [0, 4) and 'b' [8, 24) life [2, 6) overlap at time 2",
                "buffers 'c' [16, 24) life [1, 5) and 'b' [8, 24) life [2, 6) overlap at time 2"}));
}

TEST(MemoryVerifier, RejectsNegativeOffset) {
  EXPECT_EQ(verify(two(), plan({-16, 16}, 32)),
            (std::vector<std::string>{"buffer 'a' has negative offset -16"}));
}

TEST(MemoryVerifier, RejectsCapacityOverflow) {
  Problem p = two();
  p.capacity = 24;
  EXPECT_EQ(verify(p, plan({0, 16}, 32)),
            (std::vector<std::string>{"buffer 'b' at [16, 32) exceeds capacity 24"}));
}

TEST(MemoryVerifier, RejectsMisalignment) {
  Problem p = two();
  p.buffers[1].alignment = 32;
  EXPECT_EQ(verify(p, plan({0, 16}, 32)),
            (std::vector<std::string>{"buffer 'b' at offset 16 is not aligned to 32"}));
}

TEST(MemoryVerifier, RejectsMovedFixedOffset) {
  Problem p = two();
  p.buffers[0].fixed_offset = 16;
  p.buffers[1].fixed_offset = 0;
  EXPECT_EQ(verify(p, plan({0, 16}, 32)),
            (std::vector<std::string>{"buffer 'a' must be at fixed offset 16 but is at 0",
                                      "buffer 'b' must be at fixed offset 0 but is at 16"}));
}

TEST(MemoryVerifier, RejectsWrongHeight) {
  EXPECT_EQ(verify(two(), plan({0, 16}, 40)),
            (std::vector<std::string>{"solution height 40 differs from max offset + size 32"}));
}

TEST(MemoryVerifier, RejectsWrongOffsetCount) {
  EXPECT_EQ(verify(two(), plan({0}, 16)),
            (std::vector<std::string>{"solution has 1 offsets for 2 buffers"}));
}

}  // namespace
}  // namespace strider::memory
