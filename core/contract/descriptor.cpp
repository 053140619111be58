// Descriptor list: names, equality and structural checks. Serialisation lives in
// descriptor_binary.cpp and descriptor_text.cpp.
#include "core/contract/descriptor.h"

#include <stdexcept>
#include <string>

namespace strider {

bool TensorRef::operator==(const TensorRef& o) const {
  return space == o.space && addr == o.addr && c == o.c && h == o.h && w == o.w &&
         row_stride == o.row_stride && channel_stride == o.channel_stride &&
         element_bytes == o.element_bytes && first_channel == o.first_channel &&
         channels == o.channels && first_row == o.first_row && rows == o.rows;
}

bool MoveDesc::operator==(const MoveDesc& o) const {
  return src_space == o.src_space && dst_space == o.dst_space && src_addr == o.src_addr &&
         dst_addr == o.dst_addr && rows == o.rows && row_bytes == o.row_bytes &&
         src_stride == o.src_stride && dst_stride == o.dst_stride && dst_step == o.dst_step &&
         background == o.background;
}

bool OpDesc::operator==(const OpDesc& o) const {
  return op == o.op && input == o.input && input2 == o.input2 && weights == o.weights &&
         bias == o.bias && output == o.output && kernel_h == o.kernel_h && kernel_w == o.kernel_w &&
         stride_h == o.stride_h && stride_w == o.stride_w && pad_top == o.pad_top &&
         pad_left == o.pad_left && pad_bottom == o.pad_bottom && pad_right == o.pad_right &&
         dilation_h == o.dilation_h && dilation_w == o.dilation_w && groups == o.groups &&
         count_include_pad == o.count_include_pad && act == o.act && clip_min == o.clip_min &&
         clip_max == o.clip_max && requant_multiplier == o.requant_multiplier &&
         requant_shift == o.requant_shift && input_multiplier == o.input_multiplier &&
         input2_multiplier == o.input2_multiplier && lut == o.lut &&
         channel_requant == o.channel_requant && row_begin == o.row_begin && row_end == o.row_end &&
         ch_begin == o.ch_begin && ch_end == o.ch_end && in_ch_begin == o.in_ch_begin &&
         in_ch_end == o.in_ch_end && psum_mode == o.psum_mode && psum == o.psum &&
         mapping == o.mapping && flags == o.flags && post == o.post && pool == o.pool &&
         input_scale == o.input_scale && gap == o.gap;
}

bool PostOp::operator==(const PostOp& o) const {
  return kind == o.kind && operand == o.operand && multiplier == o.multiplier &&
         operand_multiplier == o.operand_multiplier && shift == o.shift && act == o.act &&
         clip_min == o.clip_min && clip_max == o.clip_max;
}

bool FusedPool::operator==(const FusedPool& o) const {
  return kernel_h == o.kernel_h && kernel_w == o.kernel_w && stride_h == o.stride_h &&
         stride_w == o.stride_w && pad_top == o.pad_top && pad_left == o.pad_left &&
         pad_bottom == o.pad_bottom && pad_right == o.pad_right && output == o.output;
}

bool InputScale::operator==(const InputScale& o) const {
  return scale == o.scale && multiplier == o.multiplier && shift == o.shift && act == o.act &&
         clip_min == o.clip_min && clip_max == o.clip_max && flags == o.flags;
}

bool FusedGap::operator==(const FusedGap& o) const {
  return output == o.output && partial == o.partial &&
         requant_multiplier == o.requant_multiplier && requant_shift == o.requant_shift &&
         act == o.act && clip_min == o.clip_min && clip_max == o.clip_max && flags == o.flags;
}

bool Descriptor::operator==(const Descriptor& o) const {
  if (id != o.id || kind != o.kind || deps != o.deps || layer != o.layer) return false;
  return kind == DescKind::kMove ? move == o.move : op == o.op;
}

bool TensorEntry::operator==(const TensorEntry& o) const {
  return name == o.name && role == o.role && space == o.space && addr == o.addr &&
         bytes == o.bytes;
}

bool DescriptorList::operator==(const DescriptorList& o) const {
  return version == o.version && arch_fingerprint == o.arch_fingerprint && layers == o.layers &&
         tensors == o.tensors && descriptors == o.descriptors;
}

const char* to_string(MemSpace s) { return s == MemSpace::kDram ? "dram" : "l2"; }
const char* to_string(DescKind k) { return k == DescKind::kMove ? "move" : "op"; }

const char* to_string(OpCode op) {
  switch (op) {
    case OpCode::kConv: return "conv";
    case OpCode::kFullyConnected: return "fc";
    case OpCode::kMaxPool: return "maxpool";
    case OpCode::kAvgPool: return "avgpool";
    case OpCode::kGlobalAvgPool: return "globalavgpool";
    case OpCode::kAdd: return "add";
    case OpCode::kMul: return "mul";
    case OpCode::kActivation: return "activation";
    case OpCode::kSoftmax: return "softmax";
    case OpCode::kMatMul: return "matmul";
    case OpCode::kLayerNorm: return "layernorm";
    case OpCode::kGelu: return "gelu";
    case OpCode::kInstanceNorm: return "instancenorm";
  }
  return "?";
}

const char* to_string(PostAct a) {
  switch (a) {
    case PostAct::kNone: return "none";
    case PostAct::kRelu: return "relu";
    case PostAct::kRelu6: return "relu6";
    case PostAct::kClip: return "clip";
    case PostAct::kSigmoid: return "sigmoid";
    case PostAct::kHardSigmoid: return "hardsigmoid";
    case PostAct::kHardSwish: return "hardswish";
    case PostAct::kSilu: return "silu";
  }
  return "?";
}

const char* to_string(PostOpKind k) {
  switch (k) {
    case PostOpKind::kNone: return "none";
    case PostOpKind::kAdd: return "add";
  }
  return "?";
}

const char* to_string(Mapping m) {
  switch (m) {
    case Mapping::kPositions: return "positions";
    case Mapping::kChannels: return "channels";
    case Mapping::kIm2col: return "im2col";
  }
  return "?";
}

const char* to_string(TensorRole r) {
  switch (r) {
    case TensorRole::kActivation: return "activation";
    case TensorRole::kWeight: return "weight";
    case TensorRole::kScratch: return "scratch";
    case TensorRole::kInput: return "input";
    case TensorRole::kOutput: return "output";
  }
  return "?";
}

void check(const DescriptorList& list) {
  auto fail = [](const Descriptor& d, const std::string& what) {
    throw std::runtime_error("descriptor " + std::to_string(d.id) + ": " + what);
  };
  if (list.version != kDescriptorFormatVersion) {
    throw std::runtime_error("descriptor list: format version " + std::to_string(list.version) +
                             ", expected " + std::to_string(kDescriptorFormatVersion));
  }
  for (size_t i = 0; i < list.descriptors.size(); ++i) {
    const Descriptor& d = list.descriptors[i];
    if (d.id != i) fail(d, "id out of sequence, expected " + std::to_string(i));
    for (uint32_t dep : d.deps) {
      if (dep >= d.id) fail(d, "depends on " + std::to_string(dep) + ", which is not earlier");
    }
    if (d.layer >= list.layers.size()) {
      fail(d, "layer " + std::to_string(d.layer) + " out of range (" +
                  std::to_string(list.layers.size()) + " layers)");
    }
    if (d.kind == DescKind::kMove) {
      if (d.move.rows == 0 || d.move.row_bytes == 0) fail(d, "move of zero bytes");
      if (d.move.dst_step == 0) fail(d, "move dst_step 0 (expected 1 or more)");
      if (d.move.background &&
          (d.move.src_space != MemSpace::kDram || d.move.dst_space != MemSpace::kL2)) {
        fail(d, "background move " + std::string(to_string(d.move.src_space)) + " -> " +
                    to_string(d.move.dst_space) +
                    " (only a DRAM -> L2 prefetch may be background)");
      }
      if (d.move.rows > 1 &&
          (d.move.src_stride < d.move.row_bytes || d.move.dst_stride < d.move.dst_row_span())) {
        fail(d, "2-D move with a stride smaller than its row");
      }
    } else {
      const OpDesc& o = d.op;
      if (!o.output.present() || !o.input.present()) fail(d, "op without input or output");
      if (o.row_begin >= o.row_end || o.row_end > o.output.h) fail(d, "empty or out-of-range rows");
      if (o.ch_begin >= o.ch_end || o.ch_end > o.output.c) fail(d, "empty or out-of-range channels");
      if (o.stride_h == 0 || o.stride_w == 0 || o.kernel_h == 0 || o.kernel_w == 0 ||
          o.dilation_h == 0 || o.dilation_w == 0 || o.groups == 0) {
        fail(d, "zero kernel, stride, dilation or groups");
      }
      if (!o.channel_requant.empty() && o.channel_requant.size() != o.ch_end - o.ch_begin) {
        fail(d, std::to_string(o.channel_requant.size()) +
                    " channel requantisations, expected one per tile channel (" +
                    std::to_string(o.ch_end - o.ch_begin) + ")");
      }
      if (o.post.present() && !o.post.operand.present()) fail(d, "post-op without an operand");
      if (o.pool.present() && !o.pool.output.present()) {
        fail(d, "fused max-pool without a pooled output");
      }
      if (o.input_scale.present() && o.op != OpCode::kConv && o.op != OpCode::kFullyConnected) {
        fail(d, std::string("input scale given for ") + to_string(o.op) + ", expected conv or fc");
      }
      if (o.gap.present()) {  // a fused global average pool: its partial sums and flags
        if (o.gap.flags > 15) {
          fail(d, "fused global pool flags " + std::to_string(o.gap.flags) + ", expected 0..15");
        }
        if (!(o.gap.first() && o.gap.last()) && !o.gap.partial.present()) {
          fail(d, "fused global pool over a band of rows without partial sums");
        }
      } else if (o.gap.flags != 0 || o.gap.partial.present()) {
        fail(d, "fused global pool flags or partial sums without a pooled output");
      }
      for (const Requant& q : {o.lut.in, o.lut.out}) {
        if (q.multiplier <= 0 || q.shift < 0 || q.shift > 62) {
          fail(d, "lookup-table scale " + std::to_string(q.multiplier) + " / 2^" +
                      std::to_string(q.shift) + " (expected a multiplier > 0 and a shift 0..62)");
        }
      }
    }
  }
}

}  // namespace strider
