#include "model/l1/store_unit.h"

#include <algorithm>

#include "core/common/requant_row.h"
#include "core/contract/quant.h"
#include "core/timing/fused_gap.h"
#include "core/timing/fused_pool.h"
#include "model/l2/l2_sram.h"

namespace strider {

StoreUnit::StoreUnit(sc_core::sc_module_name name, const ClockDomain& clock, bool functional,
                     TimedMemory& l2, LatencyFifo<TileToken>& in, RetireChannel& retire,
                     RunRecord& record, StatRegistry& stats)
    : sc_core::sc_module(name),
      clock_(clock),
      functional_(functional),
      l2_(l2),
      in_(in),
      retire_(retire),
      record_(record),
      tiles_(stats.add("store.tiles", "operation tiles stored")),
      bytes_(stats.add("store.bytes", "output bytes written to L2")),
      discarded_(stats.add("store.discarded_outputs",
                           "positions computed across row ends and dropped")),
      post_bytes_(stats.add("store.post_op_read_bytes",
                            "post-op operand bytes read from L2 (residual Adds fused into convs)")),
      pool_compares_(stats.add("store.pool_compares",
                               "max compares of the max-pools fused into convs' stores")),
      pool_row_buffer_(stats.add("store.pool_row_buffer_accesses",
                                 "row-buffer accesses (partial pooled rows) of fused max-pools")),
      pool_tiles_(stats.add("store.pool_tiles", "tiles stored through a fused max-pool")),
      gap_tiles_(stats.add("store.gap_tiles", "tiles stored through a fused global average pool")),
      gap_partial_bytes_(stats.add("store.gap_partial_bytes",
                                   "int32 partial sums of fused global pools read and written")),
      busy_flag_("busy") {
  SC_HAS_PROCESS(StoreUnit);
  SC_THREAD(run);
}

// Where a tile's results go: its output (the pooled tensor of a fused max-pool), or its int32
// partial sums.
const TensorRef& StoreUnit::destination(const OpDesc& op) {
  return (op.psum_mode & OpDesc::kPsumWrite) ? op.psum : op.stored();
}

// A fused max-pool's tile: every channel plane of the conv's result pooled, the pooled rows
// written.
void StoreUnit::write_pooled(const TileToken& t) {
  const OpDesc& op = t.desc->op;
  const TensorRef& o = op.pool.output;
  const uint64_t plane = uint64_t(op.row_end - op.row_begin) * op.output.w;
  std::vector<int8_t> pooled(uint64_t(o.h) * o.w);
  const bool u8 = op.flags & OpDesc::kOutputUnsigned;
  for (uint32_t c = op.ch_begin; c < op.ch_end; ++c) {
    max_pool_plane(t.output.data() + (c - op.ch_begin) * plane, op.row_end - op.row_begin,
                   op.output.w, op.pool, u8, pooled.data());
    for (uint32_t y = 0; y < o.h; ++y) {
      l2_.write(o.addr + o.offset(c, y, 0), pooled.data() + uint64_t(y) * o.w, o.w);
    }
  }
}

bool StoreUnit::has_post_op(const OpDesc& op) {
  return op.post.present() && !(op.psum_mode & OpDesc::kPsumWrite);
}

void StoreUnit::write_output(const TileToken& t) {
  const OpDesc& op = t.desc->op;
  if (op.pool.present()) return write_pooled(t);
  // A fused global pool: each channel's sum of the values stored (the result itself may not be:
  // then op.output gives only its shape).
  const bool gap = op.gap.present(), store = !gap || op.gap.stores_result();
  const TensorRef& o = store ? destination(op) : op.output;
  const uint64_t row_bytes = uint64_t(o.w) * o.element_bytes;
  const bool post = has_post_op(op);
  const PostOp& p = op.post;
  // uint8 operand / output (OpDesc::kInput2Unsigned / kOutputUnsigned); the conv's own result
  // is int8 under a post-op (result_u8).
  const bool operand_u8 = op.flags & OpDesc::kInput2Unsigned, out_u8 = op.flags & OpDesc::kOutputUnsigned;
  const bool conv_u8 = result_u8(out_u8, post);
  std::vector<int8_t> operand(post ? o.w : 0), row(post ? o.w : 0);
  std::vector<int32_t> v(post ? o.w : 0);
  std::vector<int64_t> sums(gap ? op.ch_end - op.ch_begin : 0, 0);
  const int8_t* src = t.output.data();
  for (uint32_t c = op.ch_begin; c < op.ch_end; ++c) {
    for (uint32_t y = op.row_begin; y < op.row_end; ++y, src += row_bytes) {
      const int8_t* bytes = src;
      if (post) {  // OpCode::kAdd's arithmetic with the conv's result as the first operand
        l2_.read(p.operand.addr + p.operand.offset(c, y, 0), operand.data(), o.w);
        for (uint32_t x = 0; x < o.w; ++x) {
          v[x] = byte_value(src[x], conv_u8) * p.multiplier +
                 byte_value(operand[x], operand_u8) * p.operand_multiplier;
        }
        requantize_row(v.data(), o.w, Requant{1, p.shift}, p.act, p.clip_min, p.clip_max,
                       row.data(), out_u8, op.lut);
        bytes = row.data();
      }
      if (gap) gap_add(bytes, o.w, out_u8, &sums[c - op.ch_begin]);
      if (store) l2_.write(o.addr + o.offset(c, y, 0), bytes, row_bytes);  // o: maybe a band
    }
  }
  if (gap) finish_gap(op, sums);
}

// The partial sums as little-endian int32, one per channel of the tile.
void StoreUnit::finish_gap(const OpDesc& op, std::vector<int64_t>& sums) {
  const FusedGap& g = op.gap;
  const uint32_t channels = op.ch_end - op.ch_begin;
  std::vector<uint8_t> raw(4 * uint64_t(channels));
  const uint64_t partial = g.partial.addr + g.partial.offset(op.ch_begin, 0, 0);
  if (!g.first()) {  // the earlier bands' sums
    l2_.read(partial, reinterpret_cast<int8_t*>(raw.data()), raw.size());
    for (uint32_t k = 0; k < channels; ++k) {
      uint32_t v = 0;
      for (int b = 0; b < 4; ++b) v |= uint32_t(raw[4 * k + b]) << (8 * b);
      sums[k] += int64_t(int32_t(v));
    }
  }
  if (!g.last()) {
    for (uint32_t k = 0; k < channels; ++k) {
      const uint32_t v = uint32_t(int32_t(sums[k]));  // exact: H x W x 255 < 2^31 (legalise)
      for (int b = 0; b < 4; ++b) raw[4 * k + b] = uint8_t(v >> (8 * b));
    }
    l2_.write(partial, reinterpret_cast<const int8_t*>(raw.data()), raw.size());
    return;
  }
  for (uint32_t k = 0; k < channels; ++k) {
    const int8_t byte = gap_result(sums[k], g);
    l2_.write(g.output.addr + g.output.offset(op.ch_begin + k, 0, 0), &byte, 1);
  }
}

void StoreUnit::access_gap(const TileToken& t, uint64_t now, bool read, Access* a,
                           DescriptorRecord& r) {
  const OpDesc& op = t.desc->op;
  const GapTraffic g = gap_traffic(op);
  const uint64_t partial = op.gap.partial.addr + op.gap.partial.offset(op.ch_begin, 0, 0);
  if (read) {  // the partial sums, first on the port
    const Access b = l2_.access(L2Sram::kStore, partial, g.partial_read_bytes, now);
    r.stall_l2_conflict += b.stall;
    r.l2_bank_conflict_cycles += b.conflict;
    r.l2_read_bytes += g.partial_read_bytes;
    gap_partial_bytes_ += g.partial_read_bytes;
    *a = b;
    return;
  }
  Access w;
  if (g.partial_write_bytes) {
    w = l2_.access(L2Sram::kStore, partial, g.partial_write_bytes, now);
    gap_partial_bytes_ += g.partial_write_bytes;
  } else {  // the pooled bytes, one per channel at the output's channel stride
    AccessPattern p;
    p.addr = op.gap.output.addr + op.gap.output.offset(op.ch_begin, 0, 0);
    p.bytes = 1;
    p.count = g.output_bytes;
    p.stride = op.gap.output.channel_stride;
    w = l2_.access_pattern(L2Sram::kStore, p, now);
  }
  // Queued behind the tile's other transactions on the port: only its bank conflicts stall.
  a->end = std::max(a->end, w.end);
  a->stall += w.conflict;
  a->conflict += w.conflict;
}

// The tile's L2 accesses to `o`, piece by piece: one piece per output channel at o's channel
// stride, per group of positions (channels mapping) or for all the channel's valid outputs
// (positions mapping), from the tile's first output element. Stall: queueing before the first
// access plus every access's bank conflicts.
Access StoreUnit::access_l2(const TileToken& t, const TensorRef& o, uint64_t now) {
  const OpDesc& op = t.desc->op;
  const TileWork& w = t.work;
  if (op.pool.present()) {  // the pooled planes: one piece per channel at o's channel stride
    AccessPattern p;
    p.addr = o.addr + o.offset(op.ch_begin, 0, 0);
    p.bytes = uint64_t(o.h) * o.w;
    p.count = op.ch_end - op.ch_begin;
    p.stride = o.channel_stride;
    p.repeats = 1;
    return l2_.access_pattern(L2Sram::kStore, p, now);
  }
  const uint64_t element = w.valid_outputs ? w.output_bytes / w.valid_outputs : 1;
  const uint64_t addr = o.addr + o.offset(op.ch_begin, op.row_begin, 0);
  uint64_t patterned = 0;
  for (const PiecePattern& s : w.store) patterned += s.total() * element;
  // A tile without a store pattern (built by hand) writes one contiguous range.
  if (patterned != w.output_bytes) return l2_.access(L2Sram::kStore, addr, w.output_bytes, now);
  Access a;
  bool first = true;
  for (const PiecePattern& s : w.store) {
    if (s.total() == 0) continue;
    AccessPattern p;
    p.addr = addr;
    p.bytes = s.bytes * element;
    p.count = s.count;
    p.stride = o.channel_stride;
    p.repeats = s.repeats;
    const Access b = l2_.access_pattern(L2Sram::kStore, p, now);
    if (first) {
      a = b;
    } else {
      a.end = std::max(a.end, b.end);
      a.stall += b.conflict;
      a.conflict += b.conflict;
    }
    first = false;
  }
  return a;
}

void StoreUnit::run() {
  for (;;) {
    TileToken t = in_.read();
    const uint64_t now = clock_.now();
    const OpDesc& op = t.desc->op;
    const TensorRef& o = destination(op);
    busy_flag_.write(true);
    DescriptorRecord& r = record_.descriptors[t.desc->id];
    const bool gap = op.gap.present(), result = !gap || op.gap.stores_result();
    Access a, gap_read;
    if (gap && !op.gap.first()) access_gap(t, now, true, &gap_read, r);
    if (has_post_op(op) && !result) {  // the operand read, the sum of the Add's results kept
      a = access_l2(t, op.post.operand, now);
      r.l2_read_bytes += t.work.output_bytes;
      post_bytes_ += t.work.output_bytes;
    } else if (has_post_op(op)) {  // the operand's read first, on the same port
      const Access b = access_l2(t, t.desc->op.post.operand, now);
      r.stall_l2_conflict += b.stall;
      r.l2_bank_conflict_cycles += b.conflict;
      r.l2_read_bytes += t.work.output_bytes;
      post_bytes_ += t.work.output_bytes;
      a = access_l2(t, o, now);
      a.end = std::max(a.end, b.end);
      // The write's wait for the read's port time is the read, not a stall.
      const uint64_t read_port = b.end - l2_.latency(t.desc->op.post.operand.addr) - now - b.stall;
      a.stall -= std::min(a.stall, read_port);
    } else if (result) {
      a = access_l2(t, o, now);
    } else {  // only the fused global pool's bytes are stored
      a.start = a.end = now;
    }
    if (gap && !op.gap.first()) {  // the result's wait for the partial sums' read is no stall
      const uint64_t read_port = gap_read.end - l2_.latency(op.gap.partial.addr) - now -
                                 gap_read.stall;
      a.stall -= std::min(a.stall, read_port);
      a.end = std::max(a.end, gap_read.end);
    }
    if (gap) access_gap(t, now, false, &a, r);
    // A fused max-pool's last compare, a fused global pool's requantisation of the last band's
    // sums: one cycle after the last result.
    const uint64_t compare = op.pool.present() || (gap && op.gap.last()) ? 1 : 0;
    const uint64_t end = std::max(a.end, t.neuron_end + 1 + compare + l2_.latency(o.addr));
    if (functional_) write_output(t);
    uint64_t stored = result ? t.work.output_bytes : 0;
    if (gap) {
      const GapTraffic g = gap_traffic(op);
      stored += g.partial_write_bytes + g.output_bytes;
      ++gap_tiles_;
    }
    if (t.desc->op.pool.present()) {
      const PoolWork p = pool_work(t.desc->op);
      stored = p.pooled_bytes;
      pool_compares_ += p.compares;
      pool_row_buffer_ += p.row_buffer_accesses;
      ++pool_tiles_;
    }
    r.l2_write_bytes = stored;
    r.discarded_outputs = t.work.discarded_outputs;
    r.stall_l2_conflict += a.stall;
    r.l2_bank_conflict_cycles += a.conflict;
    ++tiles_;
    bytes_ += stored;
    discarded_ += t.work.discarded_outputs;
    retire_.post(t.desc->id, clock_.cycles(end - now));
    clock_.wait_until(a.end);
    busy_flag_.write(false);
  }
}

}  // namespace strider
