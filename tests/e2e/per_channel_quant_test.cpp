// Per-output-channel weight scales (issue 18): the calibrator's channel scales and per-channel
// requantisation on hand-computed values, the reference applying each channel's multiplier and
// shift, and the softmax output requantised from its 1/127 probability.
#include <gtest/gtest.h>

#include <vector>

#include "planner/quant/calibrator.h"
#include "strider/vector_math.h"
#include "tb/reference.h"

namespace strider {
namespace {

int tensor(Graph& g, const std::string& name, TensorShape s, double scale) {
  Tensor t;
  t.name = name;
  t.shape = s;
  t.scale = scale;
  return g.add_tensor(t);
}

// A 1x1 conv from one input channel to two output channels with float weights 0.5 and 2.0.
struct TwoChannelConv {
  Graph g;
  int x = -1, y = -1;
  TwoChannelConv() {
    x = tensor(g, "x", {1, 1, 1, 2}, 1.0 / 16);
    y = tensor(g, "y", {1, 2, 1, 2}, 1.0 / 8);
    Tensor w;
    w.name = "w";
    w.kind = TensorKind::kWeight;
    w.shape = {2, 1, 1, 1};
    w.float_data = {0.5f, 2.0f};
    Tensor b;
    b.name = "b";
    b.kind = TensorKind::kBias;
    b.element_bytes = 4;
    b.shape = {1, 2, 1, 1};
    b.float_data = {0.25f, -1.0f};
    Node n;
    n.name = "conv";
    n.op = OpType::kConv;
    n.inputs = {x};
    n.outputs = {y};
    n.weights = g.add_tensor(w);
    n.bias = g.add_tensor(b);
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

}  // namespace
}  // namespace strider
