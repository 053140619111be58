// Integer arithmetic shared by the hardware model and the reference: requantisation of an int32
// accumulator to int8 and the fused activations. This is the numeric contract of the
// accelerator; the model and the reference implement their loops independently on top of it.
//
// requantize(acc, m, s) = round_half_away_from_zero(acc * m / 2^s), saturated to int8.
// Sigmoid-family activations use a 256-entry lookup table over the int8 input q (lut_entry):
// f(q s_in) in the output unit, 1/127 for sigmoid and hard-sigmoid and s_out for hard-swish and
// SiLU; rounded half away from zero. s_in and s_out are the layer's calibrated scales, carried
// in the descriptor (OpDesc::lut, each multiplier / 2^shift); the table costs no cycles.
//
// Unsigned activations (OpDesc::kInputUnsigned / kInput2Unsigned / kOutputUnsigned): a tensor
// every value of which is >= 0 (a ReLU's, a ReLU6's, a sigmoid's output) may be stored as uint8
// with zero point 0, one more bit than int8 at the same range; its byte b then holds the value
// uint8_t(b) (byte_value), and an unsigned output saturates to [0, 255] (saturate_out); the
// sigmoid and hard-sigmoid tables then give 255 f(x) (scale 1/255).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "core/contract/descriptor.h"

namespace strider {

// v / 2^shift rounded half away from zero (v * 2^-shift for a negative shift), saturated to
// int32 so that the int8 saturation after it sees the right sign.
inline int32_t round_shift(int64_t v, int32_t shift) {
  int64_t r;
  if (shift <= 0) {  // multiply (shifting a negative value is UB), saturating on overflow
    const int k = std::min(-shift, 31);
    r = v > (INT64_MAX >> k) ? INT64_MAX : v < (INT64_MIN >> k) ? INT64_MIN : v * (int64_t{1} << k);
  } else if (shift > 62) {  // |v| < 2^62 (an int32 times an int32): rounds to zero
    r = 0;
  } else {
    const int64_t half = int64_t{1} << (shift - 1);
    r = v >= 0 ? (v + half) >> shift : -((-v + half) >> shift);
  }
  return static_cast<int32_t>(std::clamp<int64_t>(r, INT32_MIN, INT32_MAX));
}

inline int32_t requantize(int32_t acc, int32_t multiplier, int32_t shift) {
  return round_shift(static_cast<int64_t>(acc) * multiplier, shift);
}
inline int32_t requantize(int32_t acc, Requant r) { return requantize(acc, r.multiplier, r.shift); }

// multiplier in [2^14, 2^15) and shift >= 0 with multiplier / 2^shift ~= scale (scale > 0;
// anything else gives 1 / 2^0). Very large scales keep shift 0 and a multiplier up to 2^30.
inline Requant quantize_multiplier(double scale) {
  if (!(scale > 0.0) || !std::isfinite(scale)) scale = 1.0;
  int exponent = 0;
  const double mantissa = std::frexp(scale, &exponent);  // scale = mantissa * 2^exponent
  int64_t multiplier = std::llround(mantissa * 32768.0);
  int shift = 15 - exponent;
  if (multiplier == 32768) {
    multiplier = 16384;
    --shift;
  }
  while (shift < 0 && multiplier < (int64_t{1} << 30)) {
    multiplier <<= 1;
    ++shift;
  }
  if (shift < 0) shift = 0;
  while (shift > 62) {
    multiplier >>= 1;
    --shift;
  }
  return {static_cast<int32_t>(multiplier < 1 ? 1 : multiplier), shift};
}

inline int8_t saturate8(int32_t v) { return static_cast<int8_t>(std::clamp(v, -128, 127)); }

// v saturated to [0, 255] and stored as the byte of that uint8 (u8), or saturate8(v).
inline int8_t saturate_out(int32_t v, bool u8) {
  return u8 ? static_cast<int8_t>(static_cast<uint8_t>(std::clamp(v, 0, 255))) : saturate8(v);
}

// The value a stored byte holds: uint8_t(b) for an unsigned tensor, else int8 b.
inline int32_t byte_value(int8_t b, bool u8) { return u8 ? int32_t(uint8_t(b)) : int32_t(b); }

// Whether an op's own result is uint8: its output is (`output_u8`, OpDesc::kOutputUnsigned) and
// no residual Add is fused after it. With a fused Add (OpDesc::post, Node::residual) the flag
// names the Add's output; the conv's own result, the Add's first operand, stays int8, so
// fuse_residual_adds leaves a conv whose output is uint8 unfused.
inline bool result_u8(bool output_u8, bool fused_add) { return output_u8 && !fused_add; }

inline int32_t round_away(double x) { return static_cast<int32_t>(x < 0 ? -std::floor(-x + 0.5) : std::floor(x + 0.5)); }

// The lookup activations' table (kSigmoid, kHardSigmoid, kHardSwish, kSilu): the entry for the
// int8 input q is f(x) at x = q s_in, expressed in the output unit: round_half_away(f(x) / s_out)
// for the swishes (x f(x)), round_half_away(unit f(x)) for the sigmoids (unit 127, or 255 when
// u8: s_out is then 1 / unit and the argument is unused), saturated to int8 (uint8 when u8). A
// layer's table is this function at its calibrated scales (LutScales, lut_scale); an
// uncalibrated graph's are kLutFixedScale (LutScales' default).
constexpr double kLutFixedScale = 1.0 / 16;
inline int8_t lut_entry(int8_t q, PostAct act, double s_in, double s_out, bool u8 = false) {
  const double x = q * s_in;
  const double unit = u8 ? 255.0 : 127.0;  // the sigmoids' 1: scale 1/127, or 1/255 unsigned
  const double hard = std::clamp(x / 6.0 + 0.5, 0.0, 1.0);
  const double denominator = 1.0 + std::exp(-x);  // sigmoid(x) = 1 / denominator
  switch (act) {
    case PostAct::kSigmoid: return saturate_out(round_away(unit / denominator), u8);
    case PostAct::kHardSigmoid: return saturate_out(round_away(unit * hard), u8);
    case PostAct::kHardSwish: return saturate_out(round_away(x * hard / s_out), u8);
    case PostAct::kSilu: return saturate_out(round_away(x / denominator / s_out), u8);
    default: return saturate_out(q, u8);  // not a lookup activation: the identity
  }
}

// The real scale a table scale stands for: multiplier / 2^shift (exact in a double).
inline double lut_scale(Requant r) { return std::ldexp(double(r.multiplier), -r.shift); }

inline bool is_lookup(PostAct act) {
  return act == PostAct::kSigmoid || act == PostAct::kHardSigmoid || act == PostAct::kHardSwish ||
         act == PostAct::kSilu;
}

// The whole table of a lookup activation at scales `lut`: entry q + 128 is lut_entry(q, ...).
inline std::array<int8_t, 256> lut_table(PostAct act, LutScales lut, bool u8 = false) {
  std::array<int8_t, 256> t{};
  const double s_in = lut_scale(lut.in), s_out = lut_scale(lut.out);
  for (int q = -128; q <= 127; ++q) t[size_t(q + 128)] = lut_entry(int8_t(q), act, s_in, s_out, u8);
  return t;
}

// Applies the fused activation to an already requantised value and saturates to int8 (uint8
// when u8: the byte of the uint8). The lookup activations index their table (at scales `lut`)
// by the value saturated to int8.
inline int8_t activate(int32_t v, PostAct act, int32_t clip_min, int32_t clip_max, bool u8 = false,
                       LutScales lut = {}) {
  switch (act) {
    case PostAct::kNone: return saturate_out(v, u8);
    case PostAct::kRelu: return saturate_out(std::max(v, 0), u8);
    case PostAct::kRelu6:
    case PostAct::kClip: return saturate_out(std::clamp(v, clip_min, clip_max), u8);
    case PostAct::kSigmoid:
    case PostAct::kHardSigmoid:
    case PostAct::kHardSwish:
    case PostAct::kSilu:
      return lut_entry(saturate8(v), act, lut_scale(lut.in), lut_scale(lut.out), u8);
  }
  return saturate_out(v, u8);
}

}  // namespace strider
