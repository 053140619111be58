// Fused max-pool arithmetic (see fused_pool.h).
#include "core/timing/fused_pool.h"

#include <algorithm>

#include "core/contract/quant.h"

namespace strider {

void pool_window(uint32_t p, uint32_t extent, uint32_t kernel, uint32_t stride, uint32_t pad,
                 uint32_t* begin, uint32_t* end) {
  const int64_t lo = int64_t(p) * stride - pad, hi = lo + kernel;
  *begin = uint32_t(std::clamp<int64_t>(lo, 0, extent));
  *end = uint32_t(std::clamp<int64_t>(hi, *begin, extent));
}

uint32_t pool_group_channels(const OpDesc& op, uint32_t neurons) {
  const uint32_t channels = op.ch_end - op.ch_begin;
  return op.mapping == Mapping::kPositions ? channels : std::min(channels, std::max(neurons, 1u));
}

uint64_t pool_row_buffer_bytes(const OpDesc& op, uint32_t neurons) {
  const FusedPool& p = op.pool;
  if (!p.present() || p.stride_h == 0) return 0;
  const uint64_t open_rows = (uint64_t(p.kernel_h) + p.stride_h - 1) / p.stride_h;
  return uint64_t(pool_group_channels(op, neurons)) * open_rows * p.output.w;
}

PoolWork pool_work(const OpDesc& op) {
  PoolWork w;
  const FusedPool& p = op.pool;
  if (!p.present()) return w;
  uint64_t compares = 0, accesses = 0;  // per channel
  for (uint32_t py = 0; py < p.output.h; ++py) {
    uint32_t y0, y1;
    pool_window(py, op.output.h, p.kernel_h, p.stride_h, p.pad_top, &y0, &y1);
    for (uint32_t px = 0; px < p.output.w; ++px) {
      uint32_t x0, x1;
      pool_window(px, op.output.w, p.kernel_w, p.stride_w, p.pad_left, &x0, &x1);
      const uint64_t rows = y1 - y0, elements = rows * (x1 - x0);
      compares += elements ? elements - 1 : 0;
      accesses += rows ? 2 * rows - 1 : 0;
    }
  }
  const uint64_t channels = op.ch_end - op.ch_begin;
  w.compares = compares * channels;
  w.row_buffer_accesses = accesses * channels;
  w.pooled_bytes = channels * p.output.h * p.output.w;
  return w;
}

void max_pool_plane(const int8_t* in, uint32_t h, uint32_t w, const FusedPool& pool, bool u8,
                    int8_t* out) {
  for (uint32_t py = 0; py < pool.output.h; ++py) {
    uint32_t y0, y1;
    pool_window(py, h, pool.kernel_h, pool.stride_h, pool.pad_top, &y0, &y1);
    for (uint32_t px = 0; px < pool.output.w; ++px) {
      uint32_t x0, x1;
      pool_window(px, w, pool.kernel_w, pool.stride_w, pool.pad_left, &x0, &x1);
      int32_t best = u8 ? 0 : -128;
      int8_t byte = u8 ? 0 : -128;
      for (uint32_t y = y0; y < y1; ++y) {
        for (uint32_t x = x0; x < x1; ++x) {
          const int32_t v = byte_value(in[uint64_t(y) * w + x], u8);
          if (v > best) best = v, byte = in[uint64_t(y) * w + x];
        }
      }
      out[uint64_t(py) * pool.output.w + px] = byte;
    }
  }
}

}  // namespace strider
