// The global average pool fused into a conv's store path (OpDesc::gap, model/l1/store_unit.h):
// its arithmetic and its L2 traffic, shared by the store unit, the descriptor validator, the
// lowering and the mapper's tile cost.
//
// Arithmetic: exactly OpCode::kGlobalAvgPool's (model/neuron/tile_compute.cpp pool()): the sum
// of a channel's stored values (int8, or uint8 with OpDesc::kOutputUnsigned) over the conv's
// H x W results, requantised by the pool's multiplier and shift, then activated and clipped.
// A tile over a band of rows adds its rows' sums to the int32 partial sums of its channels.
//
// Traffic (the store port, beside the conv's own output): per channel of the tile, 4 bytes of
// partial sums read unless it is the first band's tile (FusedGap::kFirst), 4 bytes written back
// unless it is the last band's (kLast), and 1 byte of pooled output written by the last band's.
// A whole-height tile moves only the pooled byte.
#pragma once

#include <cstdint>

#include "core/contract/descriptor.h"

namespace strider {

struct GapTraffic {
  uint64_t partial_read_bytes = 0, partial_write_bytes = 0, output_bytes = 0;
  uint64_t total() const { return partial_read_bytes + partial_write_bytes + output_bytes; }
};

// The store-port bytes of a tile's fused global pool (all zero without one), from its flags.
GapTraffic gap_traffic(const OpDesc& op);

// Sets the tile's FusedGap::kFirst / kLast from its rows: first when it starts at row 0, last
// when it ends at the conv's last row (op.output.h). No-op without a fused global pool.
void mark_gap_band(OpDesc* op);

// Adds the values of `count` bytes (uint8 when u8) to *sum.
void gap_add(const int8_t* bytes, uint64_t count, bool u8, int64_t* sum);

// The pooled byte of a channel whose values sum to `sum`: requantised, activated, clipped
// (uint8 when the gap's kOutputUnsigned flag is set).
int8_t gap_result(int64_t sum, const FusedGap& gap);

}  // namespace strider
