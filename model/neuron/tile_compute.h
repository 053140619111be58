// TileCompute: what the neurons compute for one operation tile, bit-exactly, from the bytes in L2
// (input windows gathered by the input iterator with virtual zero padding, weights from the
// kernel region). Operands may be band buffers (TensorRef::offset). Output in
// [channel][row][column] order of the tile, int8. Plain C++; the numeric rules are
// strider/quant.h. Convolutions build each position's window line once per channel group and
// multiply the group's kernels by the lines (common/int8_gemm.h), then requantise.
#pragma once

#include <cstdint>
#include <vector>

#include "model/common/timed_memory.h"
#include "strider/descriptor.h"

namespace strider {

std::vector<int8_t> compute_tile(const OpDesc& op, const TimedMemory& l2);

}  // namespace strider
