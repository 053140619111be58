// Swin end to end: tests/e2e/data/tiny_swin.onnx (scripts/export_models.py tiny_swin: 32x32
// input, 8x8 tokens of 16 channels in 4x4 windows, blocks 0 plain and 1 shifted by 2, patch
// merging to 4x4 x 32, one block, 10 classes) planned and simulated on seed.yaml in timing and
// in functional mode. The window partition / reverse, cyclic shift, bias and mask broadcasts and
// patch merging are gather layers: L2 -> L2 moves on the DMA; every compute layer's output
// equals the C++ reference (which copies the blocks itself, planner/ir/value_ops.h) and the
// cycles are those of the timing-only run. Each simulation runs in a forked child.
#include <gtest/gtest.h>

#include <string>

#include "tests/e2e/child_run.h"

namespace strider {
namespace {

struct Figures {
  uint64_t cycles = 0, checked = 0, mismatches = 0;
  uint64_t gather_layers = 0, gather_moves = 0, gather_bytes = 0, gather_blocks = 0;
  int status = -1;  // 0: simulated without deadlock
  char detail[200] = {};
};

Figures simulate(bool functional) {
  const std::string src = STRIDER_SOURCE_DIR;
  return simulate_in_child<Figures>(
      src + "/configs/runs/swin_t.yaml",
      {"networks[0].path=" + src + "/tests/e2e/data/tiny_swin.onnx",
       std::string("sim.functional=") + (functional ? "true" : "false"),
       "output_dir=" + ::testing::TempDir() + "strider_swin"},
      [](const RunResult& r, Figures& f) {
        f.cycles = r.cycles;
        f.checked = r.checked_tensors;
        f.mismatches = r.mismatches;
        std::vector<bool> gather(r.lowered.layers.size(), false);
        for (size_t l = 0; l < r.lowered.layers.size(); ++l) {
          gather[l] = r.lowered.layers[l].op == "gather";
          f.gather_layers += gather[l];
          f.gather_bytes += gather[l] ? r.lowered.layers[l].copy_bytes : 0;
          const int node = r.lowered.layer_node[l];
          if (gather[l] && node >= 0) f.gather_blocks += r.graph.nodes[size_t(node)].gather.size();
        }
        for (const Descriptor& d : r.lowered.list.descriptors) {
          f.gather_moves += d.kind == DescKind::kMove && gather[d.layer];
        }
      });
}

TEST(Swin, TinySwinMatchesReferenceWithTimingCycles) {
  const Figures timing = simulate(false), functional = simulate(true);
  ASSERT_EQ(timing.status, 0) << timing.detail;
  ASSERT_EQ(functional.status, 0) << functional.detail;
  EXPECT_EQ(functional.mismatches, 0u) << functional.detail;
  EXPECT_EQ(functional.cycles, timing.cycles);
  // Compute layers: patch conv + LayerNorm (2); block 0: LayerNorm, QKV, Q K^T, bias Add,
  // Softmax, x V, projection with the residual Add fused into it, LayerNorm, Linear, GELU,
  // Linear with the second residual Add fused (11); block 1 the same and the mask Add, but its
  // first residual Add stays a layer: it reads the projection through the reverse shift's
  // gather, not the conv's output (13); patch merging LayerNorm + Linear (2); block 2 as block 0
  // (11); head LayerNorm, global pool, Linear (3): 42 (47 with lowering.fuse: false).
  EXPECT_EQ(functional.checked, 42u);
  // Gathers (import_swin_test.cpp): 6 in block 0, 9 in block 1, 1 for patch merging; each
  // writes its whole output once: block 0 five of 1024 B (partition, Q, K, V, the attention
  // output) and the bias (2 heads x 16 x 16 x 4 windows = 2048 B): 7168; block 1 adds the two
  // shifts (1024 each) and the mask broadcast (2048): 11264; patch merging 64 x 4 x 4 = 1024.
  EXPECT_EQ(functional.gather_layers, 16u);
  EXPECT_EQ(functional.gather_bytes, 7168u + 11264u + 1024u);
  EXPECT_EQ(functional.gather_moves, functional.gather_blocks);  // one move per block
}

}  // namespace
}  // namespace strider
