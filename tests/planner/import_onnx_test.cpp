// Tests of the ONNX importer on hand-built models (tests/planner/data, written by
// make_onnx_fixtures.py): every supported op and attribute, BN folding, quantisation of float
// parameters, constant folding of shape arithmetic, and every error path.
#include <gtest/gtest.h>

#include <fstream>
#include <stdexcept>

#include "planner/import/network_loader.h"
#include "planner/import/onnx_importer.h"
#include "tests/planner/import_test_util.h"

namespace strider {
namespace {

const std::string kData = std::string(STRIDER_SOURCE_DIR) + "/tests/planner/data/";

std::string out_shape(const Graph& g, const std::string& name, size_t k = 0) {
  return to_string(g.tensors[node_named(g, name).outputs.at(k)].shape);
}
std::vector<int> weights_of(const Graph& g, const std::string& name) {
  const auto& d = g.tensors[node_named(g, name).weights].data;
  return std::vector<int>(d.begin(), d.end());
}
std::vector<int32_t> bias_of(const Graph& g, const std::string& name) {
  return g.tensors[node_named(g, name).bias].bias;
}
std::vector<std::string> node_names(const Graph& g) {
  std::vector<std::string> names;
  for (const Node& n : g.nodes) names.push_back(n.name);
  return names;
}

TEST(ImportOnnx, ConvPaddingGroupsDilationAndQuantisation) {
  const Graph g = import_onnx(kData + "conv_ops.onnx");
  EXPECT_EQ(g.name, "conv_ops");
  const Node& asym = node_named(g, "asym");
  EXPECT_EQ(asym.pad_top, 0);
  EXPECT_EQ(asym.pad_left, 1);
  EXPECT_EQ(asym.pad_bottom, 2);
  EXPECT_EQ(asym.pad_right, 3);
  EXPECT_EQ(out_shape(g, "asym"), "1x8x16x18");  // (16+2-3)+1, (16+4-3)+1
  // w = ((i % 11) - 5) * 0.1, max |w| 0.5: q = round(w * 127 / 0.5) = round(((i % 11) - 5) * 25.4)
  const std::vector<int> w = weights_of(g, "asym");
  EXPECT_EQ(std::vector<int>(w.begin(), w.begin() + 11),
            (std::vector<int>{-127, -102, -76, -51, -25, 0, 25, 51, 76, 102, 127}));
  // b = k * 0.01 in the accumulator scale (0.5 / 127) / 16: round(40.64 k)
  const std::vector<int32_t> b = bias_of(g, "asym");
  EXPECT_EQ(b, (std::vector<int32_t>{0, 41, 81, 122, 163, 203, 244, 284}));
  // SAME_UPPER, stride 2, dilation 2 (span 5): out ceil(16/2) = 8, pad (8-1)*2 + 5 - 16 = 3
  // split 1 / 2; W: out 9, pad (9-1)*2 + 5 - 18 = 3 -> 1 / 2.
  const Node& dw = node_named(g, "depthwise");
  EXPECT_EQ(dw.groups, 8);
  EXPECT_EQ(dw.dilation_h, 2);
  EXPECT_EQ(dw.stride_w, 2);
  EXPECT_EQ(dw.pad_top, 1);
  EXPECT_EQ(dw.pad_bottom, 2);
  EXPECT_EQ(dw.pad_left, 1);
  EXPECT_EQ(dw.pad_right, 2);
  EXPECT_EQ(out_shape(g, "depthwise"), "1x8x8x9");
  EXPECT_EQ(weights_of(g, "depthwise"), std::vector<int>(72, 127));
  EXPECT_EQ(node_named(g, "depthwise").bias, -1);
  // SAME_LOWER, kernel 2: pad 1 goes before.
  const Node& grouped = node_named(g, "grouped");
  EXPECT_EQ(grouped.groups, 2);
  EXPECT_EQ(grouped.pad_top, 1);
  EXPECT_EQ(grouped.pad_bottom, 0);
  EXPECT_EQ(grouped.pad_left, 1);
  EXPECT_EQ(grouped.pad_right, 0);
  EXPECT_EQ(out_shape(g, "grouped"), "1x16x8x9");
  EXPECT_EQ(out_shape(g, "valid"), "1x4x6x7");
  // 8*16*18*36 + 8*8*9*9 + 16*8*9*16 + 4*6*7*144
  EXPECT_EQ(graph_totals(g).macs, 82944 + 5184 + 18432 + 24192);
}

TEST(ImportOnnx, BatchNormFoldsIntoConvOrBecomesDepthwise) {
  const Graph g = import_onnx(kData + "batchnorm.onnx");
  EXPECT_EQ(node_names(g), (std::vector<std::string>{"conv", "relu", "cat", "bn2"}));
  // mul = scale / sqrt(var) = [1, 2, 1.5, 1]; weights (all 1) scaled per channel, max 2:
  // q = round(mul * 127 / 2) = 64 (63.5), 127, 95 (95.25), 64.
  std::vector<int> expect;
  for (int q : {64, 127, 95, 64}) expect.insert(expect.end(), 3, q);
  EXPECT_EQ(weights_of(g, "conv"), expect);
  // bias = shift - mean * mul = [0.5, -2, 0, -0.5] in the scale (2 / 127) / 16 = 1 / 1016.
  EXPECT_EQ(bias_of(g, "conv"), (std::vector<int32_t>{508, -2032, 0, -508}));
  EXPECT_EQ(g.tensors[node_named(g, "conv").bias].name, "conv.bias");
  EXPECT_EQ(node_named(g, "relu").inputs, node_named(g, "conv").outputs);
  // After a concat no conv precedes: a depthwise 1x1 conv flagged from_batchnorm.
  const Node& bn2 = node_named(g, "bn2");
  EXPECT_EQ(bn2.op, OpType::kConv);
  EXPECT_TRUE(bn2.from_batchnorm);
  EXPECT_EQ(bn2.groups, 7);
  EXPECT_EQ(to_string(g.tensors[bn2.weights].shape), "7x1x1x1");
  EXPECT_EQ(weights_of(g, "bn2"), std::vector<int>(7, 127));
  EXPECT_EQ(bias_of(g, "bn2"), std::vector<int32_t>(7, 508));  // 0.25 * 127 * 16
  const GraphTotals t = graph_totals(g);
  EXPECT_EQ(t.macs, 768);            // conv 4*8*8*3; bn2 left out
  EXPECT_EQ(t.executed_macs, 1216);  // + 7*8*8
  EXPECT_EQ(t.weights, 12);
}

TEST(ImportOnnx, Pools) {
  const Graph g = import_onnx(kData + "pools.onnx");
  EXPECT_TRUE(node_named(g, "mp").ceil_mode);
  EXPECT_EQ(out_shape(g, "mp"), "1x2x5x5");  // ceil((10 - 3) / 2) + 1
  EXPECT_TRUE(node_named(g, "ap").count_include_pad);
  EXPECT_EQ(node_named(g, "ap").pad_top, 1);
  EXPECT_EQ(out_shape(g, "ap"), "1x2x6x6");  // (10 + 2 - 2) / 2 + 1
  EXPECT_EQ(node_named(g, "gap").op, OpType::kGlobalAvgPool);
  EXPECT_EQ(node_named(g, "rm").op, OpType::kGlobalAvgPool);  // ReduceMean over H, W
  EXPECT_EQ(out_shape(g, "rm"), "1x2x1x1");
  EXPECT_EQ(g.outputs.size(), 2u);
}

TEST(ImportOnnx, Activations) {
  const Graph g = import_onnx(kData + "activations.onnx");
  EXPECT_EQ(node_named(g, "relu").activation, Activation::kRelu);
  EXPECT_EQ(node_named(g, "relu6").activation, Activation::kRelu6);  // Clip(0, 6)
  EXPECT_EQ(node_named(g, "relu6").clip_min, 0);
  EXPECT_EQ(node_named(g, "relu6").clip_max, 96);  // 6 * kActivationScale
  const Node& clip = node_named(g, "clip");        // Clip(-1, 1): x16
  EXPECT_EQ(clip.activation, Activation::kClip);
  EXPECT_EQ(clip.clip_min, -16);
  EXPECT_EQ(clip.clip_max, 16);
  EXPECT_EQ(node_named(g, "clip_min_only").activation, Activation::kRelu);
  EXPECT_EQ(node_named(g, "sigmoid").activation, Activation::kSigmoid);
  EXPECT_EQ(node_named(g, "hardsigmoid").activation, Activation::kHardSigmoid);
  EXPECT_EQ(node_named(g, "hardswish").activation, Activation::kHardSwish);
  EXPECT_EQ(node_named(g, "flatten").reshape_dims, (std::vector<int64_t>{0, -1}));
  EXPECT_EQ(node_named(g, "softmax").op, OpType::kSoftmax);
  EXPECT_EQ(out_shape(g, "softmax"), "1x4x1x1");
}

TEST(ImportOnnx, ElementwiseConcatSplitSlicePadShuffleAndAliases) {
  const Graph g = import_onnx(kData + "tensor_ops.onnx");
  // Identity, Dropout and the full-range Slice alias their input: no nodes.
  EXPECT_EQ(node_names(g),
            (std::vector<std::string>{"add", "mul", "concat", "split", "slice", "pad", "shuffle"}));
  EXPECT_EQ(g.inputs.size(), 2u);
  // Mul(y, a) with y per-channel: the broadcast operand goes second.
  EXPECT_EQ(node_named(g, "mul").inputs[0], node_named(g, "add").outputs[0]);
  EXPECT_EQ(g.tensors[node_named(g, "mul").inputs[1]].name, "y");
  EXPECT_EQ(out_shape(g, "concat"), "1x16x6x6");
  const Node& split = node_named(g, "split");
  EXPECT_EQ(split.channel_begin, (std::vector<int64_t>{0, 4}));
  EXPECT_EQ(split.channel_end, (std::vector<int64_t>{4, 16}));
  const Node& slice = node_named(g, "slice");  // starts 2, ends -2 of 12 channels
  EXPECT_EQ(slice.channel_begin, std::vector<int64_t>{2});
  EXPECT_EQ(slice.channel_end, std::vector<int64_t>{10});
  const Node& pad = node_named(g, "pad");
  EXPECT_EQ(pad.pad_top, 1);
  EXPECT_EQ(pad.pad_left, 2);
  EXPECT_EQ(pad.pad_bottom, 3);
  EXPECT_EQ(pad.pad_right, 4);
  EXPECT_EQ(out_shape(g, "pad"), "1x8x10x12");
  const Node& shuffle = node_named(g, "shuffle");
  EXPECT_EQ(shuffle.op, OpType::kChannelShuffle);
  EXPECT_EQ(shuffle.shuffle_groups, 2);
  EXPECT_EQ(shuffle.inputs, pad.outputs);
  EXPECT_EQ(g.outputs[0], split.outputs[0]);
  EXPECT_EQ(g.outputs[1], shuffle.outputs[0]);
}

TEST(ImportOnnx, ShapeArithmeticGemmMatMulAndViews) {
  const Graph g = import_onnx(kData + "shape_fc.onnx");
  EXPECT_EQ(node_names(g), (std::vector<std::string>{"reshape", "gemm", "matmul", "unsqueeze",
                                                     "squeeze", "flatten", "reshape3"}));
  // Shape -> Gather -> Unsqueeze -> Concat([.], [-1]) folded to [1, -1].
  EXPECT_EQ(node_named(g, "reshape").reshape_dims, (std::vector<int64_t>{1, -1}));
  EXPECT_EQ(out_shape(g, "reshape"), "1x64x1x1");
  // Gemm transB, alpha 0.5: w = ((i % 7) - 3) * 0.5, max 1.5: q = round(w * 127 / 1.5)
  const std::vector<int> w = weights_of(g, "gemm");
  EXPECT_EQ(std::vector<int>(w.begin(), w.begin() + 7),
            (std::vector<int>{-127, -85, -42, 0, 42, 85, 127}));
  // beta 2: c = 2k in the scale (1.5 / 127) / 16: round(2709.33 k)
  const std::vector<int32_t> c = bias_of(g, "gemm");
  EXPECT_EQ(c[1], 2709);
  EXPECT_EQ(c[9], 24384);
  // MatMul by M[10][5] with M[i][o] = o - 2: weights [5][10], row o all (o - 2) * 127 / 2.
  const std::vector<int> m = weights_of(g, "matmul");
  EXPECT_EQ(to_string(g.tensors[node_named(g, "matmul").weights].shape), "5x10x1x1");
  EXPECT_EQ(m[0], -127);
  EXPECT_EQ(m[10], -64);  // -63.5 rounds away from zero
  EXPECT_EQ(m[20], 0);
  EXPECT_EQ(m[49], 127);
  EXPECT_EQ(node_named(g, "unsqueeze").reshape_dims, (std::vector<int64_t>{1, 5, 1, 1}));
  EXPECT_EQ(node_named(g, "squeeze").reshape_dims, (std::vector<int64_t>{1, 5, 1}));
  EXPECT_EQ(node_named(g, "flatten").reshape_dims, (std::vector<int64_t>{0, -1}));
  // ConstantOfShape([1]) = [1], 16 * 4 / 2 = 32 (Mul, Div, Cast folded), -1.
  EXPECT_EQ(node_named(g, "reshape3").reshape_dims, (std::vector<int64_t>{1, 32, -1}));
  EXPECT_EQ(out_shape(g, "reshape3"), "1x32x2x1");
  EXPECT_EQ(graph_totals(g).macs, 640 + 50);
}

// Opsets 9 and 10 (tests/planner/data/make_old_opset_fixtures.py) are upgraded by ONNX's version
// converter and say so; their symbolic batch 'N' takes the run's batch.
TEST(ImportOnnx, OldOpsetsConvertedAndSymbolicBatchBound) {
  OnnxInputDims dims;
  dims.batch = 2;
  const Graph g9 = import_onnx(kData + "opset9_cnn.onnx", dims);
  EXPECT_EQ(g9.warnings,
            (std::vector<std::string>{kData + "opset9_cnn.onnx: converted from opset "
                                              "9 to opset 11 by ONNX's version converter"}));
  EXPECT_EQ(g9.tensors[g9.inputs[0]].shape, (TensorShape{2, 3, 32, 32}));
  EXPECT_EQ(g9.nodes.size(), 8u);  // the opset-9 BatchNormalization folded into conv1
  EXPECT_EQ(out_shape(g9, "fc"), "2x10x1x1");
  // MACs: conv1 32x32x8 x 27 = 221,184; conv2 16x16x16 x 72 = 294,912; fc 160; x 2 images.
  EXPECT_EQ(graph_totals(g9).macs, 2 * (221184 + 294912 + 160));
  // Opset 10, tf2onnx's x.view(N, -1): Shape -> Gather -> Unsqueeze -> Concat folds with N = 2
  // into the Reshape [2, -1]: 4 x 15 x 15 = 900 features into the MatMul.
  const Graph g10 = import_onnx(kData + "opset10_cnn.onnx", dims);
  EXPECT_EQ(g10.warnings.size(), 1u);
  EXPECT_EQ(node_named(g10, "flatten").reshape_dims, (std::vector<int64_t>{2, -1}));
  EXPECT_GE(node_named(g10, "fc").bias, 0);  // tf2onnx's Dense bias Add: the fc's bias
  // MACs: conv1 30x30x4 x 27 = 97,200; fc 900 x 10 = 9,000; x 2 images.
  EXPECT_EQ(graph_totals(g10).macs, 2 * (97200 + 9000));
}

TEST(ImportOnnx, SymbolicBatchWithoutABatchNamesTheDim) {
  try {
    import_onnx(kData + "opset9_cnn.onnx", OnnxInputDims{});
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              kData +
                  "opset9_cnn.onnx: graph input 'x' dim 0 is symbolic ('N'): give the batch "
                  "(networks[].batch, or --batch N)");
  }
}

TEST(ImportOnnx, Opset11Forms) {
  const Graph g = import_onnx(kData + "opset11.onnx");
  const Node& split = node_named(g, "split");  // split attribute
  EXPECT_EQ(split.channel_end, (std::vector<int64_t>{2, 6}));
  EXPECT_EQ(node_named(g, "squeeze").reshape_dims, (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(node_named(g, "softmax").op, OpType::kSoftmax);  // default axis 1 before opset 13
  EXPECT_EQ(node_named(g, "unsqueeze").reshape_dims, (std::vector<int64_t>{1, 4, 1}));
  const Node& clip = node_named(g, "clip");  // [-0.5, 20] x16 -> [-8, 320] -> int8 [-8, 127]
  EXPECT_EQ(clip.clip_min, -8);
  EXPECT_EQ(clip.clip_max, 127);
}

TEST(ImportOnnx, ParametersWithoutDataGetSeededWeights) {
  const Graph g = import_onnx(kData + "noparams.onnx");
  ASSERT_EQ(g.inputs.size(), 1u);  // weights listed as graph inputs are parameters
  EXPECT_EQ(g.tensors[g.inputs[0]].name, "input");
  EXPECT_TRUE(g.tensors[node_named(g, "conv").weights].data.empty());
  EXPECT_TRUE(g.tensors[node_named(g, "conv").bias].bias.empty());
  EXPECT_EQ(to_string(g.tensors[node_named(g, "fc").weights].shape), "10x4x1x1");
  const Graph a = load_network(kData + "noparams.onnx", 0, 0, 5);
  const Graph b = load_network(kData + "noparams.onnx", 0, 0, 5);
  EXPECT_EQ(a.tensors[node_named(a, "conv").weights].data.size(), 108u);
  EXPECT_EQ(a.tensors[node_named(a, "conv").weights].data,
            b.tensors[node_named(b, "conv").weights].data);
  EXPECT_EQ(a.tensors[node_named(a, "conv").bias].bias.size(), 4u);
}

struct ErrorCase {
  const char* file;
  std::string error;  // after "<path>: "
};

TEST(ImportOnnx, ModFoldsWithBothSignConventions) {
  // fmod = 0 (sign of the divisor): [-4, 13, 164, 11] % [5, 9, 100, 10] = [1, 4, 64, 1] (C fmod
  // would give -4 first, an invalid shape); fmod = 1 (sign of the dividend): [-11, 4, 64, 1] %
  // [10, 9, 100, 7] = [-1, 4, 64, 1], the -1 inferred as 1 (the other convention gives 9, fails).
  const Graph g = import_onnx(kData + "mod_fold.onnx");
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].reshape_dims, (std::vector<int64_t>{1, 4, 64, 1}));
  EXPECT_EQ(g.nodes[1].reshape_dims, (std::vector<int64_t>{-1, 4, 64, 1}));
  EXPECT_EQ(to_string(g.tensors[g.outputs[0]].shape), "1x4x64x1");
}

TEST(ImportOnnx, SliceOfConstantWithNegativeStepFolds) {
  // Row 0 of [[64, 4, 1, 1], [7, 8, 9, 9]] from column -1 backwards to the start: [1, 1, 4, 64].
  const Graph g = import_onnx(kData + "slice_fold.onnx");
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].reshape_dims, (std::vector<int64_t>{1, 1, 4, 64}));
  EXPECT_EQ(to_string(g.tensors[g.outputs[0]].shape), "1x1x4x64");
}

TEST(ImportOnnx, ErrorsNameFileNodeAndOp) {
  const std::string supported = onnx_supported_ops();
  EXPECT_EQ(supported,
            "Add, AveragePool, BatchNormalization, Cast, Clip, Concat, Constant, "
            "ConstantOfShape, Conv, ConvTranspose, DequantizeLinear, Div, Dropout, Equal, Erf, "
            "Expand, Flatten, "
            "Gather, Gemm, GlobalAveragePool, HardSigmoid, HardSwish, Identity, "
            "InstanceNormalization, LayerNormalization, LeakyRelu, MatMul, MaxPool, Mod, Mul, Not, PRelu, Pad, Pow, "
            "QuantizeLinear, "
            "Range, ReduceMean, Relu, Reshape, Resize, ScatterND, Shape, Sigmoid, Slice, Softmax, "
            "Split, "
            "Sqrt, Squeeze, Sub, Transpose, Unsqueeze, Where");
  const std::vector<ErrorCase> cases = {
      {"err_unsupported",
       "node 'my_erf' (Erf): Erf is supported only inside a GELU of a token sequence (x * 0.5 * "
       "(1 + Erf(x / sqrt 2)))"},
      {"err_domain", "node 'fused': unsupported op type 'com.microsoft.FusedConv' (supported: " +
                         supported + ")"},
      {"err_div", "node 'div' (Div): Div of activations is not supported (only constant folding)"},
      {"err_add_const",
       "node 'add_k' (Add): Add with a constant operand is not supported (both operands must be "
       "activations)"},
      {"err_hard_swish",
       "node 'r' (Relu): Relu of a partial hard-swish (x + 3) is not supported: only x * Clip(x "
       "+ 3, 0, 6) / 6 (hard-swish) and Clip(x + 3, 0, 6) / 6 (hard-sigmoid) are"},
      {"err_concat_axis",
       "node 'cat' (Concat): only concatenation along the channel axis (1) is supported, got "
       "axis 2"},
      {"err_slice_h",
       "node 'sl' (Slice): only slices of the channel axis are supported (axis 2 sliced to [1, "
       "4))"},
      {"err_transpose",
       "node 'hw' (Transpose): Transpose with perm [0, 1, 3, 2] of [1, 4, 8, 8] is not supported "
       "(only the channel shuffle Reshape-Transpose-Reshape pattern or a permutation moving "
       "size-1 dims)"},
      {"err_pad_mode", "node 'pad' (Pad): pad mode 'reflect' is not supported (only constant)"},
      {"err_matmul",
       "node 'mm' (MatMul): MatMul of [1, 256] and [1, 256]: the inner dimensions differ"},
      {"err_softmax",
       "node 'sm' (Softmax): softmax over axis 1 of [1, 4, 8, 8] is not supported (only over "
       "channels, with H = W = 1)"},
      {"err_reducemean",
       "node 'rm' (ReduceMean): only the mean over H and W of a 4-D tensor (axes [2, 3]) is "
       "supported, got axes [1] of a rank 4 tensor"},
      {"err_gemm_transa", "node 'g' (Gemm): transA = 1 is not supported"},
      {"err_undefined",
       "node 'r' (Relu): input 'nowhere' is not a graph input, an initializer or an earlier "
       "node's output"},
      {"err_output_constant",
       "graph output 'o' is not an activation (constant or shuffle intermediate)"},
      {"err_conv1d",
       "node 'c1d' (Conv): weights 'w' have rank 3, only 2-D convolutions (rank 4) are supported"},
      {"err_hardsigmoid",
       "node 'hs' (HardSigmoid): alpha 0.200000 and beta 0.500000 are not supported (only alpha "
       "1/6, beta 0.5, PyTorch's hardsigmoid)"},
      {"err_shape_mismatch",
       "node 'c' (conv): input 1x4x8x8 has 4 channels but weights 2x3x3x3 with groups 1 expect 3"},
      {"err_reshape5",
       "node 'r5' (Reshape): reshape to rank 5 [1, 2, 2, 4, 8] is not supported (at most 4 dims, "
       "or the channel shuffle pattern)"},
      {"err_raw_size", "initializer 'w' has 12 bytes of raw data, expected 32"},
      {"err_strides",
       "node 'c' (Conv): attribute 'strides' [0, 1] must hold values in [1, 16777216]"},
      {"err_reshape_huge",
       "node 'r' (Reshape): shape [1099511627776, 1099511627776] has more than 1099511627776 "
       "elements"},
      {"err_perm", "node 't' (Transpose): perm [0, 1, 1, 3] is not a permutation of the 4 dims"},
      {"err_scatternd", "node 'sc' (ScatterND): ScatterND index 5 out of range for dim 0 of [4]"},
      {"err_range", "node 'range' (Range): Range with delta 0 (expected a non-zero step)"},
      {"err_pieces",
       "node 'back' (Transpose): 'c' joins slices of several tensors (supported: slices and "
       "concats of one tensor, as torch.roll and patch merging)"},
  };
  for (const ErrorCase& c : cases) {
    const std::string path = kData + c.file + ".onnx";
    std::string got = "no error";
    try {
      import_onnx(path);
    } catch (const std::runtime_error& e) {
      got = e.what();
    }
    EXPECT_EQ(got, path + ": " + c.error) << c.file;
  }
}

TEST(ImportOnnx, MalformedAndMissingFiles) {
  auto error_of = [](const std::string& path) -> std::string {
    try {
      import_onnx(path);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "no error";
  };
  const std::string garbage = std::string(STRIDER_BINARY_DIR) + "/garbage.onnx";
  std::ofstream(garbage, std::ios::binary) << std::string("\x0a\xff\xff\xff\x0f", 5);
  EXPECT_EQ(error_of(garbage), garbage + ": not a valid ONNX model (protobuf parse failed)");
  const std::string empty = std::string(STRIDER_BINARY_DIR) + "/empty.onnx";
  std::ofstream(empty, std::ios::binary) << "";
  EXPECT_EQ(error_of(empty), empty + ": not a valid ONNX model (no graph nodes)");
  EXPECT_EQ(error_of("/nonexistent/m.onnx"), "/nonexistent/m.onnx: file not found");
}

}  // namespace
}  // namespace strider
