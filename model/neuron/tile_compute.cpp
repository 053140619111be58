#include "model/neuron/tile_compute.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/common/int8_gemm.h"
#include "core/common/requant_row.h"
#include "core/common/window_row.h"
#include "core/contract/quant.h"

namespace strider {
namespace {

// One operand read out of L2 once: the channels and rows its buffer holds (a whole tensor or a
// band of one), addressed in the tensor's own coordinates.
void read_operand(const TensorRef& t, const TimedMemory& l2, std::vector<int8_t>& bytes) {
  const uint64_t span = uint64_t(t.held_channels() - 1) * t.channel_stride +
                        uint64_t(t.held_rows() - 1) * t.row_stride + uint64_t(t.w) * t.element_bytes;
  bytes.resize(span);
  l2.read(t.addr, bytes.data(), span);
}

// A fused input scale (OpDesc::input_scale) on op.input's bytes as read_operand read them: every
// element x of channel c becomes the Mul's product activate(requantize(x s_c, multiplier,
// shift), act, clip), what the load path writes into the lines (elementwise()'s arithmetic:
// the same requantize_row). Only the elements the buffer holds (w per held row) are touched.
void apply_input_scale(const OpDesc& op, const TimedMemory& l2, std::vector<int8_t>& bytes) {
  const InputScale& s = op.input_scale;
  if (!s.present()) return;
  const TensorRef& t = op.input;
  const bool ux = op.flags & OpDesc::kInputUnsigned, us = s.flags & InputScale::kScaleUnsigned;
  const bool up = s.flags & InputScale::kProductUnsigned;
  std::vector<int32_t> v(t.w);
  for (uint32_t c = t.first_channel; c < t.first_channel + t.held_channels(); ++c) {
    int8_t sb = 0;
    l2.read(s.scale.addr + s.scale.offset(c, 0, 0), &sb, 1);
    const int32_t sv = byte_value(sb, us);
    for (uint32_t y = t.first_row; y < t.first_row + t.held_rows(); ++y) {
      int8_t* row = &bytes[t.offset(c, y, 0)];
      for (uint32_t x = 0; x < t.w; ++x) v[x] = byte_value(row[x], ux) * sv;
      requantize_row(v.data(), t.w, Requant{s.multiplier, s.shift}, s.act, s.clip_min, s.clip_max,
                     row, up);
    }
  }
}

// Whether the values a conv or fc multiplies are uint8: the input's, or a fused input scale's
// product's.
bool operand_u8(const OpDesc& op) {
  return op.input_scale.present() ? (op.input_scale.flags & InputScale::kProductUnsigned) != 0
                                  : (op.flags & OpDesc::kInputUnsigned) != 0;
}

class Operand {
 public:
  Operand(const TensorRef& t, const TimedMemory& l2) : t_(t) {
    read_operand(t, l2, own_);
    bytes_ = own_.data();
  }
  Operand(const TensorRef& t, const std::vector<int8_t>& bytes) : t_(t), bytes_(bytes.data()) {}
  const int8_t* row(uint32_t c, uint32_t y) const { return &bytes_[t_.offset(c, y, 0)]; }
  int8_t at(uint32_t c, uint32_t y, uint32_t x) const { return bytes_[t_.offset(c, y, x)]; }

 private:
  const TensorRef& t_;
  std::vector<int8_t> own_;
  const int8_t* bytes_;
};

std::vector<int8_t> read_all(const TensorRef& t, const TimedMemory& l2) {
  std::vector<int8_t> v(t.present() ? t.held_bytes() : 0);
  if (!v.empty()) l2.read(t.addr, v.data(), v.size());
  return v;
}

// Element i of a little-endian int32 operand (biases, partial sums); 0 when there is none.
int32_t int32_at(const std::vector<int8_t>& raw, uint32_t i) {
  if (raw.empty()) return 0;
  uint32_t v = 0;
  for (int b = 0; b < 4; ++b) v |= uint32_t(uint8_t(raw[4 * i + b])) << (8 * b);
  return static_cast<int32_t>(v);
}

int32_t div_round_away(int64_t num, int64_t den) {
  return static_cast<int32_t>(num >= 0 ? (2 * num + den) / (2 * den) : -((-2 * num + den) / (2 * den)));
}

bool input_u8(const OpDesc& op) { return op.flags & OpDesc::kInputUnsigned; }
bool output_u8(const OpDesc& op) {
  return result_u8(op.flags & OpDesc::kOutputUnsigned, op.post.present());
}

int8_t finish(const OpDesc& op, int32_t v) {
  return activate(v, op.act, op.clip_min, op.clip_max, output_u8(op), op.lut);
}

// Max / average pooling over the valid part of each window (padding is virtual). With
// count_include_pad the average divides by the window's positions inside the padded input. A
// global average pool requantises its sum instead (to an output scale of its own).
void pool(const OpDesc& op, const TimedMemory& l2, std::vector<int8_t>& out) {
  const Operand in(op.input, l2);
  const bool u8 = input_u8(op);
  const int64_t h = op.input.h, w = op.input.w;
  for (uint32_t c = op.ch_begin; c < op.ch_end; ++c) {
    for (uint32_t y = op.row_begin; y < op.row_end; ++y) {
      const int64_t y0 = int64_t(y) * op.stride_h - op.pad_top;
      const int64_t ya = std::max<int64_t>(y0, 0), yb = std::min<int64_t>(y0 + op.kernel_h, h);
      for (uint32_t x = 0; x < op.output.w; ++x) {
        const int64_t x0 = int64_t(x) * op.stride_w - op.pad_left;
        const int64_t xa = std::max<int64_t>(x0, 0), xb = std::min<int64_t>(x0 + op.kernel_w, w);
        int64_t sum = 0;
        int32_t best = std::numeric_limits<int32_t>::min();
        for (int64_t iy = ya; iy < yb; ++iy) {
          const int8_t* row = in.row(c, uint32_t(iy));
          for (int64_t ix = xa; ix < xb; ++ix) {
            const int32_t v = byte_value(row[ix], u8);
            sum += v;
            best = std::max(best, v);
          }
        }
        const int64_t valid = std::max<int64_t>(0, yb - ya) * std::max<int64_t>(0, xb - xa);
        int32_t v = 0;
        if (op.op == OpCode::kMaxPool) {
          v = valid ? best : 0;
        } else if (op.op == OpCode::kGlobalAvgPool) {  // the sum requantised (s_in / (H W s_out))
          v = requantize(int32_t(std::clamp<int64_t>(sum, INT32_MIN, INT32_MAX)), op.requant_multiplier,
                         op.requant_shift);
        } else {
          const int64_t count =
              op.count_include_pad ? (std::min<int64_t>(y0 + op.kernel_h, h + op.pad_bottom) - y0) *
                                         (std::min<int64_t>(x0 + op.kernel_w, w + op.pad_right) - x0)
                                   : valid;
          v = count > 0 ? div_round_away(sum, count) : 0;
        }
        out.push_back(finish(op, v));
      }
    }
  }
}

void fully_connected(const OpDesc& op, const TimedMemory& l2, std::vector<int8_t>& out) {
  std::vector<int8_t> scaled;
  read_operand(op.input, l2, scaled);
  apply_input_scale(op, l2, scaled);
  const Operand a(op.input, scaled);
  std::vector<int8_t> in;  // the input flattened to C*H*W
  for (uint32_t c = 0; c < op.input.c; ++c) {
    for (uint32_t y = 0; y < op.input.h; ++y) {
      const int8_t* row = a.row(c, y);
      in.insert(in.end(), row, row + op.input.w);
    }
  }
  const std::vector<int8_t> w = read_all(op.weights, l2), braw = read_all(op.bias, l2);
  const uint64_t k = in.size();
  const bool u8 = operand_u8(op);
  for (uint32_t co = op.ch_begin; co < op.ch_end; ++co) {
    int32_t acc = int32_at(braw, co - op.ch_begin);
    const int8_t* row = &w[(co - op.ch_begin) * k];
    for (uint64_t i = 0; i < k; ++i) acc += byte_value(in[i], u8) * row[i];
    out.push_back(finish(op, requantize(acc, op.requant_of(co))));
  }
}

// Row by row: only the tile's rows of the operands are read (the second one broadcast over its
// size-1 dimensions), the int32 results requantised as one row.
void elementwise(const OpDesc& op, const TimedMemory& l2, std::vector<int8_t>& out) {
  const TensorRef& a = op.input;
  const TensorRef& r = op.input2;
  const bool binary = r.present();
  const uint32_t w = op.output.w;
  std::vector<int8_t> row_a(w), row_b(binary ? r.w : 0);
  std::vector<int32_t> v(w);
  const bool ua = input_u8(op), ub = op.flags & OpDesc::kInput2Unsigned;
  for (uint32_t c = op.ch_begin; c < op.ch_end; ++c) {
    for (uint32_t y = op.row_begin; y < op.row_end; ++y) {
      l2.read(a.addr + a.offset(c, y, 0), row_a.data(), w);
      // Add scales each operand by its multiplier and shifts the sum (multiplier 1 after it).
      const bool add = op.op == OpCode::kAdd;
      for (uint32_t x = 0; x < w; ++x) {
        const int32_t av = byte_value(row_a[x], ua);
        v[x] = add ? av * op.requant_multiplier : av;
      }
      if (binary) {
        l2.read(r.addr + r.offset(r.c == 1 ? 0 : c, r.h == 1 ? 0 : y, 0), row_b.data(), r.w);
        for (uint32_t x = 0; x < w; ++x) {
          const int32_t bv = byte_value(row_b[r.w == 1 ? 0 : x], ub);
          v[x] = add ? v[x] + bv * op.input2_multiplier : v[x] * bv;
        }
      }
      const size_t base = out.size();
      out.resize(base + w);
      if (op.op == OpCode::kActivation && !op.channel_requant.empty()) {
        // LeakyRelu / PRelu: the post-op selects the requantisation by the input's sign, the
        // negative one carrying the channel's slope (one multiply and one rounding either way).
        const Requant pos{op.requant_multiplier, op.requant_shift}, neg = op.requant_of(c);
        for (uint32_t x = 0; x < w; ++x) out[base + x] = finish(op, requantize(v[x], v[x] < 0 ? neg : pos));
        continue;
      }
      requantize_row(v.data(), w, Requant{add ? 1 : op.requant_multiplier, op.requant_shift},
                     op.act, op.clip_min, op.clip_max, &out[base], output_u8(op), op.lut);
    }
  }
}

// Matrix multiply of two activations: output channel c = g N + n of position p reduces
// A[g K + k][p] x B(g, k, n) over k; B(g, k, n) is input2[g N + n][k], or input2[g K + k][n] with
// kTransposeB (positions of B are its rows x columns); A is uint8 with kUnsigned. No bias;
// requantised like a conv.
void matmul(const OpDesc& op, const TimedMemory& l2, std::vector<int8_t>& out) {
  const Operand a(op.input, l2), b(op.input2, l2);
  const uint32_t k_len = op.input.c / op.groups, n_len = op.output.c / op.groups;
  const bool tb = op.flags & OpDesc::kTransposeB;
  const bool ua = op.flags & OpDesc::kUnsigned;  // A holds uint8 (softmax probabilities)
  const uint32_t bw = op.input2.w;
  for (uint32_t c = op.ch_begin; c < op.ch_end; ++c) {
    const uint32_t g = c / n_len, n = c % n_len;
    for (uint32_t y = op.row_begin; y < op.row_end; ++y) {
      for (uint32_t x = 0; x < op.output.w; ++x) {
        int32_t acc = 0;
        for (uint32_t k = 0; k < k_len; ++k) {
          const int8_t bv = tb ? b.at(g * k_len + k, n / bw, n % bw) : b.at(c, k / bw, k % bw);
          const int8_t av = a.at(g * k_len + k, y, x);
          acc += (ua ? int32_t(uint8_t(av)) : int32_t(av)) * bv;
        }
        out.push_back(finish(op, requantize(acc, op.requant_multiplier, op.requant_shift)));
      }
    }
  }
}

}  // namespace

bool TileCompute::LinesKey::operator==(const LinesKey& o) const {
  return input == o.input && kernel_h == o.kernel_h && kernel_w == o.kernel_w &&
         stride_h == o.stride_h && stride_w == o.stride_w && pad_top == o.pad_top &&
         pad_left == o.pad_left && dilation_h == o.dilation_h && dilation_w == o.dilation_w &&
         groups == o.groups && row_begin == o.row_begin && row_end == o.row_end &&
         output_c == o.output_c && output_w == o.output_w && group == o.group && i0 == o.i0 &&
         i1 == o.i1 && u8 == o.u8;
}

// Every output position of the tile is one neuron's line holding its window (input channel,
// kernel row, kernel column; virtual padding as zeros), stored slot-major: row s of the lines
// is slot s of every position. A uint8 input's lines hold value - 128 (its byte XOR 0x80, int8),
// padding -128; conv() adds 128 x (the kernel's sum) back.
const int8_t* TileCompute::lines(const OpDesc& op, uint32_t g, uint32_t i0, uint32_t i1) {
  const LinesKey key{op.input,     op.kernel_h, op.kernel_w,  op.stride_h,  op.stride_w,
                     op.pad_top,   op.pad_left, op.dilation_h, op.dilation_w, op.groups,
                     op.row_begin, op.row_end,  op.output.c,  op.output.w,  g,
                     i0,           i1,          operand_u8(op)};
  if (lines_valid_ && key == lines_key_) return lines_.get();
  const uint32_t wo = op.output.w, cin_g = op.input.c / op.groups;
  const uint64_t size = uint64_t(i1 - i0) * op.kernel_h * op.kernel_w * (op.row_end - op.row_begin) * wo;
  // Every element is written before it is read: no zero fill (it cost as much as the MACs).
  if (size > lines_capacity_) {
    lines_.reset(new int8_t[size]);
    lines_capacity_ = size;
  }
  const Operand in(op.input, lines_in_);
  const int8_t pad = key.u8 ? int8_t{-128} : int8_t{0};
  int8_t* dst = lines_.get();
  for (uint32_t ci = i0; ci < i1; ++ci) {
    for (uint32_t ky = 0; ky < op.kernel_h; ++ky) {
      for (uint32_t kx = 0; kx < op.kernel_w; ++kx) {
        const int64_t first = int64_t(kx) * op.dilation_w - op.pad_left;
        const WindowSpan span(op.input.w, first, op.stride_w, wo);
        for (uint32_t y = op.row_begin; y < op.row_end; ++y, dst += wo) {
          const int64_t iy = int64_t(y) * op.stride_h - op.pad_top + int64_t(ky) * op.dilation_h;
          if (iy < 0 || iy >= op.input.h) {
            std::fill(dst, dst + wo, pad);
            continue;
          }
          window_row(in.row(g * cin_g + ci, uint32_t(iy)), first, op.stride_w, span, dst, wo, pad);
        }
      }
    }
  }
  lines_key_ = key;
  lines_valid_ = true;
  return lines_.get();
}

// Convolution as the neurons see it: each output channel is the dot product of the broadcast
// kernel with every line. The lines are built once per channel group and the tile's channels
// of that group accumulate as one int32 matrix product (core/common/int8_gemm.h: kernels x lines);
// requantisation follows.
void TileCompute::conv(const OpDesc& op, const TimedMemory& l2, std::vector<int8_t>& out) {
  // The input bytes; the lines kept from the previous tile stay valid only if they are the same.
  read_operand(op.input, l2, in_);
  apply_input_scale(op, l2, in_);  // the load path's multiplier + requantiser
  const bool u8 = operand_u8(op);
  if (u8) {  // uint8 u as the int8 u - 128
    for (int8_t& b : in_) b = int8_t(uint8_t(b) ^ 0x80u);
  }
  if (in_ != lines_in_) {
    lines_in_.swap(in_);
    lines_valid_ = false;
  }
  const std::vector<int8_t> w = read_all(op.weights, l2), braw = read_all(op.bias, l2);
  const uint64_t positions = uint64_t(op.row_end - op.row_begin) * op.output.w;
  const uint32_t cin_g = op.input.c / op.groups, cout_g = op.output.c / op.groups;
  // Input channels of the group this tile reduces over (an input-channel block, or all).
  const uint32_t i0 = op.in_ch_end ? op.in_ch_begin : 0, i1 = op.in_ch_end ? op.in_ch_end : cin_g;
  const uint64_t slots = uint64_t(i1 - i0) * op.kernel_h * op.kernel_w;
  std::vector<int8_t> psum;  // int32 little-endian partial sums of the tile
  if (op.psum_mode & OpDesc::kPsumRead) psum = read_all(op.psum, l2);
  for (uint32_t c0 = op.ch_begin; c0 < op.ch_end;) {
    const uint32_t g = c0 / cout_g, c1 = std::min(op.ch_end, (g + 1) * cout_g);
    const int8_t* group_lines = lines(op, g, i0, i1);
    // The group's channels: bias (or the partial sums read back), then + kernels x lines.
    acc_.resize(uint64_t(c1 - c0) * positions);
    for (uint32_t co = c0; co < c1; ++co) {
      int32_t* a = &acc_[uint64_t(co - c0) * positions];
      // uint8 input: the lines hold u - 128, so sum w u = sum w (u - 128) + 128 sum w.
      int32_t offset = 0;
      if (u8) {
        const int8_t* k = &w[(co - op.ch_begin) * slots];
        for (uint64_t s = 0; s < slots; ++s) offset += 128 * int32_t(k[s]);
      }
      if (psum.empty()) {
        std::fill(a, a + positions, int32_at(braw, co - op.ch_begin) + offset);
      } else {
        for (uint64_t p = 0; p < positions; ++p) a[p] = int32_at(psum, (co - op.ch_begin) * positions + p) + offset;
      }
    }
    gemm_s8s32(c1 - c0, int64_t(positions), int64_t(slots), &w[(c0 - op.ch_begin) * slots],
               int64_t(slots), group_lines, int64_t(positions), acc_.data(), int64_t(positions));
    const size_t base = out.size();
    if (op.psum_mode & OpDesc::kPsumWrite) {
      out.resize(base + 4 * acc_.size());
      for (size_t i = 0; i < acc_.size(); ++i) {
        for (int b = 0; b < 4; ++b) out[base + 4 * i + b] = int8_t((uint32_t(acc_[i]) >> (8 * b)) & 0xff);
      }
    } else {
      out.resize(base + acc_.size());
      for (uint32_t co = c0; co < c1; ++co) {
        const size_t first = size_t(co - c0) * positions;
        requantize_row(&acc_[first], int64_t(positions), op.requant_of(co), op.act, op.clip_min,
                       op.clip_max, &out[base + first], output_u8(op), op.lut);
      }
    }
    c0 = c1;
  }
}

std::vector<int8_t> TileCompute::compute(const OpDesc& op, const TimedMemory& l2) {
  std::vector<int8_t> out;
  out.reserve(uint64_t(op.ch_end - op.ch_begin) * (op.row_end - op.row_begin) * op.output.w);
  switch (op.op) {
    case OpCode::kConv:
      conv(op, l2, out);
      break;
    case OpCode::kMaxPool:
    case OpCode::kAvgPool:
    case OpCode::kGlobalAvgPool:
      pool(op, l2, out);
      break;
    case OpCode::kFullyConnected:
      fully_connected(op, l2, out);
      break;
    case OpCode::kAdd:
    case OpCode::kMul:
    case OpCode::kActivation:
      elementwise(op, l2, out);
      break;
    case OpCode::kMatMul:
      matmul(op, l2, out);
      break;
    case OpCode::kSoftmax:  // vector-unit ops (model/vector) never reach the neurons
    case OpCode::kLayerNorm:
    case OpCode::kGelu:
    case OpCode::kInstanceNorm:
      throw std::logic_error(std::string("compute_tile: ") + to_string(op.op) +
                             " runs on the vector unit");
  }
  return out;
}

std::vector<int8_t> compute_tile(const OpDesc& op, const TimedMemory& l2) {
  TileCompute t;
  return t.compute(op, l2);
}

}  // namespace strider
