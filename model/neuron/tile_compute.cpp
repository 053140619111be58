#include "model/neuron/tile_compute.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "strider/quant.h"

namespace strider {
namespace {

// A tensor view read out of L2 once: planar, with its strides.
struct Plane {
  std::vector<int8_t> bytes;
  const TensorRef* ref = nullptr;
  int8_t at(uint32_t c, uint32_t y, uint32_t x) const {
    return bytes[uint64_t(c) * ref->channel_stride + uint64_t(y) * ref->row_stride + x];
  }
};

Plane read_plane(const TensorRef& t, const TimedMemory& l2) {
  Plane p;
  p.ref = &t;
  const uint64_t span = uint64_t(t.c - 1) * t.channel_stride + uint64_t(t.h - 1) * t.row_stride +
                        uint64_t(t.w) * t.element_bytes;
  p.bytes.resize(span);
  l2.read(t.addr, p.bytes.data(), span);
  return p;
}

int32_t bias_of(const std::vector<int8_t>& raw, uint32_t i) {
  if (raw.empty()) return 0;
  uint32_t v = 0;
  for (int b = 0; b < 4; ++b) v |= uint32_t(uint8_t(raw[4 * i + b])) << (8 * b);
  return static_cast<int32_t>(v);
}

int32_t div_round_away(int64_t num, int64_t den) {
  return static_cast<int32_t>(num >= 0 ? (2 * num + den) / (2 * den) : -((-2 * num + den) / (2 * den)));
}

// ReLU6 clamps to [0, 6 x 16] (the int8 scale of the activations, q = 16 is 1.0): the
// descriptor's clip bounds are only meaningful for kClip.
int8_t finish(const OpDesc& op, int32_t v) {
  if (op.act == PostAct::kRelu6) return activate(v, PostAct::kClip, 0, 6 * 16);
  return activate(v, op.act, op.clip_min, op.clip_max);
}

void window(const OpDesc& op, const TimedMemory& l2, std::vector<int8_t>& out) {
  const Plane in = read_plane(op.input, l2);
  std::vector<int8_t> w, braw;
  if (op.weights.present()) {
    w.resize(op.weights.bytes());
    l2.read(op.weights.addr, w.data(), w.size());
  }
  if (op.bias.present()) {
    braw.resize(op.bias.bytes());
    l2.read(op.bias.addr, braw.data(), braw.size());
  }
  const uint32_t cin_g = op.input.c / op.groups, cout_g = op.output.c / op.groups;
  const uint64_t kernel = uint64_t(cin_g) * op.kernel_h * op.kernel_w;
  for (uint32_t co = op.ch_begin; co < op.ch_end; ++co) {
    const uint32_t g = co / cout_g;
    for (uint32_t y = op.row_begin; y < op.row_end; ++y) {
      for (uint32_t x = 0; x < op.output.w; ++x) {
        int64_t acc = 0, count = 0;
        int32_t best = std::numeric_limits<int32_t>::min();
        for (uint32_t ky = 0; ky < op.kernel_h; ++ky) {
          const int64_t iy = int64_t(y) * op.stride_h - op.pad_top + int64_t(ky) * op.dilation_h;
          for (uint32_t kx = 0; kx < op.kernel_w; ++kx) {
            const int64_t ix = int64_t(x) * op.stride_w - op.pad_left + int64_t(kx) * op.dilation_w;
            const bool inside = iy >= 0 && iy < op.input.h && ix >= 0 && ix < op.input.w;
            if (op.op == OpCode::kConv) {
              if (!inside) continue;  // virtual zero padding
              for (uint32_t ci = 0; ci < cin_g; ++ci) {
                const int8_t wv = w[(co - op.ch_begin) * kernel + (uint64_t(ci) * op.kernel_h + ky) * op.kernel_w + kx];
                acc += int32_t(in.at(g * cin_g + ci, uint32_t(iy), uint32_t(ix))) * wv;
              }
            } else if (inside) {
              const int8_t v = in.at(co, uint32_t(iy), uint32_t(ix));
              acc += v;
              best = std::max<int32_t>(best, v);
              ++count;
            } else if (op.count_include_pad) {
              ++count;
            }
          }
        }
        int32_t v;
        if (op.op == OpCode::kConv) {
          v = requantize(static_cast<int32_t>(acc + bias_of(braw, co - op.ch_begin)),
                         op.requant_multiplier, op.requant_shift);
        } else if (op.op == OpCode::kMaxPool) {
          v = count ? best : 0;
        } else {
          v = count ? div_round_away(acc, count) : 0;
        }
        out.push_back(finish(op, v));
      }
    }
  }
}

void fully_connected(const OpDesc& op, const TimedMemory& l2, std::vector<int8_t>& out) {
  const uint64_t k = op.input.bytes();
  std::vector<int8_t> in(k), w(op.weights.bytes()), braw(op.bias.bytes());
  l2.read(op.input.addr, in.data(), k);  // fc inputs are contiguous (checked by the lowering)
  l2.read(op.weights.addr, w.data(), w.size());
  if (!braw.empty()) l2.read(op.bias.addr, braw.data(), braw.size());
  for (uint32_t co = op.ch_begin; co < op.ch_end; ++co) {
    int64_t acc = bias_of(braw, co - op.ch_begin);
    const int8_t* row = &w[(co - op.ch_begin) * k];
    for (uint64_t i = 0; i < k; ++i) acc += int32_t(in[i]) * row[i];
    out.push_back(finish(op, requantize(static_cast<int32_t>(acc), op.requant_multiplier,
                                        op.requant_shift)));
  }
}

void elementwise(const OpDesc& op, const TimedMemory& l2, std::vector<int8_t>& out) {
  const Plane a = read_plane(op.input, l2);
  Plane b;
  if (op.input2.present()) b = read_plane(op.input2, l2);
  for (uint32_t c = op.ch_begin; c < op.ch_end; ++c) {
    for (uint32_t y = op.row_begin; y < op.row_end; ++y) {
      for (uint32_t x = 0; x < op.output.w; ++x) {
        int32_t v = a.at(c, y, x);
        if (op.input2.present()) {
          const TensorRef& r = op.input2;  // broadcast over size-1 dimensions
          const int32_t bv = b.at(r.c == 1 ? 0 : c, r.h == 1 ? 0 : y, r.w == 1 ? 0 : x);
          v = op.op == OpCode::kAdd ? v + bv : v * bv;
        }
        out.push_back(finish(op, requantize(v, op.requant_multiplier, op.requant_shift)));
      }
    }
  }
}

// Softmax over channels with inputs at scale 1/16, output probabilities at scale 1/127.
void softmax(const OpDesc& op, const TimedMemory& l2, std::vector<int8_t>& out) {
  const Plane a = read_plane(op.input, l2);
  const uint32_t rows = op.row_end - op.row_begin;
  std::vector<int8_t> tile(uint64_t(op.ch_end - op.ch_begin) * rows * op.output.w);
  for (uint32_t y = op.row_begin; y < op.row_end; ++y) {
    for (uint32_t x = 0; x < op.output.w; ++x) {
      int32_t mx = -128;
      for (uint32_t c = 0; c < op.input.c; ++c) mx = std::max<int32_t>(mx, a.at(c, y, x));
      double sum = 0;
      for (uint32_t c = 0; c < op.input.c; ++c) sum += std::exp((a.at(c, y, x) - mx) / 16.0);
      for (uint32_t c = op.ch_begin; c < op.ch_end; ++c) {
        const double p = std::exp((a.at(c, y, x) - mx) / 16.0) / sum;
        tile[(uint64_t(c - op.ch_begin) * rows + (y - op.row_begin)) * op.output.w + x] =
            saturate8(round_away(127.0 * p));
      }
    }
  }
  out.insert(out.end(), tile.begin(), tile.end());
}

}  // namespace

std::vector<int8_t> compute_tile(const OpDesc& op, const TimedMemory& l2) {
  std::vector<int8_t> out;
  out.reserve(uint64_t(op.ch_end - op.ch_begin) * (op.row_end - op.row_begin) * op.output.w);
  switch (op.op) {
    case OpCode::kConv:
    case OpCode::kMaxPool:
    case OpCode::kAvgPool:
    case OpCode::kGlobalAvgPool:
      window(op, l2, out);
      break;
    case OpCode::kFullyConnected:
      fully_connected(op, l2, out);
      break;
    case OpCode::kAdd:
    case OpCode::kMul:
    case OpCode::kActivation:
      elementwise(op, l2, out);
      break;
    case OpCode::kSoftmax:
      softmax(op, l2, out);
      break;
  }
  return out;
}

}  // namespace strider
