// Integer arithmetic shared by the hardware model and the reference: requantisation of an int32
// accumulator to int8 and the fused activations. This is the numeric contract of the
// accelerator; the model and the reference implement their loops independently on top of it.
//
// requantize(acc, m, s) = round_half_away_from_zero(acc * m / 2^s), saturated to int8.
// Sigmoid-family activations use a 256-entry lookup table over the int8 input interpreted with a
// scale of 1/16 (x = q / 16), output scaled by 1/127 for sigmoid and hard-sigmoid and by 1/16 for
// hard-swish; rounded half away from zero.
#pragma once

#include <algorithm>
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

inline int32_t round_away(double x) { return static_cast<int32_t>(x < 0 ? -std::floor(-x + 0.5) : std::floor(x + 0.5)); }

// Applies the fused activation to an already requantised value and saturates to int8.
inline int8_t activate(int32_t v, PostAct act, int32_t clip_min, int32_t clip_max) {
  // The lookup table is indexed by the int8 value.
  const auto x = [v] { return saturate8(v) / 16.0; };
  switch (act) {
    case PostAct::kNone: return saturate8(v);
    case PostAct::kRelu: return saturate8(std::max(v, 0));
    case PostAct::kRelu6:
    case PostAct::kClip: return saturate8(std::clamp(v, clip_min, clip_max));
    case PostAct::kSigmoid: return saturate8(round_away(127.0 / (1.0 + std::exp(-x()))));
    case PostAct::kHardSigmoid: return saturate8(round_away(127.0 * std::clamp(x() / 6.0 + 0.5, 0.0, 1.0)));
    case PostAct::kHardSwish:
      return saturate8(round_away(16.0 * x() * std::clamp(x() / 6.0 + 0.5, 0.0, 1.0)));
  }
  return saturate8(v);
}

}  // namespace strider
