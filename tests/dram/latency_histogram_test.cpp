// LatencyHistogram (model/dram/latency_histogram.h): exact percentiles below 1024 cycles, bins of
// 1/256 of their power of two above, constant memory.
#include "model/dram/latency_histogram.h"

#include <gtest/gtest.h>

namespace strider {
namespace {

TEST(LatencyHistogram, ExactBelow1024) {
  LatencyHistogram h;
  EXPECT_EQ(h.percentile(99), 0u);  // empty
  for (uint64_t v = 1; v <= 200; ++v) h.add(v);
  // Nearest rank: ceil(200 x 99 / 100) = 198th smallest = 198; the median rank 100.
  EXPECT_EQ(h.percentile(99), 198u);
  EXPECT_EQ(h.percentile(50), 100u);
  EXPECT_EQ(h.percentile(100), 200u);
}

TEST(LatencyHistogram, BinsAboveAreA256thOfTheirPowerOfTwo) {
  // [4096, 8192) is split into 256 bins of 16: 5000 is in [4992, 5007].
  EXPECT_EQ(LatencyHistogram::bin(5000), LatencyHistogram::bin(4992));
  EXPECT_NE(LatencyHistogram::bin(5008), LatencyHistogram::bin(5007));
  EXPECT_EQ(LatencyHistogram::upper(LatencyHistogram::bin(5000)), 5007u);
  EXPECT_EQ(LatencyHistogram::bin(1023), 1023u);
  EXPECT_EQ(LatencyHistogram::bin(1024), 1024u);  // [1024, 2048): bins of 4
  EXPECT_EQ(LatencyHistogram::upper(1024), 1027u);
  EXPECT_EQ(LatencyHistogram::upper(LatencyHistogram::bin(UINT64_MAX)), UINT64_MAX);
  LatencyHistogram h;
  for (int i = 0; i < 98; ++i) h.add(10);
  h.add(5000);
  h.add(6000);
  // Rank ceil(100 x 0.99) = 99: 5000, reported as its bin's upper end 5007 (within 16 / 4096).
  EXPECT_EQ(h.percentile(99), 5007u);
  EXPECT_EQ(h.percentile(100), 6000u);  // capped at the largest value seen (bin end 6015)
  EXPECT_EQ(h.count(), 100u);
}

}  // namespace
}  // namespace strider
