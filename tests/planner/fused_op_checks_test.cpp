// The descriptor validator's checks of an op's fused parts (planner/lower/fused_op_checks.h): a
// residual Add post-op, a fused max-pool, a squeeze-excitation's input scale, a fused global
// pool, each on a list the planner emitted, then corrupted field by field, with the exact text.
#include "planner/lower/fused_op_checks.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/arch/config_loader.h"
#include "tests/planner/validator_test_util.h"

namespace strider {
namespace {

// tiny_cnn with its residual Add fused into conv2b (format 5's post-op).
DescriptorList fused_list() {
  Graph g =
      load_network(std::string(STRIDER_SOURCE_DIR) + "/configs/networks/tiny_cnn.yaml", 0, 0, 1);
  fuse_activations(&g);
  EXPECT_EQ(fuse_residual_adds(&g), 1);
  return lower(g, planned().arch, LowerOptions()).list;
}

TEST(DescriptorValidator, PostOpOperandIsChecked) {
  DescriptorList l = fused_list();
  EXPECT_EQ(refusal(l), "(accepted)");
  Descriptor* f = nullptr;
  for (Descriptor& d : l.descriptors) {
    if (d.kind == DescKind::kOp && d.op.post.present()) f = f ? f : &d;
  }
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(l.layers[f->layer], "conv2b");
  const std::string head = "t.strd: descriptor list refused: descriptor " + std::to_string(f->id) +
                           " (layer 'conv2b', conv): ";
  const TensorRef good = f->op.post.operand;
  f->op.post.operand.addr = uint64_t{1} << 40;
  // The operand, conv2a's 16 x 16 x 16 output, has skewed 264 B planes: 15 x 264 + 256 = 0x1078.
  EXPECT_EQ(refusal(l), head +
                            "op.post.operand: l2 range [0x10000000000, 0x10000001078) ends "
                            "past the l2 capacity of 1048576 bytes");
  f->op.post.operand = good;
  f->op.post.operand.h = 8;
  EXPECT_EQ(refusal(l), head + "op.post.operand: shape 16x8x16, expected op.output's 16x16x16");
  f->op.post.operand = good;
  f->op.post.operand.space = MemSpace::kDram;
  EXPECT_EQ(refusal(l), head +
                            "op.post.operand: in dram, but the compute pipeline reads and "
                            "writes only L2");
  f->op.post.operand = good;
  f->op.post.shift = 70;
  EXPECT_EQ(refusal(l), head + "op.post.shift: 70, expected 0..62");
}

}  // namespace
}  // namespace strider

namespace strider {
namespace {

// tiny_cnn with pool1 (2x2 / 2) fused into conv1 (format 9's fused max-pool): conv1's result
// 16x32x32, the pooled tensor 16x16x16.
DescriptorList pooled_list() {
  Graph g =
      load_network(std::string(STRIDER_SOURCE_DIR) + "/configs/networks/tiny_cnn.yaml", 0, 0, 1);
  fuse_activations(&g);
  EXPECT_EQ(fuse_max_pools(&g), 1);
  return lower(g, planned().arch, LowerOptions()).list;
}

TEST(DescriptorValidator, FusedPoolIsChecked) {
  DescriptorList l = pooled_list();
  EXPECT_EQ(refusal(l), "(accepted)");
  Descriptor* f = nullptr;
  for (Descriptor& d : l.descriptors) {
    if (d.kind == DescKind::kOp && d.op.pool.present()) f = f ? f : &d;
  }
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(l.layers[f->layer], "conv1");
  const std::string head = "t.strd: descriptor list refused: descriptor " + std::to_string(f->id) +
                           " (layer 'conv1', conv): ";
  const OpDesc good = f->op;
  f->op.pool.kernel_h = f->op.pool.kernel_w = 1;
  EXPECT_EQ(refusal(l), head + "op.pool.kernel: 1x1, expected a window of 2 or more elements");
  f->op = good;
  f->op.pool.stride_h = 3;
  EXPECT_EQ(refusal(l), head + "op.pool.stride: 3x2, expected 1 up to the kernel 2x2");
  f->op = good;
  f->op.pool.pad_left = 2;
  EXPECT_EQ(refusal(l), head + "op.pool.pads: 0/2/0/0, expected each less than the kernel 2x2");
  f->op = good;
  // (32 - 2) / 2 + 1 = 16 pooled rows and columns, no ceil mode without pads giving more.
  f->op.pool.output.h = 15;
  EXPECT_EQ(refusal(l), head +
                            "op.pool.output: shape 16x15x16, expected 16x16x16 (a 2x2 pool "
                            "over op.output's 16x32x32)");
  f->op = good;
  f->op.row_end = 16;
  EXPECT_EQ(refusal(l), head +
                            "op.row_end: tile rows [0, 16) under a fused max-pool, expected "
                            "the conv's whole height [0, 32)");
  f->op = good;
  f->op.post.kind = PostOpKind::kAdd;
  f->op.post.operand = f->op.output;
  EXPECT_EQ(refusal(l), head +
                            "op.pool: given for conv with a post-op or partial sums, expected "
                            "only for a conv without either");
  f->op = good;
  // The row buffer: the tile's 16 channels (positions mapping: each run's rows arrive for every
  // channel) x ceil(2 / 2) = 1 open pooled row x 16 columns = 256 bytes.
  ArchConfig small = planned().arch;
  small.l1.pool_row_buffer_bytes = 255;
  l.arch_fingerprint = small.fingerprint();
  EXPECT_EQ(refusal(l, small), head +
                                   "op.pool: needs 256 row-buffer bytes (16 channels x 1 rows x "
                                   "16), arch.l1.pool_row_buffer_bytes is 255");
  small.l1.pool_row_buffer_bytes = 256;
  l.arch_fingerprint = small.fingerprint();
  EXPECT_EQ(refusal(l, small), "(accepted)");
}

}  // namespace
}  // namespace strider

namespace strider {
namespace {

// The seed arch as loaded (its DRAM preset read: tiny_se's last conv times its output's store).
const ArchConfig& seed() {
  static const ArchConfig a =
      load_arch(std::string(STRIDER_SOURCE_DIR) + "/configs/arch/seed.yaml");
  return a;
}

// tiny_se with its two squeeze-excitation Muls fused into the convs after them (format 11's
// input scale): project reads dw's 32x24x24 output and gate's 32 scales.
DescriptorList scaled_list() {
  Graph g =
      load_network(std::string(STRIDER_SOURCE_DIR) + "/configs/networks/tiny_se.yaml", 0, 0, 1);
  fuse_activations(&g);
  EXPECT_EQ(fuse_input_scales(&g), 2);
  return lower(g, seed(), LowerOptions()).list;
}

TEST(DescriptorValidator, InputScaleIsChecked) {
  DescriptorList l = scaled_list();
  const auto refusal = [](const DescriptorList& list) { return strider::refusal(list, seed()); };
  EXPECT_EQ(refusal(l), "(accepted)");
  Descriptor* f = nullptr;
  for (Descriptor& d : l.descriptors) {
    if (d.kind == DescKind::kOp && d.op.input_scale.present()) f = f ? f : &d;
  }
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(l.layers[f->layer], "project");
  EXPECT_EQ(f->op.input_scale.scale.c, 32u);
  const std::string head = "t.strd: descriptor list refused: descriptor " + std::to_string(f->id) +
                           " (layer 'project', conv): ";
  const OpDesc good = f->op;
  f->op.input_scale.scale.c = 31;  // one scale short of the input's 32 channels
  EXPECT_EQ(refusal(l), head +
                            "op.input_scale: shape 31x1x1, expected 32x1x1 (one scale per "
                            "channel of op.input's 32x24x24)");
  f->op = good;
  f->op.input_scale.scale.w = 2;
  EXPECT_EQ(refusal(l), head +
                            "op.input_scale: shape 32x1x2, expected 32x1x1 (one scale per "
                            "channel of op.input's 32x24x24)");
  f->op = good;
  f->op.input_scale.scale.space = MemSpace::kDram;
  EXPECT_EQ(refusal(l), head +
                            "op.input_scale: in dram, but the compute pipeline reads and writes "
                            "only L2");
  f->op = good;
  f->op.input_scale.multiplier = 0;
  EXPECT_EQ(refusal(l), head + "op.input_scale.multiplier: 0, expected a positive multiplier");
  f->op = good;
  f->op.input_scale.shift = 63;
  EXPECT_EQ(refusal(l), head + "op.input_scale.shift: 63, expected 0..62");
  f->op = good;
  f->op.input_scale.act = PostAct::kSigmoid;
  EXPECT_EQ(refusal(l), head +
                            "op.input_scale.act: sigmoid, expected none, relu, relu6 or clip "
                            "(no lookup table)");
  f->op = good;
  f->op.input_scale.clip_min = 5, f->op.input_scale.clip_max = 4;
  EXPECT_EQ(refusal(l), head + "op.input_scale.clip_min: 5 exceeds clip_max 4");
  f->op = good;
  EXPECT_EQ(refusal(l), "(accepted)");
}

// tests/e2e/data/gap_se.yaml with its two global pools fused (format 10's fused global pool):
// dw's 16x16x16 result (stored: the squeeze-excitation's Mul reads it too) in 4 bands of 4 rows,
// its pool's partial sums 16 x 4 bytes; head's 32x16x16 result never stored, one tile.
DescriptorList gap_list() {
  Graph g = load_network(std::string(STRIDER_SOURCE_DIR) + "/tests/e2e/data/gap_se.yaml", 0, 0, 1);
  fuse_activations(&g);
  EXPECT_EQ(fuse_global_pools(&g), 2);
  return lower(g, planned().arch, LowerOptions()).list;
}

TEST(DescriptorValidator, FusedGlobalPoolIsChecked) {
  DescriptorList l = gap_list();
  EXPECT_EQ(refusal(l), "(accepted)");
  std::vector<Descriptor*> dw, head;
  for (Descriptor& d : l.descriptors) {
    if (d.kind != DescKind::kOp || !d.op.gap.present()) continue;
    (l.layers[d.layer] == "dw" ? dw : head).push_back(&d);
  }
  ASSERT_EQ(dw.size(), 4u);
  ASSERT_EQ(head.size(), 1u);
  EXPECT_EQ(dw[1]->op.gap.flags, 0);                // rows [4, 8): a middle band
  EXPECT_EQ(dw[3]->op.gap.flags, FusedGap::kLast);  // rows [12, 16)
  EXPECT_EQ(head[0]->op.gap.flags,
            FusedGap::kFirst | FusedGap::kLast | FusedGap::kResultNotStored);  // 11
  Descriptor* f = dw[1];
  const std::string head_text = "t.strd: descriptor list refused: descriptor " +
                                std::to_string(f->id) + " (layer 'dw', conv): ";
  const OpDesc good = f->op;
  f->op.gap.flags = FusedGap::kFirst;
  EXPECT_EQ(refusal(l), head_text +
                            "op.gap.flags: first 1, last 0 for tile rows [4, 8) of 16, "
                            "expected first 0, last 0");
  f->op = good;
  f->op.gap.output.h = 2;
  EXPECT_EQ(refusal(l), head_text + "op.gap.output: shape 16x2x1, expected 16x1x1");
  f->op = good;
  f->op.gap.partial.element_bytes = 1;
  EXPECT_EQ(refusal(l), head_text + "op.gap.partial.element_bytes: is 1, expected 4");
  f->op = good;
  f->op.gap.partial.addr = planned().arch.l2.size_bytes - 32;  // 64 bytes from 32 below the top
  EXPECT_EQ(refusal(l), head_text +
                            "op.gap.partial: l2 range [0xfffe0, 0x100020) ends past the "
                            "l2 capacity of 1048576 bytes");
  f->op = good;
  f->op.gap.requant_shift = 63;
  EXPECT_EQ(refusal(l), head_text +
                            "op.gap.requant: " + std::to_string(good.gap.requant_multiplier) +
                            " / 2^63, expected a positive multiplier and shift 0..62");
  f->op = good;
  f->op.psum_mode = OpDesc::kPsumWrite;
  f->op.psum = f->op.gap.partial;
  EXPECT_EQ(refusal(l), "t.strd: descriptor list refused: 2 problems:\n  descriptor " +
                            std::to_string(f->id) +
                            " (layer 'dw', conv): op.gap: given for conv with a fused max-pool or "
                            "partial sums, expected only for a conv without either\n  descriptor " +
                            std::to_string(f->id) +
                            " (layer 'dw', conv): op.psum_mode: 2 without an input-channel block "
                            "(in_ch_end 0)");
  f->op = good;
  // 16 x 16 positions are far below 2^31 / 255 = 8,421,504; a 2,910 x 2,910 plane (8,468,100)
  // is not. head's result is never stored: only its shape is checked.
  Descriptor* h = head[0];
  const OpDesc head_good = h->op;
  h->op.output.h = h->op.output.w = 2910;
  h->op.row_end = 2910;
  const std::string refused = refusal(l);
  EXPECT_NE(refused.find("descriptor " + std::to_string(h->id) +
                         " (layer 'head', conv): op.gap: 8468100 positions per channel, more than "
                         "the int32 partial sums hold (8421504)"),
            std::string::npos)
      << refused;
  h->op = head_good;
  EXPECT_EQ(refusal(l), "(accepted)");
}

}  // namespace
}  // namespace strider
