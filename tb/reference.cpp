#include "tb/reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/common/int8_gemm.h"
#include "core/common/requant_row.h"
#include "planner/ir/value_ops.h"
#include "core/contract/quant.h"
#include "core/contract/vector_math.h"

namespace strider {
namespace {

using Bytes = std::vector<int8_t>;

// The integer activation of `n`'s fused activation.
PostAct post_act(const Node& n) {
  switch (n.activation) {
    case Activation::kNone: return PostAct::kNone;
    case Activation::kRelu: return PostAct::kRelu;
    case Activation::kRelu6: return PostAct::kClip;
    case Activation::kClip: return PostAct::kClip;
    case Activation::kSigmoid: return PostAct::kSigmoid;
    case Activation::kHardSigmoid: return PostAct::kHardSigmoid;
    case Activation::kHardSwish: return PostAct::kHardSwish;
    case Activation::kSilu: return PostAct::kSilu;
  }
  return PostAct::kNone;
}

// Whether `n` writes its output as uint8 / reads input k as uint8 (core/contract/quant.h; a
// softmax's and a MatMul's uint8 probabilities are their own case, below).
bool out_u8(const Graph& g, const Node& n) {
  return n.op != OpType::kSoftmax &&
         result_u8(g.tensors[n.result()].is_unsigned, n.residual.fused);
}
bool in_u8(const Graph& g, const Node& n, size_t k) {
  return n.op != OpType::kMatMul && g.tensors[n.inputs[k]].is_unsigned;
}

// The fused activation of `n` on a requantised value.
int8_t post(const Graph& g, const Node& n, int32_t v) {
  return activate(v, post_act(n), n.clip_min, n.clip_max, out_u8(g, n), n.lut);
}

// num / den rounded half away from zero (den > 0), from the truncated quotient and remainder.
int32_t rounded_quotient(int64_t num, int64_t den) {
  int64_t q = num / den;
  const int64_t r = num % den;
  if (2 * (r < 0 ? -r : r) >= den) q += num < 0 ? -1 : 1;
  return static_cast<int32_t>(q);
}

struct Dims {
  int64_t c, h, w;
  explicit Dims(const TensorShape& s) : c(s.c), h(s.h), w(s.w) {}
  int64_t plane() const { return h * w; }
};

// Convolution by planes: every input plane of a group is copied once into a zero-bordered plane
// covering every position a window reaches (the padding made real), from which each (input
// channel, ky, kx) is shifted into the `taps` plane of the output's size without bounds tests;
// the group's output planes are then bias + weights x taps, one int32 matrix product
// (core/common/int8_gemm.h), and are requantised after it. A uint8 input enters the product as
// u - 128 (its byte XOR 0x80; the border -128) and 128 x (the kernel's sum) is added back.
void conv(const Graph& g, const Node& n, const Bytes& in, Bytes& out, bool u8) {
  const Dims is(g.tensors[n.inputs[0]].shape), os(g.tensors[n.result()].shape);
  const Bytes& wt = g.tensors[n.weights].data;
  const std::vector<int32_t>* bias = n.bias >= 0 ? &g.tensors[n.bias].bias : nullptr;
  const int64_t cin_g = is.c / n.groups, cout_g = os.c / n.groups;
  const int64_t kh = n.kernel_h, kw = n.kernel_w, taps_per_group = cin_g * kh * kw;
  const int64_t sh = n.stride_h, sw = n.stride_w, dh = n.dilation_h, dw = n.dilation_w;
  // The bordered plane: rows -pad_top .. (oh - 1) sh + (kh - 1) dh - pad_top, columns likewise.
  const int64_t bh = (os.h - 1) * sh + (kh - 1) * dh + 1, bw = (os.w - 1) * sw + (kw - 1) * dw + 1;
  Bytes bordered(size_t(bh * bw), u8 ? int8_t{-128} : int8_t{0});
  const int64_t y_lo = std::max<int64_t>(0, n.pad_top), y_hi = std::min<int64_t>(bh, n.pad_top + is.h);
  const int64_t x_lo = std::max<int64_t>(0, n.pad_left), x_hi = std::min<int64_t>(bw, n.pad_left + is.w);
  Bytes taps(size_t(taps_per_group * os.plane()));
  std::vector<int32_t> acc(size_t(cout_g * os.plane()));
  for (int64_t group = 0; group < n.groups; ++group) {
    for (int64_t ci = 0; ci < cin_g; ++ci) {
      const int8_t* plane = &in[(group * cin_g + ci) * is.plane()];
      for (int64_t y = y_lo; y < y_hi && x_lo < x_hi; ++y) {  // the border stays zero
        const int8_t* src = plane + (y - n.pad_top) * is.w - n.pad_left;
        std::copy(src + x_lo, src + x_hi, &bordered[y * bw + x_lo]);
        if (u8) {
          for (int64_t x = x_lo; x < x_hi; ++x) bordered[y * bw + x] = int8_t(uint8_t(bordered[y * bw + x]) ^ 0x80u);
        }
      }
      for (int64_t ky = 0; ky < kh; ++ky) {
        for (int64_t kx = 0; kx < kw; ++kx) {
          int8_t* t = &taps[((ci * kh + ky) * kw + kx) * os.plane()];
          for (int64_t oy = 0; oy < os.h; ++oy) {
            const int8_t* src = &bordered[(oy * sh + ky * dh) * bw + kx * dw];
            int8_t* dst = t + oy * os.w;
            if (sw == 1) {
              std::copy(src, src + os.w, dst);
            } else {
              for (int64_t ox = 0; ox < os.w; ++ox) dst[ox] = src[ox * sw];
            }
          }
        }
      }
    }
    const int64_t co0 = group * cout_g;
    for (int64_t co = co0; co < co0 + cout_g; ++co) {
      int32_t b = bias && co < int64_t(bias->size()) ? (*bias)[co] : 0;
      if (u8) {
        for (int64_t k = 0; k < taps_per_group; ++k) b += 128 * int32_t(wt[co * taps_per_group + k]);
      }
      std::fill_n(&acc[(co - co0) * os.plane()], os.plane(), b);
    }
    gemm_s8s32(cout_g, os.plane(), taps_per_group, &wt[co0 * taps_per_group], taps_per_group,
               taps.data(), os.plane(), acc.data(), os.plane());
    int8_t* dst = &out[co0 * os.plane()];
    for (int64_t c = 0; c < cout_g; ++c) {
      requantize_row(&acc[c * os.plane()], os.plane(), n.requant_of(co0 + c), post_act(n),
                     n.clip_min, n.clip_max, dst + c * os.plane(), out_u8(g, n), n.lut);
    }
  }
}

void fully_connected(const Graph& g, const Node& n, const Bytes& in, Bytes& out) {
  const Bytes& wt = g.tensors[n.weights].data;
  const std::vector<int32_t>* bias = n.bias >= 0 ? &g.tensors[n.bias].bias : nullptr;
  const int64_t k = int64_t(in.size()), features = int64_t(out.size());
  const bool u8 = in_u8(g, n, 0);
  for (int64_t o = 0; o < features; ++o) {
    int32_t acc = bias && o < int64_t(bias->size()) ? (*bias)[o] : 0;
    const int8_t* w = &wt[o * k];
    for (int64_t i = 0; i < k; ++i) acc += int32_t(w[i]) * byte_value(in[i], u8);
    out[o] = post(g, n, requantize(acc, n.requant_of(o)));
  }
}

// Calls f(byte) for each element of the kernel_h x kernel_w window at (top, left) of an h x w
// plane that lies inside it, row by row: padding is virtual, the pads hold no element.
template <typename F>
void for_each_in_window(const int8_t* plane, const Dims& s, int64_t top, int64_t left,
                        int64_t kernel_h, int64_t kernel_w, F f) {
  for (int64_t iy = std::max<int64_t>(top, 0); iy < std::min(top + kernel_h, s.h); ++iy) {
    for (int64_t ix = std::max<int64_t>(left, 0); ix < std::min(left + kernel_w, s.w); ++ix) {
      f(plane[iy * s.w + ix]);
    }
  }
}

// Max / average pooling; padding is virtual (never a value). A global average pool requantises
// its sum (calibrator.h: s_in / (H W s_out)).
void pool(const Graph& g, const Node& n, const Bytes& in, Bytes& out) {
  const Dims is(g.tensors[n.inputs[0]].shape), os(g.tensors[n.outputs[0]].shape);
  const bool global = n.op == OpType::kGlobalAvgPool;
  const int64_t kh = global ? is.h : n.kernel_h, kw = global ? is.w : n.kernel_w;
  const int64_t sh = global ? 1 : n.stride_h, sw = global ? 1 : n.stride_w;
  const int64_t pt = global ? 0 : n.pad_top, pl = global ? 0 : n.pad_left;
  const int64_t pb = global ? 0 : n.pad_bottom, pr = global ? 0 : n.pad_right;
  const bool u8 = in_u8(g, n, 0);
  for (int64_t c = 0; c < os.c; ++c) {
    const int8_t* plane = &in[c * is.plane()];
    for (int64_t oy = 0; oy < os.h; ++oy) {
      for (int64_t ox = 0; ox < os.w; ++ox) {
        const int64_t y0 = oy * sh - pt, x0 = ox * sw - pl;
        int64_t sum = 0, count = 0;
        int32_t best = std::numeric_limits<int32_t>::min();
        for_each_in_window(plane, is, y0, x0, kh, kw, [&](int8_t b) {
          const int32_t v = byte_value(b, u8);
          sum += v;
          best = std::max(best, v);
          ++count;
        });
        int32_t v = 0;
        if (n.op == OpType::kMaxPool) {
          v = count ? best : 0;
        } else if (global) {  // the sum requantised: s_in / (H W s_out)
          v = requantize(int32_t(std::clamp<int64_t>(sum, INT32_MIN, INT32_MAX)), n.requant_multiplier,
                         n.requant_shift);
        } else {
          // count_include_pad counts the window's positions inside the padded input.
          const int64_t divisor =
              n.count_include_pad && !global
                  ? (std::min(y0 + kh, is.h + pb) - y0) * (std::min(x0 + kw, is.w + pr) - x0)
                  : count;
          v = divisor > 0 ? rounded_quotient(sum, divisor) : 0;
        }
        out[(c * os.h + oy) * os.w + ox] = post(g, n, v);
      }
    }
  }
}

void binary(const Graph& g, const Node& n, const Bytes& a, const Bytes& b, Bytes& out) {
  const Dims as(g.tensors[n.inputs[0]].shape);
  const TensorShape& bs = g.tensors[n.inputs[1]].shape;
  const bool scalar = bs.elements() == 1;
  const bool per_channel = !scalar && bs.h == 1 && bs.w == 1 && as.plane() != 1;
  std::vector<int32_t> v(a.size());
  const bool add = n.op == OpType::kAdd;  // a x m + b x m2, then the shift alone
  const bool ua = in_u8(g, n, 0), ub = in_u8(g, n, 1);
  for (int64_t i = 0; i < int64_t(a.size()); ++i) {
    const int32_t x = byte_value(a[i], ua);
    const int32_t y = byte_value(scalar ? b[0] : per_channel ? b[i / as.plane()] : b[i], ub);
    v[i] = add ? x * n.requant_multiplier + y * n.input2_multiplier : x * y;
  }
  requantize_row(v.data(), int64_t(v.size()),
                 Requant{add ? 1 : n.requant_multiplier, n.requant_shift}, post_act(n), n.clip_min,
                 n.clip_max, out.data(), out_u8(g, n), n.lut);
}

// A per-channel Mul fused into conv `n`'s input (Node::input_scale): the product M = X x s the
// conv computes on, by the Mul's own arithmetic (binary() above on a Mul node of the fused
// fields, X its first operand and s its second: the product commutes).
Bytes scaled_input(const Graph& g, const Node& n, const Bytes& x, const Bytes& s) {
  const Node::InputScaleFusion& f = n.input_scale;
  Node mul;
  mul.op = OpType::kMul;
  mul.inputs = {n.inputs[0], n.scale_input()};
  mul.outputs = {f.product};
  mul.requant_multiplier = f.multiplier;
  mul.requant_shift = f.shift;
  mul.activation = f.act;
  mul.clip_min = f.clip_min;
  mul.clip_max = f.clip_max;
  Bytes m(x.size());
  binary(g, mul, x, s, m);
  return m;
}

// A residual Add fused into conv `n` (Node::residual), on the conv's result `y` in place: the
// Add's arithmetic (binary() above) with y as the conv-side operand.
void residual_add(const Graph& g, const Node& n, const Bytes& r, Bytes& y) {
  const Node::ResidualAdd& p = n.residual;
  const bool ur = in_u8(g, n, 1);
  std::vector<int32_t> v(y.size());
  for (size_t i = 0; i < y.size(); ++i) {
    v[i] = y[i] * p.multiplier + byte_value(r[i], ur) * p.operand_multiplier;
  }
  Node add;
  add.activation = p.act;
  requantize_row(v.data(), int64_t(v.size()), Requant{1, p.shift}, post_act(add), p.clip_min,
                 p.clip_max, y.data(), g.tensors[n.result()].is_unsigned, p.lut);
}

// Softmax over each group of C / groups channels of every position with the integer exp of
// core/contract/vector_math.h; a causal softmax lets row y see the first y + 1 channels of a group.
void softmax(const Graph& g, const Node& n, const Bytes& in, Bytes& out) {
  const Dims s(g.tensors[n.inputs[0]].shape);
  const int64_t per = s.c / n.groups;
  const bool u8 = g.tensors[n.outputs[0]].is_unsigned;  // uint8 probabilities
  std::vector<int64_t> e(per);
  for (int64_t p = 0; p < s.plane(); ++p) {
    const int64_t visible = n.causal ? std::min(per, p / s.w + 1) : per;
    for (int64_t g0 = 0; g0 < s.c; g0 += per) {
      int32_t mx = -128;
      for (int64_t k = 0; k < visible; ++k) mx = std::max<int32_t>(mx, in[(g0 + k) * s.plane() + p]);
      int64_t sum = 0;
      for (int64_t k = 0; k < per; ++k) {
        e[k] = k < visible ? exp_q15(in[(g0 + k) * s.plane() + p] - mx, n.input_multiplier) : 0;
        sum += e[k];
      }
      for (int64_t k = 0; k < per; ++k) {
        out[(g0 + k) * s.plane() + p] =
            softmax_byte(e[k], sum, n.requant_multiplier, n.requant_shift, u8);
      }
    }
  }
}

// MatMul of two activations, group by group: out[g N + n][p] = sum_k A[g K + k][p] B(g, k, n).
void matmul(const Graph& g, const Node& n, const Bytes& a, const Bytes& b, Bytes& out) {
  const Dims as(g.tensors[n.inputs[0]].shape), bs(g.tensors[n.inputs[1]].shape),
      os(g.tensors[n.outputs[0]].shape);
  const int64_t k_len = as.c / n.groups, n_len = os.c / n.groups;
  const bool ua = g.tensors[n.inputs[0]].is_unsigned;  // A holds uint8 probabilities
  for (int64_t grp = 0; grp < n.groups; ++grp) {
    for (int64_t j = 0; j < n_len; ++j) {
      for (int64_t p = 0; p < as.plane(); ++p) {
        int32_t acc = 0;
        for (int64_t k = 0; k < k_len; ++k) {
          const int8_t y = n.transpose_b ? b[(grp * k_len + k) * bs.plane() + j]
                                         : b[(grp * n_len + j) * bs.plane() + k];
          const int8_t av = a[(grp * k_len + k) * as.plane() + p];
          acc += (ua ? int32_t(uint8_t(av)) : int32_t(av)) * y;
        }
        out[(grp * n_len + j) * os.plane() + p] = post(g, n, requantize(acc, n.requant_multiplier, n.requant_shift));
      }
    }
  }
}

// LayerNorm of every position over the channels (core/contract/vector_math.h), x gamma + beta.
void layernorm(const Graph& g, const Node& n, const Bytes& in, Bytes& out) {
  const Dims s(g.tensors[n.inputs[0]].shape);
  const Bytes& gamma = g.tensors[n.weights].data;
  const std::vector<int32_t>* beta = n.bias >= 0 ? &g.tensors[n.bias].bias : nullptr;
  std::vector<int64_t> d(s.c);
  for (int64_t p = 0; p < s.plane(); ++p) {
    int64_t sum = 0;
    for (int64_t c = 0; c < s.c; ++c) sum += in[c * s.plane() + p];
    uint64_t sq = 0;
    for (int64_t c = 0; c < s.c; ++c) {
      d[c] = s.c * in[c * s.plane() + p] - sum;
      sq += uint64_t(d[c] * d[c]);
    }
    const uint64_t r = layernorm_root(sq, uint64_t(s.c), n.input_multiplier);
    for (int64_t c = 0; c < s.c; ++c) {
      const int32_t acc = layernorm_value(d[c], r) * gamma[c] + (beta ? (*beta)[c] : 0);
      out[c * s.plane() + p] = saturate8(requantize(acc, n.requant_multiplier, n.requant_shift));
    }
  }
}

// InstanceNorm of every channel over its positions (the LayerNorm arithmetic of
// core/contract/vector_math.h with D = H x W), x gamma + beta; one image.
void instancenorm(const Graph& g, const Node& n, const Bytes& in, Bytes& out) {
  const Dims s(g.tensors[n.inputs[0]].shape);
  const Bytes& gamma = g.tensors[n.weights].data;
  const std::vector<int32_t>* beta = n.bias >= 0 ? &g.tensors[n.bias].bias : nullptr;
  const int64_t np = s.plane();
  std::vector<int64_t> d(static_cast<size_t>(np));
  for (int64_t c = 0; c < s.c; ++c) {
    const int8_t* x = &in[size_t(c * np)];
    int64_t sum = 0;
    for (int64_t p = 0; p < np; ++p) sum += x[p];
    uint64_t sq = 0;
    for (int64_t p = 0; p < np; ++p) {
      d[p] = np * x[p] - sum;
      sq += uint64_t(d[p] * d[p]);
    }
    const uint64_t r = layernorm_root(sq, uint64_t(np), n.input_multiplier);
    for (int64_t p = 0; p < np; ++p) {
      const int32_t acc = layernorm_value(d[p], r) * gamma[c] + (beta ? (*beta)[c] : 0);
      out[size_t(c * np + p)] = saturate8(requantize(acc, n.requant_multiplier, n.requant_shift));
    }
  }
}

}  // namespace

Reference::Reference(const Graph& g) : g_(g), values_(g.tensors.size()) {}

void Reference::set_input(int tensor, std::vector<int8_t> bytes) {
  const Tensor& t = g_.tensors.at(tensor);
  if (int64_t(bytes.size()) != t.shape.elements()) {
    throw std::runtime_error("reference: input '" + t.name + "' needs " +
                             std::to_string(t.shape.elements()) + " bytes, got " +
                             std::to_string(bytes.size()));
  }
  values_[tensor] = std::move(bytes);
}

void Reference::run() {
  for (const Node& n : g_.nodes) run_node(n);
}

void Reference::run_node(const Node& n) {
  std::vector<const Bytes*> in;
  for (int t : n.inputs) {
    if (values_[t].empty() && g_.tensors[t].shape.elements() > 0) {
      throw std::runtime_error("reference: node '" + n.name + "' reads tensor '" +
                               g_.tensors[t].name + "' before it has a value");
    }
    in.push_back(&values_[t]);
  }
  std::vector<Bytes> out;
  for (int t : n.outputs) out.emplace_back(size_t(g_.tensors[t].shape.elements()), int8_t{0});
  for_each_image(g_, n, in, out, [&](const std::vector<const Bytes*>& in_image,
                                      std::vector<Bytes>& out_image) {
    if (!move_values(g_, n, in_image, out_image)) compute(n, in_image, out_image);
  });
  for (size_t k = 0; k < out.size(); ++k) values_[n.outputs[k]] = std::move(out[k]);
}

// A max-pool fused into conv `n` (Node::pool) over the conv's result `y`: each output element the
// largest of its window's elements inside the result (the pads hold none), compared as uint8
// when the output is unsigned.
void fused_max_pool(const Graph& g, const Node& n, const Bytes& y, Bytes& out) {
  const Dims ys(g.tensors[n.pool.conv_output].shape), os(g.tensors[n.outputs[0]].shape);
  const bool u8 = out_u8(g, n);
  for (int64_t c = 0; c < os.c; ++c) {
    for (int64_t oy = 0; oy < os.h; ++oy) {
      for (int64_t ox = 0; ox < os.w; ++ox) {
        const int64_t top = oy * n.pool.stride_h - n.pool.pad_top;
        const int64_t left = ox * n.pool.stride_w - n.pool.pad_left;
        int32_t best = INT32_MIN;
        int8_t byte = 0;
        for_each_in_window(&y[c * ys.plane()], ys, top, left, n.pool.kernel_h, n.pool.kernel_w,
                           [&](int8_t b) {
                             if (byte_value(b, u8) > best) best = byte_value(b, u8), byte = b;
                           });
        out[(c * os.h + oy) * os.w + ox] = byte;
      }
    }
  }
}

// A global average pool fused into conv `n` (Node::gap) over the conv's result `y` (its
// residual Add applied): per channel the sum of its H x W values, requantised by the pool's
// multiplier and shift, activated and clipped — the separate pool's arithmetic (pool() above).
void fused_global_pool(const Graph& g, const Node& n, const Bytes& y, Bytes& out) {
  const Dims ys(g.tensors[n.result()].shape);
  const bool in8 = g.tensors[n.result()].is_unsigned, out8 = g.tensors[n.gap.output].is_unsigned;
  Node pool;
  pool.activation = n.gap.act;
  for (int64_t c = 0; c < ys.c; ++c) {
    int64_t sum = 0;
    for (int64_t i = 0; i < ys.plane(); ++i) sum += byte_value(y[size_t(c * ys.plane() + i)], in8);
    const int32_t v = requantize(int32_t(std::clamp<int64_t>(sum, INT32_MIN, INT32_MAX)),
                                 n.gap.requant_multiplier, n.gap.requant_shift);
    out[size_t(c)] = activate(v, post_act(pool), n.gap.clip_min, n.gap.clip_max, out8);
  }
}

void Reference::compute(const Node& n, const std::vector<const Bytes*>& in,
                        std::vector<Bytes>& out) const {
  switch (n.op) {
    case OpType::kConv: {
      // A fused input scale: the conv computes on the Mul's product (its signedness).
      const Bytes x = n.input_scale.fused ? scaled_input(g_, n, *in[0], *in.back()) : Bytes();
      const Bytes& operand = n.input_scale.fused ? x : *in[0];
      const bool u8 = n.input_scale.fused ? g_.tensors[size_t(n.input_scale.product)].is_unsigned
                                          : in_u8(g_, n, 0);
      if (n.pool.fused) {
        Bytes y(size_t(g_.tensors[n.pool.conv_output].shape.elements() /
                       std::max<int64_t>(1, g_.tensors[n.pool.conv_output].shape.n)));
        conv(g_, n, operand, y, u8);
        fused_max_pool(g_, n, y, out[0]);
        break;
      }
      if (n.gap.fused && n.gap.conv_output >= 0) {  // the conv's result is never stored
        Bytes y(size_t(g_.tensors[n.gap.conv_output].shape.elements()));
        conv(g_, n, operand, y, u8);
        if (n.residual.fused) residual_add(g_, n, *in[1], y);
        fused_global_pool(g_, n, y, out[0]);
        break;
      }
      conv(g_, n, operand, out[0], u8);
      if (n.residual.fused) residual_add(g_, n, *in[1], out[0]);
      if (n.gap.fused) fused_global_pool(g_, n, out[0], out[1]);
      break;
    }
    case OpType::kFullyConnected: fully_connected(g_, n, *in[0], out[0]); break;
    case OpType::kMaxPool:
    case OpType::kAvgPool:
    case OpType::kGlobalAvgPool: pool(g_, n, *in[0], out[0]); break;
    case OpType::kAdd:
    case OpType::kMul: binary(g_, n, *in[0], *in[1], out[0]); break;
    case OpType::kActivation: {
      // LeakyRelu / PRelu: a negative input takes its channel's requantisation (the slope's).
      const TensorShape& s = g_.tensors[n.inputs[0]].shape;
      const size_t plane = size_t(s.h * s.w);
      const bool sloped = !n.negative_slope.empty();
      const bool u8 = in_u8(g_, n, 0);
      for (size_t i = 0; i < out[0].size(); ++i) {
        const int32_t x = byte_value((*in[0])[i], u8);
        const Requant r = sloped && x < 0 ? n.channel_requant[i / plane % size_t(s.c)]
                                          : Requant{n.requant_multiplier, n.requant_shift};
        out[0][i] = post(g_, n, requantize(x, r));
      }
      break;
    }
    case OpType::kSoftmax: softmax(g_, n, *in[0], out[0]); break;
    case OpType::kMatMul: matmul(g_, n, *in[0], *in[1], out[0]); break;
    case OpType::kLayerNorm: layernorm(g_, n, *in[0], out[0]); break;
    case OpType::kInstanceNorm: instancenorm(g_, n, *in[0], out[0]); break;
    case OpType::kGelu:
      for (size_t i = 0; i < out[0].size(); ++i) {
        out[0][i] = gelu((*in[0])[i], n.input_multiplier, n.requant_multiplier, n.requant_shift);
      }
      break;
    case OpType::kConcat:
    case OpType::kReshape:
    case OpType::kSplit:
    case OpType::kSlice:
    case OpType::kChannelShuffle:
    case OpType::kGather:
    case OpType::kPad:
      break;  // moved by move_values
  }
}

}  // namespace strider
