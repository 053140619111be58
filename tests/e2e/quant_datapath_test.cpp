// The int8 datapath of quantised layers on hand-computed values (planner/quant/calibrator.h
// apply_scales, tb/reference.h): SiLU (x * sigmoid(x)) and squeeze-excitation (global pool, 1x1
// conv, sigmoid, per-channel multiply) with the sigmoid output at scale 1/127, so the multiply's
// requantisation must divide by 127 (it used to keep multiplier 1, shift 0: outputs 127x too
// large, saturated); uint8 activations; a global average pool's own output scale; and the float
// reference (planner/quant/float_reference.h) the int8 network is measured against.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "planner/import/network_loader.h"
#include "planner/lower/legalise.h"
#include "planner/quant/calibrator.h"
#include "planner/quant/float_reference.h"
#include "tb/reference.h"
#include "tests/e2e/quant_graph_util.h"
#include "tests/e2e/report_util.h"

namespace strider {
namespace {

using namespace report_test;
using namespace quant_test;

TEST(Quant, SiluAgainstHandComputedValues) {
  Graph g;
  const int x = tensor(g, "x", {1, 1, 1, 4}, 1.0 / 16), s = tensor(g, "s", {1, 1, 1, 4}, 1.0 / 127);
  const int y = tensor(g, "y", {1, 1, 1, 4}, 1.0 / 16);
  Node sig = node("sigmoid", OpType::kActivation, {x}, s);
  sig.activation = Activation::kSigmoid;
  g.add_node(sig);
  g.add_node(node("mul", OpType::kMul, {x, s}, y));
  g.inputs = {x};
  g.outputs = {y};
  apply_scales(&g);
  // sigmoid: input scale 1/16 is the lookup table's own: 1 = 16384 / 2^14.
  EXPECT_EQ(g.nodes[0].requant_multiplier, 16384);
  EXPECT_EQ(g.nodes[0].requant_shift, 14);
  // mul: (1/16) x (1/127) / (1/16) = 1/127.
  EXPECT_EQ(g.nodes[1].requant_multiplier, kM127);
  EXPECT_EQ(g.nodes[1].requant_shift, kS127);
  Reference ref(g);
  ref.set_input(x, {32, -32, 16, 0});  // 2.0, -2.0, 1.0, 0.0
  ref.run();
  // sigmoid: 127 / (1 + e^-2) = 111.86 -> 112; 127 x 0.1192 = 15.14 -> 15; 127 x 0.7311 =
  // 92.84 -> 93; 63.5 -> 64 (half away from zero).
  EXPECT_EQ(ref.value(s), (std::vector<int8_t>{112, 15, 93, 64}));
  // mul: 32 x 112 = 3584, x 16513 / 2^21 = 28.22 -> 28 (SiLU(2) = 1.762 = 28.19 / 16);
  // -32 x 15 = -480 -> -3.78 -> -4 (SiLU(-2) x 16 = -3.81); 16 x 93 = 1488 -> 11.72 -> 12
  // (SiLU(1) x 16 = 11.70); 0.
  EXPECT_EQ(ref.value(y), (std::vector<int8_t>{28, -4, 12, 0}));
}

// A lookup activation at calibrated scales (core/contract/quant.h lut_entry, Node::lut): the
// activation layer requantises its input to the table's input scale s_in, and the hard-swish
// table writes the output scale s_out.
TEST(Quant, HardSwishTableAtCalibratedScalesByHand) {
  Graph g;
  const int x = tensor(g, "x", {1, 1, 1, 4}, 1.0 / 16), y = tensor(g, "y", {1, 1, 1, 4}, 0.0390625);
  Node hs = node("hardswish", OpType::kActivation, {x}, y);
  hs.activation = Activation::kHardSwish;
  hs.lut.in = Requant{24576, 18};  // s_in 3/32, as calibrate() sets it
  g.add_node(hs);
  g.inputs = {x};
  g.outputs = {y};
  apply_scales(&g);
  // Requantisation (1/16) / (3/32) = 2/3: 0.66667 x 2^15 = 21845.3 -> 21845, shift 15.
  EXPECT_EQ(g.nodes[0].requant_multiplier, 21845);
  EXPECT_EQ(g.nodes[0].requant_shift, 15);
  // s_out 5/128 = 0.625 x 2^-4: 20480 / 2^19.
  EXPECT_EQ(g.nodes[0].lut.out, (Requant{20480, 19}));
  Reference ref(g);
  ref.set_input(x, {48, -24, 15, 127});  // 3.0, -1.5, 0.9375, 7.94
  ref.run();
  // 48 x 21845 / 2^15 = 31.9995 -> 32 = 3.0 -> 3.0 / (5/128) = 76.8 -> 77;
  // -24 -> -15.9998 -> -16 = -1.5 -> -0.375 -> -9.6 -> -10; 15 -> 9.99985 -> 10 = 0.9375 ->
  // 0.615234 -> 15.75 -> 16; 127 -> 84.66 -> 85 = 7.96875 -> 204, saturated 127.
  EXPECT_EQ(ref.value(y), (std::vector<int8_t>{77, -10, 16, 127}));
}

// calibrate() sets the table's input scale from the values before the activation (minmax: the
// largest |x| / 127) and a SiLU's output scale from its output, like any tensor's.
TEST(Quant, CalibratorSetsTheLookupScales) {
  Graph g;
  const int x = tensor(g, "x", {1, 1, 1, 4}, 0), y = tensor(g, "y", {1, 1, 1, 4}, 0);
  g.tensors[size_t(x)].float_data = {2.0f, -1.0f, 4.0f, 0.5f};  // a constant input
  Node silu = node("silu", OpType::kActivation, {x}, y);
  silu.activation = Activation::kSilu;
  g.add_node(silu);
  g.inputs = {x};
  g.outputs = {y};
  materialise_parameters(&g, 1);
  CalibrationOptions opt{1, 1};
  opt.method = "minmax";
  calibrate(&g, opt);
  // s_in = 4 / 127 = 0.503937 x 2^-4: 16513 / 2^19; the input x at 4 / 127 too, so the
  // requantisation is (4/127) / (16513 / 2^19) = 1.0000005: 16384 / 2^14.
  EXPECT_EQ(g.nodes[0].lut.in, (Requant{16513, 19}));
  EXPECT_EQ(g.nodes[0].requant_multiplier, 16384);
  EXPECT_EQ(g.nodes[0].requant_shift, 14);
  // SiLU of x: 1.761594, -0.268941, 3.928055, 0.311230; s_out = 3.928055 / 127 = 0.0309296 =
  // 0.98974 x 2^-5: 32432 / 2^20.
  EXPECT_EQ(g.nodes[0].lut.out, (Requant{32432, 20}));
  // x / (4/127): 63.5 -> 64, -31.75 -> -32, 127, 15.875 -> 16.
  EXPECT_EQ(g.tensors[size_t(x)].data, (std::vector<int8_t>{64, -32, 127, 16}));
  Reference ref(g);
  ref.set_input(x, g.tensors[size_t(x)].data);
  ref.run();
  // q 64: x = 64 x 16513 / 2^19 = 2.015747, SiLU 1.778777, / s_out (32432 / 2^20 =
  // 0.0309296) = 57.51 -> 58;
  // -32: -1.007874 -> -8.71 -> -9; 127: 3.999998 -> 126.99995 -> 127; 16: 0.503937 -> 10.16 -> 10.
  EXPECT_EQ(ref.value(y), (std::vector<int8_t>{58, -9, 127, 10}));
}

TEST(Quant, SqueezeExcitationAgainstHandComputedValues) {
  Graph g;
  const int x = tensor(g, "x", {1, 2, 1, 2}, 1.0 / 16), p = tensor(g, "p", {1, 2, 1, 1}, 1.0 / 16);
  const int s = tensor(g, "s", {1, 2, 1, 1}, 1.0 / 127), y = tensor(g, "y", {1, 2, 1, 2}, 1.0 / 16);
  Tensor w;
  w.name = "w";
  w.kind = TensorKind::kWeight;
  w.shape = {2, 2, 1, 1};
  w.data = {127, 0, 0, 127};  // identity, float 1.0 at scale 1/127
  w.float_data = {1, 0, 0, 1};
  w.scale = 1.0 / 127;
  g.add_node(node("pool", OpType::kGlobalAvgPool, {x}, p));
  Node conv = node("conv", OpType::kConv, {p}, s);
  conv.weights = g.add_tensor(w);
  conv.activation = Activation::kSigmoid;
  g.add_node(conv);
  g.add_node(node("mul", OpType::kMul, {x, s}, y));
  g.inputs = {x};
  g.outputs = {y};
  apply_scales(&g);
  // pool: the sum of 2 at 1/16 to 1/16: 1/2 = 16384 / 2^15.
  EXPECT_EQ(g.nodes[0].requant_multiplier, 16384);
  EXPECT_EQ(g.nodes[0].requant_shift, 15);
  // conv: (1/16) x (1/127) / (1/16), the lookup table's input scale: 1/127.
  EXPECT_EQ(g.nodes[1].requant_multiplier, kM127);
  EXPECT_EQ(g.nodes[1].requant_shift, kS127);
  EXPECT_EQ(g.nodes[2].requant_multiplier, kM127);
  Reference ref(g);
  ref.set_input(x, {16, 48, -32, 64});  // channel 0: 1, 3; channel 1: -2, 4
  ref.run();
  EXPECT_EQ(ref.value(p), (std::vector<int8_t>{32, 16}));  // (16 + 48) / 2, (-32 + 64) / 2
  // conv: 127 x 32 = 4064, x 16513 / 2^21 = 31.99998 -> 32 = 2.0 -> sigmoid 112;
  // 127 x 16 = 2032 -> 16 = 1.0 -> 93.
  EXPECT_EQ(ref.value(s), (std::vector<int8_t>{112, 93}));
  // mul: 16 x 112 = 1792 -> 14.11 -> 14; 48 x 112 = 5376 -> 42.33 -> 42; -32 x 93 = -2976 ->
  // -23.43 -> -23; 64 x 93 = 5952 -> 46.87 -> 47 (float: 14.09, 42.28, -23.39, 46.79).
  EXPECT_EQ(ref.value(y), (std::vector<int8_t>{14, 42, -23, 47}));
}

// Unsigned activations by hand: x (int8, 1/16) -> 1x1 conv (weight 1.0, ReLU) -> r (uint8,
// 1/32) -> 1x3 conv (weights 0.5, padding 1: the border is the value 0, not byte 0 - 128) -> y
// (int8, 1/16); and r -> 1x2 max pool -> p (r's group: uint8, 1/32). Values of r above 127
// exist only as uint8.
TEST(Quant, UnsignedActivationsByHand) {
  Graph g;
  const int x = tensor(g, "x", {1, 1, 1, 4}, 1.0 / 16), r = tensor(g, "r", {1, 1, 1, 4}, 1.0 / 32);
  const int y = tensor(g, "y", {1, 1, 1, 4}, 1.0 / 16), p = tensor(g, "p", {1, 1, 1, 2}, 1.0 / 32);
  g.tensors[size_t(r)].is_unsigned = g.tensors[size_t(p)].is_unsigned = true;
  Tensor w1;
  w1.name = "w1";
  w1.kind = TensorKind::kWeight;
  w1.shape = {1, 1, 1, 1};
  w1.data = {127};
  w1.channel_scales = {1.0 / 127};
  w1.scale = 1.0 / 127;
  Tensor w2 = w1;
  w2.name = "w2";
  w2.shape = {1, 1, 1, 3};
  w2.data = {127, 127, 127};
  w2.channel_scales = {0.5 / 127};
  w2.scale = 0.5 / 127;
  Node c1 = node("conv1", OpType::kConv, {x}, r);
  c1.weights = g.add_tensor(w1);
  c1.activation = Activation::kRelu;
  g.add_node(c1);
  Node c2 = node("conv2", OpType::kConv, {r}, y);
  c2.weights = g.add_tensor(w2);
  c2.kernel_w = 3;
  c2.pad_left = c2.pad_right = 1;
  g.add_node(c2);
  Node mp = node("pool", OpType::kMaxPool, {r}, p);
  mp.kernel_w = mp.stride_w = 2;
  g.add_node(mp);
  g.inputs = {x};
  g.outputs = {y, p};
  apply_scales(&g);
  // conv1: (1/16)(1/127) / (1/32) = 2/127 = 0.50394 x 2^-5: 16513, shift 20.
  EXPECT_EQ(g.nodes[0].channel_requant[0].multiplier, 16513);
  EXPECT_EQ(g.nodes[0].channel_requant[0].shift, 20);
  // conv2: (1/32)(0.5/127) / (1/16) = 1/508 = 0.50394 x 2^-8: 16513, shift 23.
  EXPECT_EQ(g.nodes[1].channel_requant[0].shift, 23);
  Reference ref(g);
  ref.set_input(x, {32, -32, 100, 127});  // 2.0, -2.0, 6.25, 7.9375
  ref.run();
  // r = 127 x q x 16513 / 2^20: 4064 -> 63.9998 -> 64; ReLU 0; 12700 -> 199.9998 -> 200;
  // 16129 -> 254.0 -> 254 (bytes 200 and 254 read as int8 would be -56 and -2).
  EXPECT_EQ(ref.value(r), (std::vector<int8_t>{64, 0, -56, -2}));
  // y = 127 x (u[i-1] + u[i] + u[i+1]) x 16513 / 2^23 = 0.2499998 x sum: sums 64, 264, 454, 454
  // -> 15.99998, 65.99995, 113.4999, 113.4999 -> 16, 66, 113, 113 (float: sum / 4 = 16, 66,
  // 113.5, 113.5).
  EXPECT_EQ(ref.value(y), (std::vector<int8_t>{16, 66, 113, 113}));
  // max pool of uint8 values: max(64, 0) = 64, max(200, 254) = 254.
  EXPECT_EQ(ref.value(p), (std::vector<int8_t>{64, -2}));
}

// A global average pool requantises its sum to an output scale of its own: x at 1/16 holds 1.0,
// 3.0625, -2.0, 4.0 (16, 49, -32, 64), mean 1.515625; at 1/64 that is exactly 97. The multiplier
// is s_in / (H W s_out) = (1/16) / (4 / 64) = 1 = 16384 / 2^14. Before, the pool kept its input's
// scale and rounded 97 / 4 = 24.25 to 24 (1.5).
TEST(Quant, GlobalAveragePoolRequantisesItsSum) {
  Graph g;
  const int x = tensor(g, "x", {1, 1, 2, 2}, 1.0 / 16), p = tensor(g, "p", {1, 1, 1, 1}, 1.0 / 64);
  g.add_node(node("gap", OpType::kGlobalAvgPool, {x}, p));
  g.inputs = {x};
  g.outputs = {p};
  apply_scales(&g);
  EXPECT_EQ(g.nodes[0].requant_multiplier, 16384);
  EXPECT_EQ(g.nodes[0].requant_shift, 14);
  Reference ref(g);
  ref.set_input(x, {16, 49, -32, 64});
  ref.run();
  EXPECT_EQ(ref.value(p), (std::vector<int8_t>{97}));
}

// The float reference computes a batch image by image: tiny_cnn at N = 2 on images A and B gives,
// for every tensor, A's batch-1 values followed by B's, bit for bit (the weights are the same
// seeded tensors in both graphs).
TEST(Quant, FloatReferenceComputesABatchImageByImage) {
  ImportOptions one, two;
  one.batch = 1;
  two.batch = 2;
  const std::string path = STRIDER_SOURCE_DIR "/configs/networks/tiny_cnn.yaml";
  Graph g1 = import_network(path, one), g2 = import_network(path, two);
  for (Graph* g : {&g1, &g2}) {
    materialise_parameters(g, 1);
    fuse_activations(g);
    calibrate(g, CalibrationOptions{7, 1});
  }
  ASSERT_EQ(g1.inputs.size(), 1u);
  const int x = g1.inputs[0];
  const std::vector<float> a = calibration_image(g1.tensors[x], 3, 0);
  const std::vector<float> b = calibration_image(g1.tensors[x], 3, 1);
  FloatReference ra(g1, {}), rb(g1, {}), rab(g2, {});
  ra.set_input(x, a);
  rb.set_input(x, b);
  std::vector<float> ab = a;
  ab.insert(ab.end(), b.begin(), b.end());
  rab.set_input(g2.inputs[0], ab);
  ra.run();
  rb.run();
  rab.run();
  ASSERT_EQ(g1.tensors.size(), g2.tensors.size());
  for (size_t t = 0; t < g1.tensors.size(); ++t) {
    if (g1.tensors[t].kind != TensorKind::kActivation) continue;
    std::vector<float> expected = ra.value(int(t));
    expected.insert(expected.end(), rb.value(int(t)).begin(), rb.value(int(t)).end());
    EXPECT_EQ(rab.value(int(t)), expected) << g1.tensors[t].name;
  }
}

// The float reference on one thread and on two gives the same bits: tiny_cnn's conv1, conv2a,
// conv2b and conv3 (32 x 32 to 8 x 8: 64 positions and more) are split in two blocks of
// positions, dw3 in two halves of its 16 groups. Materialised weights keep no float copy:
// float_weights() is int8 x the channel's scale.
TEST(Quant, FloatReferenceSameBitsOnOneOrTwoThreads) {
  Graph g = import_network(STRIDER_SOURCE_DIR "/configs/networks/tiny_cnn.yaml", ImportOptions());
  materialise_parameters(&g, 1);
  fuse_activations(&g);
  calibrate(&g, CalibrationOptions{7, 1});
  const Tensor& w = g.tensors[g.nodes[0].weights];
  EXPECT_TRUE(w.float_data.empty());
  std::vector<float> derived;
  const float* f = float_weights(w, derived);
  ASSERT_NE(f, nullptr);
  const size_t per = w.data.size() / w.channel_scales.size();  // 3 x 3 x 3 = 27
  EXPECT_EQ(per, 27u);
  EXPECT_EQ(f[per + 2], float(w.data[per + 2] * w.channel_scales[1]));
  const int x = g.inputs[0];
  FloatReference one(g, {}, 1), two(g, {}, 2);
  for (FloatReference* r : {&one, &two}) {
    r->set_input(x, calibration_image(g.tensors[x], 3, 0));
    r->run();
  }
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    if (g.tensors[t].kind != TensorKind::kActivation) continue;
    ASSERT_EQ(one.value(int(t)).size(), two.value(int(t)).size());
    EXPECT_EQ(std::memcmp(one.value(int(t)).data(), two.value(int(t)).data(),
                          one.value(int(t)).size() * sizeof(float)),
              0)
        << g.tensors[t].name;
  }
}

// The float reference of the transformer ops on hand-computed values, and the calibrated
// requantisation of a MatMul carrying a folded scalar (attention's 1 / sqrt(d)).
// Tensors are C x H x W with the channels first: a [2 x 2 x 1] tensor holds positions (rows)
// p = 0, 1 of channels c = 0, 1 at index c x 2 + p.
TEST(Quant, FloatReferenceOfTransformerOpsByHand) {
  Graph g;
  const int x = tensor(g, "x", {1, 2, 2, 1}, 0), ln = tensor(g, "ln", {1, 2, 2, 1}, 0);
  const int mm = tensor(g, "mm", {1, 2, 2, 1}, 0), sm = tensor(g, "sm", {1, 2, 2, 1}, 0);
  const int ge = tensor(g, "ge", {1, 2, 2, 1}, 0);
  Node norm = node("ln", OpType::kLayerNorm, {x}, ln);
  norm.weights = parameter(g, "gamma", TensorKind::kWeight, {2, 1, 1, 1}, {2.0f, 0.5f});
  norm.bias = parameter(g, "beta", TensorKind::kBias, {2, 1, 1, 1}, {1.0f, -1.0f});
  g.add_node(norm);
  Node matmul = node("mm", OpType::kMatMul, {ln, ln}, mm);  // out[j][p] = sum_k A[k][p] B[j][k]
  matmul.output_factor = 0.5;
  g.add_node(matmul);
  Node softmax = node("sm", OpType::kSoftmax, {mm}, sm);
  softmax.causal = true;  // row p sees channels 0 .. p of its group
  g.add_node(softmax);
  g.add_node(node("ge", OpType::kGelu, {sm}, ge));
  g.inputs = {x};
  g.outputs = {ge};
  FloatReference ref(g, {});
  ref.set_input(x, {1, 3, 3, 1});  // position 0: (1, 3); position 1: (3, 1)
  ref.run();
  // LayerNorm: mean 2, std 1: position 0 -> (-1, 1), position 1 -> (1, -1); x gamma + beta:
  // channel 0: 2 x (-1, 1) + 1 = (-1, 3); channel 1: 0.5 x (1, -1) - 1 = (-0.5, -1.5).
  EXPECT_EQ(ref.value(ln), (std::vector<float>{-1, 3, -0.5f, -1.5f}));
  // MatMul (B not transposed: B[j][k] = ln channel j, row k) x 0.5:
  // out[0][0] = (A[0][0] B[0][0] + A[1][0] B[0][1]) / 2 = (-1 x -1 + -0.5 x 3) / 2 = -0.25;
  // out[0][1] = (3 x -1 + -1.5 x 3) / 2 = -3.75; out[1][0] = (-1 x -0.5 + -0.5 x -1.5) / 2 =
  // 0.625; out[1][1] = (3 x -0.5 + -1.5 x -1.5) / 2 = 0.375.
  EXPECT_EQ(ref.value(mm), (std::vector<float>{-0.25f, -3.75f, 0.625f, 0.375f}));
  // Causal softmax over the 2 channels: row 0 sees channel 0 only -> (1, 0); row 1:
  // e^-3.75 / (e^-3.75 + e^0.375) = 1 / (1 + e^4.125) = 1 / 62.8678 = 0.0159064, and 0.9840936.
  const std::vector<float>& p = ref.value(sm);
  EXPECT_EQ(p[0], 1.0f);
  EXPECT_EQ(p[2], 0.0f);
  EXPECT_NEAR(p[1], 0.0159064, 1e-6);
  EXPECT_NEAR(p[3], 0.9840936, 1e-6);
  // GELU x Phi(x): GELU(1) = 0.8413447, GELU(0) = 0.
  EXPECT_NEAR(ref.value(ge)[0], 0.8413447, 1e-6);
  EXPECT_EQ(ref.value(ge)[2], 0.0f);
  // Requantisation of the MatMul: s_a x s_b x factor / s_out = (1/16) (1/16) 0.5 / (1/32) =
  // 1/16 = 16384 / 2^18; LayerNorm: (1/256) x s_gamma / s_out (the normalised value at 1/256)
  // with s_gamma = 2 / 127 (one scale for gamma: max |gamma| / 127) and s_out = 1/16: 1/1016 =
  // 0.50394 x 2^-9 = 16513 / 2^24.
  for (int t : {x, ln, sm, ge}) g.tensors[t].scale = 1.0 / 16;
  g.tensors[mm].scale = 1.0 / 32;
  g.tensors[g.nodes[0].weights].scale = 2.0 / 127;
  apply_scales(&g);
  EXPECT_EQ(g.nodes[1].requant_multiplier, 16384);
  EXPECT_EQ(g.nodes[1].requant_shift, 18);
  EXPECT_EQ(g.nodes[0].requant_multiplier, 16513);
  EXPECT_EQ(g.nodes[0].requant_shift, 24);
  // beta in units of the accumulator (1/256 x 2/127): 1 / (2 / 32512) = 16256, -16256.
  EXPECT_EQ(g.tensors[g.nodes[0].bias].bias, (std::vector<int32_t>{16256, -16256}));
  // Softmax: exp reads its input at 1/32, round(2^24 log2(e) / 32) = round(756,387.7) = 756,388;
  // the probability at 1/127 to 1/16: 16 / 127 = 0.50394 x 2^-2 = 16513 / 2^17.
  EXPECT_EQ(g.nodes[2].input_multiplier, 756388);
  EXPECT_EQ(g.nodes[2].requant_multiplier, 16513);
  EXPECT_EQ(g.nodes[2].requant_shift, 17);
  // GELU: input at 1/16, round(2^24 / (16 sqrt 2)) = 741,455; 1/16 to 1/16: 1 = 16384 / 2^14.
  EXPECT_EQ(g.nodes[3].input_multiplier, 741455);
  EXPECT_EQ(g.nodes[3].requant_multiplier, 16384);
  EXPECT_EQ(g.nodes[3].requant_shift, 14);
}

}  // namespace
}  // namespace strider
