// Tests of the graph IR container, validate() and reinfer_shapes().
#include <gtest/gtest.h>

#include <stdexcept>

#include "planner/ir/graph.h"

namespace strider {
namespace {

// x(1x4x8x8) -> conv(3x3, pad 1, 8 out, bias) -> y -> relu -> z ; add(y, z) -> out
Graph small_graph() {
  Graph g;
  g.name = "small";
  Tensor x{"x", {1, 4, 8, 8}, TensorKind::kActivation, 1, {}, {}, 0.0, {}, {}};
  Tensor w{"conv.weight", {8, 4, 3, 3}, TensorKind::kWeight, 1, {}, {}, 0.0, {}, {}};
  Tensor b{"conv.bias", {1, 8, 1, 1}, TensorKind::kBias, 4, {}, {}, 0.0, {}, {}};
  Tensor y{"y", {1, 8, 8, 8}, TensorKind::kActivation, 1, {}, {}, 0.0, {}, {}};
  Tensor z{"z", {1, 8, 8, 8}, TensorKind::kActivation, 1, {}, {}, 0.0, {}, {}};
  Tensor out{"out", {1, 8, 8, 8}, TensorKind::kActivation, 1, {}, {}, 0.0, {}, {}};
  const int ix = g.add_tensor(x), iw = g.add_tensor(w), ib = g.add_tensor(b);
  const int iy = g.add_tensor(y), iz = g.add_tensor(z), io = g.add_tensor(out);
  Node conv;
  conv.name = "conv";
  conv.op = OpType::kConv;
  conv.inputs = {ix};
  conv.outputs = {iy};
  conv.weights = iw;
  conv.bias = ib;
  conv.kernel_h = conv.kernel_w = 3;
  conv.pad_top = conv.pad_left = conv.pad_bottom = conv.pad_right = 1;
  g.add_node(conv);
  Node relu;
  relu.name = "relu";
  relu.op = OpType::kActivation;
  relu.activation = Activation::kRelu;
  relu.inputs = {iy};
  relu.outputs = {iz};
  g.add_node(relu);
  Node add;
  add.name = "add";
  add.op = OpType::kAdd;
  add.inputs = {iy, iz};
  add.outputs = {io};
  g.add_node(add);
  g.inputs = {ix};
  g.outputs = {io};
  return g;
}

std::string validate_error(const Graph& g) {
  try {
    validate(g);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "no error";
}

TEST(IrGraph, ContainerLookups) {
  Graph g = small_graph();
  EXPECT_EQ(g.find_tensor("z"), 4);
  EXPECT_EQ(g.find_tensor("nope"), -1);
  EXPECT_EQ(g.producers(), (std::vector<int>{-1, -1, -1, 0, 1, 2}));
  const auto cons = g.consumers();
  EXPECT_EQ(cons[0], (std::vector<int>{0}));
  EXPECT_EQ(cons[3], (std::vector<int>{1, 2}));
  EXPECT_TRUE(cons[5].empty());
  EXPECT_EQ(g.tensors[2].bytes(), 32);  // 8 int32 biases
  EXPECT_EQ(to_string(g.tensors[0].shape), "1x4x8x8");
  Tensor dup;
  dup.name = "y";
  try {
    g.add_tensor(dup);
    FAIL() << "duplicate tensor accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "graph 'small': tensor 'y' defined twice");
  }
  Node n;
  n.name = "relu";
  try {
    g.add_node(n);
    FAIL() << "duplicate node accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "graph 'small': node 'relu' defined twice");
  }
}

TEST(IrGraph, ValidGraphPasses) { EXPECT_EQ(validate_error(small_graph()), "no error"); }

TEST(IrGraph, ValidateErrors) {
  Graph g = small_graph();
  g.tensors[4].shape = {1, 8, 8, 7};
  EXPECT_EQ(validate_error(g),
            "node 'relu' (activation): output 'z' has shape 1x8x8x7, expected 1x8x8x8");

  g = small_graph();
  std::swap(g.nodes[0], g.nodes[1]);
  EXPECT_EQ(validate_error(g),
            "node 'relu' (activation): input 'y' is neither a graph input nor produced by an "
            "earlier node");

  g = small_graph();
  g.nodes[1].outputs = {3};
  EXPECT_EQ(validate_error(g),
            "node 'relu' (activation): output 'y' is already produced elsewhere");

  g = small_graph();
  g.nodes[0].inputs = {1};
  EXPECT_EQ(validate_error(g),
            "node 'conv' (conv): input tensor 'conv.weight' is a weight tensor, expected "
            "activation");

  g = small_graph();
  g.nodes[2].inputs = {3, 17};
  EXPECT_EQ(validate_error(g), "node 'add' (add): input tensor id 17 out of range [0, 6)");

  g = small_graph();
  g.tensors[1].data.assign(5, 1);
  EXPECT_EQ(validate_error(g),
            "node 'conv' (conv): weights 'conv.weight' hold 5 values, expected 288");

  g = small_graph();
  g.tensors[2].shape.c = 4;
  EXPECT_EQ(validate_error(g),
            "node 'conv' (conv): bias 'conv.bias' has shape 1x4x1x1, expected 1x8x1x1");

  g = small_graph();
  g.tensors[2].bias.assign(3, 0);
  EXPECT_EQ(validate_error(g), "node 'conv' (conv): bias 'conv.bias' holds 3 values, expected 8");

  g = small_graph();
  g.nodes[0].weights = -1;
  EXPECT_EQ(validate_error(g), "node 'conv' (conv): has no weights");

  g = small_graph();
  g.nodes[1].weights = 1;
  EXPECT_EQ(validate_error(g), "node 'relu' (activation): has weights or bias");

  g = small_graph();
  g.nodes[0].requant_shift = 63;
  EXPECT_EQ(validate_error(g), "node 'conv' (conv): requantisation shift 63 outside [0, 62]");

  g = small_graph();
  g.nodes[1].inputs.clear();
  EXPECT_EQ(validate_error(g), "node 'relu' (activation): has no inputs");

  g = small_graph();
  g.outputs = {0, 9};
  EXPECT_EQ(validate_error(g), "graph 'small': output tensor id 9 is not produced by any node");

  g = small_graph();
  g.tensors[4].shape.w = 0;
  EXPECT_EQ(validate_error(g),
            "graph 'small': tensor 'z' has shape 1x8x8x0 (dims must be >= 1, at most "
            "1099511627776 elements)");

  g = small_graph();
  g.tensors[1].shape = {1 << 20, 1 << 20, 1 << 20, 1};
  EXPECT_EQ(validate_error(g),
            "graph 'small': tensor 'conv.weight' has shape 1048576x1048576x1048576x1 (dims must "
            "be >= 1, at most 1099511627776 elements)");

  g = small_graph();
  g.inputs = {-2};
  EXPECT_EQ(validate_error(g), "graph 'small': input tensor id -2 out of range");
}

TEST(IrGraph, ReinferShapesFollowsNewInputSize) {
  Graph g = small_graph();
  // Append flatten + fc so the fc weights must follow the new size.
  Tensor f{"f", {1, 512, 1, 1}, TensorKind::kActivation, 1, {}, {}, 0.0, {}, {}};
  Tensor fw{"fc.weight", {10, 512, 1, 1}, TensorKind::kWeight, 1, {}, {}, 0.0, {}, {}};
  Tensor fo{"logits", {1, 10, 1, 1}, TensorKind::kActivation, 1, {}, {}, 0.0, {}, {}};
  const int i_f = g.add_tensor(f), i_fw = g.add_tensor(fw), i_fo = g.add_tensor(fo);
  Node flat;
  flat.name = "flatten";
  flat.op = OpType::kReshape;
  flat.reshape_dims = {0, -1};
  flat.inputs = {5};
  flat.outputs = {i_f};
  g.add_node(flat);
  Node fc;
  fc.name = "fc";
  fc.op = OpType::kFullyConnected;
  fc.inputs = {i_f};
  fc.outputs = {i_fo};
  fc.weights = i_fw;
  g.add_node(fc);
  g.outputs = {i_fo};
  ASSERT_EQ(validate_error(g), "no error");

  g.tensors[0].shape.h = 4;
  g.tensors[0].shape.w = 6;
  reinfer_shapes(&g);
  EXPECT_EQ(validate_error(g), "no error");
  EXPECT_EQ(to_string(g.tensors[5].shape), "1x8x4x6");
  EXPECT_EQ(to_string(g.tensors[i_f].shape), "1x192x1x1");  // 8 * 4 * 6
  EXPECT_EQ(to_string(g.tensors[i_fw].shape), "10x192x1x1");

  // Weights that hold data do not follow: the fc node's shape error is thrown.
  Graph h = g;
  h.tensors[i_fw].data.assign(1920, 1);
  h.tensors[0].shape.h = 8;
  try {
    reinfer_shapes(&h);
    FAIL() << "mismatching fc weights accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "node 'fc' (fc): input 1x384x1x1 has 384 features but weights 10x192x1x1 "
                 "expect 192");
  }
}

}  // namespace
}  // namespace strider
