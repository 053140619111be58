// The functional reference (tb/reference.h) on hand-computed layers: exact values, with the
// arithmetic in comments, for convolution with padding/stride/bias/requantisation, average and
// max pooling (rounding half away from zero, count_include_pad), broadcast add, channel shuffle,
// gather and softmax. These pin the numeric contract the model is checked against.
#include <gtest/gtest.h>

#include <vector>

#include "core/contract/vector_math.h"
#include "tb/reference.h"

namespace strider {
namespace {

int activation(Graph& g, const std::string& name, TensorShape s) {
  Tensor t;
  t.name = name;
  t.shape = s;
  return g.add_tensor(t);
}

// A graph with one node on a 3x3 input holding 1..9 (or -1..-9), whose output has `out` shape.
struct OneNode {
  Graph g;
  Node n;
  int in = -1, out = -1;
  OneNode(OpType op, TensorShape out_shape, bool negative = false) {
    in = activation(g, "x", {1, 1, 3, 3});
    out = activation(g, "y", out_shape);
    n.name = "node";
    n.op = op;
    n.inputs = {in};
    n.outputs = {out};
    for (int i = 1; i <= 9; ++i) input.push_back(int8_t(negative ? -i : i));
  }
  std::vector<int8_t> input;
  std::vector<int8_t> run() {
    g.inputs = {in};
    Reference ref(g);
    ref.set_input(in, input);
    ref.run_node(n);
    return ref.value(out);
  }
};

TEST(FunctionalReference, ConvPaddingStrideBiasAndRequantisation) {
  OneNode t(OpType::kConv, {1, 1, 2, 2});
  Tensor w;
  w.name = "w";
  w.kind = TensorKind::kWeight;
  w.shape = {1, 1, 2, 2};
  w.data = {1, 0, 0, -1};  // out = in(y, x) - in(y + 1, x + 1) over the window
  Tensor b;
  b.name = "b";
  b.kind = TensorKind::kBias;
  b.element_bytes = 4;
  b.shape = {1, 1, 1, 1};
  b.bias = {10};
  t.n.weights = t.g.add_tensor(w);
  t.n.bias = t.g.add_tensor(b);
  t.n.kernel_h = t.n.kernel_w = 2;
  t.n.stride_h = t.n.stride_w = 2;
  t.n.pad_top = t.n.pad_left = t.n.pad_bottom = t.n.pad_right = 1;
  t.n.requant_multiplier = 3;
  t.n.requant_shift = 1;
  // Windows start at (-1,-1), (-1,1), (1,-1), (1,1): acc = 10 - 1, 10 - 3, 10 - 7, 10 + 5 - 9
  // = 9, 7, 3, 6; x 3 / 2 = 13.5, 10.5, 4.5, 9 -> 14, 11, 5, 9 (half away from zero).
  EXPECT_EQ(t.run(), (std::vector<int8_t>{14, 11, 5, 9}));
  t.g.tensors[t.n.bias].bias = {-10};
  // acc = -11, -13, -17, -14; x 3 / 2 = -16.5, -19.5, -25.5, -21 -> -17, -20, -26, -21.
  EXPECT_EQ(t.run(), (std::vector<int8_t>{-17, -20, -26, -21}));
  t.n.activation = Activation::kRelu6;  // clamps to the node's bounds, as importers set them
  t.n.clip_min = 0;
  t.n.clip_max = 96;
  t.g.tensors[t.n.bias].bias = {100};
  // acc = 99, 97, 93, 96 -> x 3 / 2 = 148.5, 145.5, 139.5, 144 -> 149, 146, 140, 144 -> 96.
  EXPECT_EQ(t.run(), (std::vector<int8_t>{96, 96, 96, 96}));
}

void pool(OneNode& t, bool include_pad) {
  t.n.kernel_h = t.n.kernel_w = 2;
  t.n.stride_h = t.n.stride_w = 2;
  t.n.pad_top = t.n.pad_left = t.n.pad_bottom = t.n.pad_right = 1;
  t.n.count_include_pad = include_pad;
}

TEST(FunctionalReference, AveragePoolRoundsHalfAwayFromZero) {
  OneNode t(OpType::kAvgPool, {1, 1, 2, 2});
  pool(t, false);
  // Valid elements: {1}, {2, 3}, {4, 7}, {5, 6, 8, 9} -> 1, 2.5, 5.5, 7 -> 1, 3, 6, 7.
  EXPECT_EQ(t.run(), (std::vector<int8_t>{1, 3, 6, 7}));
  pool(t, true);
  // Every window lies inside the padded 5x5 input: / 4 -> 0.25, 1.25, 2.75, 7 -> 0, 1, 3, 7.
  EXPECT_EQ(t.run(), (std::vector<int8_t>{0, 1, 3, 7}));
  OneNode neg(OpType::kAvgPool, {1, 1, 2, 2}, true);
  pool(neg, false);
  EXPECT_EQ(neg.run(), (std::vector<int8_t>{-1, -3, -6, -7}));  // -2.5 -> -3, -5.5 -> -6
}

TEST(FunctionalReference, MaxPoolIgnoresVirtualPadding) {
  OneNode t(OpType::kMaxPool, {1, 1, 2, 2}, true);
  pool(t, false);
  // -1..-9: padding is no value, so the maxima are -1, -2, -4, -5 (not 0).
  EXPECT_EQ(t.run(), (std::vector<int8_t>{-1, -2, -4, -5}));
}

TEST(FunctionalReference, AddBroadcastsPerChannelAndSaturates) {
  Graph g;
  const int a = activation(g, "a", {1, 2, 1, 2}), b = activation(g, "b", {1, 2, 1, 1});
  const int y = activation(g, "y", {1, 2, 1, 2});
  Node n;
  n.name = "add";
  n.op = OpType::kAdd;
  n.inputs = {a, b};
  n.outputs = {y};
  n.input2_multiplier = 1;  // operands at one scale: a x 1 + b x 1, shift 0
  Reference ref(g);
  ref.set_input(a, {10, 20, -30, 40});
  ref.set_input(b, {5, -100});
  ref.run_node(n);
  // 10 + 5, 20 + 5, -30 - 100, 40 - 100 = 15, 25, -130 (saturates to -128), -60.
  EXPECT_EQ(ref.value(y), (std::vector<int8_t>{15, 25, -128, -60}));
  // b at half a's scale: (2 a + b) / 2, rounded half away from zero: 25 / 2 = 12.5 -> 13,
  // 45 / 2 = 22.5 -> 23, -160 / 2 = -80, -20 / 2 = -10.
  n.requant_multiplier = 2;
  n.requant_shift = 1;
  ref.run_node(n);
  EXPECT_EQ(ref.value(y), (std::vector<int8_t>{13, 23, -80, -10}));
}

// A softmax read only by a MatMul writes uint8 probabilities (Tensor::is_unsigned) and the MatMul
// reads them unsigned.
TEST(FunctionalReference, UnsignedProbabilitiesIntoMatMul) {
  Graph g;
  const int x = activation(g, "x", {1, 2, 1, 1}), p = activation(g, "p", {1, 2, 1, 1});
  const int b = activation(g, "b", {1, 1, 1, 2}), y = activation(g, "y", {1, 1, 1, 1});
  g.tensors[p].is_unsigned = true;
  Node softmax;
  softmax.name = "softmax";
  softmax.op = OpType::kSoftmax;
  softmax.input_multiplier = kNominalSoftmaxMultiplier;  // input at 1/16
  softmax.inputs = {x};
  softmax.outputs = {p};
  Node matmul;
  matmul.name = "matmul";
  matmul.op = OpType::kMatMul;  // out[n][m] = sum_k A[k][m] B[n][k], N = 1, K = 2
  matmul.inputs = {p, b};
  matmul.outputs = {y};
  Reference ref(g);
  ref.set_input(x, {16, 0});
  ref.set_input(b, {1, -1});
  ref.run_node(softmax);
  // exp(0) = 32768, exp(-1) = 12053 (Q15), sum 44821: 510 x 32768 / 44821 = 372.9 -> (372 + 1)
  // >> 1 = 186 (255 x 0.7311 = 186.4) and 69; 186 is the byte -70 as int8.
  EXPECT_EQ(ref.value(p), (std::vector<int8_t>{-70, 69}));
  ref.run_node(matmul);
  // 186 x 1 + 69 x -1 = 117 (read as int8 it would be -70 - 69 = -139, saturated to -128).
  EXPECT_EQ(ref.value(y), (std::vector<int8_t>{117}));
}

TEST(FunctionalReference, ChannelShuffleAndSoftmax) {
  Graph g;
  const int x = activation(g, "x", {1, 4, 1, 1}), y = activation(g, "y", {1, 4, 1, 1});
  const int s = activation(g, "s", {1, 4, 1, 1});
  Node shuffle;
  shuffle.name = "shuffle";
  shuffle.op = OpType::kChannelShuffle;
  shuffle.shuffle_groups = 2;
  shuffle.inputs = {x};
  shuffle.outputs = {y};
  Node softmax;
  softmax.name = "softmax";
  softmax.op = OpType::kSoftmax;
  softmax.input_multiplier = kNominalSoftmaxMultiplier;  // input at 1/16
  softmax.inputs = {y};
  softmax.outputs = {s};
  Reference ref(g);
  ref.set_input(x, {16, 0, 16, 0});
  ref.run_node(shuffle);
  // Output channel i x 2 + k is input channel k x 2 + i: 0, 2, 1, 3.
  EXPECT_EQ(ref.value(y), (std::vector<int8_t>{16, 16, 0, 0}));
  ref.run_node(softmax);
  // exp(0) = 1 twice and exp(-1) = 0.3679 twice: p = 1 / 2.7358 = 0.3655 -> 46.42 -> 46 and
  // 0.1345 -> 17.08 -> 17 (scale 1/127).
  EXPECT_EQ(ref.value(s), (std::vector<int8_t>{46, 46, 17, 17}));
}

TEST(FunctionalReference, GatherCopiesItsBlocks) {
  // 1..9 in a 3x3 plane; a cyclic shift by one row and one column (torch.roll by -1, -1) is
  // four blocks: rows 1-2 x cols 1-2 to the top left, rows 1-2 x col 0 to the right column,
  // row 0 x cols 1-2 to the bottom row, and element (0, 0) to the bottom right corner.
  OneNode t(OpType::kGather, {1, 1, 3, 3});
  t.n.gather_shape = {1, 1, 3, 3};
  t.n.gather = {{4, 0, 2, 2, 3, 3}, {3, 2, 2, 1, 3, 3}, {1, 6, 1, 2, 0, 0}, {0, 8, 1, 1, 0, 0}};
  EXPECT_EQ(t.run(), (std::vector<int8_t>{5, 6, 4, 8, 9, 7, 2, 3, 1}));
}

}  // namespace
}  // namespace strider
