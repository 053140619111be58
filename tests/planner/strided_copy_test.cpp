// copy_blocks (planner/ir/strided_copy.h): strided N-D copies cut into 2-D gather blocks.
#include "planner/ir/strided_copy.h"

#include <gtest/gtest.h>

namespace strider {
namespace {

// Window partition of 2 channels of 4x4 (planar, channel stride 16) into 2x2 windows in token
// layout (channel stride 16, token = window x 4 + r x 2 + c). Axes (size, src, dst): window row
// (2, 8, 8), window column (2, 2, 4), row in window (2, 4, 2), column in window (2, 1, 1),
// channel (2, 16, 16). Channel and window row merge into (4, 8, 8) (8 x 2 = 16 on both sides),
// which becomes the rows of each block (the largest axis); the column in window is the row of
// 2 elements; one block per (window column, row in window), destination order.
TEST(StridedCopy, WindowPartitionIsFourBlocksOfFourRows) {
  const std::vector<GatherBlock> b =
      copy_blocks({{2, 8, 8}, {2, 2, 4}, {2, 4, 2}, {2, 1, 1}, {2, 16, 16}});
  EXPECT_EQ(b, (std::vector<GatherBlock>{
                   {0, 0, 4, 2, 8, 8}, {4, 2, 4, 2, 8, 8}, {2, 4, 4, 2, 8, 8}, {6, 6, 4, 2, 8, 8}}));
}

// A broadcast (source stride 0) cannot be the rows of a 2-D move: one block per copy.
TEST(StridedCopy, BroadcastIsOneBlockPerCopy) {
  EXPECT_EQ(copy_blocks({{3, 0, 10}, {10, 1, 1}}, 5, 0),
            (std::vector<GatherBlock>{{5, 0, 1, 10, 0, 0}, {5, 10, 1, 10, 0, 0}, {5, 20, 1, 10, 0, 0}}));
  // Fully contiguous: one row; a transpose of 2 x 3: rows of 1 element, 3 rows per block.
  EXPECT_EQ(copy_blocks({{4, 6, 6}, {6, 1, 1}}), (std::vector<GatherBlock>{{0, 0, 1, 24, 0, 0}}));
  EXPECT_EQ(copy_blocks({{2, 1, 3}, {3, 2, 1}}),
            (std::vector<GatherBlock>{{0, 0, 3, 1, 2, 1}, {1, 3, 3, 1, 2, 1}}));
}

}  // namespace
}  // namespace strider
