// Fused global average pool arithmetic and traffic (see fused_gap.h).
#include "core/timing/fused_gap.h"

#include <algorithm>
#include <climits>

#include "core/contract/quant.h"

namespace strider {

GapTraffic gap_traffic(const OpDesc& op) {
  GapTraffic t;
  if (!op.gap.present() || op.ch_end <= op.ch_begin) return t;
  const uint64_t channels = op.ch_end - op.ch_begin;
  if (!op.gap.first()) t.partial_read_bytes = 4 * channels;
  if (!op.gap.last()) t.partial_write_bytes = 4 * channels;
  if (op.gap.last()) t.output_bytes = channels;
  return t;
}

void mark_gap_band(OpDesc* op) {
  if (!op->gap.present()) return;
  op->gap.flags = uint8_t(op->gap.flags & ~(FusedGap::kFirst | FusedGap::kLast));
  if (op->row_begin == 0) op->gap.flags |= FusedGap::kFirst;
  if (op->row_end == op->output.h) op->gap.flags |= FusedGap::kLast;
}

void gap_add(const int8_t* bytes, uint64_t count, bool u8, int64_t* sum) {
  int64_t s = 0;
  for (uint64_t i = 0; i < count; ++i) s += byte_value(bytes[i], u8);
  *sum += s;
}

int8_t gap_result(int64_t sum, const FusedGap& gap) {
  const int32_t v = requantize(int32_t(std::clamp<int64_t>(sum, INT32_MIN, INT32_MAX)),
                               gap.requant_multiplier, gap.requant_shift);
  return activate(v, gap.act, gap.clip_min, gap.clip_max, gap.flags & FusedGap::kOutputUnsigned);
}

}  // namespace strider
