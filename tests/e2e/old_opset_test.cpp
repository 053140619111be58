// Models written as other exporters write them. Older opsets with a symbolic batch
// (tests/planner/data/make_old_opset_fixtures.py):
// opset 9 (Conv, BatchNormalization, MaxPool, GlobalAveragePool, Flatten, Gemm) and opset 10
// (tf2onnx's Shape -> Gather -> Unsqueeze -> Concat -> Reshape flatten and MatMul + bias Add),
// upgraded by ONNX's version converter, planned and simulated on seed.yaml with networks[].batch
// binding 'N': every layer's output equals the C++ reference and functional mode takes the
// cycles of timing mode. Hard-swish and hard-sigmoid written out as Add / Clip / Mul / Div
// (tests/planner/data/make_hard_swish_fixtures.py), imported as the fused activations, and GELU's
// tanh form imported as the GELU, alike; SiLU as Mul(x, Sigmoid(x)) and hard-swish as Mul(x,
// HardSigmoid(x)) imported as one activation.
// Each simulation runs in a forked child (tests/e2e/child_run.h).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <string>
#include <vector>

#include "tests/e2e/child_run.h"

namespace strider {
namespace {

struct Figures {
  uint64_t cycles = 0, checked = 0, mismatches = 0, batch = 0;
  int status = -1;
  char detail[160] = {};
};

Figures simulate(const std::string& net, int batch, bool functional) {
  const std::string dir =
      ::testing::TempDir() + "strider_old_opset_" + net + (functional ? "_f" : "_t");
  ::mkdir(dir.c_str(), 0755);
  const std::string run = dir + "/run.yaml";
  std::ofstream(run) << "arch: " << STRIDER_SOURCE_DIR << "/configs/arch/seed.yaml\n"
                     << "networks:\n  - {path: " << STRIDER_SOURCE_DIR << "/tests/planner/data/"
                     << net << ".onnx, batch: " << batch
                     << "}\nsim: {functional: " << (functional ? "true" : "false")
                     << ", trace: false}\noutput_dir: " << dir << "/out\n";
  return simulate_in_child<Figures>(run, {}, [](const RunResult& r, Figures& f) {
    f.cycles = r.cycles;
    f.checked = r.checked_tensors;
    f.mismatches = r.mismatches;
    f.batch = uint64_t(r.graph.tensors[r.graph.inputs[0]].shape.n);
  });
}

// Returns the run's cycles (0 when a run failed).
uint64_t expect_matches(const std::string& net, int batch, uint64_t layers) {
  const Figures timing = simulate(net, batch, false), functional = simulate(net, batch, true);
  EXPECT_EQ(timing.status, 0) << timing.detail;
  EXPECT_EQ(functional.status, 0) << functional.detail;
  if (timing.status != 0 || functional.status != 0) return 0;
  EXPECT_EQ(functional.batch, uint64_t(batch));
  EXPECT_EQ(functional.checked, layers);
  EXPECT_EQ(functional.mismatches, 0u) << functional.detail;
  EXPECT_EQ(functional.cycles, timing.cycles);
  return timing.cycles;
}

// conv1 (BN folded, ReLU fused, pool1 fused into its store), conv2 (+ReLU), gap, fc: 4 layers
// checked (the Flatten is a view).
TEST(OldOpset, Opset9CnnWithBatch2MatchesReference) { expect_matches("opset9_cnn", 2, 4); }

// conv1 (+ReLU, pool1 fused into its store), fc (bias from the Add): 2 layers checked (the
// Reshape is a view).
TEST(OldOpset, Opset10CnnWithShapeArithmeticMatchesReference) {
  expect_matches("opset10_cnn", 1, 2);
}

// PyTorch's opset-9 and opset-10 exports with a symbolic batch (dynamic_axes;
// scripts/export_torch_fixtures.py): conv1, LeakyRelu, pool, conv2, PRelu (a slope per channel,
// one negative), conv3, PRelu (one slope), gap, fc: 9 layers checked (the Flatten is a view),
// each rectifier a layer of its own (its slope is a requantisation the producer cannot share).
TEST(OldOpset, TorchOpset9LeakyReluPReluWithBatch2MatchesReference) {
  expect_matches("torch_leaky_prelu_opset9", 2, 9);
}
TEST(OldOpset, TorchOpset10LeakyReluPReluMatchesReference) {
  expect_matches("torch_leaky_prelu_opset10", 1, 9);
}

// An OCR-style recogniser (scripts/export_torch_fixtures.py tiny_ocr.onnx, PyTorch at opset 13):
// conv backbone -> 32 time steps x 32 features -> LayerNorm written as ReduceMean / Sub / Pow /
// Sqrt / Div (recognised as the fused LayerNorm) -> Linear -> Softmax over 37 classes per time
// step (the CTC head): conv1 (+ReLU, pool1 fused into its store), conv2 (+ReLU, the 8x1 pool2
// fused), LayerNorm, Linear, Softmax: 5 layers checked (Flatten and Transpose to time steps are
// views of the [32, 1, 32] tensor).
TEST(ExporterIdioms, OcrRecogniserMatchesReference) { expect_matches("tiny_ocr", 1, 5); }

// conv1 (hard-swish fused), conv2 (its "gate" Mul(c2, HardSigmoid(c2)) is a hard-swish, fused;
// the gap fused into its store, its result never stored), fc: 3 layers checked (the Flatten is a
// view), as for hard_swish_cnn_fused.onnx (HardSigmoid and Mul ops). 1,390 cycles both
// (layers.csv, descriptors.csv): the input's DMA 44-175 on channel 0, conv1's weights 49-234 on
// channel 1 and its bias 175-340 behind the input on channel 0, conv1 271 from 341, conv2 708
// (their output rows walked back to back: 300 and 781 over the padded stream, 1,577 in all; one
// cycle for the fused pool's requantisation after the last result), fc 19 from 1,322, the
// output's DMA 48 (1,342-1,390). Unfused: conv2 707, gap 83 (1,321-1,404), fc from 1,405, 1,474
// cycles. (1,809 and 6 layers while the HardSigmoid and the Mul were layers of their own.)
TEST(ExporterIdioms, HardSwishWrittenOutMatchesReference) {
  EXPECT_EQ(expect_matches("hard_swish_cnn", 1, 3), 1390u);
  EXPECT_EQ(expect_matches("hard_swish_cnn_fused", 1, 3), 1390u);
}

// GELU in its tanh form (PyTorch's approximate='tanh' export; make_gelu_tanh_fixtures.py) imported
// as the fused GELU: Linear, GELU, Linear: 3 layers checked, 648 cycles as gelu_erf.onnx.
TEST(ExporterIdioms, GeluTanhFormMatchesReference) { expect_matches("gelu_tanh_torch", 1, 3); }

// SiLU written as Mul(x, Sigmoid(x)) (make_silu_fixtures.py, torchvision's efficientnet_b0 form)
// imported as one kSilu activation: SiLU of the input (an activation layer), conv1 + SiLU, conv2 +
// SiLU (both fused into the conv's post-op), gap + the gate's Sigmoid, the gate Mul: 5 layers
// checked. 655 cycles = the input's DMA ending at 135, then (layers.csv) act0 16, conv1 164 from
// 306 (its bias, behind the input on DMA channel 0, ends at 305; 4 -> 8 channels, 3x3 pad 1 on
// 8 x 8: the stream with shared pad columns, 7 x 9 + 8 = 71 positions, is one run of 64 and a
// hybrid tail of its last 7 outputs in the im2col form — 12 shifted writes and 8 x 8 = 64 + 8 x 2
// = 16 compute cycles for the run, 2 x 8 line writes and 7 x 8 + 7 = 63 for the tail, 143 compute
// cycles; 178 with its output rows back to back when l1.shared_pad is false), conv2 42, gap 35,
// gate 21 (its per-channel gate from the kernel region: one line write per run, not two) and the
// output's DMA 83 (572 + 83). The activation is a lookup on the store path, so its kind moves no
// cycle: the same network with Relu in place of each SiLU (silu_cnn_relu.onnx) takes the same 655.
TEST(ExporterIdioms, SiluAsSigmoidMulMatchesReference) {
  EXPECT_EQ(expect_matches("silu_cnn", 1, 5), 655u);
  EXPECT_EQ(expect_matches("silu_cnn_relu", 1, 5), 655u);
}

// Hard-swish written as Mul(x, HardSigmoid(x)) (make_silu_fixtures.py, torchvision's
// mobilenet_v3 at opset 13) imported as one kHardSwish activation: conv1 + hard-swish, conv2 +
// hard-swish (fused into the conv's post-op), gap + the gate's HardSigmoid, the gate Mul: 4 layers
// checked, bit-exact. 655 cycles = the input's DMA 44-135 on channel 0, conv1's weights 49-200 on
// channel 1 and its bias 135-305 behind the input on channel 0 (descriptors.csv), then
// (layers.csv) conv1 164 from 306 (its stream with shared pad columns and hybrid tail, as
// silu_cnn's above), conv2 42, gap 35, gate 21 and the output's DMA 83 (572-655); the same
// network written with the HardSwish op (hswish_cnn_fused.onnx) is the same layers, the same 655.
TEST(ExporterIdioms, HardSwishAsHardSigmoidMulMatchesReference) {
  EXPECT_EQ(expect_matches("hswish_cnn", 1, 4), 655u);
  EXPECT_EQ(expect_matches("hswish_cnn_fused", 1, 4), 655u);
}

}  // namespace
}  // namespace strider
