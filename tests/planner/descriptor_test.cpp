// The descriptor contract: binary and text forms round-trip exactly; malformed input is refused
// with the source, the position and what was expected.
#include "core/contract/descriptor.h"

#include <gtest/gtest.h>

#include <sstream>

namespace strider {
namespace {

DescriptorList sample() {
  DescriptorList l;
  l.arch_fingerprint = 0x0123456789abcdefull;
  l.layers = {"input:x", "conv1"};
  l.tensors = {{"x", TensorRole::kInput, MemSpace::kL2, 0, 3072},
               {"conv1", TensorRole::kOutput, MemSpace::kL2, 3072, 16384}};
  Descriptor m;
  m.id = 0;
  m.kind = DescKind::kMove;
  m.layer = 0;
  m.move = MoveDesc{MemSpace::kDram, MemSpace::kL2, 0x80000000ull, 0, 3, 1024, 2048, 1024};
  Descriptor o;
  o.id = 1;
  o.kind = DescKind::kOp;
  o.layer = 1;
  o.deps = {0};
  o.op.op = OpCode::kConv;
  o.op.input = TensorRef{MemSpace::kL2, 0, 3, 32, 32, 32, 1024, 1};
  o.op.input.first_row = 7;  // a band of rows 7..16
  o.op.input.rows = 10;
  o.op.weights = TensorRef{MemSpace::kL2, 900000, 16, 3, 9, 9, 27, 1};
  o.op.bias = TensorRef{MemSpace::kL2, 901000, 16, 1, 1, 4, 4, 4};
  o.op.output = TensorRef{MemSpace::kL2, 3072, 16, 32, 32, 32, 1024, 1};
  o.op.kernel_h = o.op.kernel_w = 3;
  o.op.pad_top = o.op.pad_left = o.op.pad_bottom = 1;
  o.op.pad_right = 2;
  o.op.dilation_w = 2;
  o.op.groups = 1;
  o.op.act = PostAct::kRelu6;
  o.op.clip_min = 0;
  o.op.clip_max = 96;
  o.op.requant_multiplier = 181;
  o.op.requant_shift = -3;
  o.op.row_begin = 8;
  o.op.row_end = 16;
  o.op.ch_begin = 4;
  o.op.ch_end = 12;
  o.op.in_ch_begin = 1;  // a middle input-channel block: partial sums in and out
  o.op.in_ch_end = 2;
  o.op.psum_mode = OpDesc::kPsumRead | OpDesc::kPsumWrite;
  o.op.psum = TensorRef{MemSpace::kL2, 950000, 8, 8, 32, 128, 1024, 4};
  l.descriptors = {m, o};
  return l;
}

TEST(Descriptor, BinaryRoundTrip) {
  const DescriptorList l = sample();
  std::stringstream ss;
  write_binary(l, ss);
  EXPECT_EQ(read_binary(ss, "mem"), l);
}

TEST(Descriptor, TextRoundTrip) {
  const DescriptorList l = sample();
  const std::string text = to_text(l);
  EXPECT_EQ(read_text(text, "list.yaml"), l);
  EXPECT_NE(text.find("kind: op"), std::string::npos);
  // Text -> binary -> text is stable.
  std::stringstream ss;
  write_binary(read_text(text, "list.yaml"), ss);
  EXPECT_EQ(to_text(read_binary(ss, "mem")), text);
}

// Format 5: a residual Add fused into a conv's store path (OpDesc::post).
TEST(Descriptor, PostOpRoundTripsAndIsChecked) {
  DescriptorList l = sample();
  OpDesc& o = l.descriptors[1].op;
  o.post = PostOp{PostOpKind::kAdd, TensorRef{MemSpace::kL2, 0x9000, 16, 8, 8, 8, 64, 1}, 3, 5, 7,
                  PostAct::kRelu, -128, 127};
  std::stringstream ss;
  write_binary(l, ss);
  EXPECT_EQ(read_binary(ss, "mem"), l);
  const std::string text = to_text(l);
  EXPECT_NE(text.find("post_op: add, post_operand: [l2, 36864, 16, 8, 8, 8, 64, 1], post_requant: "
                      "[3, 5, 7], post_act: relu, post_clip: [-128, 127]"),
            std::string::npos)
      << text;
  EXPECT_EQ(read_text(text, "list.yaml"), l);
  o.post.operand = TensorRef();
  try {
    check(l);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "descriptor 1: post-op without an operand");
  }
}

// Format 9: a max-pool fused into a conv's store path (OpDesc::pool).
TEST(Descriptor, FusedPoolRoundTripsAndIsChecked) {
  DescriptorList l = sample();
  OpDesc& o = l.descriptors[1].op;
  o.pool.kernel_h = o.pool.kernel_w = 3;
  o.pool.stride_h = o.pool.stride_w = 2;
  o.pool.pad_top = o.pool.pad_left = 1;
  o.pool.pad_bottom = 0;
  o.pool.pad_right = 2;
  o.pool.output = TensorRef{MemSpace::kL2, 0xA000, 16, 16, 16, 16, 256, 1};
  EXPECT_EQ(&o.stored(), &o.pool.output);
  std::stringstream ss;
  write_binary(l, ss);
  EXPECT_EQ(read_binary(ss, "mem"), l);
  const std::string text = to_text(l);
  EXPECT_NE(text.find("pool_kernel: [3, 3], pool_stride: [2, 2], pool_pads: [1, 1, 0, 2], "
                      "pool_output: [l2, 40960, 16, 16, 16, 16, 256, 1]"),
            std::string::npos)
      << text;
  EXPECT_EQ(read_text(text, "list.yaml"), l);
  OpDesc other = o;
  other.pool.pad_right = 1;
  EXPECT_FALSE(other == o);
  o.pool.output = TensorRef();
  EXPECT_EQ(&o.stored(), &o.pool.output);
  try {
    check(l);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "descriptor 1: fused max-pool without a pooled output");
  }
  o.pool = FusedPool();
  EXPECT_EQ(&o.stored(), &o.output);
}

TEST(Descriptor, InputScaleRoundTripsAndIsChecked) {
  DescriptorList l = sample();
  OpDesc& o = l.descriptors[1].op;
  InputScale& s = o.input_scale;
  s.scale = TensorRef{MemSpace::kL2, 0xB000, 3, 1, 1, 1, 1, 1};  // one byte per input channel
  s.multiplier = 19661;
  s.shift = 22;
  s.act = PostAct::kClip;
  s.clip_min = -5;
  s.clip_max = 99;
  s.flags = InputScale::kScaleUnsigned | InputScale::kProductUnsigned;
  EXPECT_TRUE(s.present());
  std::stringstream ss;
  write_binary(l, ss);
  EXPECT_EQ(read_binary(ss, "mem"), l);
  const std::string text = to_text(l);
  EXPECT_NE(text.find("input_scale: [l2, 45056, 3, 1, 1, 1, 1, 1], input_scale_requant: [19661, "
                      "22], input_scale_act: clip, input_scale_clip: [-5, 99], "
                      "input_scale_flags: 3"),
            std::string::npos)
      << text;
  EXPECT_EQ(read_text(text, "list.yaml"), l);
  for (int field = 0; field < 7; ++field) {  // every field takes part in equality
    OpDesc other = o;
    InputScale& t = other.input_scale;
    if (field == 0) t.scale.addr += 64;
    if (field == 1) t.multiplier += 1;
    if (field == 2) t.shift += 1;
    if (field == 3) t.act = PostAct::kRelu;
    if (field == 4) t.clip_min += 1;
    if (field == 5) t.clip_max -= 1;
    if (field == 6) t.flags = 0;
    EXPECT_FALSE(other == o) << field;
  }
  // Flags above the two defined bits are refused by both readers.
  std::string bad = text;
  bad.replace(bad.find("input_scale_flags: 3"), 20, "input_scale_flags: 4");
  EXPECT_THROW(read_text(bad, "list.yaml"), std::runtime_error);
  o.op = OpCode::kMaxPool;
  try {
    check(l);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "descriptor 1: input scale given for maxpool, expected conv or fc");
  }
  o.op = OpCode::kConv;
  o.input_scale = InputScale();
  EXPECT_FALSE(o.input_scale.present());
}

// Format 10: a global average pool fused into a conv's store path (OpDesc::gap).
TEST(Descriptor, FusedGlobalPoolRoundTripsAndIsChecked) {
  DescriptorList l = sample();
  OpDesc& o = l.descriptors[1].op;
  o.gap.output = TensorRef{MemSpace::kL2, 0xB000, 16, 1, 1, 1, 1, 1};
  o.gap.partial = TensorRef{MemSpace::kL2, 0xC000, 16, 1, 1, 4, 4, 4};
  o.gap.requant_multiplier = 16913;
  o.gap.requant_shift = 21;
  o.gap.act = PostAct::kClip;
  o.gap.clip_min = 0, o.gap.clip_max = 96;
  o.gap.flags = FusedGap::kLast | FusedGap::kOutputUnsigned;  // the last band: 2 + 4
  EXPECT_EQ(&o.stored(), &o.output);  // the conv's result is stored too
  std::stringstream ss;
  write_binary(l, ss);
  EXPECT_EQ(read_binary(ss, "mem"), l);
  const std::string text = to_text(l);
  EXPECT_NE(text.find("gap_output: [l2, 45056, 16, 1, 1, 1, 1, 1], gap_partial: [l2, 49152, 16, "
                      "1, 1, 4, 4, 4], gap_requant: [16913, 21], gap_act: clip, gap_clip: [0, "
                      "96], gap_flags: 6"),
            std::string::npos)
      << text;
  EXPECT_EQ(read_text(text, "list.yaml"), l);
  o.gap.flags |= FusedGap::kResultNotStored;  // 14: only the pooled bytes are stored
  EXPECT_EQ(&o.stored(), &o.gap.output);
  std::stringstream again;
  write_binary(l, again);
  EXPECT_EQ(read_binary(again, "mem"), l);
  EXPECT_EQ(read_text(to_text(l), "list.yaml"), l);
  for (auto change : {+[](OpDesc& d) { d.gap.requant_shift = 20; },
                      +[](OpDesc& d) { d.gap.flags = FusedGap::kFirst; },
                      +[](OpDesc& d) { d.gap.partial.addr = 0xC010; },
                      +[](OpDesc& d) { d.gap.clip_max = 95; }}) {
    OpDesc other = o;
    change(other);
    EXPECT_FALSE(other == o);
  }
  o.gap.partial = TensorRef();  // a band (not first) without its partial sums
  try {
    check(l);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "descriptor 1: fused global pool over a band of rows without partial sums");
  }
  o.gap.flags = 16;
  o.gap.partial = TensorRef{MemSpace::kL2, 0xC000, 16, 1, 1, 4, 4, 4};
  try {
    check(l);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "descriptor 1: fused global pool flags 16, expected 0..15");
  }
  o.gap.output = TensorRef();  // no pool, but its flags and partial sums
  try {
    check(l);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "descriptor 1: fused global pool flags or partial sums without a pooled output");
  }
  o.gap = FusedGap();
  EXPECT_EQ(&o.stored(), &o.output);
}

TEST(Descriptor, ChannelRequantRoundTripsAndIsChecked) {
  DescriptorList l = sample();
  OpDesc& o = l.descriptors[1].op;
  o.psum_mode = 0;  // a final tile: channels 4..12 requantised one by one
  for (uint32_t c = 4; c < 12; ++c) o.channel_requant.push_back({int32_t(16384 + c), int32_t(20 + c)});
  EXPECT_EQ(o.requant_of(4), (Requant{16388, 24}));
  EXPECT_EQ(o.requant_of(11), (Requant{16395, 31}));
  std::stringstream ss;
  write_binary(l, ss);
  EXPECT_EQ(read_binary(ss, "mem"), l);
  const std::string text = to_text(l);
  EXPECT_NE(text.find("channel_requant: [[16388, 24], [16389, 25]"), std::string::npos) << text;
  EXPECT_EQ(read_text(text, "list.yaml"), l);
  o.channel_requant.pop_back();  // 7 for 8 channels
  try {
    check(l);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "descriptor 1: 7 channel requantisations, expected one per tile channel (8)");
  }
}

// Format 8: a lookup activation's table scales (OpDesc::lut), written only when not the default
// 1/16 both; a multiplier <= 0 or a shift beyond 0..62 is refused.
TEST(Descriptor, LutScalesRoundTripAndAreChecked) {
  DescriptorList l = sample();
  OpDesc& o = l.descriptors[1].op;
  EXPECT_EQ(to_text(l).find("lut:"), std::string::npos);
  o.act = PostAct::kSilu;
  o.lut = LutScales{{24576, 18}, {20480, 19}};
  std::stringstream ss;
  write_binary(l, ss);
  EXPECT_EQ(read_binary(ss, "mem"), l);
  const std::string text = to_text(l);
  EXPECT_NE(text.find("lut: [24576, 18, 20480, 19]"), std::string::npos) << text;
  EXPECT_EQ(read_text(text, "list.yaml"), l);
  o.lut.out.shift = 63;
  try {
    check(l);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "descriptor 1: lookup-table scale 20480 / 2^63 (expected a multiplier > 0 and a "
                 "shift 0..62)");
  }
}

// Format 7: a move whose destination rows are scattered to every dst_step-th byte.
TEST(Descriptor, DstStepRoundTripsAndIsChecked) {
  DescriptorList l = sample();
  MoveDesc& m = l.descriptors[0].move;
  m.src_space = MemSpace::kL2;
  m.rows = 3, m.row_bytes = 512, m.src_stride = 512, m.dst_stride = 2048, m.dst_step = 2;
  EXPECT_EQ(m.dst_row_span(), 1023u);  // (512 - 1) x 2 + 1
  std::stringstream ss;
  write_binary(l, ss);
  EXPECT_EQ(read_binary(ss, "mem"), l);
  const std::string text = to_text(l);
  EXPECT_NE(text.find("strides: [512, 2048], dst_step: 2}"), std::string::npos) << text;
  EXPECT_EQ(read_text(text, "list.yaml"), l);
  check(l);
  const auto refusal = [&] {
    try {
      check(l);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  m.dst_stride = 1022;  // rows 1023 bytes long at the destination would overlap
  EXPECT_EQ(refusal(), "descriptor 0: 2-D move with a stride smaller than its row");
  m.dst_stride = 2048, m.dst_step = 0;
  EXPECT_EQ(refusal(), "descriptor 0: move dst_step 0 (expected 1 or more)");
}

// Format 12: a background move (a prefetch the DMA and the DRAM serve behind demand moves).
TEST(Descriptor, BackgroundRoundTripsAndIsChecked) {
  DescriptorList l = sample();
  MoveDesc& m = l.descriptors[0].move;  // DRAM -> L2
  m.background = true;
  std::stringstream ss;
  write_binary(l, ss);
  EXPECT_EQ(read_binary(ss, "mem"), l);
  const std::string text = to_text(l);
  EXPECT_NE(text.find("strides: [2048, 1024], background: true}"), std::string::npos) << text;
  EXPECT_EQ(read_text(text, "list.yaml"), l);
  check(l);
  // The flag is part of the descriptor's identity: a demand copy differs.
  DescriptorList demand = l;
  demand.descriptors[0].move.background = false;
  EXPECT_FALSE(demand == l);
  EXPECT_EQ(to_text(demand).find("background"), std::string::npos);  // the default is not written
  const auto refusal = [&] {
    try {
      check(l);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  m.src_space = MemSpace::kL2;
  EXPECT_EQ(refusal(),
            "descriptor 0: background move l2 -> l2 (only a DRAM -> L2 prefetch may be background)");
  m.src_space = MemSpace::kDram, m.dst_space = MemSpace::kDram;
  EXPECT_EQ(refusal(),
            "descriptor 0: background move dram -> dram (only a DRAM -> L2 prefetch may be "
            "background)");
  // The flag is one byte of the binary form (0 or 1) whatever its value: the same size.
  std::stringstream a, b;
  write_binary(l, a);
  write_binary(demand, b);
  EXPECT_EQ(a.str().size(), b.str().size());
}

TEST(Descriptor, TruncatedBinaryNamesTheOffset) {
  std::stringstream ss;
  write_binary(sample(), ss);
  std::string bytes = ss.str();
  std::stringstream cut(bytes.substr(0, 10));
  try {
    read_binary(cut, "list.strd");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    // magic 4 + version 4 read; 2 bytes remain, fewer than the 32-byte checksum trailer.
    EXPECT_STREQ(e.what(), "list.strd: byte 8: truncated, expected a 32-byte SHA-256 trailer");
  }
}

TEST(Descriptor, BadMagicAndVersion) {
  std::stringstream bad("XXXX");
  EXPECT_THROW(
      {
        try {
          read_binary(bad, "f.strd");
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "f.strd: byte 0: not a Strider descriptor list (magic is not STRD)");
          throw;
        }
      },
      std::runtime_error);
  std::stringstream ss;
  DescriptorList l = sample();
  write_binary(l, ss);
  std::string bytes = ss.str();
  bytes[4] = 13;  // version 13
  std::stringstream v(bytes);
  try {
    read_binary(v, "f.strd");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "f.strd: byte 4: format version 13, this build reads version 12");
  }
}

TEST(Descriptor, BadEnumAndForwardDependency) {
  DescriptorList l = sample();
  l.descriptors[0].deps = {1};
  try {
    check(l);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "descriptor 0: depends on 1, which is not earlier");
  }
  std::string text = to_text(sample());
  text.replace(text.find("op: conv"), 8, "op: convolution");
  try {
    read_text(text, "l.yaml");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("l.yaml:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(
                  "op: unknown value 'convolution', expected one of conv, fc, maxpool"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace strider
