// Transformers end to end: two-layer BERT- and GPT-2-shaped graphs (tests/e2e/data/tiny_*.onnx,
// exported by scripts/transformer_models.py with d = 32, 4 heads, FFN 64, 16 tokens) planned
// and simulated on seed.yaml in timing and in functional mode: every compute layer's output
// equals the C++ reference (MatMul of activations on the neurons, Softmax / LayerNorm / GELU on
// the vector unit, integer-only), and the cycles are those of the timing-only run. Each
// simulation runs in a forked child (SystemC elaborates once per process; tests/e2e/child_run.h).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>
#include <vector>

#include "tests/e2e/child_run.h"

namespace strider {
namespace {

struct Figures {
  uint64_t cycles = 0, checked = 0, mismatches = 0, vector_tiles = 0, matmul_tiles = 0;
  uint64_t matmul_fill_bytes = 0;  // fills of spilled MatMul operands
  // tiny_vit: MatMul tiles reading a band of their second operand, and those whose band holds
  // exactly the part the tile's output channels read (see TinyVitSpilledMatMulOperands...).
  uint64_t b_bands = 0, b_bands_exact = 0;
  int status = -1;
  char detail[160] = {};
};

Figures simulate(const std::string& net, bool functional, uint64_t l2_bytes = 0) {
  const std::string dir = ::testing::TempDir() + "strider_transformer_" + net +
                          std::to_string(l2_bytes) + (functional ? "_f" : "_t");
  ::mkdir(dir.c_str(), 0755);
  const std::string run = dir + "/run.yaml";
  std::ofstream(run) << "arch: " << STRIDER_SOURCE_DIR << "/configs/arch/seed.yaml\n"
                     << "networks:\n  - {path: " << STRIDER_SOURCE_DIR << "/tests/e2e/data/" << net
                     << ".onnx}\nsim: {functional: " << (functional ? "true" : "false")
                     << ", trace: false}\noutput_dir: " << dir << "/out\n";
  std::vector<std::string> sets;
  if (l2_bytes) sets.push_back("arch.l2.size_bytes=" + std::to_string(l2_bytes));
  return simulate_in_child<Figures>(run, sets, [](const RunResult& r, Figures& f) {
    f.cycles = r.cycles;
    f.checked = r.checked_tensors;
    f.mismatches = r.mismatches;
    for (const LayerReport& l : r.lowered.layers) {
      if (l.op == "matmul") f.matmul_fill_bytes += l.fill_bytes;
    }
    for (const Descriptor& d : r.lowered.list.descriptors) {
      if (d.kind != DescKind::kOp) continue;
      const TensorRef& b = d.op.input2;
      if (d.op.op == OpCode::kMatMul && (b.channels != 0 || b.rows != 0)) {
        // tiny_vit: 4 heads of 8 dims, 17 tokens. V (softmax x V): output channel c reads B
        // channel c over all 17 rows. K^T: output channel c = 17 g + n reads B channels
        // [8 g, 8 g + 8) at row n; a block across heads reads every row.
        uint32_t c0 = d.op.ch_begin, c1 = d.op.ch_end, i0 = c0, i1 = c1, y0 = 0, y1 = 17;
        if (d.op.flags & OpDesc::kTransposeB) {
          const uint32_t g0 = c0 / 17, g1 = (c1 - 1) / 17;
          i0 = 8 * g0, i1 = 8 * (g1 + 1);
          if (g0 == g1) y0 = c0 - 17 * g0, y1 = c1 - 17 * g0;
        }
        ++f.b_bands;
        f.b_bands_exact += b.first_channel == i0 && b.held_channels() == i1 - i0 &&
                           b.first_row == y0 && b.held_rows() == y1 - y0;
      }
      f.vector_tiles += is_vector_op(d.op.op);
      f.matmul_tiles += d.op.op == OpCode::kMatMul;
    }
  });
}

// Compute layers per block: 6 Linear (1x1 conv), 2 MatMul, Softmax, GELU, 2 LayerNorm: 12; the
// block's two residual Adds are fused into the attention output and the second MLP Linear
// (lowering.fuse, the default; 14 layers per block without it).
void expect_matches(const std::string& net, uint64_t layers, uint64_t vector_layers) {
  const Figures timing = simulate(net, false), functional = simulate(net, true);
  ASSERT_EQ(timing.status, 0) << timing.detail;
  ASSERT_EQ(functional.status, 0) << functional.detail;
  EXPECT_EQ(functional.checked, layers);
  EXPECT_EQ(functional.mismatches, 0u) << functional.detail;
  EXPECT_EQ(functional.cycles, timing.cycles);
  EXPECT_EQ(functional.vector_tiles, vector_layers);  // one tile each at 16 tokens
  EXPECT_EQ(functional.matmul_tiles, 4u);             // 2 per block, one tile each
}

TEST(Transformer, TinyBertMatchesReferenceWithTimingCycles) {
  expect_matches("tiny_bert", 2 * 12, 2 * 4);  // 2 blocks; Softmax, GELU, 2 LayerNorm each
}

TEST(Transformer, TinyGpt2CausalMatchesReferenceWithTimingCycles) {
  expect_matches("tiny_gpt2", 2 * 12 + 1, 2 * 4 + 1);  // + the final LayerNorm
}

// GPT-2 / nanoGPT's fused projection, q, k, v = c_attn(x).split(d, dim=2) (tiny_gpt2 with each
// block's Q, K, V Linears fused into one of 96 outputs and a Split along the feature axis, as
// tests/e2e/data/make_tiny_gpt2_fused_qkv.py writes it): the Split is a view (three channel
// ranges, no data moves), so a block has 4 Linear instead of 6: 10 compute layers (the two
// residual Adds fused), + final LN.
TEST(Transformer, TinyGpt2FusedQkvSplitMatchesReference) {
  expect_matches("tiny_gpt2_fused_qkv", 2 * 10 + 1, 2 * 4 + 1);
}

// torchvision's VisionTransformer (scripts/transformer_models.py export_tiny_vit: 64 x 64 images,
// 16 x 16 patches, 17 tokens, 2 layers, d = 32, 4 heads, MLP 64): 33 layers of which 7 move no
// data (the patch grid's reshape to tokens, 3 Slices of the packed Q / K / V per layer); the
// 2 x 2 residual Adds are fused into the out-projection and the second MLP Linear (30 compute
// layers checked without fusion, 26 with).
TEST(Transformer, TinyVitMatchesReferenceWithTimingCycles) {
  const Figures timing = simulate("tiny_vit", false), functional = simulate("tiny_vit", true);
  ASSERT_EQ(timing.status, 0) << timing.detail;
  ASSERT_EQ(functional.status, 0) << functional.detail;
  EXPECT_EQ(functional.checked, 26u);
  EXPECT_EQ(functional.mismatches, 0u) << functional.detail;
  EXPECT_EQ(functional.cycles, timing.cycles);
  EXPECT_EQ(functional.vector_tiles, 2u * 4 + 1);  // Softmax, GELU, 2 LayerNorm; final LayerNorm
  EXPECT_EQ(functional.matmul_tiles, 4u);
  EXPECT_EQ(functional.matmul_fill_bytes, 0u);     // K and V resident at 1 MiB
  EXPECT_EQ(functional.b_bands, 0u);
}

// At 6 KiB of L2 the packed Q / K / V projection (96 channels x 17 tokens) spills, so both
// MatMul operands are filled from DRAM per channel block of the output (the second one was
// refused before): still bit-exact against the reference, and more than one tile per MatMul.
TEST(Transformer, TinyVitSpilledMatMulOperandsMatchReference) {
  const Figures timing = simulate("tiny_vit", false, 6144);
  const Figures functional = simulate("tiny_vit", true, 6144);
  ASSERT_EQ(timing.status, 0) << timing.detail;
  ASSERT_EQ(functional.status, 0) << functional.detail;
  EXPECT_EQ(functional.checked, 26u);
  EXPECT_EQ(functional.mismatches, 0u) << functional.detail;
  EXPECT_EQ(functional.cycles, timing.cycles);
  EXPECT_GT(functional.matmul_tiles, 4u);
  EXPECT_GT(functional.matmul_fill_bytes, 0u);
  EXPECT_EQ(functional.b_bands, functional.matmul_tiles);  // K and V both spilled
  EXPECT_EQ(functional.b_bands_exact, functional.b_bands);
}

}  // namespace
}  // namespace strider
