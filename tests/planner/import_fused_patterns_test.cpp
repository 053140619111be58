// Activations written out as element-wise steps import as the fused op: hard-swish and
// hard-sigmoid (x * Clip(x + 3, 0, 6) / 6 and Clip(x + 3, 0, 6) * (1/6);
// tests/planner/data/make_hard_swish_fixtures.py) and GELU's tanh form (PyTorch's
// approximate='tanh' export and GPT-2's gelu_new; make_gelu_tanh_fixtures.py): the same IR and
// the same float values as the model written with the fused op; an x * x that is not part of a
// GELU stays an element-wise Mul. SiLU as Mul(x, Sigmoid(x)) (torchvision's efficientnet_b0;
// make_silu_fixtures.py) imports as one kSilu activation that fuse_activations folds into its
// conv like a Relu; hard-swish as Mul(x, HardSigmoid(x)) (torchvision's mobilenet_v3 at opset 13;
// make_silu_fixtures.py) as one kHardSwish, alike.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "planner/import/onnx_importer.h"
#include "planner/ir/graph.h"
#include "planner/lower/legalise.h"
#include "planner/quant/float_reference.h"

namespace strider {
namespace {

const std::string kData = std::string(STRIDER_SOURCE_DIR) + "/tests/planner/data/";

std::vector<std::string> ops(const Graph& g) {
  std::vector<std::string> out;
  for (const Node& n : g.nodes)
    out.push_back(std::string(to_string(n.op)) + "/" + to_string(n.activation));
  return out;
}

// The float reference's output for an input of `size` values i % 13 / 4 - 1.5.
std::vector<float> outputs(const Graph& g, size_t size) {
  FloatReference ref(g, std::vector<std::pair<float, float>>(g.nodes.size(), {0.0f, 0.0f}), 1);
  std::vector<float> x(size);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i % 13) / 4.0f - 1.5f;
  ref.set_input(g.inputs.at(0), x);
  ref.run();
  return ref.value(g.outputs.at(0));
}

TEST(ImportFusedPatterns, HardSwishWrittenOutIsTheFusedActivation) {
  const Graph steps = import_onnx(kData + "hard_swish_cnn.onnx");
  const Graph fused = import_onnx(kData + "hard_swish_cnn_fused.onnx");
  // conv1 + hard-swish, conv2 + hard-swish (its "gate" Mul(c2, HardSigmoid(c2)) is conv2's
  // hard-swish, one activation), global average pool, flatten, fc.
  EXPECT_EQ(ops(steps), (std::vector<std::string>{"conv/none", "activation/hardswish", "conv/none",
                                                  "activation/hardswish", "globalavgpool/none",
                                                  "reshape/none", "fc/none"}));
  EXPECT_EQ(ops(steps), ops(fused));
  const std::vector<float> a = outputs(steps, 3 * 16 * 16);
  ASSERT_EQ(a.size(), 10u);
  EXPECT_EQ(a, outputs(fused, 3 * 16 * 16));  // the same ops on the same weights: the same bits
}

TEST(ImportFusedPatterns, GeluTanhTorchAndGpt2FormsAreTheFusedGelu) {
  const Graph erf = import_onnx(kData + "gelu_erf.onnx");
  // Linear, GELU, Linear (each Linear a 1x1 conv over the tokens).
  ASSERT_EQ(ops(erf), (std::vector<std::string>{"conv/none", "gelu/none", "conv/none"}));
  const std::vector<float> want = outputs(erf, 8 * 16);
  for (const std::string net : {"gelu_tanh_torch", "gelu_tanh_gpt2"}) {
    const Graph g = import_onnx(kData + net + ".onnx");
    EXPECT_EQ(ops(g), ops(erf)) << net;
    EXPECT_EQ(outputs(g, 8 * 16), want) << net;
  }
}

TEST(ImportFusedPatterns, SquareAloneIsAMul) {
  const Graph g = import_onnx(kData + "square_mlp.onnx");
  ASSERT_EQ(ops(g), (std::vector<std::string>{"conv/none", "mul/none", "conv/none"}));
  EXPECT_EQ(g.nodes[1].inputs[0], g.nodes[1].inputs[1]);
  EXPECT_EQ(g.nodes[1].inputs[0], g.nodes[0].outputs[0]);
}

TEST(ImportFusedPatterns, SiluWrittenAsSigmoidMulIsOneActivationFusedIntoItsConv) {
  Graph g = import_onnx(kData + "silu_cnn.onnx");
  const Graph relu = import_onnx(kData + "silu_cnn_relu.onnx");
  // SiLU of the graph input (x first), conv1 + SiLU (x first), conv2 + SiLU (Sigmoid first); the
  // squeeze-excitation gate Mul(a2, Sigmoid(gap(a2))) is not a SiLU and keeps its Mul.
  ASSERT_EQ(ops(g), (std::vector<std::string>{"activation/silu", "conv/none", "activation/silu",
                                              "conv/none", "activation/silu", "globalavgpool/none",
                                              "activation/sigmoid", "mul/none"}));
  // The Sigmoid node now writes the SiLU: the Mul's output is its output, the node's input x.
  EXPECT_EQ(g.nodes[0].inputs, std::vector<int>{g.inputs.at(0)});
  EXPECT_EQ(g.nodes[2].inputs, g.nodes[1].outputs);
  EXPECT_EQ(g.nodes[4].inputs, g.nodes[3].outputs);
  EXPECT_EQ(g.nodes[7].inputs, (std::vector<int>{g.nodes[4].outputs[0], g.nodes[6].outputs[0]}));
  // The float reference computes x sigmoid(x) on the graph input's values (i % 13 / 4 - 1.5).
  FloatReference ref(g, std::vector<std::pair<float, float>>(g.nodes.size(), {0.0f, 0.0f}), 1);
  std::vector<float> x(4 * 8 * 8);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i % 13) / 4.0f - 1.5f;
  ref.set_input(g.inputs.at(0), x);
  ref.run();
  const std::vector<float> a0 = ref.value(g.nodes[0].outputs[0]);
  ASSERT_EQ(a0.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_FLOAT_EQ(a0[i], x[i] / (1 + std::exp(-x[i]))) << i;

  // Fused into conv1 and conv2 (the first stays an activation layer: a graph input has no
  // producer), the gate's Sigmoid into the pool, exactly as the Relu network's activations.
  EXPECT_EQ(fuse_activations(&g), 3);
  EXPECT_EQ(ops(g), (std::vector<std::string>{"activation/silu", "conv/silu", "conv/silu",
                                              "globalavgpool/sigmoid", "mul/none"}));
  Graph r = relu;
  EXPECT_EQ(fuse_activations(&r), 3);
  EXPECT_EQ(ops(r), (std::vector<std::string>{"activation/relu", "conv/relu", "conv/relu",
                                              "globalavgpool/sigmoid", "mul/none"}));
}

TEST(ImportFusedPatterns, HardSwishWrittenAsHardSigmoidMulIsOneActivationFusedIntoItsConv) {
  Graph g = import_onnx(kData + "hswish_cnn.onnx");
  // conv1 + hard-swish (x first), conv2 + hard-swish (HardSigmoid first); the squeeze-excitation
  // gate Mul(a2, HardSigmoid(gap(a2))) is not a hard-swish and keeps its Mul. The same IR as the
  // network written with the HardSwish op, and the same float values.
  const Graph op = import_onnx(kData + "hswish_cnn_fused.onnx");
  ASSERT_EQ(ops(g), (std::vector<std::string>{"conv/none", "activation/hardswish", "conv/none",
                                              "activation/hardswish", "globalavgpool/none",
                                              "activation/hardsigmoid", "mul/none"}));
  EXPECT_EQ(ops(op), ops(g));
  EXPECT_EQ(g.nodes[1].inputs, g.nodes[0].outputs);
  EXPECT_EQ(g.nodes[3].inputs, g.nodes[2].outputs);
  EXPECT_EQ(g.nodes[6].inputs, (std::vector<int>{g.nodes[3].outputs[0], g.nodes[5].outputs[0]}));
  const std::vector<float> y = outputs(g, 4 * 8 * 8);
  ASSERT_EQ(y.size(), 8u * 8 * 8);
  EXPECT_EQ(y, outputs(op, 4 * 8 * 8));

  // Both fused into their conv, the gate's HardSigmoid into the pool: one conv per hard-swish.
  EXPECT_EQ(fuse_activations(&g), 3);
  EXPECT_EQ(ops(g), (std::vector<std::string>{"conv/hardswish", "conv/hardswish",
                                              "globalavgpool/hardsigmoid", "mul/none"}));

  // A HardSigmoid read by another node too stays a HardSigmoid and an element-wise Mul.
  EXPECT_EQ(
      ops(import_onnx(kData + "hswish_shared.onnx")),
      (std::vector<std::string>{"conv/none", "activation/hardsigmoid", "mul/none", "add/none"}));
  // Another alpha is no hard-swish: the HardSigmoid is refused as alone (import_onnx_test's
  // err_hardsigmoid), not folded.
  const std::string alpha02 = kData + "hswish_cnn_alpha02.onnx";
  std::string error = "no error";
  try {
    import_onnx(alpha02);
  } catch (const std::runtime_error& e) {
    error = e.what();
  }
  EXPECT_EQ(error, alpha02 +
                       ": node 'act1_hardsigmoid' (HardSigmoid): alpha 0.200000 and beta 0.500000 "
                       "are not supported (only alpha 1/6, beta 0.5, PyTorch's hardsigmoid)");
}

}  // namespace
}  // namespace strider
