#include "planner/lower/fused_op_checks.h"

#include <climits>

#include "core/common/window_row.h"
#include "core/contract/quant.h"
#include "core/timing/fused_pool.h"

namespace strider {

std::string shape_text(const TensorRef& t) {
  return std::to_string(t.c) + "x" + std::to_string(t.h) + "x" + std::to_string(t.w);
}

// A fused max-pool (conv only, without post-op or partial sums): a window of 2 or more
// elements, strides up to the kernel, pads below it, the pooled output of the conv's channels with
// the extent the window gives (floor or ceil), the tile over the conv's whole height, and the
// row buffer (core/timing/fused_pool.h) holding its channel group's open pooled rows. Returns
// whether the op's tensors can be checked further.
bool check_fused_pool(const OpDesc& o, const ArchConfig& arch, const FieldReport& report) {
  const FusedPool& p = o.pool;
  if (o.op != OpCode::kConv || o.post.present() || o.psum_mode != 0) {
    report.fail("op.pool", std::string("given for ") + to_string(o.op) +
                               (o.op == OpCode::kConv ? " with a post-op or partial sums" : "") +
                               ", expected only for a conv without either");
    return false;
  }
  const std::string window = std::to_string(p.kernel_h) + "x" + std::to_string(p.kernel_w);
  if (p.kernel_h == 0 || p.kernel_w == 0 || uint32_t(p.kernel_h) * p.kernel_w < 2) {
    report.fail("op.pool.kernel", window + ", expected a window of 2 or more elements");
    return false;
  }
  if (p.stride_h == 0 || p.stride_w == 0 || p.stride_h > p.kernel_h || p.stride_w > p.kernel_w) {
    report.fail("op.pool.stride", std::to_string(p.stride_h) + "x" + std::to_string(p.stride_w) +
                                      ", expected 1 up to the kernel " + window);
    return false;
  }
  if (p.pad_top >= p.kernel_h || p.pad_bottom >= p.kernel_h || p.pad_left >= p.kernel_w ||
      p.pad_right >= p.kernel_w) {
    report.fail("op.pool.pads", std::to_string(p.pad_top) + "/" + std::to_string(p.pad_left) + "/" +
                                    std::to_string(p.pad_bottom) + "/" +
                                    std::to_string(p.pad_right) +
                                    ", expected each less than the kernel " + window);
    return false;
  }
  if (o.output.h == 0 || o.output.w == 0) {
    report.fail("op.output", "has an empty shape " + shape_text(o.output));
    return false;
  }
  if (!report.tensor("op.pool.output", p.output, 1, true)) return false;
  // The pooled extent with floor and with ceil rounding (ONNX ceil_mode).
  const auto rows = [&](bool ceil) {
    return uint32_t(
        window_positions(o.output.h, p.kernel_h, p.stride_h, p.pad_top, p.pad_bottom, ceil));
  };
  const auto cols = [&](bool ceil) {
    return uint32_t(
        window_positions(o.output.w, p.kernel_w, p.stride_w, p.pad_left, p.pad_right, ceil));
  };
  const uint32_t h0 = rows(false), h1 = rows(true), w0 = cols(false), w1 = cols(true);
  if (p.output.c != o.output.c || p.output.h < h0 || p.output.h > h1 || p.output.w < w0 ||
      p.output.w > w1 || h0 == 0 || w0 == 0) {
    report.fail("op.pool.output",
                "shape " + shape_text(p.output) + ", expected " + std::to_string(o.output.c) + "x" +
                    std::to_string(h0) + (h1 != h0 ? ".." + std::to_string(h1) : "") + "x" +
                    std::to_string(w0) + (w1 != w0 ? ".." + std::to_string(w1) : "") + " (a " +
                    window + " pool over op.output's " + shape_text(o.output) + ")");
    return false;
  }
  bool ok = true;
  if (o.row_begin != 0 || o.row_end != o.output.h) {
    report.fail("op.row_end",
                "tile rows [" + std::to_string(o.row_begin) + ", " + std::to_string(o.row_end) +
                    ") under a fused max-pool, expected the conv's whole height [0, " +
                    std::to_string(o.output.h) + ")");
    ok = false;
  }
  if (p.output.first_row != 0 || p.output.held_rows() != p.output.h ||
      o.ch_begin < p.output.first_channel ||
      o.ch_end > uint64_t(p.output.first_channel) + p.output.held_channels()) {
    report.fail("op.pool.output",
                "holds rows [" + std::to_string(p.output.first_row) + ", " +
                    std::to_string(uint64_t(p.output.first_row) + p.output.held_rows()) +
                    ") x channels [" + std::to_string(p.output.first_channel) + ", " +
                    std::to_string(uint64_t(p.output.first_channel) + p.output.held_channels()) +
                    "), expected every row of the tile's channels [" + std::to_string(o.ch_begin) +
                    ", " + std::to_string(o.ch_end) + ")");
    ok = false;
  }
  const uint64_t need = pool_row_buffer_bytes(o, arch.neurons.count);
  if (need > arch.l1.pool_row_buffer_bytes) {
    report.fail("op.pool",
                "needs " + std::to_string(need) + " row-buffer bytes (" +
                    std::to_string(pool_group_channels(o, arch.neurons.count)) + " channels x " +
                    std::to_string((p.kernel_h + p.stride_h - 1) / p.stride_h) + " rows x " +
                    std::to_string(p.output.w) + "), arch.l1.pool_row_buffer_bytes is " +
                    std::to_string(arch.l1.pool_row_buffer_bytes));
    ok = false;
  }
  return ok;
}

// A fused global average pool (conv only, without a fused max-pool or partial sums over input
// channels): its pooled output a [C, 1, 1] L2 tensor of the conv's channels, its first / last
// flags those of the tile's rows, int32 partial sums [C, 1, 1] in L2 for a tile over a band of
// rows, a requantisation and clip as a global pool's, and a plane whose sum the int32 partial
// sums hold (H x W x 255 < 2^31). Returns whether the pooled output can be checked further.
bool check_fused_gap(const OpDesc& o, const FieldReport& report) {
  const FusedGap& g = o.gap;
  if (o.op != OpCode::kConv || o.pool.present() || o.psum_mode != 0) {
    report.fail("op.gap",
                std::string("given for ") + to_string(o.op) +
                    (o.op == OpCode::kConv ? " with a fused max-pool or partial sums" : "") +
                    ", expected only for a conv without either");
    return false;
  }
  bool ok = report.tensor("op.gap.output", g.output, 1, true);
  if (ok && (g.output.c != o.output.c || g.output.h != 1 || g.output.w != 1)) {
    report.fail("op.gap.output", "shape " + shape_text(g.output) + ", expected " +
                                     std::to_string(o.output.c) + "x1x1");
    ok = false;
  }
  const bool first = o.row_begin == 0, last = o.row_end == o.output.h;
  if (g.first() != first || g.last() != last) {
    report.fail("op.gap.flags", std::string("first ") + (g.first() ? "1" : "0") + ", last " +
                                    (g.last() ? "1" : "0") + " for tile rows [" +
                                    std::to_string(o.row_begin) + ", " + std::to_string(o.row_end) +
                                    ") of " + std::to_string(o.output.h) + ", expected first " +
                                    (first ? "1" : "0") + ", last " + (last ? "1" : "0"));
  }
  if (!(first && last)) {
    if (!g.partial.present()) {
      report.fail("op.gap.partial", "missing: tile rows [" + std::to_string(o.row_begin) + ", " +
                                        std::to_string(o.row_end) + ") of " +
                                        std::to_string(o.output.h) +
                                        " add into the int32 partial sums");
    } else if (report.tensor("op.gap.partial", g.partial, 4, true) &&
               (g.partial.c != o.output.c || g.partial.h != 1 || g.partial.w != 1)) {
      report.fail("op.gap.partial", "shape " + shape_text(g.partial) + ", expected " +
                                        std::to_string(o.output.c) + "x1x1");
    }
  }
  if (g.requant_shift < 0 || g.requant_shift > 62 || g.requant_multiplier <= 0) {
    report.fail("op.gap.requant", std::to_string(g.requant_multiplier) + " / 2^" +
                                      std::to_string(g.requant_shift) +
                                      ", expected a positive multiplier and shift 0..62");
  }
  if (g.clip_min > g.clip_max) {
    report.fail("op.gap.clip_min",
                std::to_string(g.clip_min) + " exceeds clip_max " + std::to_string(g.clip_max));
  }
  if (uint64_t(o.output.h) * o.output.w * 255 > uint64_t(INT32_MAX)) {
    report.fail("op.gap", std::to_string(uint64_t(o.output.h) * o.output.w) +
                              " positions per channel, more than the int32 partial sums hold (" +
                              std::to_string(uint64_t(INT32_MAX) / 255) + ")");
  }
  return ok;
}

// A post-op Add (conv only): its operand an int8 L2 tensor of the output's shape holding the
// tile's rows and channels, its multipliers those of an add.
void check_post_op(const OpDesc& o, bool out_ok, const FieldReport& report) {
  if (o.op != OpCode::kConv) {
    report.fail("op.post",
                std::string("given for ") + to_string(o.op) + ", expected only for conv");
    return;
  }
  const TensorRef& r = o.post.operand;
  if (!report.tensor("op.post.operand", r, 1, true)) return;
  if (out_ok && (r.c != o.output.c || r.h != o.output.h || r.w != o.output.w)) {
    report.fail("op.post.operand",
                "shape " + shape_text(r) + ", expected op.output's " + shape_text(o.output));
    return;
  }
  if (o.row_begin < r.first_row || o.row_end > uint64_t(r.first_row) + r.held_rows() ||
      o.ch_begin < r.first_channel || o.ch_end > uint64_t(r.first_channel) + r.held_channels()) {
    report.fail("op.post.operand",
                "holds rows [" + std::to_string(r.first_row) + ", " +
                    std::to_string(uint64_t(r.first_row) + r.held_rows()) + ") x channels [" +
                    std::to_string(r.first_channel) + ", " +
                    std::to_string(uint64_t(r.first_channel) + r.held_channels()) +
                    "), not the tile's rows [" + std::to_string(o.row_begin) + ", " +
                    std::to_string(o.row_end) + ") x channels [" + std::to_string(o.ch_begin) +
                    ", " + std::to_string(o.ch_end) + ")");
  }
  constexpr int32_t kMaxOperandMultiplier = int32_t{1} << 23;  // as for add
  for (int32_t m : {o.post.multiplier, o.post.operand_multiplier}) {
    if (m < 0 || m > kMaxOperandMultiplier) {
      report.fail("op.post.multiplier",
                  std::to_string(m) + ", expected an operand multiplier 0..2^23");
      break;
    }
  }
  if (o.post.shift < 0 || o.post.shift > 62) {
    report.fail("op.post.shift", std::to_string(o.post.shift) + ", expected 0..62");
  }
  if (o.post.clip_min > o.post.clip_max) {
    report.fail("op.post.clip_min", std::to_string(o.post.clip_min) + " exceeds clip_max " +
                                        std::to_string(o.post.clip_max));
  }
}

// A fused input scale (conv or fc): one int8 L2 element per channel of op.input (c = op.input.c,
// 1x1), a positive multiplier, shift 0..62, clip_min <= clip_max, no lookup activation (the
// op's one table is its own).
void check_input_scale(const OpDesc& o, bool in_ok, const FieldReport& report) {
  const InputScale& s = o.input_scale;
  if (o.op != OpCode::kConv && o.op != OpCode::kFullyConnected) {
    report.fail("op.input_scale",
                std::string("given for ") + to_string(o.op) + ", expected only for conv and fc");
    return;
  }
  if (!report.tensor("op.input_scale", s.scale, 1, true)) return;
  if (in_ok && (s.scale.c != o.input.c || s.scale.h != 1 || s.scale.w != 1)) {
    report.fail("op.input_scale",
                "shape " + shape_text(s.scale) + ", expected " + std::to_string(o.input.c) +
                    "x1x1 (one scale per channel of op.input's " + shape_text(o.input) + ")");
  }
  if (s.multiplier <= 0) {
    report.fail("op.input_scale.multiplier",
                std::to_string(s.multiplier) + ", expected a positive multiplier");
  }
  if (s.shift < 0 || s.shift > 62) {
    report.fail("op.input_scale.shift", std::to_string(s.shift) + ", expected 0..62");
  }
  if (is_lookup(s.act)) {
    report.fail("op.input_scale.act", std::string(to_string(s.act)) +
                                          ", expected none, relu, relu6 or clip (no lookup table)");
  }
  if (s.clip_min > s.clip_max) {
    report.fail("op.input_scale.clip_min",
                std::to_string(s.clip_min) + " exceeds clip_max " + std::to_string(s.clip_max));
  }
}

}  // namespace strider
