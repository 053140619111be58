// ONNX import of the bundled transformer graphs (scripts/transformer_models.py): attention as
// token views (no data movement for the head split / merge), MatMul of two activations, decomposed
// LayerNorm and GELU matched into single ops, the causal mask of GPT-2 recognised; MAC totals
// against the count derived by hand from the shapes.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>

#include "planner/import/onnx_importer.h"
#include "planner/ir/graph.h"
#include "tests/planner/import_test_util.h"

namespace strider {
namespace {

const std::string kNets = std::string(STRIDER_SOURCE_DIR) + "/configs/networks/";

TEST(ImportTransformer, BertEncoderMacsByHand) {
  const Graph g = import_onnx(kNets + "bert_encoder.onnx");
  // Per layer, seq S = 128, d = 768, heads 12 x 64, FFN 3072:
  //   Q, K, V, output projections: 4 x S x d x d      = 4 x 128 x 768 x 768   = 301,989,888
  //   Q K^T: 12 heads x S x S x 64                    = 12 x 128 x 128 x 64    =  12,582,912
  //   softmax(.) V: 12 heads x S x 64 x S             =                          12,582,912
  //   FFN: S x d x 3072 + S x 3072 x d                = 2 x 301,989,888        = 603,979,776
  //   total 931,135,488; x 12 layers = 11,173,625,856.
  EXPECT_EQ(graph_totals(g).macs, 11173625856);
  const std::map<std::string, int> want = {{"conv", 72},      {"matmul", 24}, {"softmax", 12},
                                           {"layernorm", 24}, {"gelu", 12},   {"add", 24}};
  EXPECT_EQ(op_counts(g), want);
  int transposed = 0;
  for (const Node& n : g.nodes) {
    if (n.op == OpType::kMatMul) {
      EXPECT_EQ(n.groups, 12) << n.name;
      transposed += n.transpose_b;  // Q K^T reads K as stored: 64 channels per head, S rows
      // The scores' Div by sqrt(64) = 8 is folded into Q K^T: its output factor 1/8.
      EXPECT_EQ(n.output_factor, n.transpose_b ? 0.125 : 1.0) << n.name;
    }
    if (n.op == OpType::kSoftmax) {
      EXPECT_EQ(n.groups, 12);
      EXPECT_FALSE(n.causal);
      EXPECT_EQ(to_string(g.tensors[n.outputs[0]].shape), "1x1536x128x1");  // 12 x 128 keys
    }
    if (n.op == OpType::kConv || n.op == OpType::kLayerNorm) {
      EXPECT_GE(n.bias, 0) << n.name;  // the Linear's bias Add, the LayerNorm's beta folded
    }
  }
  EXPECT_EQ(transposed, 12);
  EXPECT_EQ(to_string(g.tensors[g.inputs[0]].shape), "1x768x128x1");  // tokens are rows
}

TEST(ImportTransformer, Gpt2DecoderIsCausalAndPreNorm) {
  const Graph g = import_onnx(kNets + "gpt2_decoder.onnx");
  EXPECT_EQ(graph_totals(g).macs, 11173625856);  // the same shapes as the BERT encoder
  const std::map<std::string, int> want = {{"conv", 72},      {"matmul", 24}, {"softmax", 12},
                                           {"layernorm", 25}, {"gelu", 12},   {"add", 24}};
  EXPECT_EQ(op_counts(g), want);  // 2 per block + the final LayerNorm
  for (const Node& n : g.nodes) {
    if (n.op == OpType::kSoftmax) {
      EXPECT_TRUE(n.causal) << n.name;
    }
  }
  EXPECT_EQ(g.nodes.front().op, OpType::kLayerNorm);  // pre-LN: ln1 before the attention
}

// GPT-2's fused QKV projection split along the feature axis (tests/e2e/data/tiny_gpt2_fused_qkv,
// d = 32): one Linear of 96 outputs and a kSplit into channels [0, 32), [32, 64), [64, 96) per
// block, each output a [16 tokens, 32] view read by the attention as the separate projections were.
// MACs as tiny_gpt2's: per block 16 x 32 x 96 (QKV) + 16 x 32 x 32 (output) + 2 x 16 x 32 x 64
// (FFN) + 2 x 4 heads x 16 x 16 x 8 (scores, context) = 49,152 + 16,384 + 65,536 + 16,384 =
// 147,456; x 2 blocks = 294,912.
TEST(ImportTransformer, FusedQkvSplitAlongFeatures) {
  const Graph g =
      import_onnx(std::string(STRIDER_SOURCE_DIR) + "/tests/e2e/data/tiny_gpt2_fused_qkv.onnx");
  EXPECT_EQ(graph_totals(g).macs, 294912);
  int splits = 0;
  for (const Node& n : g.nodes) {
    if (n.op != OpType::kSplit) continue;
    ++splits;
    EXPECT_EQ(n.channel_begin, (std::vector<int64_t>{0, 32, 64})) << n.name;
    EXPECT_EQ(n.channel_end, (std::vector<int64_t>{32, 64, 96})) << n.name;
    EXPECT_EQ(g.tensors[n.inputs[0]].shape.c, 96) << n.name;
  }
  EXPECT_EQ(splits, 2);
  EXPECT_EQ(op_counts(g).at("conv"), 2 * 4);
}

TEST(ImportTransformer, VitB16MacsByHand) {
  const Graph g = import_onnx(kNets + "vit_b_16.onnx");
  // torchvision vit_b_16, 224 x 224: 14 x 14 = 196 patches + the class token = 197 tokens S,
  // d = 768, 12 heads x 64, MLP 3072.
  //   patch embedding: 768 x (3 x 16 x 16) per patch x 196       =    115,605,504
  //   per layer: packed Q / K / V projection S x d x 3d          =    348,585,984
  //              output projection S x d x d                     =    116,195,328
  //              Q K^T and softmax(.) V: 2 x 12 x S x S x 64     =     59,610,624
  //              MLP 2 x S x d x 3072                            =    929,562,624
  //              = 1,453,954,560; x 12 layers                    = 17,447,454,720
  //   head on the class token: 768 x 1000                        =        768,000
  //   total                                                      = 17,563,828,224
  EXPECT_EQ(graph_totals(g).macs, 17563828224);
  // Per layer 4 Linear (1x1 conv), 3 Slice of the packed projection, 2 MatMul, Softmax, GELU,
  // 2 LayerNorm, 2 Add; plus the patch conv, its reshape to tokens, the class-token row (pad),
  // the position-embedding Add, the final LayerNorm, token 0 (max pool) and the head (fc).
  const std::map<std::string, int> want = {
      {"conv", 49}, {"slice", 36},  {"matmul", 24}, {"softmax", 12}, {"layernorm", 25},
      {"gelu", 12}, {"add", 25},    {"reshape", 1}, {"pad", 1},      {"maxpool", 1},
      {"fc", 1}};
  EXPECT_EQ(op_counts(g), want);
  ASSERT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(to_string(g.tensors[g.inputs[0]].shape), "1x3x224x224");
  // Class token and position embedding: one learned 197-token tensor read like an input.
  EXPECT_EQ(g.tensors[g.inputs[1]].name, "class_token+encoder.pos_embedding");
  EXPECT_EQ(to_string(g.tensors[g.inputs[1]].shape), "1x768x197x1");
  for (const Node& n : g.nodes) {
    if (n.op == OpType::kPad) {
      EXPECT_EQ(n.pad_top, 1);
    }
    if (n.op == OpType::kMaxPool) {  // row 0 of 197: a 1x1 window with row stride 197
      EXPECT_EQ(n.stride_h, 197);
      EXPECT_EQ(to_string(g.tensors[n.outputs[0]].shape), "1x768x1x1");
    }
    if (n.op == OpType::kSoftmax) {
      EXPECT_EQ(to_string(g.tensors[n.outputs[0]].shape), "1x2364x197x1");  // 12 x 197 keys
    }
    if (n.op == OpType::kMatMul) {
      // nn.MultiheadAttention scales q by 64^-0.5 before Q K^T: the product carries it.
      EXPECT_EQ(n.output_factor, n.transpose_b ? 0.125 : 1.0) << n.name;
    } else {
      EXPECT_EQ(n.output_factor, 1.0) << n.name;
    }
  }
}

// Token-sequence ops of a ViT the importer refuses, with the exact text (fixtures written by
// tests/planner/data/make_onnx_fixtures.py vit_errors).
TEST(ImportTransformer, VitOpsRefusedNamingNodeAndForm) {
  const std::string data = std::string(STRIDER_SOURCE_DIR) + "/tests/planner/data/";
  const std::map<std::string, std::string> cases = {
      {"err_gather_token",
       "node 'g' (Gather): Gather of [1, 17, 32] is supported only for token 0 (a scalar index 0 "
       "on the token axis, as a ViT's class token)"},
      {"err_expand_param",
       "node 'e' (Expand): Expand of parameter 'cls' [1, 1, 32] to [2, 1, 32] needs its data "
       "(only a broadcast that keeps the dims is supported)"},
      {"err_concat_tokens",
       "node 'cat' (Concat): Concat of a token sequence is supported only as a class token [1, 1, "
       "D] before the tokens [1, S, D] along axis 1"},
      {"err_token_batch",
       "node 'sm' (Softmax): graph input 'b' [2, 17, 32] is a batch of token sequences (a token "
       "sequence input is [1, S, D] or [S, D])"},
  };
  for (const auto& [file, error] : cases) {
    const std::string path = data + file + ".onnx";
    std::string got = "no error";
    try {
      import_onnx(path);
    } catch (const std::runtime_error& e) {
      got = e.what();
    }
    EXPECT_EQ(got, path + ": " + error) << file;
  }
}

}  // namespace
}  // namespace strider
