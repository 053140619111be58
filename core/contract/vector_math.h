// Integer arithmetic of the vector unit (Softmax, LayerNorm, GELU), shared by the hardware model
// and the reference like core/contract/quant.h: the numeric contract. Integer-only: no floating point.
// Activations are int8 at a per-tensor scale s (real = q x s); Softmax and GELU take their input
// scale as an integer multiplier in Q24 (OpDesc::input_multiplier), which the planner derives
// from the calibrated scale (softmax_input_multiplier / gelu_input_multiplier, the only floating
// point here, planner side). Uncalibrated networks use s = 1/16 (kNominal*Multiplier).
//
// exp_q15(d, L), d <= 0 (an int8 difference x - max), L = round(2^24 log2(e) s): exp(d s) in
// Q15. t = d L = d s log2(e) in Q24, t = i + f (i = floor, 0 <= f < 1, f taken to Q16):
// 2^f ~= 1 + 0.69607 f + 0.22449 f^2 + 0.07944 f^3 (45617, 14712, 5206 in Q16; relative error
// about 1e-4), in Q15 and shifted right by -i. Exact at d = 0 (32768); 0 once -i > 16.
// softmax_prob(e, sum): round(127 e / sum) in [0, 127] (half up), the probability at scale 1/127.
// softmax_prob(e, sum, m, s): round(127 e m / (sum 2^s)) half up, saturated to 127: the
// probability requantised from scale 1/127 to the op's output scale (1/127) x 2^s / m in one
// rounding; computed as (floor(254 e m / sum) + 2^s) >> (s + 1), exact for e <= 2^15,
// m < 2^31, 0 <= s <= 62. (m, s) = (1, 0) is softmax_prob(e, sum).
// softmax_prob_u8(e, sum, m, s): the same for an unsigned (uint8) output, the probability at
// scale 1/255: round(255 e m / (sum 2^s)) half up, saturated to 255, computed as
// (floor(510 e m / sum) + 2^s) >> (s + 1) (exact for e <= 2^15, m < 2^31). A softmax whose
// probabilities only MatMuls read writes them unsigned: a probability is never negative, and
// the sign bit would cost one bit of resolution (Tensor::is_unsigned, OpDesc::kUnsigned).
// isqrt(v): floor(sqrt(v)) by the bitwise (digit-by-digit) method.
// LayerNorm of D values x: s = sum x, d_i = D x_i - s (D times the centred value, exact),
// r = isqrt(floor(sum d_i^2 / D) + E) (= D sqrt(var + eps), floored), y_i = round(256 d_i / r)
// half away from zero (the normalised value at scale 1/256, kLayerNormScale: an int32
// intermediate, |y| <= 256 sqrt(D); 0 when r = 0), then requantize(y_i gamma_i + beta_i).
// E = D^2 eps / s_in^2 is ONNX's epsilon in the integer units of r^2 (the input scale cancels
// everywhere else); the planner encodes it in OpDesc::input_multiplier as a 24-bit mantissa and
// a 6-bit exponent, E = (code & 0xffffff) << (code >> 24), exponent at most 38 so E < 2^62
// (layernorm_epsilon_code; code 0: no epsilon). A huge epsilon makes r huge and y 0: the
// output is beta, as ONNX says. The reciprocal square root is the integer square root followed
// by one division per element.
// InstanceNorm: the same arithmetic over the N = H x W positions of one channel instead of the D
// channels of one position (D := N, E = N^2 eps / s_in^2). |d_i| <= 255 N, so sum d_i^2 <=
// 255^2 N^3 < 2^64 for N <= kMaxInstanceNormPositions = 2^16 (65025 x 2^48 = 1.83e19); larger
// planes are refused (planner and validator).
// erf_q16(z): erf(z / 2^16) in Q16 for z >= 0 (Q16), Abramowitz & Stegun 7.1.27:
// 1 - 1 / (1 + a1 z + a2 z^2 + a3 z^3 + a4 z^4)^4, a = 0.278393, 0.230389, 0.000972, 0.078108
// (18245, 15099, 64, 5119 in Q16); absolute error below 5e-4 plus rounding. z is clamped to 4
// (erf(4) = 1 - 1.5e-8; the formula gives 65536 from there on, and the clamp keeps q^4 in 64
// bits for any input scale).
// gelu(x, G, m, s): x Phi(x) with G = round(2^24 s_in / sqrt 2): z = (|x| G) >> 8 (Q16 of
// |x| s_in / sqrt 2), 2 Phi = 2^16 + sign(x) erf_q16(z) (Q16), v = x (2 Phi) (the output at
// scale s_in / 2^17, exact), then requantize(v, m, s + 17) to the output scale
// s_in 2^s / m (rounded half away from zero, saturated to int8). With s_in = s_out = 1/16:
// G = 741455, (m, s) = (1, 0).
#pragma once

#include <cmath>
#include <cstdint>

#include "core/contract/quant.h"

namespace strider {

// Q24 input multipliers at the nominal scale 1/16: 2^24 log2(e) / 16 and 2^24 / (16 sqrt 2).
constexpr int32_t kNominalSoftmaxMultiplier = 1512775;
constexpr int32_t kNominalGeluMultiplier = 741455;

// The Q24 input multipliers for an input scale s > 0 (planner side), in [1, 2^31 - 1].
inline int32_t q24_multiplier(double v) {
  const double q = std::round(v * 16777216.0);
  return static_cast<int32_t>(q < 1 ? 1 : q > 2147483647.0 ? 2147483647.0 : q);
}
inline int32_t softmax_input_multiplier(double s) { return q24_multiplier(s * 1.4426950408889634); }
inline int32_t gelu_input_multiplier(double s) { return q24_multiplier(s * 0.70710678118654752); }

inline int32_t exp_q15(int32_t d, int32_t multiplier) {
  if (d > 0) d = 0;
  const int64_t t = int64_t(d) * multiplier;              // Q24 of d s log2(e), <= 0
  const int64_t i = -((-t + ((int64_t{1} << 24) - 1)) >> 24);  // floor
  if (-i > 16) return 0;
  const int64_t f = (t - i * (int64_t{1} << 24)) >> 8;   // Q16, [0, 65536)
  int64_t q = 5206;
  q = ((q * f) >> 16) + 14712;
  q = ((q * f) >> 16) + 45617;
  const int64_t p = (65536 + ((q * f) >> 16)) >> 1;  // Q15
  return static_cast<int32_t>(p >> (-i));
}

inline int8_t softmax_prob(int64_t e, int64_t sum) {
  if (sum <= 0) return 0;
  return static_cast<int8_t>((e * 254 + sum) / (2 * sum));
}

// round(top e m / (sum 2^s)) half up, saturated to top (127: int8, 255: uint8).
inline uint64_t softmax_level(int64_t e, int64_t sum, int32_t multiplier, int32_t shift, uint64_t top) {
  if (sum <= 0 || e <= 0 || multiplier <= 0) return 0;
  const int s = shift < 0 ? 0 : shift > 62 ? 62 : shift;
  const uint64_t q = (uint64_t(e) * 2 * top * uint64_t(multiplier) / uint64_t(sum) + (uint64_t{1} << s)) >> (s + 1);
  return q > top ? top : q;
}

inline int8_t softmax_prob(int64_t e, int64_t sum, int32_t multiplier, int32_t shift) {
  return static_cast<int8_t>(softmax_level(e, sum, multiplier, shift, 127));
}

inline uint8_t softmax_prob_u8(int64_t e, int64_t sum, int32_t multiplier, int32_t shift) {
  return static_cast<uint8_t>(softmax_level(e, sum, multiplier, shift, 255));
}

// The byte a softmax writes: softmax_prob, or softmax_prob_u8's bits with an unsigned output.
inline int8_t softmax_byte(int64_t e, int64_t sum, int32_t multiplier, int32_t shift, bool unsigned_out) {
  return unsigned_out ? static_cast<int8_t>(softmax_prob_u8(e, sum, multiplier, shift))
                      : softmax_prob(e, sum, multiplier, shift);
}

inline uint64_t isqrt(uint64_t v) {
  uint64_t res = 0, bit = uint64_t{1} << 62;
  while (bit > v) bit >>= 2;
  while (bit != 0) {
    if (v >= res + bit) {
      v -= res + bit;
      res = (res >> 1) + bit;
    } else {
      res >>= 1;
    }
    bit >>= 2;
  }
  return res;
}

// The scale of the normalised value y before gamma: 1 / 2^kLayerNormFracBits.
constexpr int kLayerNormFracBits = 8;

// Most positions per channel an InstanceNorm sums over (the bound above).
constexpr uint64_t kMaxInstanceNormPositions = uint64_t{1} << 16;

// E of an epsilon code (see above): (code & 0xffffff) << (code >> 24), exponent clamped to 38.
inline uint64_t layernorm_epsilon_term(int32_t code) {
  if (code <= 0) return 0;
  const int e = (code >> 24) > 38 ? 38 : (code >> 24);
  return uint64_t(code & 0xffffff) << e;
}

// The code of E = D^2 eps / s_in^2 (planner side; eps > 0 finite, s_in > 0): the mantissa
// rounded to 24 bits, saturated at (2^24 - 1) 2^38.
inline int32_t layernorm_epsilon_code(int64_t d, double eps, double s_in) {
  double e = double(d) * double(d) * eps / (s_in * s_in);
  if (!(e > 0)) return 0;
  int exp = 0;
  while (e >= 16777215.5 && exp < 38) {
    e /= 2;
    ++exp;
  }
  const double m = std::round(e);
  if (m > 16777215.0) return int32_t((38 << 24) | 0xffffff);
  return int32_t((exp << 24) | int32_t(m));
}

// r = isqrt(floor(sum d^2 / D) + E) of one position.
inline uint64_t layernorm_root(uint64_t sum_sq, uint64_t d, int32_t epsilon_code) {
  return isqrt(sum_sq / d + layernorm_epsilon_term(epsilon_code));
}

// 256 d / r rounded half away from zero (0 when r == 0).
inline int32_t layernorm_value(int64_t d, uint64_t r) {
  if (r == 0) return 0;
  const int64_t num = d * (int64_t{1} << kLayerNormFracBits), den = static_cast<int64_t>(r);
  const int64_t q = (num >= 0 ? num + den / 2 : num - den / 2) / den;
  return static_cast<int32_t>(q);
}

inline int64_t erf_q16(int64_t z) {
  if (z > (int64_t{4} << 16)) z = int64_t{4} << 16;
  int64_t q = 5119;
  q = ((q * z) >> 16) + 64;
  q = ((q * z) >> 16) + 15099;
  q = ((q * z) >> 16) + 18245;
  q = ((q * z) >> 16) + 65536;
  const int64_t q2 = (q * q) >> 16, q4 = (q2 * q2) >> 16;
  return 65536 - (int64_t{1} << 32) / q4;
}

inline int8_t gelu(int8_t x, int32_t multiplier, int32_t out_multiplier, int32_t out_shift) {
  const int64_t ax = x < 0 ? -int64_t(x) : int64_t(x);
  const int64_t e = erf_q16((ax * multiplier) >> 8);
  const int64_t phi2 = 65536 + (x < 0 ? -e : e);  // 2 Phi(x) in Q16
  const int64_t v = int64_t(x) * phi2;           // |v| <= 2^24
  return saturate8(round_shift(v * out_multiplier, out_shift + 17));
}

}  // namespace strider
