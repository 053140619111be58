// WindowRow: one row of a convolution's window lines (im2col) with virtual zero padding, used by
// the model's tiles (model/neuron/tile_compute.cpp) and the float reference
// (planner/quant/float_reference.cpp): dst[x] = src[x * stride + first] for the x whose source
// column lies inside [0, width), else 0. The inside columns are one contiguous range of x
// (WindowSpan, the same for every row of a kernel column: compute it once), so the row is a zero
// prefix, a (strided) copy and a zero suffix, with no test per element. window_positions: how
// many positions a sliding window takes along one axis (shape inference, the fused max-pool's
// descriptor check).
#pragma once

#include <algorithm>
#include <cstdint>

namespace strider {

// Positions of a sliding window along an `extent`-long axis (ONNX / PyTorch rules): `span` the
// window's extent (dilation x (kernel - 1) + 1); with ceil_mode a last partial window counts when
// it starts inside the input or the leading padding. 0 when the window is larger than the padded
// axis or stride < 1.
inline int64_t window_positions(int64_t extent, int64_t span, int64_t stride, int64_t pad_begin,
                                int64_t pad_end, bool ceil_mode) {
  const int64_t room = extent + pad_begin + pad_end - span;
  if (room < 0 || stride < 1) return 0;
  int64_t out = (ceil_mode ? (room + stride - 1) / stride : room / stride) + 1;
  if (ceil_mode && (out - 1) * stride >= extent + pad_begin) --out;
  return out;
}

// The x in [lo, hi) whose column x * stride + first lies inside [0, width), of x in [0, count).
struct WindowSpan {
  int64_t lo = 0, hi = 0;
  WindowSpan(int64_t width, int64_t first, int64_t stride, int64_t count) {
    // The first x whose column x * stride + first is at least `bound` (clamped to [0, count]).
    const auto first_at_least = [&](int64_t bound) {
      const int64_t need = bound - first;
      if (need <= 0) return int64_t{0};
      return std::min<int64_t>(stride == 1 ? need : (need + stride - 1) / stride, count);
    };
    lo = first_at_least(0);
    hi = std::max(lo, first_at_least(width));
  }
};

// pad: the value of the padding columns (0; -128 for uint8 input offset by -128, tile_compute).
template <typename T>
void window_row(const T* src, int64_t first, int64_t stride, const WindowSpan& s, T* dst,
                int64_t count, T pad = T{0}) {
  std::fill(dst, dst + s.lo, pad);
  if (stride == 1) {
    std::copy(src + s.lo + first, src + s.hi + first, dst + s.lo);
  } else {
    for (int64_t x = s.lo; x < s.hi; ++x) dst[x] = src[x * stride + first];
  }
  std::fill(dst + s.hi, dst + count, pad);
}

template <typename T>
void window_row(const T* src, int64_t width, int64_t first, int64_t stride, T* dst, int64_t count) {
  window_row(src, first, stride, WindowSpan(width, first, stride, count), dst, count);
}

}  // namespace strider
