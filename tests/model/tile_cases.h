// The small tiles of tests/model/tile_work_test.cpp and tile_traversal_test.cpp: the machine they
// run on (8 neurons x 2 MAC lanes, 16-byte lines, a 512 B kernel region) and their conv cases.
#pragma once

#include <cstdint>

#include "core/arch/arch_config.h"
#include "core/contract/descriptor.h"

namespace strider::tile_cases {

// The small machine of these tests: 8 neurons x 2 MAC lanes, 16-byte lines, a 512 B kernel region.
inline L1Config small_l1() {
  L1Config l1;
  l1.lines = 8;
  l1.line_bytes = 16;
  l1.kernel_bytes = 512;
  return l1;
}
inline constexpr uint32_t kPort = 64;  // load port bytes per cycle (weighs a strided tile's traversals)
inline NeuronConfig small_neurons(uint32_t accumulators) {
  NeuronConfig nc;
  nc.count = 8;
  nc.macs_per_cycle = 2;
  nc.accumulators = accumulators;
  return nc;
}

// 3x3 conv, pad 1, stride 1: input 3x8x8 -> output 4x8x8, on 8 neurons x 16-byte lines,
// 2 MACs per cycle per neuron; the first design (one accumulator, padding not generated in the
// block) unless a test says otherwise.
struct ConvCase {
  OpDesc op;
  L1Config l1 = small_l1();
  NeuronConfig nc = small_neurons(1);
  ConvCase() {
    op.op = OpCode::kConv;
    op.input = TensorRef{MemSpace::kL2, 0, 3, 8, 8, 8, 64, 1};
    op.output = TensorRef{MemSpace::kL2, 4096, 4, 8, 8, 8, 64, 1};
    op.kernel_h = op.kernel_w = 3;
    op.pad_top = op.pad_left = op.pad_bottom = op.pad_right = 1;
    op.row_end = 8;
    op.ch_end = 4;
    l1.pad_in_block = false;
  }
};

// A strided depthwise tile whose run spans every output row: 3x3, stride 2, pad 1, input 2x8x4
// -> output 2x4x2, on 8 neurons x 4 MAC lanes, padding made in the block.
struct StridedDepthwiseCase : ConvCase {
  StridedDepthwiseCase() {
    op.input = TensorRef{MemSpace::kL2, 0, 2, 8, 4, 4, 32, 1};
    op.output = TensorRef{MemSpace::kL2, 4096, 2, 4, 2, 2, 8, 1};
    op.stride_h = op.stride_w = 2;
    op.groups = 2;
    op.row_end = 4;
    op.ch_end = 2;
    l1.pad_in_block = true;
    nc = small_neurons(8);
    nc.macs_per_cycle = 4;
  }
};

}  // namespace strider::tile_cases
