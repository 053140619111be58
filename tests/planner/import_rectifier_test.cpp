// LeakyRelu and PRelu (planner/import/onnx_ops_activation.cpp): PyTorch's opset-9 / 10 exports
// (scripts/export_torch_fixtures.py) import as kActivation nodes with their
// slopes, the float reference applies slope x below zero per channel, the negative-input
// requantisation carries the slope with one rounding, and a slope along another axis or a
// non-finite alpha is refused naming the file, node and shape.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "core/contract/quant.h"
#include "planner/import/onnx_importer.h"
#include "planner/ir/graph.h"
#include "planner/quant/float_reference.h"
#include "tests/lib/error_text.h"

namespace strider {
namespace {

const std::string kData = std::string(STRIDER_SOURCE_DIR) + "/tests/planner/data/";

std::vector<std::string> ops(const Graph& g) {
  std::vector<std::string> out;
  for (const Node& n : g.nodes) out.push_back(to_string(n.op));
  return out;
}

std::string error_of(const std::string& net) {
  return error_text([&] { import_onnx(kData + net); });
}

TEST(ImportRectifiers, TorchOpset9And10LeakyReluAndPRelu) {
  OnnxInputDims dims;
  dims.batch = 2;
  for (const std::string net : {"torch_leaky_prelu_opset9", "torch_leaky_prelu_opset10"}) {
    const Graph g = import_onnx(kData + net + ".onnx", dims);
    EXPECT_EQ(g.tensors[g.inputs[0]].shape, (TensorShape{2, 3, 16, 16})) << net;
    // conv1, LeakyRelu, pool, conv2, PRelu (per channel), conv3, PRelu (one slope), gap,
    // flatten, fc.
    EXPECT_EQ(ops(g),
              (std::vector<std::string>{"conv", "activation", "maxpool", "conv", "activation",
                                        "conv", "activation", "globalavgpool", "reshape", "fc"}))
        << net;
    EXPECT_EQ(g.nodes[1].negative_slope, (std::vector<double>{double(0.1f)}));
    EXPECT_EQ(g.nodes[4].negative_slope,
              (std::vector<double>{double(0.05f), double(0.1f), double(0.15f), double(0.2f),
                                   double(0.25f), double(0.3f), double(0.4f), double(-0.1f)}));
    EXPECT_EQ(g.nodes[6].negative_slope, (std::vector<double>{double(0.2f)}));
    EXPECT_EQ(g.nodes[4].activation, Activation::kNone);
  }
}

// A [1, 2, 1, 2] input through PRelu with slopes 0.5 (channel 0) and -2 (channel 1).
TEST(ImportRectifiers, FloatReferenceAppliesTheChannelsSlope) {
  Graph g;
  Tensor x;
  x.name = "x";
  x.shape = {1, 2, 1, 2};
  g.inputs = {g.add_tensor(x)};
  x.name = "y";
  const int y = g.add_tensor(x);
  g.outputs = {y};
  Node n;
  n.name = "prelu";
  n.op = OpType::kActivation;
  n.inputs = {g.inputs[0]};
  n.outputs = {y};
  n.negative_slope = {0.5, -2.0};
  g.add_node(n);
  FloatReference ref(g, {{0.0f, 0.0f}}, 1);
  ref.set_input(g.inputs[0], {-3.0f, 4.0f, -1.5f, 2.0f});
  ref.run();
  EXPECT_EQ(ref.value(y), (std::vector<float>{-1.5f, 4.0f, 3.0f, 2.0f}));
}

// The negative-input requantisation at unit scale: 0.1 = 0.8 x 2^-3, multiplier
// round(0.8 x 2^15) = 26,214 with shift 15 + 3 = 18; a negative slope negates the multiplier,
// slope 0 gives 0.
TEST(ImportRectifiers, NegativeRequantCarriesTheSlopeWithOneRounding) {
  Node n;
  n.op = OpType::kActivation;
  n.negative_slope = {0.1, -0.1, 0.0};
  set_negative_requant(&n, 1.0, 3);
  ASSERT_EQ(n.channel_requant.size(), 3u);
  EXPECT_EQ(n.channel_requant[0], (Requant{26214, 18}));
  EXPECT_EQ(n.channel_requant[1], (Requant{-26214, 18}));
  EXPECT_EQ(n.channel_requant[2], (Requant{0, 0}));
  // -100 x 26,214 / 2^18 = -9.99985 -> -10; -7 x 26,214 / 2^18 = -0.69999 -> -1 (half away);
  // with the negative slope -100 -> +10.
  EXPECT_EQ(requantize(-100, n.channel_requant[0]), -10);
  EXPECT_EQ(requantize(-7, n.channel_requant[0]), -1);
  EXPECT_EQ(requantize(-100, n.channel_requant[1]), 10);
  EXPECT_EQ(requantize(-100, n.channel_requant[2]), 0);
  // A scale of 2 (input scale twice the output's) with slope 0.1: 0.2 = 0.8 x 2^-2, shift 17.
  n.negative_slope = {0.1};
  set_negative_requant(&n, 2.0, 2);
  EXPECT_EQ(n.channel_requant, (std::vector<Requant>{{26214, 17}, {26214, 17}}));
}

TEST(ImportRectifiers, SlopeAlongAnotherAxisAndNonFiniteAlphaAreRefused) {
  EXPECT_EQ(error_of("err_prelu_axis.onnx"),
            kData +
                "err_prelu_axis.onnx: node 'prelu' (PRelu): slope 'slope' of shape [5] varies "
                "along axis 3 of X [1, 4, 3, 5], which is not the channel axis (only one "
                "slope or one per channel is supported)");
  EXPECT_EQ(error_of("err_leaky_alpha.onnx"),
            kData + "err_leaky_alpha.onnx: node 'leaky' (LeakyRelu): alpha inf is not finite");
}

}  // namespace
}  // namespace strider
