// FillPipeline (core/timing/fill_pipeline.h): add(writes, compute, count) extrapolates `count`
// identical fills in one step; it must equal `count` single adds from any state, and single adds
// must follow the recurrence of the header.
#include "core/timing/fill_pipeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

namespace strider {
namespace {

uint64_t pick(std::mt19937_64& rng, uint64_t lo, uint64_t hi) {
  return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
}

// A random fill size: mostly small, sometimes zero, sometimes large.
uint64_t random_cycles(std::mt19937_64& rng) {
  switch (pick(rng, 0, 5)) {
    case 0:
      return 0;
    case 1:
      return pick(rng, 100, 5000);
    default:
      return pick(rng, 1, 24);
  }
}

std::string state(const FillPipeline& p) {
  return "fills " + std::to_string(p.fills()) + " write_end " + std::to_string(p.write_end()) +
         " compute_end " + std::to_string(p.compute_end()) + " first_writes " +
         std::to_string(p.first_writes()) + " last_compute " + std::to_string(p.last_compute());
}

TEST(FillPipeline, SingleAddsFollowTheRecurrence) {
  // Hand case, two buffers: fills (writes, compute) = (4, 1), (2, 6), (3, 2), (1, 1).
  // fill 0: writes 0..4, compute 4..5; fill 1: writes 4..6, compute 6..12;
  // fill 2: writes start max(6, 5) = 6, end 9, compute max(9, 12) = 12..14;
  // fill 3: writes start max(9, compute_end(1) = 12) = 12, end 13, compute max(13, 14) = 14..15.
  FillPipeline p;
  p.add(4, 1);
  p.add(2, 6);
  p.add(3, 2);
  p.add(1, 1);
  EXPECT_EQ(p.fills(), 4u);
  EXPECT_EQ(p.write_end(), 13u);
  EXPECT_EQ(p.compute_end(), 15u);
  EXPECT_EQ(p.first_writes(), 4u);
  EXPECT_EQ(p.last_compute(), 1u);

  std::mt19937_64 rng(14);
  for (int trial = 0; trial < 2000; ++trial) {
    FillPipeline pipe;
    uint64_t write_end = 0, compute_end = 0, compute_end_2 = 0;  // fill i-1 and i-2
    const uint64_t n = pick(rng, 1, 12);
    for (uint64_t i = 0; i < n; ++i) {
      const uint64_t w = random_cycles(rng), c = random_cycles(rng);
      pipe.add(w, c);
      write_end = std::max(write_end, compute_end_2) + w;
      compute_end_2 = compute_end;
      compute_end = std::max(write_end, compute_end) + c;
      ASSERT_EQ(pipe.write_end(), write_end) << "trial " << trial << " fill " << i;
      ASSERT_EQ(pipe.compute_end(), compute_end) << "trial " << trial << " fill " << i;
      ASSERT_EQ(pipe.last_compute(), c);
    }
    ASSERT_EQ(pipe.fills(), n);
  }
}

TEST(FillPipeline, BulkAddEqualsSingleAddsFromRandomStates) {
  std::mt19937_64 rng(0xf111);
  for (int trial = 0; trial < 20000; ++trial) {
    FillPipeline bulk;
    const uint64_t history = pick(rng, 0, 5);
    for (uint64_t i = 0; i < history; ++i) bulk.add(random_cycles(rng), random_cycles(rng));
    FillPipeline single = bulk;
    const uint64_t w = random_cycles(rng), c = random_cycles(rng);
    const uint64_t count = pick(rng, 0, 3) == 0 ? pick(rng, 50, 400) : pick(rng, 0, 9);
    bulk.add(w, c, count);
    for (uint64_t i = 0; i < count; ++i) single.add(w, c);
    const std::string what = "trial " + std::to_string(trial) + ": " + std::to_string(history) +
                             " fills, then add(" + std::to_string(w) + ", " + std::to_string(c) +
                             ", " + std::to_string(count) + ")";
    ASSERT_EQ(state(bulk), state(single)) << what;
    // The hidden state (fill i-2's compute end) must match too: one more different fill.
    const uint64_t w2 = random_cycles(rng), c2 = random_cycles(rng);
    bulk.add(w2, c2);
    single.add(w2, c2);
    ASSERT_EQ(state(bulk), state(single)) << what << " then add(" << w2 << ", " << c2 << ")";
  }
}

}  // namespace
}  // namespace strider
