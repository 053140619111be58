// The max-pool fused into a conv's store path (OpDesc::pool, model/l1/store_unit.h): its window
// arithmetic, the row buffer it needs and the work it does, shared by the store unit, the
// descriptor validator and the lowering (which fuses only what the row buffer holds).
//
// Row buffer: results reach the store unit in the tile's loop order (core/timing/tile_work.h).
// Positions mapping: run (64 positions) outer, channel groups inner, so a row's results of every
// channel of the tile arrive before the next rows'; channels and im2col mappings: runs of
// `neurons` channels outer, positions inner, so one run's channels finish every row first. Per
// channel in flight the unit keeps the running maxima of every pooled row whose window is still
// open: with windows of kernel_h rows every stride_h rows, ceil(kernel_h / stride_h) pooled rows
// of the pooled width. A pooled row is written when its window's last conv row has arrived.
#pragma once

#include <cstdint>

#include "core/contract/descriptor.h"

namespace strider {

// The conv rows (or columns) [*begin, *end) of pooled index p's window, clipped to [0, extent):
// padding is virtual, an element outside the conv's result is skipped.
void pool_window(uint32_t p, uint32_t extent, uint32_t kernel, uint32_t stride, uint32_t pad,
                 uint32_t* begin, uint32_t* end);

// Channels in flight together: the tile's (positions mapping), or up to `neurons` of them
// (channels, im2col).
uint32_t pool_group_channels(const OpDesc& op, uint32_t neurons);

// Row-buffer bytes a fused tile needs: group channels x ceil(kernel_h / stride_h) x pooled width.
uint64_t pool_row_buffer_bytes(const OpDesc& op, uint32_t neurons);

// The work of one fused tile: compares (window elements - 1 per pooled element) and row-buffer
// accesses (per pooled element, a write for each conv row of its window and a read for each but
// the first).
struct PoolWork {
  uint64_t compares = 0;
  uint64_t row_buffer_accesses = 0;
  uint64_t pooled_bytes = 0;  // bytes written to L2
};
PoolWork pool_work(const OpDesc& op);

// Max-pools one channel plane of the conv's result (`h` x `w`, row-major) into `out`
// (pool.output.h x pool.output.w); `u8`: the bytes are uint8 values.
void max_pool_plane(const int8_t* in, uint32_t h, uint32_t w, const FusedPool& pool, bool u8,
                    int8_t* out);

}  // namespace strider
