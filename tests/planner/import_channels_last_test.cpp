// ONNX import of channels-last CNN blocks (planner/import/onnx_ops_channels_last.cpp): the
// NCHW -> NHWC -> NCHW permutes of ConvNeXt move no data (LayerNorm over channels and Linear as a
// 1x1 conv on the unchanged NCHW tensor), the layer scale folds into the producing conv; MACs of
// torchvision convnext_tiny against the count derived by hand from its shapes.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "planner/import/onnx_importer.h"
#include "planner/ir/graph.h"
#include "tests/planner/import_test_util.h"
#include "tests/lib/error_text.h"

namespace strider {
namespace {

const std::string kData = std::string(STRIDER_SOURCE_DIR) + "/tests/planner/data/";
const std::string kNets = std::string(STRIDER_SOURCE_DIR) + "/configs/networks/";

std::string error_of(const std::string& path) {
  return error_text([&] { import_onnx(path); });
}

// tests/planner/data/make_onnx_fixtures.py nhwc_block: x [1, 4, 3, 5] -> Transpose [0, 2, 3, 1]
// -> LayerNormalization -> MatMul w [4, 4] + b -> Transpose [0, 3, 1, 2] -> Mul ls [4, 1, 1]
// -> Add x.
TEST(ImportChannelsLast, PermutesMoveNoDataAndLayerScaleFolds) {
  const Graph g = import_onnx(kData + "nhwc_block.onnx");
  const std::map<std::string, int> want = {{"layernorm", 1}, {"conv", 1}, {"add", 1}};
  EXPECT_EQ(op_counts(g), want);
  ASSERT_EQ(g.nodes.size(), 3u);
  const Node& ln = g.nodes[0];
  const Node& fc = g.nodes[1];
  const Node& add = g.nodes[2];
  // Every tensor stays NCHW 1x4x3x5: the LayerNorm normalises the 4 channels of each of the 15
  // positions, the Linear is a 1x1 conv over them.
  EXPECT_EQ(ln.inputs, std::vector<int>{g.inputs[0]});
  EXPECT_EQ(to_string(g.tensors[ln.outputs[0]].shape), "1x4x3x5");
  EXPECT_EQ(fc.inputs, ln.outputs);
  EXPECT_EQ(fc.kernel_h, 1);
  EXPECT_EQ(to_string(g.tensors[fc.outputs[0]].shape), "1x4x3x5");
  EXPECT_EQ(add.inputs, (std::vector<int>{fc.outputs[0], g.inputs[0]}));
  EXPECT_EQ(g.outputs, add.outputs);
  // 15 positions x 4 in x 4 out = 240 MACs (the LayerNorm is vector-unit work, not MACs).
  EXPECT_EQ(graph_totals(g).macs, 240);
  // Conv weight [o][i] = w[i][o] x ls[o] with w[i][o] = (4 i + o - 6) / 4, ls = [1, 0.5, 2, -1];
  // bias b[o] x ls[o] with b = [1, 2, 3, 4].
  const std::vector<float> weights = {-1.5f, -0.5f, 0.5f, 1.5f, -0.625f, -0.125f, 0.375f, 0.875f,
                                      -2.0f, 0.0f,  2.0f, 4.0f, 0.75f,   -0.25f,  -1.25f, -2.25f};
  EXPECT_EQ(g.tensors[fc.weights].float_data, weights);
  ASSERT_GE(fc.bias, 0);
  EXPECT_EQ(g.tensors[fc.bias].float_data, (std::vector<float>{1, 1, 6, -4}));
}

TEST(ImportChannelsLast, LayerScaleWithoutConvIsAnError) {
  EXPECT_EQ(error_of(kData + "err_layer_scale.onnx"),
            kData +
                "err_layer_scale.onnx: node 'ls' (Mul): Mul of [1, 4, 8, 8] by the "
                "per-channel constant 'ls' is supported only as a layer scale folded into "
                "the convolution producing its only use");
}

TEST(ImportChannelsLast, SwinWindowPartitionIsAGather) {
  // NHWC [1, 8, 8, 4] -> Pad by zeros (a no-op on the view) -> [1, 2, 4, 2, 4, 4] -> windows
  // first [1, 2, 2, 4, 4, 4] -> [4, 16, 4]: the 4x4 windows are not contiguous in the planar
  // 4 x 8 x 8 tensor (plane 64), so the reshape is a compound view, copied into token layout
  // (C = 4, H = 4 windows x 16 tokens, W = 1) as the graph output (a node reading it would
  // copy it likewise). Copy axes (size, source stride, destination stride): window
  // row (2, 32, 32), window column (2, 4, 16), row in window (4, 8, 4), column in window
  // (4, 1, 1), channel (4, 64, 64). Channel and window row merge into (8, 32, 32), the rows of
  // each block; the column in window is the row of 4 bytes; one block per (window column, row
  // in window).
  const Graph g = import_onnx(kData + "window_partition.onnx");
  ASSERT_EQ(g.nodes.size(), 1u);
  const Node& n = g.nodes[0];
  EXPECT_EQ(n.op, OpType::kGather);
  EXPECT_EQ(n.name, "partition/copy");
  EXPECT_EQ(g.tensors[n.outputs[0]].shape, (TensorShape{1, 4, 64, 1}));
  EXPECT_EQ(n.gather, (std::vector<GatherBlock>{{0, 0, 8, 4, 32, 32},
                                                {8, 4, 8, 4, 32, 32},
                                                {16, 8, 8, 4, 32, 32},
                                                {24, 12, 8, 4, 32, 32},
                                                {4, 16, 8, 4, 32, 32},
                                                {12, 20, 8, 4, 32, 32},
                                                {20, 24, 8, 4, 32, 32},
                                                {28, 28, 8, 4, 32, 32}}));
}

TEST(ImportChannelsLast, ConvnextTinyMacsByHand) {
  const Graph g = import_onnx(kNets + "convnext_tiny.onnx");
  // Stem: 4x4 stride-4 conv 3 -> 96 at 56x56:             3136 x 96 x 3 x 16 =     14,450,688
  // A block at P positions and C channels: 7x7 depthwise conv P x C x 49, Linear C -> 4C and
  // 4C -> C, 2 x P x C x 4C: P x C x (49 + 8 C).
  //   stage 1, 3 blocks, P = 3136, C = 96:   3 x 3136 x 96 x 817   =    737,888,256
  //   stage 2, 3 blocks, P = 784,  C = 192:  3 x 784 x 192 x 1585  =    715,760,640
  //   stage 3, 9 blocks, P = 196,  C = 384:  9 x 196 x 384 x 3121  =  2,114,090,496
  //   stage 4, 3 blocks, P = 49,   C = 768:  3 x 49 x 768 x 6193   =    699,164,928
  // Downsampling 2x2 stride-2 convs C -> 2C at P / 4 positions: P/4 x 2C x C x 4, each
  //   784 x 192 x 96 x 4 = 196 x 384 x 192 x 4 = 49 x 768 x 384 x 4 = 57,802,752, x 3 = 173,408,256
  // Head Linear 768 -> 1000:                                                      768,000
  // Total: 4,455,531,264.
  EXPECT_EQ(graph_totals(g).macs, 4455531264);
  // LayerNorms: stem 1, 18 blocks, 3 downsampling, head 1; the layer scales folded away.
  const std::map<std::string, int> want = {{"layernorm", 23}, {"conv", 58},         {"gelu", 18},
                                           {"add", 18},       {"globalavgpool", 1}, {"reshape", 1},
                                           {"fc", 1}};
  EXPECT_EQ(op_counts(g), want);
  EXPECT_EQ(to_string(g.tensors[g.inputs[0]].shape), "1x3x224x224");
}

}  // namespace
}  // namespace strider
