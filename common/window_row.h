// WindowRow: one row of a convolution's window lines (im2col) with virtual zero padding, used by
// the model's tiles (model/neuron/tile_compute.cpp) and the float reference
// (planner/quant/float_reference.cpp): dst[x] = src[x * stride + first] for the x whose source
// column lies inside [0, width), else 0. The inside columns are one contiguous range of x, so
// the row is a zero prefix, a (strided) copy and a zero suffix, with no test per element.
#pragma once

#include <algorithm>
#include <cstdint>

namespace strider {

template <typename T>
void window_row(const T* src, int64_t width, int64_t first, int64_t stride, T* dst, int64_t count) {
  // The first x whose column x * stride + first is at least `bound` (clamped to [0, count]).
  const auto first_at_least = [&](int64_t bound) {
    const int64_t need = bound - first;
    return std::clamp<int64_t>(need <= 0 ? 0 : (need + stride - 1) / stride, 0, count);
  };
  const int64_t x_lo = first_at_least(0), x_hi = std::max(x_lo, first_at_least(width));
  std::fill(dst, dst + x_lo, T{0});
  if (stride == 1) {
    if (x_hi > x_lo) std::copy(src + x_lo + first, src + x_hi + first, dst + x_lo);
  } else {
    for (int64_t x = x_lo; x < x_hi; ++x) dst[x] = src[x * stride + first];
  }
  std::fill(dst + x_hi, dst + count, T{0});
}

}  // namespace strider
