// Skewed channel planes (planner/lower/activation_layout.h): which tensors get them, the strides
// chosen, and that the memory plan counts the pad.
#include <gtest/gtest.h>

#include "core/arch/config_loader.h"
#include "planner/import/network_loader.h"
#include "planner/lower/activation_layout.h"
#include "planner/lower/lowering.h"

namespace strider {
namespace {

const std::string kDir = STRIDER_SOURCE_DIR;

TEST(PlaneSkew, StrideIsTheNextWholeWordSizeOneWordRoundTheBanks) {
  L2Config l2;
  l2.banks = 16;
  l2.bank_width_bytes = 8;  // span 128 B
  // 112 x 112 = 12,544 = 98 x 128: +8 -> 12,552 = 98 x 128 + 8 (gcd(8, 128) = 8).
  EXPECT_EQ(skewed_plane_stride(12544, l2), 12552u);
  // 56 x 56 = 3,136 = 24 x 128 + 64 (gcd 64): 3,144 = +72 (gcd 8).
  EXPECT_EQ(skewed_plane_stride(3136, l2), 3144u);
  // 28 x 28 = 784 = 6 x 128 + 16 (gcd 16): 792 = +24 (gcd 8).
  EXPECT_EQ(skewed_plane_stride(784, l2), 792u);
  // 14 x 14 = 196: not whole words -> 200 = +72 (gcd 8); 7 x 7 = 49 -> 56 (gcd 8).
  EXPECT_EQ(skewed_plane_stride(196, l2), 200u);
  EXPECT_EQ(skewed_plane_stride(49, l2), 56u);
  // Already one word round: unchanged (24 = 3 words, gcd(24, 128) = 8).
  EXPECT_EQ(skewed_plane_stride(24, l2), 24u);
  // 12 x 12 = 144 = 128 + 16 (gcd 16) -> 152 (+24, gcd 8).
  EXPECT_EQ(skewed_plane_stride(144, l2), 152u);
}

// two_conv on tiny (4 banks x 8 B, span 32 B): x (input) and b (output) keep 4 x 4 = 16 B
// planes; a (3 x 4 x 4, made by conv a, read by conv b) has 16 = 2 words (gcd(16, 32) = 16 > 8),
// so its planes are 24 B apart (3 words, gcd 8): plane k starts k x 3 words round the 4 banks
// (banks 0, 3, 2), and its buffer is 3 x 24 = 72 -> 80 B (16 B alignment).
TEST(PlaneSkew, OnlyTensorsTheComputeOpsAddressAreSkewedAndThePlanCountsThePad) {
  const ArchConfig arch = load_arch(kDir + "/configs/arch/tiny.yaml");
  const Graph g = load_network(kDir + "/tests/planner/data/two_conv.yaml", 0, 0, 1);
  LowerOptions opt;
  opt.allocator = "naive";
  const Lowered l = lower(g, arch, opt);
  const int x = g.inputs[0], b = g.outputs[0];
  const int a = g.nodes[size_t(g.producers()[size_t(b)])].inputs[0];
  EXPECT_EQ(l.tensor_channel_stride[size_t(x)], 16u);
  EXPECT_EQ(l.tensor_channel_stride[size_t(a)], 24u);
  EXPECT_EQ(l.tensor_channel_stride[size_t(b)], 16u);
  const OpDesc& conv_a = l.list.descriptors[3].op;
  const OpDesc& conv_b = l.list.descriptors[6].op;
  EXPECT_EQ(conv_a.output.channel_stride, 24u);
  EXPECT_EQ(conv_b.input.channel_stride, 24u);
  EXPECT_EQ(conv_b.output.channel_stride, 16u);
  // naive: x 32 B at 0, a 80 B at 32, b 32 B at 112: peak 144 (112 unskewed).
  EXPECT_EQ(l.arena_bytes, 144u);
  EXPECT_EQ(l.tensor_addr[size_t(b)], 112u);
  // The tensor table lists a's 3 planes of 24 B.
  for (const TensorEntry& e : l.list.tensors) {
    if (e.name == g.tensors[size_t(a)].name) {
      EXPECT_EQ(e.bytes, 72u);
    }
  }
}

}  // namespace
}  // namespace strider
