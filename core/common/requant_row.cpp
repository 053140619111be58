#include "core/common/requant_row.h"

#include <cstdint>
#include <limits>

#include "core/common/simd.h"

namespace strider {
namespace {

// requantize() with 0 < shift <= 62 (|acc x multiplier| < 2^62), then std::clamp(v, lo, hi)
// (lo <= hi) and the saturation to [sat_lo, sat_hi] ([-128, 127], or [0, 255] for uint8), as
// activate() does for none (lo, hi the int32 range), ReLU (max(v, 0): lo 0) and clip.
STRIDER_SIMD_CLONES
void rounded_row(const int32_t* acc, int64_t n, int64_t multiplier, int shift, int32_t lo,
                 int32_t hi, int32_t sat_lo, int32_t sat_hi, int8_t* out) {
  const uint64_t half = uint64_t{1} << (shift - 1);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = int64_t(acc[i]) * multiplier;
    const uint64_t magnitude = v >= 0 ? uint64_t(v) : uint64_t(-v);
    const int64_t q = int64_t((magnitude + half) >> shift);
    int64_t r = v >= 0 ? q : -q;
    r = r < std::numeric_limits<int32_t>::min() ? std::numeric_limits<int32_t>::min() : r;
    r = r > std::numeric_limits<int32_t>::max() ? std::numeric_limits<int32_t>::max() : r;
    int32_t x = int32_t(r);
    x = x < lo ? lo : hi < x ? hi : x;
    x = x < sat_lo ? sat_lo : x > sat_hi ? sat_hi : x;
    out[i] = int8_t(uint8_t(x));
  }
}

}  // namespace

void requantize_row(const int32_t* acc, int64_t n, Requant r, PostAct act, int32_t clip_min,
                    int32_t clip_max, int8_t* out, bool u8, LutScales lut) {
  const bool plain = act == PostAct::kNone || act == PostAct::kRelu ||
                     ((act == PostAct::kClip || act == PostAct::kRelu6) && clip_min <= clip_max);
  if (plain && r.shift > 0 && r.shift <= 62) {
    const int32_t lo = act == PostAct::kNone   ? std::numeric_limits<int32_t>::min()
                       : act == PostAct::kRelu ? 0
                                               : clip_min;
    const int32_t hi = act == PostAct::kNone || act == PostAct::kRelu
                           ? std::numeric_limits<int32_t>::max()
                           : clip_max;
    rounded_row(acc, n, r.multiplier, r.shift, lo, hi, u8 ? 0 : -128, u8 ? 255 : 127, out);
    return;
  }
  if (is_lookup(act) && n >= 256) {
    const std::array<int8_t, 256> table = lut_table(act, lut, u8);
    for (int64_t i = 0; i < n; ++i) out[i] = table[size_t(saturate8(requantize(acc[i], r)) + 128)];
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    out[i] = activate(requantize(acc[i], r), act, clip_min, clip_max, u8, lut);
  }
}

}  // namespace strider
