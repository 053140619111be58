// Calibration (planner/quant/calibrator.h): scales chosen for a network against its float
// network, the threshold methods (choose_threshold) on hand-made distributions, the output
// headroom, uint8 activations, softmax masks kept out of a scale, and
// per-output-channel weight scales with their requantisation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/contract/quant.h"
#include "core/contract/vector_math.h"
#include "planner/import/network_loader.h"
#include "planner/lower/legalise.h"
#include "planner/quant/calibrator.h"
#include "planner/quant/fidelity.h"
#include "tb/reference.h"
#include "tests/e2e/quant_graph_util.h"
#include "tests/config/config_test_util.h"
#include "tests/e2e/report_util.h"

namespace strider {
namespace {

using namespace report_test;
using namespace quant_test;

// tiny_cnn calibrated on two synthetic images: add operands keep their own scales (one multiplier
// each, one shift), at most 2 % of any
// tensor's values clipped (the calibrator aims at 0.5 % on a sample), and every layer's int8 value
// more than 25 dB above its quantisation noise against the float network.
TEST(Quant, CalibratedTinyCnnTracksTheFloatNetwork) {
  Graph g = load_network(STRIDER_SOURCE_DIR "/configs/networks/tiny_cnn.yaml", 0, 0, 1);
  fuse_activations(&g);
  calibrate(&g, CalibrationOptions{7, 2});
  Reference ref(g);
  for (int t : g.inputs) ref.set_input(t, g.tensors[t].data);
  ref.run();
  for (const Node& n : g.nodes) {
    if (n.op == OpType::kAdd) {
      // s_a / s_out and s_b / s_out at the larger's shift (the larger in [2^14, 2^15)).
      const double s_out = g.tensors[n.outputs[0]].scale;
      const double ma = g.tensors[n.inputs[0]].scale / s_out,
                   mb = g.tensors[n.inputs[1]].scale / s_out;
      const Requant r = quantize_multiplier(std::max(ma, mb));
      EXPECT_EQ(n.requant_shift, r.shift) << n.name;
      EXPECT_EQ(std::max(n.requant_multiplier, n.input2_multiplier), r.multiplier) << n.name;
      EXPECT_EQ(n.requant_multiplier, std::llround(std::ldexp(ma, r.shift))) << n.name;
      EXPECT_EQ(n.input2_multiplier, std::llround(std::ldexp(mb, r.shift))) << n.name;
      EXPECT_NE(n.requant_multiplier, n.input2_multiplier) << n.name;  // tiny_cnn's differ
    }
    const Tensor& t = g.tensors[n.outputs[0]];
    Fidelity f;
    f.add(t.float_data, ref.value(n.outputs[0]), t.scale, t.is_unsigned);
    EXPECT_LE(f.saturated_fraction(), 0.02) << n.name;
    EXPECT_GT(f.sqnr_db(), 25.0) << n.name;
  }
}

// The methods on hand-made samples (|x| values).
TEST(QuantInputs, ThresholdMethods) {
  CalibrationOptions opt;
  std::vector<float> s;
  for (int i = 1; i <= 100; ++i) s.push_back(float(i));
  opt.method = "minmax";
  EXPECT_EQ(choose_threshold(s, 100, opt, 127), 100.0);
  // Nearest rank: the ceil(0.9 x 100) = 90th smallest.
  opt.method = "percentile";
  opt.percentile = 90;
  EXPECT_EQ(choose_threshold(s, 100, opt, 127), 90.0);
  opt.percentile = 99.99;  // ceil(99.99) = 100th: the max
  EXPECT_EQ(choose_threshold(s, 100, opt, 127), 100.0);
  // mse: 999 values 1 and one 100. T = 100 (nothing clipped): rounding 1000 (100 / 127)^2 / 12 =
  // 51.67; T = 99.21875 (step 95 of 96 from 25 to 100): clip 0.78125^2 = 0.61 plus rounding
  // 999 (99.21875 / 127)^2 / 12 = 50.81: 51.42, the least (step 94, 98.4375: 52.46).
  std::vector<float> m(999, 1.0f);
  m.push_back(100.0f);
  opt.method = "mse";
  EXPECT_EQ(choose_threshold(m, 100, opt, 127), 99.21875);
  // entropy: values all equal to the max: every i < 2048 keeps no value in its first i bins (no
  // candidate): T = the max.
  opt.method = "entropy";
  EXPECT_EQ(choose_threshold(std::vector<float>(100, 2.0f), 2.0, opt, 127), 2.0);
  // 10000 values in bin 10 and one outlier at 1000 (bin 2047): at i = 2048 the last level
  // (bins 2032..2047) holds the outlier alone and level 0 bin 10 alone, Q = P: KL 0; every
  // smaller i folds the outlier into bin i - 1, where Q is 1e-4: KL > 0. T = 1000.
  std::vector<float> e(10000, float(10.5 * 1000.0 / 2048));
  e.push_back(1000.0f);
  EXPECT_EQ(choose_threshold(e, 1000, opt, 127), 1000.0);
  // Bins 0..126 holding 1 (even) and 99 (odd) values, and the outlier: at i = 128 every level
  // is one bin, Q = the histogram, and only the folded outlier differs: KL = (6301 / 6302)
  // ln(6301.0001 / 6302) + (1 / 6302) ln((1 / 6302) / (1e-4 / 6301.0001)) = 1.3e-3 (i = 129 the
  // same, a tie); from i = 130 levels of two bins average a 1 with a 99 (KL about 0.6 per such
  // level) and at 2048 levels of 16 bins do: T = 128 x 1000 / 2048 = 62.5, the outlier clipped.
  std::vector<float> c;
  for (int k = 0; k < 127; ++k) {
    for (int n = 0; n < (k % 2 ? 99 : 1); ++n) c.push_back(float((k + 0.5) * 1000.0 / 2048));
  }
  c.push_back(1000.0f);
  EXPECT_EQ(choose_threshold(c, 1000, opt, 127), 62.5);
}

// tiny_cnn calibrated twice on the same two synthetic images with minmax: `a` as given, `b` after
// `change` edits the options.
template <typename Change>
void calibrate_tiny_cnn_twice(Graph* a, Graph* b, Change change) {
  *a = load_network(STRIDER_SOURCE_DIR "/configs/networks/tiny_cnn.yaml", 0, 0, 1);
  fuse_activations(a);
  *b = *a;
  CalibrationOptions opt{7, 2};
  opt.method = "minmax";
  calibrate(a, opt);
  change(opt);
  calibrate(b, opt);
}

// Output headroom: tiny_cnn calibrated twice, headroom 1 and 1.5: the scales of the graph output
// and of the global average pool's output (the features the classifier reads) are exactly 1.5 x
// (the same max |x| times 1.5, over 127 or 255), every other tensor's is the same, and the method
// string records the headroom.
TEST(Quant, OutputHeadroomWidensOnlyTheGraphOutput) {
  Graph a, b;
  calibrate_tiny_cnn_twice(&a, &b, [](CalibrationOptions& o) { o.output_headroom = 1.5; });
  EXPECT_EQ(a.calibration_method, "minmax");
  EXPECT_EQ(b.calibration_method, "minmax, output headroom 1.5");
  ASSERT_EQ(a.outputs.size(), 1u);
  const int out = a.outputs[0];
  int pooled = -1;
  for (const Node& n : a.nodes) {
    if (n.op == OpType::kGlobalAvgPool) pooled = n.outputs[0];
  }
  ASSERT_GE(pooled, 0);
  for (size_t t = 0; t < a.tensors.size(); ++t) {
    if (a.tensors[t].kind != TensorKind::kActivation) continue;
    if (int(t) == out || int(t) == pooled) {
      // max / 127 and (max x 1.5) / 127: a ratio of 1.5 up to the divisions' rounding.
      EXPECT_DOUBLE_EQ(b.tensors[t].scale / a.tensors[t].scale, 1.5) << a.tensors[t].name;
    } else {
      EXPECT_EQ(b.tensors[t].scale, a.tensors[t].scale) << a.tensors[t].name;
    }
  }
}

// The pooled tensors take the output headroom: a network with a squeeze-excitation (gap1 -> se
// -> excite, a Mul of the feature map by the gate) and a classifier head after a second pool
// (gap2 -> fc1 with a hard-swish -> fc2), calibrated twice (minmax, headroom 1 and 1.5). The
// pools' outputs and everything computed from them alone (fc1, fc2; se's pre-activation table
// index) are 1.5 x: max / 127 against (max x 1.5) / 127, the same max (same images), a ratio of
// 1.5 up to the divisions' rounding. se's hard-sigmoid output is fixed (1/255, uint8) and stays;
// excite reads the feature map too, so it is not pooled and stays, as do conv1 and the input.
// A table's input scale is a multiplier / 2^shift with a 15-bit multiplier in [2^14, 2^15)
// (quantize_multiplier): each of the two rounds T / 127 to within 2^-15 of its value, so their
// ratio is 1.5 within 1.5 x 2 x 2^-15 = 9.2e-5.
TEST(Quant, PooledTensorsTakeTheOutputHeadroom) {
  testing::TempDir dir;
  const std::string path = dir.write("pooled_head.yaml", R"(network:
  name: pooled_head
  input: {name: x, shape: [1, 3, 8, 8]}
  layers:
    - {name: conv1, op: conv, inputs: [x], out_channels: 8, kernel: 3, pad: 1, activation: hardswish}
    - {name: gap1, op: globalavgpool, inputs: [conv1]}
    - {name: se, op: conv, inputs: [gap1], out_channels: 8, kernel: 1, activation: hardsigmoid}
    - {name: excite, op: mul, inputs: [conv1, se]}
    - {name: gap2, op: globalavgpool, inputs: [excite]}
    - {name: fc1, op: fc, inputs: [gap2], out_features: 16, activation: hardswish}
    - {name: fc2, op: fc, inputs: [fc1], out_features: 4}
  outputs: [fc2]
)");
  Graph a = load_network(path, 0, 0, 1);
  fuse_activations(&a);
  Graph b = a;
  CalibrationOptions opt{7, 2};
  opt.method = "minmax";
  calibrate(&a, opt);
  opt.output_headroom = 1.5;
  calibrate(&b, opt);
  const auto node = [&](const std::string& name) -> const Node& {
    for (const Node& n : a.nodes) {
      if (n.name == name) return n;
    }
    throw std::runtime_error("no node " + name);
  };
  const auto ratio = [&](const std::string& name) {
    const int t = node(name).outputs[0];
    return b.tensors[size_t(t)].scale / a.tensors[size_t(t)].scale;
  };
  for (const char* widened : {"gap1", "gap2", "fc1", "fc2"}) EXPECT_DOUBLE_EQ(ratio(widened), 1.5) << widened;
  for (const char* kept : {"conv1", "se", "excite"}) EXPECT_EQ(ratio(kept), 1.0) << kept;
  EXPECT_EQ(a.tensors[size_t(node("se").outputs[0])].scale, 1.0 / 255);
  EXPECT_EQ(a.tensors[size_t(a.inputs[0])].scale, b.tensors[size_t(b.inputs[0])].scale);
  // The table indices: conv1's (the feature map) kept, se's and fc1's (pooled) widened.
  size_t se = 0, fc1 = 0, conv1 = 0;
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    if (a.nodes[i].name == "se") se = i;
    if (a.nodes[i].name == "fc1") fc1 = i;
    if (a.nodes[i].name == "conv1") conv1 = i;
  }
  EXPECT_EQ(a.nodes[conv1].lut.in, b.nodes[conv1].lut.in);
  for (size_t i : {se, fc1}) {
    EXPECT_NEAR(lut_scale(b.nodes[i].lut.in) / lut_scale(a.nodes[i].lut.in), 1.5, 9.2e-5)
        << a.nodes[i].name;
  }
}

// tiny_cnn calibrated with and without unsigned activations on the same images (minmax): every
// tensor a ReLU / ReLU6 conv or add writes (and the pool, concat and global pool of them) is
// uint8 at max / 255, the int8 scale max / 127 x 127 / 255; a tensor with a negative value (the
// graph input, a linear conv's output) stays int8 with the same scale both ways.
TEST(Quant, UnsignedActivationsHaveHalfTheStep) {
  Graph a, b;
  calibrate_tiny_cnn_twice(&a, &b, [](CalibrationOptions& o) { o.unsigned_activations = false; });
  int unsigned_tensors = 0;
  for (const Node& n : a.nodes) {
    const size_t t = size_t(n.outputs[0]);
    const bool rectified = n.activation == Activation::kRelu || n.activation == Activation::kRelu6;
    // pool1, cat and gap share their input's group (and so its uint8).
    const bool shares =
        n.op == OpType::kMaxPool || n.op == OpType::kConcat || n.op == OpType::kGlobalAvgPool;
    EXPECT_EQ(a.tensors[t].is_unsigned,
              rectified || (shares && a.tensors[size_t(n.inputs[0])].is_unsigned))
        << n.name;
    EXPECT_FALSE(b.tensors[t].is_unsigned) << n.name;
    if (a.tensors[t].is_unsigned) {
      ++unsigned_tensors;
      EXPECT_DOUBLE_EQ(a.tensors[t].scale / b.tensors[t].scale, 127.0 / 255) << n.name;
    } else {
      EXPECT_EQ(a.tensors[t].scale, b.tensors[t].scale) << n.name;
    }
  }
  EXPECT_GT(unsigned_tensors, 0);
  for (int t : a.inputs) EXPECT_FALSE(a.tensors[size_t(t)].is_unsigned);
}

// An additive mask in a softmax input (Swin's -100 on masked window pairs) does not set the
// scale, and the masked values saturate to -128; the fidelity of the softmax input leaves them
// out. The scale is at least 1 / (8 log2 e) (x (1 + 2^-20)) so that the integer exp of a masked
// logit is exactly 0: the masked probabilities are 0, as in float (e^-100).
TEST(Quant, SoftmaxInputMaskDoesNotSetTheScale) {
  Graph g;
  const int x = tensor(g, "x", {1, 4, 2, 1}, 0), p = tensor(g, "p", {1, 4, 2, 1}, 0);
  // A graph input with float values of its own is a constant (calibrator.h step 2); channel-major
  // [c][row]: channel 1 row 0 and channel 3 are masked.
  g.tensors[x].float_data = {1.0f, 2.0f, -100.0f, 0.5f, 0.25f, -0.75f, -100.0f, -100.0f};
  g.add_node(node("softmax", OpType::kSoftmax, {x}, p));
  g.inputs = {x};
  g.outputs = {p};
  materialise_parameters(&g, 1);
  calibrate(&g, CalibrationOptions{1, 1});
  // Five logits, max |x| = 2, below the mask's floor 127 s_m, s_m = (1 + 2^-20) / (8 log2 e) =
  // 0.0866435: the scale is s_m (2 / 127 = 0.0157 before, when a masked pair weighed
  // e^(-128 x 0.0157) = e^-2).
  const double s_m = (1.0 + 1.0 / (1 << 20)) / (8 * 1.4426950408889634);
  EXPECT_EQ(g.tensors[x].scale, 127 * s_m / 127);
  // x / s_m: 11.54 -> 12, 23.08 -> 23, -1154 -> -128, 5.77 -> 6, 2.89 -> 3, -8.66 -> -9.
  EXPECT_EQ(g.tensors[x].data, (std::vector<int8_t>{12, 23, -128, 6, 3, -9, -128, -128}));
  Reference ref(g);
  ref.set_input(x, g.tensors[x].data);
  ref.run();
  const std::vector<int8_t>& prob = ref.value(p);
  EXPECT_EQ(prob[2], 0);  // channel 1 row 0
  EXPECT_EQ(prob[6], 0);  // channel 3 row 0
  EXPECT_EQ(prob[7], 0);  // channel 3 row 1
  Fidelity masked, plain;
  masked.add(g.tensors[x].float_data, g.tensors[x].data, g.tensors[x].scale, false, true);
  plain.add(g.tensors[x].float_data, g.tensors[x].data, g.tensors[x].scale);
  EXPECT_EQ(masked.values, 5u);
  EXPECT_EQ(masked.saturated, 0u);
  EXPECT_GT(masked.sqnr_db(), 30.0);  // rounding error only
  EXPECT_EQ(plain.values, 8u);
  EXPECT_EQ(plain.saturated, 3u);
  // The three -100s read back as -128 s_m = -11.09: signal 30005.875, noise 3 x 88.91^2 =
  // 23714.8 (the rounding of the five logits adds 0.003): 10 log10(1.2653) = 1.02 dB.
  EXPECT_NEAR(plain.sqnr_db(), 1.02, 0.005);
}

// Per-output-channel weight scales (the calibrator's channel scales, per-channel
// requantisation and bias on hand-computed values) and the softmax output requantisation.
// A 1x1 conv from one input channel to two output channels with float weights 0.5 and 2.0.
struct TwoChannelConv {
  Graph g;
  int x = -1, y = -1;
  TwoChannelConv() {
    x = tensor(g, "x", {1, 1, 1, 2}, 1.0 / 16);
    y = tensor(g, "y", {1, 2, 1, 2}, 1.0 / 8);
    Node n = node("conv", OpType::kConv, {x}, y);
    n.weights = parameter(g, "w", TensorKind::kWeight, {2, 1, 1, 1}, {0.5f, 2.0f});
    n.bias = parameter(g, "b", TensorKind::kBias, {1, 2, 1, 1}, {0.25f, -1.0f});
    g.add_node(n);
    g.inputs = {x};
    g.outputs = {y};
  }
};

TEST(PerChannelQuant, CalibratorGivesEachOutputChannelItsScale) {
  TwoChannelConv t;
  calibrate(&t.g, CalibrationOptions{});
  const Tensor& w = t.g.tensors[t.g.nodes[0].weights];
  // Scale per channel max|w[o]| / 127: 0.5 / 127 and 2 / 127; both channels quantise to 127
  // (per tensor, channel 0 would have been 0.5 / (2 / 127) = 31.75 -> 32).
  ASSERT_EQ(w.channel_scales.size(), 2u);
  EXPECT_DOUBLE_EQ(w.channel_scales[0], 0.5 / 127);
  EXPECT_DOUBLE_EQ(w.channel_scales[1], 2.0 / 127);
  EXPECT_EQ(w.data, (std::vector<int8_t>{127, 127}));
}

TEST(PerChannelQuant, ApplyScalesRequantisesPerChannel) {
  TwoChannelConv t;
  Tensor& w = t.g.tensors[t.g.nodes[0].weights];
  w.channel_scales = {0.5 / 128, 2.0 / 128};  // int8 64 -> 0.25, int8 64 -> 1.0
  w.data = {64, 64};
  apply_scales(&t.g);
  const Node& n = t.g.nodes[0];
  ASSERT_EQ(n.channel_requant.size(), 2u);
  // Channel 0: s_in x s_w / s_out = (1/16)(0.5/128) / (1/8) = 1/512 = 0.5 x 2^-8: multiplier
  // 16384, shift 15 + 8 = 23. Channel 1: 4 / 512 = 1/128 = 0.5 x 2^-6: 16384, shift 21.
  EXPECT_EQ(n.channel_requant[0], (Requant{16384, 23}));
  EXPECT_EQ(n.channel_requant[1], (Requant{16384, 21}));
  // Bias per channel at s_in x s_w[o]: 0.25 / (1/4096) = 1024, -1 / (1/1024) = -1024.
  EXPECT_EQ(t.g.tensors[n.bias].bias, (std::vector<int32_t>{1024, -1024}));
  Reference ref(t.g);
  ref.set_input(t.x, {32, -48});  // 2.0, -3.0
  ref.run();
  // Channel 0 (weight 0.25): acc = 1024 + 64 x 32 = 3072, 1024 - 64 x 48 = -2048; x 16384 /
  // 2^23 = / 512 -> 6, -4 (0.25 x 2 + 0.25 = 0.75 = 6 / 8; -0.75 + 0.25 = -0.5 = -4 / 8).
  // Channel 1 (weight 1.0): acc = -1024 + 2048 = 1024, -1024 - 3072 = -4096; / 128 -> 8, -32
  // (2 - 1 = 1 = 8 / 8; -3 - 1 = -4 = -32 / 8).
  EXPECT_EQ(ref.value(t.y), (std::vector<int8_t>{6, -4, 8, -32}));
}

TEST(PerChannelQuant, GraphCheckRefusesAChannelCountMismatch) {
  TwoChannelConv t;
  t.g.nodes[0].channel_requant = {Requant{16384, 20}};
  try {
    validate(t.g);
    FAIL() << "expected an error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "1 channel requantisations, expected one per output channel of a node with "
                  "weights (2)"),
              std::string::npos)
        << e.what();
  }
}

TEST(PerChannelQuant, SoftmaxRequantisesTheProbability) {
  // (1, 0): round(127 e / sum): 127 x 1/4 = 31.75 -> 32.
  EXPECT_EQ(softmax_prob(8192, 32768, 1, 0), 32);
  EXPECT_EQ(softmax_prob(8192, 32768, 1, 0), softmax_prob(8192, 32768));
  // Output scale 1/1270: m / 2^s = 10 = 20480 / 2^11: 127 x 10 / 4 = 317.5 -> saturates at 127;
  // e = 328 of 32768: 254 x 328 x 20480 / 32768 = 52070 (floor), (52070 + 2048) >> 12 = 13
  // (127 x 10 x 0.01001 = 12.71).
  EXPECT_EQ(softmax_prob(8192, 32768, 20480, 11), 127);
  EXPECT_EQ(softmax_prob(328, 32768, 20480, 11), 13);
  EXPECT_EQ(softmax_prob(0, 32768, 20480, 11), 0);
}

// Random (materialised) weights: scale[o] = sqrt(gain / K) / rms(int8 of channel o), gain 2
// before a rectifier (He) and 1 for a linear layer (LeCun).
TEST(PerChannelQuant, RandomWeightsGetAVariancePreservingScalePerChannel) {
  for (const Activation act : {Activation::kNone, Activation::kRelu}) {
    Graph g;
    const int x = tensor(g, "x", {1, 2, 1, 1}, 0), y = tensor(g, "y", {1, 2, 1, 1}, 0);
    Tensor w;
    w.name = "w";
    w.kind = TensorKind::kWeight;
    w.shape = {2, 2, 1, 1};
    w.data = {3, 4, 6, 8};  // rms sqrt(12.5) and sqrt(50); K = 2
    Node n = node("conv", OpType::kConv, {x}, y);
    n.weights = g.add_tensor(w);
    n.activation = act;
    g.add_node(n);
    g.inputs = {x};
    g.outputs = {y};
    calibrate(&g, CalibrationOptions{});
    const std::vector<double>& s = g.tensors[g.nodes[0].weights].channel_scales;
    ASSERT_EQ(s.size(), 2u);
    const double gain = act == Activation::kRelu ? 2.0 : 1.0;
    // Linear: sqrt(1/2) / sqrt(12.5) = 0.2 and sqrt(1/2) / sqrt(50) = 0.1; ReLU: x sqrt(2).
    EXPECT_DOUBLE_EQ(s[0], std::sqrt(gain / 2) / std::sqrt(12.5));
    EXPECT_DOUBLE_EQ(s[1], std::sqrt(gain / 2) / std::sqrt(50.0));
    EXPECT_NEAR(s[0], act == Activation::kRelu ? 0.28284271 : 0.2, 1e-8);
    EXPECT_NEAR(s[1], act == Activation::kRelu ? 0.14142136 : 0.1, 1e-8);
  }
}

}  // namespace
}  // namespace strider
