// ConvNeXt end to end: tests/e2e/data/tiny_convnext.onnx (scripts/export_models.py
// tiny_convnext: torchvision ConvNeXt with two stages of one block, 16 and 32 channels, 32x32
// input, 10 classes) planned and simulated on seed.yaml in timing and in functional mode. The
// NHWC permutes move no data; the LayerNorms over channels and the GELUs run on the vector unit,
// the Linear layers as 1x1 convs on the neurons; every compute layer's output equals the C++
// reference and the cycles are those of the timing-only run. Each simulation runs in a forked
// child (SystemC elaborates once per process).
#include <gtest/gtest.h>

#include <string>

#include "tests/e2e/child_run.h"

namespace strider {
namespace {

struct Figures {
  uint64_t cycles = 0, checked = 0, mismatches = 0, layernorm_tiles = 0, gelu_tiles = 0;
  uint64_t layernorm_cycles = 0, gelu_cycles = 0;  // vector-unit compute cycles
  int status = -1;                                 // 0: simulated without deadlock
  char detail[200] = {};
};

Figures simulate(bool functional) {
  const std::string src = STRIDER_SOURCE_DIR;
  return simulate_in_child<Figures>(
      src + "/configs/runs/convnext_tiny.yaml",
      {"networks[0].path=" + src + "/tests/e2e/data/tiny_convnext.onnx",
       std::string("sim.functional=") + (functional ? "true" : "false"),
       "output_dir=" + ::testing::TempDir() + "strider_convnext"},
      [](const RunResult& r, Figures& f) {
        f.cycles = r.cycles;
        f.checked = r.checked_tensors;
        f.mismatches = r.mismatches;
        for (const Descriptor& d : r.lowered.list.descriptors) {
          if (d.kind != DescKind::kOp) continue;
          const uint64_t c = r.record.descriptors[d.id].compute_cycles;
          f.layernorm_tiles += d.op.op == OpCode::kLayerNorm;
          f.gelu_tiles += d.op.op == OpCode::kGelu;
          f.layernorm_cycles += d.op.op == OpCode::kLayerNorm ? c : 0;
          f.gelu_cycles += d.op.op == OpCode::kGelu ? c : 0;
        }
      });
}

TEST(Convnext, TinyConvnextMatchesReferenceWithTimingCycles) {
  const Figures timing = simulate(false), functional = simulate(true);
  ASSERT_EQ(timing.status, 0) << timing.detail;
  ASSERT_EQ(functional.status, 0) << functional.detail;
  EXPECT_EQ(functional.mismatches, 0u) << functional.detail;
  EXPECT_EQ(functional.cycles, timing.cycles);
  // Compute layers: stem conv + LayerNorm (2); per block 7x7 depthwise conv, LayerNorm, Linear,
  // GELU, Linear with the residual Add fused into it (2 x 5); downsampling LayerNorm + 2x2 conv
  // (2); head LayerNorm, Linear (2): 16. The head's global pool is fused into the last block's
  // second Linear (+ Add), whose result it alone reads: that layer's checked output is the pool's.
  EXPECT_EQ(functional.checked, 16u);
  // LayerNorms: stem, 2 blocks, downsampling, head = 5; GELUs: 2.
  EXPECT_EQ(functional.layernorm_tiles, 5u);
  EXPECT_EQ(functional.gelu_tiles, 2u);
  // Vector unit (seed: 16 lanes, LayerNorm 3 passes x 1 cycle, GELU 1 pass x 2 cycles) over all
  // positions of the 2-D maps, passes x ceil(elements / 16) x cycles:
  //   LayerNorm stem, block 1, downsampling: 16 ch x 8x8 = 1024 -> 3 x 64 = 192 each
  //   block 2: 32 ch x 4x4 = 512 -> 3 x 32 = 96; head: 32 ch x 1x1 -> 3 x 2 = 6; sum 678
  //   GELU block 1: 64 ch x 8x8 = 4096 -> 256 x 2 = 512; block 2: 128 ch x 4x4 -> 128 x 2 = 256
  EXPECT_EQ(functional.layernorm_cycles, 678u);
  EXPECT_EQ(functional.gelu_cycles, 768u);
  EXPECT_EQ(timing.layernorm_cycles, 678u);
}

}  // namespace
}  // namespace strider
