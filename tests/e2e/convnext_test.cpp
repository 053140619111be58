// ConvNeXt end to end: tests/e2e/data/tiny_convnext.onnx (scripts/export_models.py
// tiny_convnext: torchvision ConvNeXt with two stages of one block, 16 and 32 channels, 32x32
// input, 10 classes) planned and simulated on seed.yaml in timing and in functional mode. The
// NHWC permutes move no data; the LayerNorms over channels and the GELUs run on the vector unit,
// the Linear layers as 1x1 convs on the neurons; every compute layer's output equals the C++
// reference and the cycles are those of the timing-only run. Each simulation runs in a forked
// child (SystemC elaborates once per process).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "arch/config_loader.h"
#include "tb/run_harness.h"
#include "tests/e2e/child_run.h"

namespace strider {
namespace {

struct Figures {
  uint64_t cycles = 0, checked = 0, mismatches = 0, layernorm_tiles = 0, gelu_tiles = 0;
  int status = -1;  // 0: simulated without deadlock
  char detail[200] = {};
};

Figures simulate(bool functional) {
  return in_child<Figures>([&](Figures& f) {
    try {
      RunResult r;
      r.config = load_run(std::string(STRIDER_SOURCE_DIR) + "/configs/runs/convnext_tiny.yaml",
                          {"networks[0].path=" + std::string(STRIDER_SOURCE_DIR) +
                               "/tests/e2e/data/tiny_convnext.onnx",
                           std::string("sim.functional=") + (functional ? "true" : "false"),
                           "output_dir=" + ::testing::TempDir() + "strider_convnext"});
      plan_run(r);
      simulate_planned(r);
      f.cycles = r.cycles;
      f.checked = r.checked_tensors;
      f.mismatches = r.mismatches;
      for (const Descriptor& d : r.lowered.list.descriptors) {
        if (d.kind != DescKind::kOp) continue;
        f.layernorm_tiles += d.op.op == OpCode::kLayerNorm;
        f.gelu_tiles += d.op.op == OpCode::kGelu;
      }
      if (!r.functional_details.empty()) {
        std::snprintf(f.detail, sizeof f.detail, "%s", r.functional_details[0].c_str());
      }
      f.status = r.record.deadlock ? 1 : 0;
    } catch (const std::exception& e) {
      std::snprintf(f.detail, sizeof f.detail, "%s", e.what());
      f.status = 2;
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
  // GELU, Linear, residual Add (2 x 6); downsampling LayerNorm + 2x2 conv (2); head global
  // pool, LayerNorm, Linear (3): 19.
  EXPECT_EQ(functional.checked, 19u);
  // LayerNorms: stem, 2 blocks, downsampling, head = 5; GELUs: 2.
  EXPECT_EQ(functional.layernorm_tiles, 5u);
  EXPECT_EQ(functional.gelu_tiles, 2u);
}

}  // namespace
}  // namespace strider
