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

#include "tests/e2e/child_run.h"

namespace strider {
namespace {

struct Figures {
  uint64_t cycles = 0, checked = 0, mismatches = 0, vector_tiles = 0, matmul_tiles = 0;
  int status = -1;
  char detail[160] = {};
};

Figures simulate(const std::string& net, bool functional) {
  const std::string dir = ::testing::TempDir() + "strider_transformer_" + net;
  ::mkdir(dir.c_str(), 0755);
  const std::string run = dir + "/run.yaml";
  std::ofstream(run) << "arch: " << STRIDER_SOURCE_DIR << "/configs/arch/seed.yaml\n"
                     << "networks:\n  - {path: " << STRIDER_SOURCE_DIR << "/tests/e2e/data/" << net
                     << ".onnx}\nsim: {functional: " << (functional ? "true" : "false")
                     << ", trace: false}\noutput_dir: " << dir << "/out\n";
  return simulate_in_child<Figures>(run, {}, [](const RunResult& r, Figures& f) {
    f.cycles = r.cycles;
    f.checked = r.checked_tensors;
    f.mismatches = r.mismatches;
    for (const Descriptor& d : r.lowered.list.descriptors) {
      if (d.kind != DescKind::kOp) continue;
      f.vector_tiles += is_vector_op(d.op.op);
      f.matmul_tiles += d.op.op == OpCode::kMatMul;
    }
  });
}

// Compute layers per block: 6 Linear (1x1 conv), 2 MatMul, Softmax, GELU, 2 LayerNorm, 2 Add.
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
  expect_matches("tiny_bert", 2 * 14, 2 * 4);  // 2 blocks; Softmax, GELU, 2 LayerNorm each
}

TEST(Transformer, TinyGpt2CausalMatchesReferenceWithTimingCycles) {
  expect_matches("tiny_gpt2", 2 * 14 + 1, 2 * 4 + 1);  // + the final LayerNorm
}

}  // namespace
}  // namespace strider
