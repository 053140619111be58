#include "tests/model/random_tiles.h"

#include <algorithm>

#include "core/timing/tile_work.h"

namespace strider::random_tiles {
namespace {

// Output rows [begin, end) and channels [begin, end) of a random tile of the layer.
void pick_tile(Rng& rng, OpDesc* op) {
  op->row_begin = pick(rng, 0, op->output.h - 1);
  op->row_end = pick(rng, op->row_begin + 1, op->output.h);
  op->ch_begin = pick(rng, 0, op->output.c - 1);
  op->ch_end = pick(rng, op->ch_begin + 1, op->output.c);
}

// A window op (conv or pool) with random kernel, stride, dilation and padding; false if the
// output would be empty.
bool window(Rng& rng, OpDesc* op, uint32_t in_c, uint32_t out_c) {
  const uint32_t h = pick(rng, 1, 9), w = pick(rng, 1, 12);
  op->kernel_h = static_cast<uint16_t>(pick(rng, 1, 4));
  op->kernel_w = static_cast<uint16_t>(pick(rng, 1, coin(rng, 0.9) ? 4 : 7));
  op->stride_h = static_cast<uint16_t>(coin(rng) ? 1 : pick(rng, 1, 3));
  op->stride_w = static_cast<uint16_t>(coin(rng) ? op->stride_h : pick(rng, 1, 3));
  op->dilation_h = static_cast<uint16_t>(coin(rng, 0.8) ? 1 : 2);
  op->dilation_w = static_cast<uint16_t>(coin(rng, 0.8) ? 1 : 2);
  if (coin(rng, 0.6)) {
    op->pad_top = static_cast<uint16_t>(pick(rng, 0, op->kernel_h - 1));
    op->pad_bottom = static_cast<uint16_t>(pick(rng, 0, op->kernel_h - 1));
    op->pad_left = static_cast<uint16_t>(pick(rng, 0, op->kernel_w - 1));
    op->pad_right = static_cast<uint16_t>(pick(rng, 0, op->kernel_w - 1));
  }
  const int64_t eff_h = int64_t(op->kernel_h - 1) * op->dilation_h + 1;
  const int64_t eff_w = int64_t(op->kernel_w - 1) * op->dilation_w + 1;
  const int64_t span_h = int64_t(h) + op->pad_top + op->pad_bottom - eff_h;
  const int64_t span_w = int64_t(w) + op->pad_left + op->pad_right - eff_w;
  if (span_h < 0 || span_w < 0) return false;
  op->input = tensor(in_c, h, w);
  op->output =
      tensor(out_c, uint32_t(span_h / op->stride_h + 1), uint32_t(span_w / op->stride_w + 1));
  return true;
}

}  // namespace

Tile random_tile(Rng& rng, Kind kind) {
  Tile t;
  // Some lines narrower than a kernel row (cut into parts).
  t.l1.line_bytes = coin(rng, 0.15) ? pick(rng, 2, 6) : pick(rng, 4, 40);
  t.nc.count = pick(rng, 1, 24);
  t.l1.lines = t.nc.count;
  t.l1.kernel_bytes = pick(rng, 64, 4096);
  t.l1.shift_stride = coin(rng);
  t.l1.pad_in_block = coin(rng);
  t.l1.shared_pad = coin(rng);
  static const uint32_t kMacs[] = {1, 2, 3, 4, 8};
  static const uint32_t kAcc[] = {1, 2, 4, 8, 16};
  t.nc.macs_per_cycle = kMacs[pick(rng, 0, 4)];
  t.nc.accumulators = kAcc[pick(rng, 0, 4)];
  OpDesc& op = t.op;
  for (;;) {
    op = OpDesc{};
    switch (kind) {
      case Kind::kConv: {
        op.op = OpCode::kConv;
        const uint32_t shape = pick(rng, 0, 2);  // plain, grouped, depthwise
        uint32_t in_c = pick(rng, 1, 6), out_c = pick(rng, 1, 12);
        if (shape == 1) {
          op.groups = pick(rng, 2, 3);
          in_c = op.groups * pick(rng, 1, 3), out_c = op.groups * pick(rng, 1, 4);
        } else if (shape == 2) {
          op.groups = in_c = out_c = pick(rng, 1, 8);
        }
        if (!window(rng, &op, in_c, out_c)) continue;
        if (op.groups == 1 && coin(rng, 0.3)) {  // an input-channel block with partial sums
          op.in_ch_begin = pick(rng, 0, in_c - 1);
          op.in_ch_end = pick(rng, op.in_ch_begin + 1, in_c);
          op.psum_mode = static_cast<uint8_t>(pick(rng, 1, 3));
        }
        break;
      }
      case Kind::kPointwise: {  // 1x1, unpadded, groups 1: either mapping
        op.op = OpCode::kConv;
        const uint32_t in_c = pick(rng, 1, 40), out_c = pick(rng, 1, 40);
        op.stride_h = op.stride_w = static_cast<uint16_t>(pick(rng, 1, 2));
        const uint32_t h = pick(rng, 1, 8), w = pick(rng, 1, 8);
        op.input = tensor(in_c, h, w);
        op.output = tensor(out_c, (h - 1) / op.stride_h + 1, (w - 1) / op.stride_w + 1);
        if (coin(rng, 0.3)) {
          op.in_ch_begin = pick(rng, 0, in_c - 1);
          op.in_ch_end = pick(rng, op.in_ch_begin + 1, in_c);
          op.psum_mode = static_cast<uint8_t>(pick(rng, 1, 3));
        }
        break;
      }
      case Kind::kMaxPool:
      case Kind::kAvgPool: {
        op.op = kind == Kind::kMaxPool ? OpCode::kMaxPool : OpCode::kAvgPool;
        const uint32_t c = pick(rng, 1, 6);
        if (!window(rng, &op, c, c)) continue;
        op.count_include_pad = coin(rng);
        break;
      }
      case Kind::kGlobalPool: {
        op.op = OpCode::kGlobalAvgPool;
        const uint32_t c = pick(rng, 1, 40), h = pick(rng, 1, 8);
        const uint32_t w = pick(rng, 1, 12);
        op.input = tensor(c, h, w);
        op.output = tensor(c, 1, 1);
        op.kernel_h = static_cast<uint16_t>(h);
        op.kernel_w = static_cast<uint16_t>(w);
        break;
      }
      case Kind::kFc: {
        op.op = OpCode::kFullyConnected;
        op.input = tensor(pick(rng, 1, 120), 1, 1);
        op.output = tensor(pick(rng, 1, 40), 1, 1);
        op.mapping = Mapping::kChannels;
        break;
      }
      case Kind::kAdd:
      case Kind::kMul:
      case Kind::kAct: {
        op.op = kind == Kind::kAdd   ? OpCode::kAdd
                : kind == Kind::kMul ? OpCode::kMul
                                     : OpCode::kActivation;
        const uint32_t c = pick(rng, 1, 6), h = pick(rng, 1, 9), w = pick(rng, 1, 12);
        op.input = op.output = tensor(c, h, w);
        if (kind != Kind::kAct) op.input2 = op.input;
        // Every other such tile with an odd width: the second operand one scalar per channel.
        if (kind != Kind::kAct && w % 2 == 1) op.input2 = tensor(c, 1, 1);
        op.act = kind == Kind::kAct ? PostAct::kRelu : PostAct::kNone;
        break;
      }
      case Kind::kSoftmax: {
        op.op = OpCode::kSoftmax;
        const uint32_t c = pick(rng, 1, 40), h = pick(rng, 1, 4), w = pick(rng, 1, 6);
        op.input = op.output = tensor(c, h, w);
        break;
      }
    }
    break;
  }
  pick_tile(rng, &op);
  if (op.op == OpCode::kSoftmax) op.ch_begin = 0, op.ch_end = op.output.c;
  if (op.op != OpCode::kFullyConnected && channels_mapping_applies(op) && coin(rng)) {
    op.mapping = Mapping::kChannels;
  }
  if (op.psum_mode)
    op.psum = tensor(op.ch_end - op.ch_begin, op.row_end - op.row_begin, op.output.w, 4);
  op.weights = tensor(op.output.c, op.kernel_h, op.input.c / op.groups * op.kernel_w);
  return t;
}

}  // namespace strider::random_tiles
