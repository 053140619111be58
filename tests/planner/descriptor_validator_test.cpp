// The semantic descriptor validator (issue 17, defect 1): a list emitted by the planner passes;
// each corruption the issue lists (a 1 TiB DMA, L2 addresses of 2^40, DRAM addresses that wrap,
// op tensors outside L2, weights in DRAM, groups 7 on 3 channels, 3e13 MACs) is refused with the
// descriptor id, its layer and the field.
#include "planner/lower/descriptor_validator.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/arch/config_loader.h"
#include "planner/import/network_loader.h"
#include "planner/lower/legalise.h"
#include "planner/lower/lowering.h"
#include "tests/planner/validator_test_util.h"

namespace strider {
namespace {

// The first descriptor of `kind` (and op code, for ops).
Descriptor& first(DescriptorList& l, DescKind kind, OpCode op = OpCode::kConv) {
  for (Descriptor& d : l.descriptors) {
    if (d.kind == kind && (kind == DescKind::kMove || d.op.op == op)) return d;
  }
  throw std::runtime_error("no such descriptor");
}

TEST(DescriptorValidator, TheEmittedListPasses) {
  EXPECT_EQ(refusal(planned().list), "(accepted)");
}

TEST(DescriptorValidator, OneTebibyteDmaIsRefused) {
  DescriptorList l = planned().list;
  Descriptor& m = first(l, DescKind::kMove);
  m.move.rows = 1024;
  m.move.row_bytes = 1u << 30;  // 1024 x 1 GiB
  m.move.src_stride = m.move.dst_stride = 1u << 30;
  // dst L2 0x0 + 1023 x 2^30 + 2^30 = 2^40 bytes past a 1 MiB L2; src DRAM likewise.
  EXPECT_EQ(refusal(l),
            "t.strd: descriptor list refused: 2 problems:\n"
            "  descriptor 0 (layer 'input:x', move): move.src: dram range [0xc0000000, "
            "0x100c0000000) ends past the dram capacity of 4294967296 bytes\n"
            "  descriptor 0 (layer 'input:x', move): move.dst: l2 range [0x0, 0x10000000000) "
            "ends past the l2 capacity of 1048576 bytes");
}

TEST(DescriptorValidator, BadDstStepIsRefusedNamingTheDescriptor) {
  DescriptorList l = planned().list;
  Descriptor& m = first(l, DescKind::kMove);
  m.move.dst_step = 0;
  EXPECT_EQ(refusal(l),
            "t.strd: descriptor list refused: descriptor 0 (layer 'input:x', move): "
            "move.dst_step: 0: a destination row's bytes must be 1 or more apart");
  // A step of 2 on a 2-D move whose rows are dst_stride apart: the rows' spans overlap.
  m.move.rows = 2, m.move.row_bytes = 8, m.move.src_stride = 8, m.move.dst_stride = 8;
  m.move.dst_step = 2;
  EXPECT_EQ(refusal(l),
            "t.strd: descriptor list refused: descriptor 0 (layer 'input:x', move): "
            "move.src_stride: 2-D move with a stride (8, 8) smaller than its row of 8 bytes (15 "
            "at the destination)");
}

TEST(DescriptorValidator, WrappingDramAddressAndFarL2AddressAreRefused) {
  DescriptorList l = planned().list;
  Descriptor& m = first(l, DescKind::kMove);
  m.move.src_addr = ~uint64_t{0} - 16;  // + the row wraps past 2^64
  m.move.dst_addr = uint64_t{1} << 40;  // the input image: 3 x 32 x 32 = 0xc00 bytes
  EXPECT_EQ(refusal(l),
            "t.strd: descriptor list refused: 2 problems:\n"
            "  descriptor 0 (layer 'input:x', move): move.src: dram range "
            "[0xffffffffffffffef, past 2^64) ends past the dram capacity of 4294967296 bytes\n"
            "  descriptor 0 (layer 'input:x', move): move.dst: l2 range [0x10000000000, "
            "0x10000000c00) ends past the l2 capacity of 1048576 bytes");
}

TEST(DescriptorValidator, WeightsInDramAndOutputOutsideL2AreRefused) {
  DescriptorList l = planned().list;
  Descriptor& c = first(l, DescKind::kOp);
  c.op.weights.space = MemSpace::kDram;
  c.op.output.addr = 1048576 - 16;  // + 15 x 1,032 + 1,024 = 0x4078 (skewed planes, PlaneSkew)
  const std::string head = "  descriptor " + std::to_string(c.id) + " (layer 'conv1', conv): ";
  EXPECT_EQ(refusal(l),
            "t.strd: descriptor list refused: 2 problems:\n" + head +
                "op.output: l2 range [0xffff0, 0x104068) ends past the l2 capacity of 1048576 "
                "bytes\n" +
                head + "op.weights: in dram, but the compute pipeline reads and writes only L2");
}

TEST(DescriptorValidator, GroupsThatDoNotDivideTheChannelsAreRefused) {
  DescriptorList l = planned().list;
  Descriptor& c = first(l, DescKind::kOp);
  c.op.groups = 7;  // conv1 reads 3 channels
  EXPECT_EQ(refusal(l), "t.strd: descriptor list refused: descriptor " + std::to_string(c.id) +
                            " (layer 'conv1', conv): op.groups: 7 does not divide the 3 input "
                            "channels and 16 output channels");
}

TEST(DescriptorValidator, ChannelRequantShiftOutOfRangeIsRefused) {
  DescriptorList l = planned().list;
  Descriptor& c = first(l, DescKind::kOp);
  c.op.channel_requant.assign(c.op.ch_end - c.op.ch_begin, Requant{16384, 20});
  EXPECT_EQ(refusal(l), "(accepted)");
  c.op.channel_requant[1].shift = 63;
  EXPECT_EQ(refusal(l), "t.strd: descriptor list refused: descriptor " + std::to_string(c.id) +
                            " (layer 'conv1', conv): op.channel_requant: channel " +
                            std::to_string(c.op.ch_begin + 1) +
                            ": multiplier 16384, shift 63, expected a positive multiplier and "
                            "shift 0..62");
}

// Softmax and GELU read their input at the scale input_multiplier gives (format 4); no other op
// takes one.
TEST(DescriptorValidator, InputMultiplierOnlyForSoftmaxAndGelu) {
  DescriptorList l = planned().list;
  Descriptor& c = first(l, DescKind::kOp);
  c.op.input_multiplier = 741455;
  EXPECT_EQ(refusal(l), "t.strd: descriptor list refused: descriptor " + std::to_string(c.id) +
                            " (layer 'conv1', conv): op.input_multiplier: 741455 given for conv, "
                            "expected 0 (only softmax and gelu take an input scale, layernorm and "
                            "instancenorm their epsilon)");
  Graph g = load_network(std::string(STRIDER_SOURCE_DIR) + "/tests/e2e/data/tiny_bert.onnx", 0, 0, 1);
  materialise_parameters(&g, 1);
  fuse_activations(&g);
  DescriptorList bert = lower(g, planned().arch, LowerOptions()).list;
  EXPECT_EQ(refusal(bert), "(accepted)");
  Descriptor& s = first(bert, DescKind::kOp, OpCode::kSoftmax);
  EXPECT_EQ(s.op.input_multiplier, 1512775);  // nominal 1/16: round(2^24 log2(e) / 16)
  // Its probabilities are read only by the next MatMul: uint8 on both sides.
  EXPECT_EQ(s.op.flags & OpDesc::kUnsigned, OpDesc::kUnsigned);
  EXPECT_EQ(first(bert, DescKind::kOp, OpCode::kMatMul).op.flags & OpDesc::kUnsigned, 0);  // Q K^T
  int unsigned_matmuls = 0;  // attention x V, /blocks.{0,1}/attn/MatMul_1
  for (const Descriptor& d : bert.descriptors) {
    if (d.kind != DescKind::kOp || d.op.op != OpCode::kMatMul) continue;
    const bool av = bert.layers[d.layer].find("MatMul_1") != std::string::npos;
    EXPECT_EQ(d.op.flags & OpDesc::kUnsigned, av ? OpDesc::kUnsigned : 0) << bert.layers[d.layer];
    unsigned_matmuls += av;
  }
  EXPECT_EQ(unsigned_matmuls, 2);
  s.op.flags |= OpDesc::kInputUnsigned;  // the vector unit reads int8 logits only
  EXPECT_EQ(refusal(bert), "t.strd: descriptor list refused: descriptor " + std::to_string(s.id) +
                               " (layer '" + bert.layers[s.layer] +
                               "', softmax): op.flags: unsigned activations (8) given for softmax, "
                               "expected only for conv, fc, pools, add, mul and activation");
  s.op.flags &= uint8_t(~OpDesc::kInputUnsigned);
  s.op.input_multiplier = 0;
  EXPECT_EQ(refusal(bert), "t.strd: descriptor list refused: descriptor " + std::to_string(s.id) +
                               " (layer '" + bert.layers[s.layer] +
                               "', softmax): op.input_multiplier: 0, expected the input scale in "
                               "Q24 (> 0) for softmax");
  // A LayerNorm's input_multiplier is its epsilon code (vector_math.h): at the nominal scale
  // 1/16, D 32 (tiny_bert), eps 1e-5: 32^2 x 1e-5 x 256 = 2.62 -> 3. Negative codes are refused.
  Descriptor& ln = first(bert, DescKind::kOp, OpCode::kLayerNorm);
  EXPECT_EQ(ln.op.input_multiplier, 3);
  s.op.input_multiplier = 1512775;
  ln.op.input_multiplier = -1;
  EXPECT_EQ(refusal(bert), "t.strd: descriptor list refused: descriptor " + std::to_string(ln.id) +
                               " (layer '" + bert.layers[ln.layer] +
                               "', layernorm): op.input_multiplier: -1, expected a layernorm "
                               "epsilon code >= 0 (vector_math.h)");
}

// Add scales each operand by its own multiplier (format 4); a x m + b x m2 must stay in int32.
TEST(DescriptorValidator, AddOperandMultipliersAreBounded) {
  DescriptorList l = planned().list;
  Descriptor& a = first(l, DescKind::kOp, OpCode::kAdd);
  EXPECT_EQ(a.op.input2_multiplier, a.op.requant_multiplier);  // uncalibrated: one scale
  a.op.input2_multiplier = (1 << 23) + 1;
  EXPECT_EQ(refusal(l), "t.strd: descriptor list refused: descriptor " + std::to_string(a.id) +
                            " (layer '" + l.layers[a.layer] +
                            "', add): op.input2_multiplier: 8388609, expected an operand "
                            "multiplier 0..2^23 for add");
  a.op.input2_multiplier = 1;
  Descriptor& c = first(l, DescKind::kOp);
  c.op.input2_multiplier = 3;
  EXPECT_EQ(refusal(l), "t.strd: descriptor list refused: descriptor " + std::to_string(c.id) +
                            " (layer 'conv1', conv): op.input2_multiplier: 3 given for conv, "
                            "expected 0 (only add scales its second operand)");
  c.op.input2_multiplier = 0;
  c.op.flags = OpDesc::kUnsigned;
  EXPECT_EQ(refusal(l), "t.strd: descriptor list refused: descriptor " + std::to_string(c.id) +
                            " (layer 'conv1', conv): op.flags: unsigned (4) given for conv, "
                            "expected only for softmax (output) and matmul (input)");
  // Unsigned activations: any operand of a conv, not a second one it does not have.
  c.op.flags = OpDesc::kInputUnsigned | OpDesc::kOutputUnsigned;
  EXPECT_EQ(refusal(l), "(accepted)");
  c.op.flags = OpDesc::kInput2Unsigned;
  EXPECT_EQ(refusal(l), "t.strd: descriptor list refused: descriptor " + std::to_string(c.id) +
                            " (layer 'conv1', conv): op.flags: unsigned second input (16) given "
                            "without op.input2 or a post-op operand");
  c.op.flags = 0;
}

TEST(DescriptorValidator, SecondOperandBroadcastsOnlyOverSizeOneDimensions) {
  DescriptorList l = planned().list;
  Descriptor& a = first(l, DescKind::kOp, OpCode::kAdd);
  a.op.input2.h = a.op.input2.w = 1;  // a per-channel operand, as a squeeze-excitation Mul's
  EXPECT_EQ(refusal(l), "(accepted)");
  a.op.input2.h = 2;
  EXPECT_NE(refusal(l).find("op.input2: shape " + std::to_string(a.op.input2.c) +
                            "x2x1 neither equals nor broadcasts to op.input's"),
            std::string::npos)
      << refusal(l);
}

TEST(DescriptorValidator, KernelLargerThanThePaddedInputIsRefused) {
  DescriptorList l = planned().list;
  Descriptor& c = first(l, DescKind::kOp);
  c.op.kernel_h = 40;
  EXPECT_EQ(refusal(l), "t.strd: descriptor list refused: descriptor " + std::to_string(c.id) +
                            " (layer 'conv1', conv): op.kernel_h: kernel 40x3 (dilated 40x3) "
                            "exceeds the padded input 34x34");
}

TEST(DescriptorValidator, AbsurdTotalWorkIsRefused) {
  DescriptorList l = planned().list;
  ValidationLimits lim;
  // tiny_cnn: 1254720 MACs (conv and fc, as summary.json counts) + 22528 pooling and add
  // steps (pool1 16x16x16 outputs x 4 taps = 16384, the rest global pooling and the residual add).
  lim.max_macs = 1000000;
  try {
    validate_descriptors(l, planned().arch, "t.strd", lim);
    FAIL();
  } catch (const DescriptorError& e) {
    EXPECT_STREQ(e.what(),
                 "t.strd: descriptor list refused: list: the op tiles total 1277248 operations "
                 "(MACs, pooling and element-wise steps), over the limit of 1000000");
  }
}

TEST(DescriptorValidator, AListForAnotherArchIsRefused) {
  ArchConfig other = planned().arch;
  other.l2.size_bytes = 1 << 19;
  const std::string msg = refusal(planned().list, other);
  EXPECT_EQ(msg.rfind("t.strd: descriptor list refused: list: arch_fingerprint 0x", 0), 0u) << msg;
}

}  // namespace
}  // namespace strider

namespace strider {
namespace {

// Issue 31, item 3: the first conv without its dependencies on the moves that load its input,
// weights and bias would start before its data arrived (it ran with rc 0 and fewer cycles).
TEST(DescriptorValidator, OpWithoutItsLoadDependenciesIsRefused) {
  DescriptorList l = planned().list;
  Descriptor& conv = first(l, DescKind::kOp, OpCode::kConv);
  ASSERT_EQ(conv.id, 3u);
  ASSERT_EQ(conv.deps, (std::vector<uint32_t>{0, 1, 2}));
  conv.deps.clear();
  // Input 3x32x32 at 0 (0xc00 bytes), weights 16 x 27 at 0xc00 (0x1b0), bias 16 x 4 at 0xdc0.
  // pool1's tiles (after the conv on the compute pipeline, so no longer after the moves) write
  // their 16 x 16 x 16 output (skewed planes 264 B apart, PlaneSkew) over all three, tile k the
  // 64 B row band at c x 264 + 64 k of every channel c; the first band each tile puts over a
  // move's bytes: tile 0 channel 0 [0, 0x40) on the input, channel 12 (3,168 = 0xc60) on the
  // weights; tile 1 [0x40, 0x80), 0xc60 + 0x40, and channel 13 at 3,432 + 64 = 0xda8, over the
  // bias from 0xdc0 to 0xde8; tile 2 [0x80, 0xc0), channel 11 (2,904 + 128 = 0xbd8) over the
  // weights from 0xc00 to 0xc18, channel 13's 0xde8 to the bias's end 0xe00; tile 3 [0xc0,
  // 0x100), channel 11's 0xc18 to 0xc58 (none over the bias: channel 12's band ends at 0xd60 and
  // channel 13's starts at 0xe28).
  std::string pools;
  const std::vector<std::vector<const char*>> pool_lines = {{"0x0, 0x40", "0xc60, 0xca0"},
                                                            {"0x40, 0x80", "0xca0, 0xce0", "0xdc0, 0xde8"},
                                                            {"0x80, 0xc0", "0xc00, 0xc18", "0xde8, 0xe00"},
                                                            {"0xc0, 0x100", "0xc18, 0xc58"}};
  for (size_t k = 0; k < pool_lines.size(); ++k) {
    for (size_t m = 0; m < pool_lines[k].size(); ++m) {
      pools += "\n  descriptor " + std::to_string(4 + k) +
               " (layer 'pool1', maxpool): op.output: overwrites l2 [" + pool_lines[k][m] +
               ") written by descriptor " + std::to_string(m) +
               " (move) without depending on it (write after write)";
    }
  }
  // With the skewed plan fc's output (24) lands in the input's bytes as well (its weight move,
  // prefetched into a slot of its own, does not), and nothing but the conv's dependencies
  // (removed here) orders it after that move.
  EXPECT_EQ(refusal(l),
            "t.strd: descriptor list refused: 14 problems:\n"
            "  descriptor 3 (layer 'conv1', conv): op.input: reads l2 [0x0, 0xc00) written by "
            "descriptor 0 (move) without depending on it (read after write)\n"
            "  descriptor 3 (layer 'conv1', conv): op.weights: reads l2 [0xc00, 0xdb0) written by "
            "descriptor 1 (move) without depending on it (read after write)\n"
            "  descriptor 3 (layer 'conv1', conv): op.bias: reads l2 [0xdc0, 0xe00) written by "
            "descriptor 2 (move) without depending on it (read after write)" +
                pools +
                "\n  descriptor 24 (layer 'fc', fc): op.output: overwrites l2 [0x100, 0x108) "
                "written by descriptor 0 (move) without depending on it (write after write)");
  // Depending on them through another descriptor is enough: the move of the bias after the
  // weights' move, the conv after the bias move and the input move.
  conv.deps = {0, 2};
  l.descriptors[2].deps = {1};
  EXPECT_EQ(refusal(l), "(accepted)");
}

// A move that overwrites memory an earlier layer still reads (its fence removed). conv3's
// staging lives from conv2b's step (3; the layer with weights before it) to its own (5), so its
// weights prefetch while conv2b and add1 run, after the fence of step 2 (conv2a, descriptor 10).
TEST(DescriptorValidator, OverwriteOfABufferStillReadIsRefused) {
  DescriptorList l = planned().list;
  // conv3's weights (2,304 B at 13312 = 0x3400; 12928 before the plan skewed tiny_cnn's channel
  // planes, PlaneSkew) after conv2a.
  Descriptor& m = l.descriptors[15];
  ASSERT_EQ(m.kind, DescKind::kMove);
  ASSERT_EQ(m.move.dst_addr, 13312u);
  ASSERT_EQ(m.deps, (std::vector<uint32_t>{10}));
  m.deps.clear();
  // Its slot's first 192 B lie in the end of conv1's output (written by conv 3, read by the
  // maxpool tiles 4-7, the last of them 7), dead since step 1.
  EXPECT_EQ(refusal(l),
            "t.strd: descriptor list refused: 2 problems:\n"
            "  descriptor 15 (layer 'conv3', move): move.dst: overwrites l2 [0x3400, 0x34c0) "
            "written by descriptor 3 (conv) without depending on it (write after write)\n"
            "  descriptor 15 (layer 'conv3', move): move.dst: overwrites l2 [0x3400, 0x34c0) read "
            "by descriptor 7 (maxpool) without depending on it (write after read)");
}

// Pads of 65,535 on every side ran with 884x the cycles.
TEST(DescriptorValidator, PadsLargerThanTheShapeAreRefused) {
  DescriptorList l = planned().list;
  Descriptor& conv = first(l, DescKind::kOp, OpCode::kConv);
  conv.op.pad_top = conv.op.pad_left = conv.op.pad_bottom = conv.op.pad_right = 65535;
  // (32 + 2 x 65535 - 3) / 1 + 1 = 131100 windows a side for a 32x32 output.
  EXPECT_EQ(refusal(l),
            "t.strd: descriptor list refused: descriptor 3 (layer 'conv1', conv): op.pad_top: "
            "pads 65535, 65535, 65535, 65535 (top, left, bottom, right) give 131100x131100 "
            "windows, more than the output's 32x32");
  // A shift past 62 and a negative multiplier.
  DescriptorList k = planned().list;
  first(k, DescKind::kOp, OpCode::kConv).op.requant_shift = 63;
  first(k, DescKind::kOp, OpCode::kConv).op.requant_multiplier = -5;
  EXPECT_EQ(refusal(k),
            "t.strd: descriptor list refused: 2 problems:\n"
            "  descriptor 3 (layer 'conv1', conv): op.requant_shift: 63, expected 0..62\n"
            "  descriptor 3 (layer 'conv1', conv): op.requant_multiplier: -5, expected a positive "
            "multiplier");
}

}  // namespace
}  // namespace strider
