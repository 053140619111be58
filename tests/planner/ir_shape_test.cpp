// Tests of the graph IR shape rules (infer_output_shapes, node_macs) for every op, and of their
// error messages.
#include <gtest/gtest.h>

#include <stdexcept>

#include "planner/ir/graph.h"

namespace strider {
namespace {

// A graph with one activation input of `shape`; helpers add weight tensors and nodes.
class ShapeTest : public ::testing::Test {
 protected:
  int input(TensorShape shape, const std::string& name = "x") {
    Tensor t;
    t.name = name;
    t.shape = shape;
    const int id = g_.add_tensor(t);
    g_.inputs.push_back(id);
    return id;
  }
  int weights(TensorShape shape) {
    Tensor t;
    t.name = "w" + std::to_string(g_.tensors.size());
    t.kind = TensorKind::kWeight;
    t.shape = shape;
    return g_.add_tensor(t);
  }
  Node node(OpType op, std::vector<int> inputs) {
    Node n;
    n.name = "n";
    n.op = op;
    n.inputs = std::move(inputs);
    return n;
  }
  std::string shape_of(const Node& n, size_t k = 0) {
    return to_string(infer_output_shapes(g_, n).at(k));
  }
  std::string error_of(const Node& n) {
    try {
      infer_output_shapes(g_, n);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "no error";
  }
  Graph g_;
};

TEST_F(ShapeTest, ConvPlainStridedDilatedAsymmetric) {
  const int x = input({1, 3, 224, 224});
  Node n = node(OpType::kConv, {x});
  n.weights = weights({64, 3, 7, 7});
  n.kernel_h = n.kernel_w = 7;
  n.stride_h = n.stride_w = 2;
  n.pad_top = n.pad_left = n.pad_bottom = n.pad_right = 3;
  // (224 + 6 - 7) / 2 + 1 = 112
  EXPECT_EQ(shape_of(n), "1x64x112x112");
  // Dilation 2 spans 2*(7-1)+1 = 13: (224 + 6 - 13) / 2 + 1 = 109
  n.dilation_h = n.dilation_w = 2;
  EXPECT_EQ(shape_of(n), "1x64x109x109");
  // Asymmetric pads (TF "SAME" on even input): H (224 + 0 + 1 - 13) / 2 + 1 = 107,
  // W (224 + 2 + 3 - 13) / 2 + 1 = 109
  n.pad_top = 0;
  n.pad_bottom = 1;
  n.pad_left = 2;
  n.pad_right = 3;
  EXPECT_EQ(shape_of(n), "1x64x107x109");
}

TEST_F(ShapeTest, ConvGroupedAndDepthwise) {
  const int x = input({1, 32, 56, 56});
  Node n = node(OpType::kConv, {x});
  n.weights = weights({32, 1, 3, 3});
  n.kernel_h = n.kernel_w = 3;
  n.pad_top = n.pad_left = n.pad_bottom = n.pad_right = 1;
  n.groups = 32;
  EXPECT_EQ(shape_of(n), "1x32x56x56");
  Tensor out;
  out.name = "y";
  out.shape = {1, 32, 56, 56};
  n.outputs = {g_.add_tensor(out)};
  // 32 * 56 * 56 outputs x (1 * 3 * 3) = 903,168
  EXPECT_EQ(node_macs(g_, n), 903168);
  EXPECT_EQ(reduction_length(g_, n), 9);
  n.groups = 4;
  EXPECT_EQ(error_of(n),
            "node 'n' (conv): input 1x32x56x56 has 32 channels but weights 32x1x3x3 with groups 4 "
            "expect 4");
  n.groups = 0;
  EXPECT_EQ(error_of(n), "node 'n' (conv): groups 0 must be >= 1");
}

TEST_F(ShapeTest, ConvErrors) {
  const int x = input({1, 8, 4, 4});
  Node n = node(OpType::kConv, {x});
  EXPECT_EQ(error_of(n), "node 'n' (conv): has no weights");
  n.weights = weights({6, 2, 3, 3});
  n.kernel_h = n.kernel_w = 3;
  n.groups = 4;
  EXPECT_EQ(error_of(n), "node 'n' (conv): output channels 6 not divisible by groups 4");
  n.groups = 1;
  n.weights = weights({8, 8, 3, 3});
  n.kernel_w = 5;
  EXPECT_EQ(error_of(n), "node 'n' (conv): weights 8x8x3x3 do not match kernel 3x5");
  n.kernel_w = 3;
  n.dilation_h = 2;
  EXPECT_EQ(error_of(n), "node 'n' (conv): window 5 larger than padded input 4 along H");
  n.dilation_h = 1;
  n.stride_w = 0;
  EXPECT_EQ(error_of(n),
            "node 'n' (conv): invalid window along W: kernel 3, stride 0, dilation 1, pads 0/0");
  n.stride_w = 1;
  n.inputs = {x, x};
  EXPECT_EQ(error_of(n), "node 'n' (conv): has 2 inputs, expected 1");
}

TEST_F(ShapeTest, FullyConnected) {
  const int x = input({1, 512, 7, 7});
  Node n = node(OpType::kFullyConnected, {x});
  n.weights = weights({1000, 25088, 1, 1});
  EXPECT_EQ(shape_of(n), "1x1000x1x1");
  Tensor out;
  out.name = "y";
  out.shape = {1, 1000, 1, 1};
  n.outputs = {g_.add_tensor(out)};
  EXPECT_EQ(node_macs(g_, n), 25088000);  // 512*7*7 * 1000
  n.weights = weights({1000, 2048, 1, 1});
  EXPECT_EQ(error_of(n),
            "node 'n' (fc): input 1x512x7x7 has 25088 features but weights 1000x2048x1x1 expect "
            "2048");
}

TEST_F(ShapeTest, PoolsFloorAndCeilMode) {
  const int x = input({1, 64, 112, 112});
  Node n = node(OpType::kMaxPool, {x});
  n.kernel_h = n.kernel_w = 3;
  n.stride_h = n.stride_w = 2;
  n.pad_top = n.pad_left = n.pad_bottom = n.pad_right = 1;
  EXPECT_EQ(shape_of(n), "1x64x56x56");  // (112 + 2 - 3) / 2 + 1 = 56
  n.pad_top = n.pad_left = n.pad_bottom = n.pad_right = 0;
  EXPECT_EQ(shape_of(n), "1x64x55x55");  // floor((112 - 3) / 2) + 1 = 55
  n.ceil_mode = true;
  EXPECT_EQ(shape_of(n), "1x64x56x56");  // ceil((112 - 3) / 2) + 1 = 56
  // ceil_mode drops a last window that would start in the trailing padding:
  // in 5, k 2, s 2, pad 1/1: ceil((5 + 2 - 2) / 2) + 1 = 4, but window 3 starts at 6 >= 5 + 1.
  g_.tensors[x].shape = {1, 1, 5, 5};
  n.kernel_h = n.kernel_w = 2;
  n.pad_top = n.pad_left = n.pad_bottom = n.pad_right = 1;
  EXPECT_EQ(shape_of(n), "1x1x3x3");
  n.op = OpType::kAvgPool;
  n.count_include_pad = true;
  EXPECT_EQ(shape_of(n), "1x1x3x3");
  n.pad_top = 2;
  EXPECT_EQ(error_of(n), "node 'n' (avgpool): padding must be smaller than the kernel");
  n.pad_top = 1;
  n.dilation_w = 2;
  EXPECT_EQ(error_of(n), "node 'n' (avgpool): pooling does not support dilation");
}

TEST_F(ShapeTest, GlobalPoolActivationSoftmaxShuffle) {
  const int x = input({1, 24, 7, 9});
  EXPECT_EQ(shape_of(node(OpType::kGlobalAvgPool, {x})), "1x24x1x1");
  EXPECT_EQ(shape_of(node(OpType::kActivation, {x})), "1x24x7x9");
  EXPECT_EQ(shape_of(node(OpType::kSoftmax, {x})), "1x24x7x9");
  Node s = node(OpType::kChannelShuffle, {x});
  s.shuffle_groups = 2;
  EXPECT_EQ(shape_of(s), "1x24x7x9");
  s.shuffle_groups = 5;
  EXPECT_EQ(error_of(s),
            "node 'n' (channel_shuffle): channels 24 not divisible by shuffle groups 5");
  EXPECT_EQ(error_of(node(OpType::kActivation, {x, x})),
            "node 'n' (activation): has 2 inputs, expected 1");
}

TEST_F(ShapeTest, GatherBlocksMustWriteEveryOutputElementOnce) {
  const int x = input({1, 2, 4, 4});
  // Window partition of 2 channels of 4x4 into 2x2 windows: output channel w x 2 + c holds
  // window w (row-major) of channel c as a 2x2 plane; one block per (window, channel).
  Node n = node(OpType::kGather, {x});
  n.gather_shape = {1, 8, 2, 2};
  for (int64_t w = 0; w < 4; ++w) {
    for (int64_t c = 0; c < 2; ++c) {
      n.gather.push_back({c * 16 + (w / 2) * 8 + (w % 2) * 2, (w * 2 + c) * 4, 2, 2, 4, 2});
    }
  }
  EXPECT_EQ(shape_of(n), "1x8x2x2");
  EXPECT_EQ(node_macs(g_, n), 0);
  Node twice = n;
  twice.gather[1].dst = 0;  // block 1 writes block 0's elements
  EXPECT_EQ(error_of(twice), "node 'n' (gather): gather block 1 writes output element 0 a second time");
  Node missing = n;
  missing.gather.pop_back();
  EXPECT_EQ(error_of(missing), "node 'n' (gather): gather blocks write 28 of the 32 output elements");
  Node outside = n;
  outside.gather[7].src = 30;  // last element 30 + 1 x 4 + 1 = 35 > 31
  EXPECT_EQ(error_of(outside),
            "node 'n' (gather): gather block 7 (src 30, dst 28, 2 x 2, strides 4 / 2) is outside "
            "input 1x2x4x4 or output 1x8x2x2");
  EXPECT_STREQ(to_string(OpType::kGather), "gather");
}

TEST_F(ShapeTest, AddMulBroadcast) {
  const int a = input({1, 16, 8, 8}, "a");
  const int per_channel = input({1, 16, 1, 1}, "b");
  const int scalar = input({1, 1, 1, 1}, "s");
  const int bad = input({1, 8, 8, 8}, "bad");
  EXPECT_EQ(shape_of(node(OpType::kAdd, {a, a})), "1x16x8x8");
  EXPECT_EQ(shape_of(node(OpType::kMul, {a, per_channel})), "1x16x8x8");
  EXPECT_EQ(shape_of(node(OpType::kMul, {a, scalar})), "1x16x8x8");
  EXPECT_EQ(error_of(node(OpType::kAdd, {a, bad})),
            "node 'n' (add): second input 1x8x8x8 does not broadcast to 1x16x8x8 (same shape, "
            "per channel Nx16x1x1 or scalar)");
  EXPECT_EQ(error_of(node(OpType::kMul, {a})), "node 'n' (mul): has 1 inputs, expected 2");
}

TEST_F(ShapeTest, Concat) {
  const int a = input({1, 16, 8, 8}, "a");
  const int b = input({1, 24, 8, 8}, "b");
  const int c = input({1, 24, 4, 8}, "c");
  EXPECT_EQ(shape_of(node(OpType::kConcat, {a, b, a})), "1x56x8x8");
  EXPECT_EQ(error_of(node(OpType::kConcat, {a, c})),
            "node 'n' (concat): input 1 1x24x4x8 differs from input 0 1x16x8x8 outside the "
            "channel axis");
  EXPECT_EQ(error_of(node(OpType::kConcat, {})), "node 'n' (concat): has no inputs");
}

TEST_F(ShapeTest, ReshapeFlattenIdentity) {
  const int x = input({1, 64, 7, 7});
  Node n = node(OpType::kReshape, {x});
  EXPECT_EQ(shape_of(n), "1x64x7x7");  // identity / dropout
  n.reshape_dims = {0, -1};
  EXPECT_EQ(shape_of(n), "1x3136x1x1");  // flatten
  n.reshape_dims = {1, 32, 2, 49};
  EXPECT_EQ(shape_of(n), "1x32x2x49");
  n.reshape_dims = {1, -1, 7};
  EXPECT_EQ(shape_of(n), "1x448x7x1");
  n.reshape_dims = {-1, -1};
  EXPECT_EQ(error_of(n), "node 'n' (reshape): target has more than one -1");
  n.reshape_dims = {1, 100};
  EXPECT_EQ(error_of(n),
            "node 'n' (reshape): reshape of 1x64x7x7 to 1x100x1x1 changes the element count");
  n.reshape_dims = {1, -1, 5};
  EXPECT_EQ(error_of(n), "node 'n' (reshape): cannot infer -1: 3136 elements not divisible by 5");
  n.reshape_dims = {1, 2, 3, 4, 5};
  EXPECT_EQ(error_of(n), "node 'n' (reshape): target has 5 dims, at most 4 supported");
  n.reshape_dims = {1, -2};
  EXPECT_EQ(error_of(n), "node 'n' (reshape): target dim -2 is negative");
}

TEST_F(ShapeTest, SplitSliceAndPad) {
  const int x = input({1, 48, 10, 12});
  Node s = node(OpType::kSplit, {x});
  s.channel_begin = {0, 16};
  s.channel_end = {16, 48};
  EXPECT_EQ(shape_of(s, 0), "1x16x10x12");
  EXPECT_EQ(shape_of(s, 1), "1x32x10x12");
  s.channel_end = {16, 49};
  EXPECT_EQ(error_of(s), "node 'n' (split): channel range [16, 49) not inside [0, 48)");
  s.channel_end = {16};
  EXPECT_EQ(error_of(s), "node 'n' (split): needs one channel range [begin, end) per output");
  Node sl = node(OpType::kSlice, {x});
  sl.channel_begin = {24};
  sl.channel_end = {48};
  EXPECT_EQ(shape_of(sl), "1x24x10x12");
  sl.channel_begin = {0, 24};
  sl.channel_end = {24, 48};
  EXPECT_EQ(error_of(sl), "node 'n' (slice): needs exactly one range");
  Node p = node(OpType::kPad, {x});
  p.pad_top = 1;
  p.pad_left = 2;
  p.pad_bottom = 3;
  p.pad_right = 4;
  EXPECT_EQ(shape_of(p), "1x48x14x18");
  p.pad_left = -1;
  EXPECT_EQ(error_of(p), "node 'n' (pad): negative padding");
}

TEST_F(ShapeTest, NamesOfOpsAndActivations) {
  EXPECT_STREQ(to_string(OpType::kChannelShuffle), "channel_shuffle");
  EXPECT_STREQ(to_string(OpType::kFullyConnected), "fc");
  Activation a = Activation::kNone;
  ASSERT_TRUE(parse_activation("hardswish", &a));
  EXPECT_EQ(a, Activation::kHardSwish);
  EXPECT_FALSE(parse_activation("gelu", &a));
  EXPECT_EQ(a, Activation::kHardSwish);
  EXPECT_TRUE(is_view_op(OpType::kReshape));
  EXPECT_FALSE(is_view_op(OpType::kConcat));
}

}  // namespace
}  // namespace strider
