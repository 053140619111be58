// Swin Transformer import (torchvision 0.14 export): window partition / reverse, cyclic shift,
// relative position bias, shifted-window masks and patch merging as kGather copies
// (onnx_ops_transformer.cpp, onnx_token_view.cpp). tiny_swin (scripts/export_models.py: 32x32
// input, 4x4 patches -> 8x8 tokens of 16 channels, 4x4 windows, blocks 0 plain and 1 shifted by
// 2, patch merging to 4x4 x 32, one block whose window is the whole map, 10 classes).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "planner/import/network_loader.h"
#include "planner/import/onnx_importer.h"
#include "planner/ir/graph.h"
#include "planner/lower/legalise.h"
#include "planner/quant/calibrator.h"
#include "planner/quant/float_reference.h"

namespace strider {
namespace {

const std::string kData = std::string(STRIDER_SOURCE_DIR) + "/tests/planner/data/";
const std::string kE2e = std::string(STRIDER_SOURCE_DIR) + "/tests/e2e/data/";
const std::string kNets = std::string(STRIDER_SOURCE_DIR) + "/configs/networks/";

const Node& node_named(const Graph& g, const std::string& name) {
  for (const Node& n : g.nodes) {
    if (n.name == name) return n;
  }
  throw std::runtime_error("no node " + name);
}

// The float reference of the imported graph (with the model's parameters) gives PyTorch's
// logits: the copies put every window, shifted token, bias and mask entry where PyTorch has it.
// The float reference of tiny_swin_params.onnx on the export script's image; `zero_mask`: with
// the shifted-window mask replaced by zeros.
std::vector<float> tiny_swin_logits(bool zero_mask) {
  const Graph g = import_onnx(kData + "tiny_swin_params.onnx");
  FloatReference ref(g, std::vector<std::pair<float, float>>(g.nodes.size(), {-1e30f, 1e30f}));
  std::vector<float> image(3 * 32 * 32);
  for (size_t i = 0; i < image.size(); ++i) image[i] = float(std::sin(0.37 * double(i)));
  // The other graph inputs are the relative position biases and the shifted-window mask, with
  // their values (Tensor::float_data).
  EXPECT_EQ(g.inputs.size(), 5u);  // image, 3 biases, 1 mask
  for (int t : g.inputs) {
    const Tensor& x = g.tensors[t];
    if (x.name == "input") {
      ref.set_input(t, image);
      continue;
    }
    EXPECT_EQ(x.float_data.size(), size_t(x.shape.elements())) << x.name;
    const bool mask = x.shape.h == 64;  // [1, 4, 1, 16, 16]: C = 16 keys, H = 4 x 16 queries
    ref.set_input(t, mask && zero_mask ? std::vector<float>(x.float_data.size(), 0.0f)
                                       : x.float_data);
  }
  ref.run();
  return ref.value(g.outputs[0]);
}

// The float reference of the imported graph (with the model's parameters) gives PyTorch's
// logits: the copies put every window, shifted token, bias and mask entry where PyTorch has it.
// The export script draws parameters of unit-scale effect (at torchvision's initialisation
// attention is nearly uniform and the logits barely see the windows). The tolerance, 1e-4,
// covers the LayerNorms' epsilon (1e-5 in PyTorch, none in Strider's float reference: the
// logits differ by up to 3e-5); dropping the mask moves a logit by more than 0.1 (0.26).
TEST(ImportSwin, TinySwinFloatReferenceGivesPytorchLogits) {
  // PyTorch 1.13 (printed by the export script).
  const std::vector<float> want = {0.302405596f,  -3.419322014f, 2.425240040f,  -2.608821630f,
                                   1.422034025f,  -0.831223309f, -4.116642952f, 0.446695328f,
                                   0.369431496f,  -1.105230689f};
  const std::vector<float> got = tiny_swin_logits(false), unmasked = tiny_swin_logits(true);
  ASSERT_EQ(got.size(), want.size());
  float moved = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got[i], want[i], 1e-4) << "logit " << i;
    moved = std::max(moved, std::fabs(unmasked[i] - want[i]));
  }
  EXPECT_GT(moved, 0.1f);
}

// An input size override (networks[].input) resizes the image, not the relative-position biases
// and the mask the importer made inputs with the model's values: tiny_swin_params at its own
// 32 x 32 keeps every constant input's shape (biases [1, 2, 16, 16] and [1, 4, 16, 16] as
// before; they used to take H = W = 32, 16 x 32 x 32 values for 512, and calibration refused
// them), and the graph calibrates.
TEST(ImportSwin, InputSizeOverrideLeavesTheConstantInputs) {
  const Graph plain = import_onnx(kData + "tiny_swin_params.onnx");
  Graph sized = import_network(kData + "tiny_swin_params.onnx", 32, 32);
  ASSERT_EQ(sized.inputs.size(), plain.inputs.size());
  int constants = 0;
  for (size_t k = 0; k < plain.inputs.size(); ++k) {
    const Tensor& a = plain.tensors[size_t(plain.inputs[k])];
    const Tensor& b = sized.tensors[size_t(sized.inputs[k])];
    EXPECT_EQ(b.shape, a.shape) << a.name;
    if (a.float_data.empty()) continue;  // the image
    EXPECT_EQ(b.float_data.size(), size_t(b.shape.elements())) << a.name;
    ++constants;
  }
  EXPECT_EQ(constants, 4);  // 3 biases, 1 mask
  materialise_parameters(&sized, 1);
  fuse_activations(&sized);
  EXPECT_NO_THROW(calibrate(&sized, CalibrationOptions{1, 1}));
}

TEST(ImportSwin, TinySwinCopiesAndMask) {
  const Graph g = import_onnx(kE2e + "tiny_swin.onnx");
  // Copies: block 0: the window partition into token layout, Q, K (MatMul operands), bias
  // broadcast, V, the attention output into the windows' planar layout (6; the window reverse
  // after the projection is then a view); block 1 adds the cyclic shift before and after and
  // the mask broadcast (9); patch merging (1); the last stage's one window needs none.
  EXPECT_EQ(std::count_if(g.nodes.begin(), g.nodes.end(),
                          [](const Node& n) { return n.op == OpType::kGather; }),
            16);
  // The QKV Linear reads the tokens window by window (16 x 64 x 1), the projection the planar
  // 16 x 8 x 8 map the attention output was copied into.
  const Node& qkv = node_named(g, "/features/features.1/features.1.0/attn/MatMul");
  EXPECT_EQ(g.tensors[qkv.inputs[0]].shape, (TensorShape{1, 16, 64, 1}));
  const Node& proj = node_named(g, "/features/features.1/features.1.0/attn/MatMul_3");
  EXPECT_EQ(g.tensors[proj.inputs[0]].shape, (TensorShape{1, 16, 8, 8}));
  // Q of window w, head h, column d (channel 16 w + 8 h + d, row = token t of the window) from
  // channel 8 h + d, row 16 w + t of the QKV output's first 16 channels (plane 64): axes window
  // (4, 16, 256), head (2, 512, 128), token (16, 1, 1), column (8, 64, 16). Head and column
  // merge into (16, 64, 16), the rows of each block; the token is the row of 16 bytes; one
  // block per window.
  const Node& q = node_named(g, "/features/features.1/features.1.0/attn/MatMul_1/a");
  EXPECT_EQ(q.gather, (std::vector<GatherBlock>{{0, 0, 16, 16, 64, 16},
                                                {16, 256, 16, 16, 64, 16},
                                                {32, 512, 16, 16, 64, 16},
                                                {48, 768, 16, 16, 64, 16}}));
  // Patch merging: 4 stride-2 pieces of the planar 16 x 8 x 8 map (x[0::2, 0::2],
  // x[1::2, 0::2], x[0::2, 1::2], x[1::2, 1::2]) to channels [16 k, 16 k + 16) of 64 x 4 x 4.
  // Axes (size, src, dst): row (4, 16, 4), column (4, 2, 1), channel (16, 64, 16). Channel and
  // row merge into (64, 16, 4) (16 x 4 = 64, 4 x 4 = 16), the rows of each block; no axis is
  // contiguous, so rows of 1 byte; one block per column: 4 per piece.
  const Node& merge = node_named(g, "/features/features.2/Concat_3_output_0/assemble");
  EXPECT_EQ(g.tensors[merge.outputs[0]].shape, (TensorShape{1, 64, 4, 4}));
  EXPECT_EQ(merge.gather, (std::vector<GatherBlock>{
                              {0, 0, 64, 1, 16, 4},   {2, 1, 64, 1, 16, 4},    // x[0::2, 0::2]
                              {4, 2, 64, 1, 16, 4},   {6, 3, 64, 1, 16, 4},    //
                              {8, 256, 64, 1, 16, 4}, {10, 257, 64, 1, 16, 4},  // x[1::2, 0::2]
                              {12, 258, 64, 1, 16, 4}, {14, 259, 64, 1, 16, 4},  //
                              {1, 512, 64, 1, 16, 4}, {3, 513, 64, 1, 16, 4},  // x[0::2, 1::2]
                              {5, 514, 64, 1, 16, 4}, {7, 515, 64, 1, 16, 4},  //
                              {9, 768, 64, 1, 16, 4}, {11, 769, 64, 1, 16, 4},  // x[1::2, 1::2]
                              {13, 770, 64, 1, 16, 4}, {15, 771, 64, 1, 16, 4}}));
  // Block 1's mask [1, 4, 1, 16, 16] (0 or -100) as an int8 network input in token layout
  // (C = key n, H = window w x 16 + query m): -100 saturates to -128. Regions of the shifted map
  // (rows and columns [0, 4), [4, 6), [6, 8)): window 0 is one region (no entry masked);
  // windows 1 and 2 hold two regions of 8 tokens (2 x 8 x 8 = 128 masked each); window 3 four
  // regions of 4 (256 - 4 x 16 = 192): 448 of 1024 masked.
  const Node& add = node_named(g, "/features/features.1/features.1.1/attn/Add_11/broadcast");
  const Tensor& mask = g.tensors[add.inputs[0]];
  EXPECT_EQ(mask.shape, (TensorShape{1, 16, 64, 1}));
  ASSERT_EQ(mask.data.size(), 1024u);
  EXPECT_EQ(std::count(mask.data.begin(), mask.data.end(), int8_t{-128}), 448);
  EXPECT_EQ(std::count(mask.data.begin(), mask.data.end(), int8_t{0}), 576);
  // Window 1 (columns 4-7 of rows 0-3, shifted): query 0 (column 4, region 1) and key 2
  // (column 6, region 2) differ; key 1 (column 5) is in its region. Offset n x 64 + w x 16 + m.
  EXPECT_EQ(mask.data[2 * 64 + 16 + 0], -128);
  EXPECT_EQ(mask.data[1 * 64 + 16 + 0], 0);
  EXPECT_EQ(mask.float_data[2 * 64 + 16 + 0], -100.0f);
}

TEST(ImportSwin, SwinTMacsByHand) {
  const Graph g = import_onnx(kNets + "swin_t.onnx");
  // Patch embedding: 4x4 stride-4 conv 3 -> 96 at 56x56:        3136 x 96 x 48 =     14,450,688
  // A block at N tokens, C channels (heads of 32, 7x7 windows): Q K V 3 N C^2, projection N C^2,
  // MLP 8 N C^2, Q K^T and attention x V each N x 49 x C: 12 N C^2 + 98 N C.
  //   stage 1, 2 blocks, N = 3136, C = 96:   2 x 376,320,000    =    752,640,000
  //   stage 2, 2 blocks, N = 784,  C = 192:  2 x 361,568,256    =    723,136,512
  //   stage 3, 6 blocks, N = 196,  C = 384:  6 x 354,192,384    =  2,125,154,304
  //   stage 4, 2 blocks, N = 49,   C = 768:  2 x 350,504,448    =    701,008,896
  // Patch merging (Linear 4C -> 2C at N / 4 tokens), 3 x 784 x 384 x 192 =         173,408,256
  // Head 768 x 1000 =                                                                    768,000
  // Total                                                                      4,490,566,656
  EXPECT_EQ(graph_totals(g).macs, 4490566656);
}

}  // namespace
}  // namespace strider
