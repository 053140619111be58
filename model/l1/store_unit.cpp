#include "model/l1/store_unit.h"

#include <algorithm>

#include "core/common/requant_row.h"
#include "core/contract/quant.h"
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
  const TensorRef& o = destination(op);
  const uint64_t row_bytes = uint64_t(o.w) * o.element_bytes;
  const bool post = has_post_op(op);
  const PostOp& p = op.post;
  // uint8 operand / output (OpDesc::kInput2Unsigned / kOutputUnsigned); the conv's own result
  // is int8 under a post-op (result_u8).
  const bool operand_u8 = op.flags & OpDesc::kInput2Unsigned, out_u8 = op.flags & OpDesc::kOutputUnsigned;
  const bool conv_u8 = result_u8(out_u8, post);
  std::vector<int8_t> operand(post ? o.w : 0), row(post ? o.w : 0);
  std::vector<int32_t> v(post ? o.w : 0);
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
      l2_.write(o.addr + o.offset(c, y, 0), bytes, row_bytes);  // o may be a band buffer
    }
  }
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
    const TensorRef& o = destination(t.desc->op);
    busy_flag_.write(true);
    DescriptorRecord& r = record_.descriptors[t.desc->id];
    Access a;
    if (has_post_op(t.desc->op)) {  // the operand's read first, on the same port
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
    } else {
      a = access_l2(t, o, now);
    }
    // A fused max-pool's last compare: one cycle after the last result.
    const uint64_t compare = t.desc->op.pool.present() ? 1 : 0;
    const uint64_t end = std::max(a.end, t.neuron_end + 1 + compare + l2_.latency(o.addr));
    if (functional_) write_output(t);
    uint64_t stored = t.work.output_bytes;
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
