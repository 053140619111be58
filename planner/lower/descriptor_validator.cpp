#include "planner/lower/descriptor_validator.h"

#include <sstream>

#include "core/common/saturating.h"
#include "core/contract/vector_math.h"
#include "planner/lower/data_flow_check.h"
#include "planner/lower/fused_op_checks.h"

namespace strider {

namespace {

std::string hex(uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

std::string str(uint64_t v) { return std::to_string(v); }

class Validator {
 public:
  Validator(const DescriptorList& list, const ArchConfig& arch, const ValidationLimits& limits)
      : list_(list), arch_(arch), limits_(limits) {
    report_.fail = [this](const std::string& field, const std::string& problem) {
      fail(field, problem);
    };
    report_.tensor = [this](const std::string& field, const TensorRef& t, uint8_t element_bytes,
                            bool whole) { return tensor(field, t, element_bytes, whole); };
  }
  Validator(const Validator&) = delete;
  Validator& operator=(const Validator&) = delete;

  std::vector<std::string> run() {
    if (list_.arch_fingerprint != arch_.fingerprint()) {
      add("list: arch_fingerprint " + hex(list_.arch_fingerprint) + " is not the fingerprint " +
          hex(arch_.fingerprint()) + " of arch '" + arch_.name + "' (plan it again for this arch)");
    }
    for (const TensorEntry& t : list_.tensors) {
      range("tensor '" + t.name + "'", t.space, t.addr, t.bytes);
    }
    for (size_t i = 0; i < list_.descriptors.size(); ++i) {
      if (problems_.size() >= kMaxReported) break;
      const Descriptor& d = list_.descriptors[i];
      // (check() in descriptor.h holds the same invariants for the readers.)
      d_ = &d;
      if (!structure(d, i)) continue;
      if (d.kind == DescKind::kMove) {
        move(d.move);
      } else {
        op(d.op);
      }
    }
    d_ = nullptr;
    // Hazards only on a list whose every descriptor is well formed.
    if (problems_.empty()) {
      check_data_flow(list_, [&](const Descriptor& d, const std::string& field,
                                 const std::string& problem) {
        d_ = &d;
        fail(field, problem);
      });
      d_ = nullptr;
    }
    if (macs_ > limits_.max_macs) {
      add("list: the op tiles total " + amount(macs_) +
          " operations (MACs, pooling and element-wise steps), over the limit of " +
          str(limits_.max_macs));
    }
    if (move_bytes_ > limits_.max_move_bytes) {
      add("list: the moves total " + amount(move_bytes_) + " bytes, over the limit of " +
          str(limits_.max_move_bytes));
    }
    return problems_;
  }

 private:
  static std::string amount(uint64_t v) { return v == kSaturated ? "more than 2^64" : str(v); }

  void add(const std::string& problem) {
    if (problems_.size() >= kMaxReported) return;
    problems_.push_back(problem);
  }

  // A problem with `field` of the current descriptor.
  void fail(const std::string& field, const std::string& problem) {
    if (d_ == nullptr) return add(field + ": " + problem);
    std::string layer = d_->layer < list_.layers.size() ? list_.layers[d_->layer] : "?";
    add("descriptor " + str(d_->id) + " (layer '" + layer + "', " +
        (d_->kind == DescKind::kMove ? std::string("move") : std::string(to_string(d_->op.op))) +
        "): " + field + ": " + problem);
  }

  // The structural invariants of check() (descriptor.h), worded with the field; false when the
  // descriptor is too malformed for the checks of its meaning.
  bool structure(const Descriptor& d, size_t index) {
    bool ok = true;
    if (d.id != index) fail("id", str(d.id) + " out of sequence, expected " + str(index)), ok = false;
    for (uint32_t dep : d.deps) {
      if (dep >= d.id) fail("deps", "depends on " + str(dep) + ", which is not earlier"), ok = false;
    }
    if (d.layer >= list_.layers.size()) {
      fail("layer", str(d.layer) + " out of range (" + str(list_.layers.size()) + " layers)");
      ok = false;
    }
    if (d.kind == DescKind::kMove) {
      const MoveDesc& m = d.move;
      if (m.rows == 0 || m.row_bytes == 0) {
        fail("move.rows", "move of zero bytes (" + str(m.rows) + " rows of " + str(m.row_bytes) + ")");
        return false;
      }
      if (m.dst_step == 0) {
        fail("move.dst_step", "0: a destination row's bytes must be 1 or more apart");
        return false;
      }
      if (m.rows > 1 && (m.src_stride < m.row_bytes || m.dst_stride < m.dst_row_span())) {
        fail("move.src_stride", "2-D move with a stride (" + str(m.src_stride) + ", " +
                                    str(m.dst_stride) + ") smaller than its row of " +
                                    str(m.row_bytes) + " bytes (" + str(m.dst_row_span()) +
                                    " at the destination)");
        return false;
      }
      return ok;
    }
    const OpDesc& o = d.op;
    if (!o.output.present() || !o.input.present()) {
      fail(o.input.present() ? "op.output" : "op.input", "missing (0 channels)");
      return false;
    }
    if (o.row_begin >= o.row_end || o.row_end > o.output.h) {
      fail("op.row_end", "tile rows [" + str(o.row_begin) + ", " + str(o.row_end) +
                             ") empty or past the output's " + str(o.output.h) + " rows");
      return false;
    }
    if (o.ch_begin >= o.ch_end || o.ch_end > o.output.c) {
      fail("op.ch_end", "tile channels [" + str(o.ch_begin) + ", " + str(o.ch_end) +
                            ") empty or past the output's " + str(o.output.c) + " channels");
      return false;
    }
    if (o.stride_h == 0 || o.stride_w == 0 || o.kernel_h == 0 || o.kernel_w == 0 ||
        o.dilation_h == 0 || o.dilation_w == 0 || o.groups == 0) {
      fail("op.kernel_h", "zero kernel, stride, dilation or groups");
      return false;
    }
    return ok;
  }

  uint64_t capacity(MemSpace s) const {
    return s == MemSpace::kL2 ? arch_.l2.size_bytes : arch_.dram.size_bytes;
  }

  // [addr, addr + bytes) inside space `s`, reported against `field`.
  bool range(const std::string& field, MemSpace s, uint64_t addr, uint64_t bytes) {
    const uint64_t end = saturating_add(addr, bytes);
    if (end <= capacity(s)) return true;
    fail(field, std::string(to_string(s)) + " range [" + hex(addr) + ", " +
                    (end == kSaturated ? std::string("past 2^64") : hex(end)) +
                    ") ends past the " + to_string(s) + " capacity of " + str(capacity(s)) +
                    " bytes");
    return false;
  }

  void move(const MoveDesc& m) {
    // check() guarantees rows and row_bytes > 0 and strides >= the row for 2-D moves.
    const auto extent = [&](uint32_t stride, uint64_t span) {
      return saturating_add(saturating_mul(m.rows - 1, stride), span);
    };
    range("move.src", m.src_space, m.src_addr, extent(m.src_stride, m.row_bytes));
    range("move.dst", m.dst_space, m.dst_addr, extent(m.dst_stride, m.dst_row_span()));
    move_bytes_ = saturating_add(move_bytes_, m.bytes());
  }

  // Bytes from t.addr to the end of the last element held.
  static uint64_t extent(const TensorRef& t) {
    uint64_t e = saturating_mul(t.w, t.element_bytes);
    e = saturating_add(e, saturating_mul(t.held_rows() - 1, t.row_stride));
    return saturating_add(e, saturating_mul(t.held_channels() - 1, t.channel_stride));
  }

  // A tensor an op reads or writes: in L2, the expected element size, its rows apart, inside L2;
  // `whole`: a full tensor (input, output) whose held channels and rows lie inside its shape.
  bool tensor(const std::string& field, const TensorRef& t, uint8_t element_bytes, bool whole) {
    if (t.space != MemSpace::kL2) {
      fail(field, std::string("in ") + to_string(t.space) +
                      ", but the compute pipeline reads and writes only L2");
      return false;
    }
    bool ok = true;
    if (t.element_bytes != element_bytes) {
      fail(field + ".element_bytes", "is " + str(t.element_bytes) + ", expected " + str(element_bytes));
      ok = false;
    }
    if (t.h == 0 || t.w == 0) {
      fail(field, "has an empty shape " + str(t.c) + "x" + str(t.h) + "x" + str(t.w));
      return false;
    }
    if (whole && uint64_t(t.first_channel) + t.held_channels() > t.c) {
      fail(field + ".channels", "holds channels [" + str(t.first_channel) + ", " +
                                    str(uint64_t(t.first_channel) + t.held_channels()) +
                                    ") of a tensor with " + str(t.c));
      ok = false;
    }
    if (whole && uint64_t(t.first_row) + t.held_rows() > t.h) {
      fail(field + ".rows", "holds rows [" + str(t.first_row) + ", " +
                                str(uint64_t(t.first_row) + t.held_rows()) + ") of a tensor with " +
                                str(t.h));
      ok = false;
    }
    if (t.held_rows() > 1 && uint64_t(t.row_stride) < uint64_t(t.w) * t.element_bytes) {
      fail(field + ".row_stride", str(t.row_stride) + " is less than a row of " +
                                      str(uint64_t(t.w) * t.element_bytes) + " bytes");
      ok = false;
    }
    return range(field, MemSpace::kL2, t.addr, extent(t)) && ok;
  }

  // An instance norm: input and output of one shape, every row of the tile's channels in the
  // input (the statistics are over all positions: no row band), gamma for each tile channel, at
  // most kMaxInstanceNormPositions positions (the 64-bit sums of vector_math.h).
  void instance_norm(const OpDesc& o) {
    const TensorRef& in = o.input;
    if (in.c != o.output.c || in.h != o.output.h || in.w != o.output.w) {
      fail("op.output", "shape " + shape_text(o.output) + ", expected op.input's " + shape_text(in));
    } else if (uint64_t(in.h) * in.w > kMaxInstanceNormPositions) {
      fail("op.input", str(uint64_t(in.h) * in.w) + " positions per channel, at most " +
                           str(kMaxInstanceNormPositions) + " (the integer sums of instancenorm)");
    } else if (in.first_row != 0 || in.held_rows() != in.h) {
      fail("op.input", "holds rows [" + str(in.first_row) + ", " +
                           str(uint64_t(in.first_row) + in.held_rows()) + ") of " + str(in.h) +
                           ": instancenorm reads every row of its channels (no row band)");
    } else if (o.ch_begin < in.first_channel ||
               o.ch_end > uint64_t(in.first_channel) + in.held_channels()) {
      fail("op.input", "holds channels [" + str(in.first_channel) + ", " +
                           str(uint64_t(in.first_channel) + in.held_channels()) +
                           "), not the tile's [" + str(o.ch_begin) + ", " + str(o.ch_end) + ")");
    }
    if (!o.weights.present() || o.weights.c < o.ch_end - o.ch_begin) {
      fail("op.weights", "holds " + str(o.weights.c) + " channels of gamma, expected the tile's " +
                             str(o.ch_end - o.ch_begin));
    }
  }

  void op(const OpDesc& o) {
    const bool in_ok = tensor("op.input", o.input, 1, true);
    // A fused max-pool's output is the conv's result shape only; its pooled tensor is written. So
    // is a fused global pool's when the conv's result is never stored.
    bool out_ok = false;
    if (o.pool.present()) {
      out_ok = check_fused_pool(o, arch_, report_);
    } else if (o.gap.present() && !o.gap.stores_result()) {
      out_ok = check_fused_gap(o, report_);
    } else {
      out_ok = tensor("op.output", o.output, 1, true);
      if (o.gap.present()) check_fused_gap(o, report_);
    }
    const bool has_weights = o.op == OpCode::kConv || o.op == OpCode::kFullyConnected;
    const bool eltwise = o.op == OpCode::kAdd || o.op == OpCode::kMul;
    if (eltwise) {
      if (!o.input2.present()) {
        fail("op.input2", std::string("missing: ") + to_string(o.op) + " takes two operands");
      } else if (tensor("op.input2", o.input2, 1, true) && in_ok &&
                 ((o.input2.c != o.input.c && o.input2.c != 1) ||
                  (o.input2.h != o.input.h && o.input2.h != 1) ||
                  (o.input2.w != o.input.w && o.input2.w != 1))) {
        // The second operand broadcasts over its size-1 dimensions (a squeeze-excitation Mul).
        fail("op.input2", "shape " + shape_text(o.input2) + " neither equals nor broadcasts to op.input's " +
                              shape_text(o.input));
      }
    }
    if (o.weights.present()) tensor("op.weights", o.weights, 1, false);
    if (o.bias.present()) tensor("op.bias", o.bias, 4, false);
    if (o.psum_mode != 0 || o.psum.present()) {
      if (!o.psum.present()) {
        fail("op.psum", "missing, but psum_mode is " + str(o.psum_mode));
      } else {
        tensor("op.psum", o.psum, 4, false);
      }
    }
    if (o.clip_min > o.clip_max) {
      fail("op.clip_min", str(o.clip_min) + " exceeds clip_max " + std::to_string(o.clip_max));
    }
    if ((o.flags & OpDesc::kUnsigned) && o.op != OpCode::kSoftmax && o.op != OpCode::kMatMul) {
      fail("op.flags", std::string("unsigned (4) given for ") + to_string(o.op) +
                           ", expected only for softmax (output) and matmul (input)");
    }
    const uint8_t u8 = OpDesc::kInputUnsigned | OpDesc::kInput2Unsigned | OpDesc::kOutputUnsigned;
    const bool vector_op = is_vector_op(o.op) || o.op == OpCode::kMatMul;
    if ((o.flags & u8) && vector_op) {
      fail("op.flags", "unsigned activations (" + str(o.flags & u8) + ") given for " +
                           to_string(o.op) + ", expected only for conv, fc, pools, add, mul and activation");
    } else if ((o.flags & OpDesc::kInput2Unsigned) && !o.input2.present() && !o.post.present()) {
      fail("op.flags", "unsigned second input (16) given without op.input2 or a post-op operand");
    }
    const bool scaled_input = o.op == OpCode::kSoftmax || o.op == OpCode::kGelu;
    const bool norm = o.op == OpCode::kLayerNorm || o.op == OpCode::kInstanceNorm;
    if (scaled_input && o.input_multiplier <= 0) {
      fail("op.input_multiplier", std::to_string(o.input_multiplier) + ", expected the input scale in Q24 (> 0) for " +
                                      to_string(o.op));
    } else if (norm && o.input_multiplier < 0) {
      fail("op.input_multiplier", std::to_string(o.input_multiplier) + ", expected a " +
                                      to_string(o.op) + " epsilon code >= 0 (vector_math.h)");
    } else if (!scaled_input && !norm && o.input_multiplier != 0) {
      fail("op.input_multiplier", std::to_string(o.input_multiplier) + " given for " + to_string(o.op) +
                                      ", expected 0 (only softmax and gelu take an input scale, "
                                      "layernorm and instancenorm their epsilon)");
    }
    if (o.op == OpCode::kAdd) {
      // a x m + b x m2 of int8 operands stays inside int32.
      constexpr int32_t kMaxOperandMultiplier = int32_t{1} << 23;
      for (const auto& [field, m] : {std::pair<const char*, int32_t>{"op.requant_multiplier", o.requant_multiplier},
                                     {"op.input2_multiplier", o.input2_multiplier}}) {
        if (m < 0 || m > kMaxOperandMultiplier) {
          fail(field, std::to_string(m) + ", expected an operand multiplier 0..2^23 for add");
          break;
        }
      }
    } else if (o.input2_multiplier != 0) {
      fail("op.input2_multiplier", std::to_string(o.input2_multiplier) + " given for " + to_string(o.op) +
                                       ", expected 0 (only add scales its second operand)");
    }
    if (!o.channel_requant.empty()) {
      // activation: a negative input's requantisation (LeakyRelu / PRelu), of either sign.
      const bool sloped = o.op == OpCode::kActivation;
      if (o.op != OpCode::kConv && o.op != OpCode::kFullyConnected && !sloped) {
        fail("op.channel_requant", std::string("given for ") + to_string(o.op) +
                                       ", expected only for conv, fc and activation");
      }
      for (size_t c = 0; c < o.channel_requant.size(); ++c) {
        const Requant& r = o.channel_requant[c];
        if (r.shift < 0 || r.shift > 62 || (r.multiplier <= 0 && !sloped)) {
          fail("op.channel_requant", "channel " + str(o.ch_begin + c) + ": multiplier " +
                                         std::to_string(r.multiplier) + ", shift " +
                                         std::to_string(r.shift) +
                                         ", expected a positive multiplier and shift 0..62");
          break;
        }
      }
    }
    if (o.requant_shift < 0 || o.requant_shift > 62) {
      fail("op.requant_shift", std::to_string(o.requant_shift) + ", expected 0..62");
    }
    if (o.op != OpCode::kAdd && o.requant_multiplier <= 0) {
      fail("op.requant_multiplier",
           std::to_string(o.requant_multiplier) + ", expected a positive multiplier");
    }
    if (o.post.present()) check_post_op(o, out_ok, report_);
    if (o.input_scale.present()) check_input_scale(o, in_ok, report_);
    if (!in_ok || !out_ok) return;

    // The tile inside the output tensor's held rows and channels (check() bounds it by the shape).
    const TensorRef& out = o.output;
    if (o.row_begin < out.first_row || o.row_end > uint64_t(out.first_row) + out.held_rows()) {
      fail("op.row_end", "tile rows [" + str(o.row_begin) + ", " + str(o.row_end) +
                             ") outside the output rows held [" + str(out.first_row) + ", " +
                             str(uint64_t(out.first_row) + out.held_rows()) + ")");
    }
    if (o.ch_begin < out.first_channel ||
        o.ch_end > uint64_t(out.first_channel) + out.held_channels()) {
      fail("op.ch_end", "tile channels [" + str(o.ch_begin) + ", " + str(o.ch_end) +
                            ") outside the output channels held [" + str(out.first_channel) +
                            ", " + str(uint64_t(out.first_channel) + out.held_channels()) + ")");
    }
    const TensorRef& in = o.input;
    if (o.in_ch_begin != 0 || o.in_ch_end != 0) {
      if (o.in_ch_begin >= o.in_ch_end || o.in_ch_end > in.c) {
        fail("op.in_ch_end", "input-channel block [" + str(o.in_ch_begin) + ", " +
                                 str(o.in_ch_end) + ") is empty or outside the " + str(in.c) +
                                 " input channels");
        return;
      }
    } else if (o.psum_mode != 0) {
      fail("op.psum_mode", str(o.psum_mode) + " without an input-channel block (in_ch_end 0)");
    }

    if (o.op == OpCode::kInstanceNorm) instance_norm(o);
    // Matrix multiplies of activations and the vector unit's ops address token views (heads as
    // groups, strided operands): their addresses, ranges and dependencies are checked above; the
    // window and kernel rules below are the convolutions'.
    if (o.op == OpCode::kMatMul || is_vector_op(o.op)) return;
    if (o.op == OpCode::kConv) {
      if (in.c % o.groups != 0 || out.c % o.groups != 0) {
        fail("op.groups", str(o.groups) + " does not divide the " + str(in.c) +
                              " input channels and " + str(out.c) + " output channels");
        return;
      }
    } else if (o.groups != 1 && o.op != OpCode::kConv) {
      fail("op.groups", str(o.groups) + ", expected 1 for " + to_string(o.op));
      return;
    }
    // Windows: the dilated kernel inside the padded input, the output no larger than they give
    // (one more row or column for ceil-mode pooling).
    const uint64_t ek_h = uint64_t(o.kernel_h - 1) * o.dilation_h + 1;
    const uint64_t ek_w = uint64_t(o.kernel_w - 1) * o.dilation_w + 1;
    const uint64_t padded_h = uint64_t(in.h) + o.pad_top + o.pad_bottom;
    const uint64_t padded_w = uint64_t(in.w) + o.pad_left + o.pad_right;
    if (ek_h > padded_h || ek_w > padded_w) {
      fail("op.kernel_h", "kernel " + str(o.kernel_h) + "x" + str(o.kernel_w) + " (dilated " +
                              str(ek_h) + "x" + str(ek_w) + ") exceeds the padded input " +
                              str(padded_h) + "x" + str(padded_w));
      return;
    }
    // Pads bounded by the shape: the padded input gives no more windows than the output has
    // (pads past that would be computed and discarded, 884x the cycles at 65,535).
    const uint64_t win_h = (padded_h - ek_h) / o.stride_h + 1;
    const uint64_t win_w = (padded_w - ek_w) / o.stride_w + 1;
    if (!eltwise && (win_h > out.h || win_w > out.w)) {
      fail("op.pad_top", "pads " + str(o.pad_top) + ", " + str(o.pad_left) + ", " +
                             str(o.pad_bottom) + ", " + str(o.pad_right) +
                             " (top, left, bottom, right) give " + str(win_h) + "x" + str(win_w) +
                             " windows, more than the output's " + str(out.h) + "x" + str(out.w));
      return;
    }
    const uint64_t max_h = (padded_h - ek_h) / o.stride_h + 2;
    const uint64_t max_w = (padded_w - ek_w) / o.stride_w + 2;
    if (!eltwise && (out.h > max_h || out.w > max_w)) {
      fail("op.output", "shape " + shape_text(out) + " is larger than the " +
                            str((padded_h - ek_h) / o.stride_h + 1) + "x" +
                            str((padded_w - ek_w) / o.stride_w + 1) + " windows of the input");
    }
    if (eltwise && (out.c != in.c || out.h != in.h || out.w != in.w)) {
      fail("op.output", "shape " + shape_text(out) + " differs from op.input's " + shape_text(in));
    }

    // Weights: the kernels of the tile's output channels over its input-channel block.
    const uint64_t cin = o.in_ch_end != 0 ? o.in_ch_end - o.in_ch_begin : in.c / o.groups;
    const uint64_t tile_ch = o.ch_end - o.ch_begin;
    if (has_weights) {
      const uint64_t per_channel = cin * o.kernel_h * o.kernel_w;
      if (!o.weights.present()) {
        fail("op.weights", std::string("missing: ") + to_string(o.op) + " needs weights");
      } else if (o.weights.c != tile_ch || uint64_t(o.weights.h) * o.weights.w != per_channel) {
        fail("op.weights", "shape " + shape_text(o.weights) + " does not hold " + str(tile_ch) +
                               " kernels of " + str(per_channel) + " bytes (" + str(cin) +
                               " input channels x " + str(o.kernel_h) + "x" + str(o.kernel_w) +
                               ")");
      }
    }
    if (o.bias.present() && o.bias.c != tile_ch) {
      fail("op.bias", "holds " + str(o.bias.c) + " channels, the tile has " + str(tile_ch));
    }
    // Work: one MAC (or compare / add) per output element, kernel tap and input channel.
    uint64_t taps = saturating_mul(o.kernel_h, o.kernel_w);
    if (has_weights) taps = saturating_mul(taps, cin);
    const uint64_t outputs =
        saturating_mul(saturating_mul(o.row_end - o.row_begin, out.w), tile_ch);
    macs_ = saturating_add(macs_, saturating_mul(outputs, taps));
  }

  const DescriptorList& list_;
  const ArchConfig& arch_;
  const ValidationLimits& limits_;
  const Descriptor* d_ = nullptr;
  FieldReport report_;  // fail and tensor, for the fused parts' checks (fused_op_checks.h)
  std::vector<std::string> problems_;
  uint64_t macs_ = 0, move_bytes_ = 0;
};

}  // namespace

void validate_descriptors(const DescriptorList& list, const ArchConfig& arch,
                          const std::string& source, const ValidationLimits& limits) {
  if (list.version != kDescriptorFormatVersion) {
    const std::string p = "list: format version " + str(list.version) + ", expected " +
                          str(kDescriptorFormatVersion);
    throw DescriptorError(source + ": descriptor list refused: " + p, {p});
  }
  std::vector<std::string> problems = Validator(list, arch, limits).run();
  if (problems.empty()) return;
  std::string msg = source + ": descriptor list refused: ";
  if (problems.size() == 1) {
    msg += problems[0];
  } else {
    msg += (problems.size() >= kMaxReported ? "at least " : "") + str(problems.size()) +
           " problems:";
    for (const std::string& p : problems) msg += "\n  " + p;
  }
  throw DescriptorError(msg, std::move(problems));
}

}  // namespace strider
