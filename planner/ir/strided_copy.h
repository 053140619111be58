// A strided N-D copy (each axis: size, source stride, destination stride, in elements) cut into
// the 2-D blocks a kGather carries (graph.h GatherBlock) and the DMA moves: contiguous axes
// merged, the axis contiguous on both sides as the row, the largest axis whose strides clear a
// row as the rows of one block, one block per index of every other axis.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/ir/graph.h"

namespace strider {

struct CopyAxis {
  int64_t size = 1;
  int64_t src = 0, dst = 0;  // strides
};

// Blocks in destination order of the outer axes. Source strides may be 0 (a broadcast).
std::vector<GatherBlock> copy_blocks(std::vector<CopyAxis> axes, int64_t src_base = 0,
                                     int64_t dst_base = 0);

}  // namespace strider
