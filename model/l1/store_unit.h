// StoreUnit: the output iterator and store unit behind the neuron array.
//
// Models: the output iterator keeps the valid positions of each run and drops the extra ones the
// input iterator computed across row ends (counted as discarded outputs); the store unit writes
// the tile's output rows to L2 on the store port (planar, row by row) — or, for a tile over an
// input-channel block, its int32 partial sums. A tile with a post-op Add (OpDesc::post, a
// residual Add fused into its conv) first reads the operand's elements of the tile from L2 and
// writes activate(requantize(y x m + r x m2, 1, shift)) instead of the conv's own y (OpCode::kAdd's
// arithmetic, so the result is bit-identical to a separate Add).
// Cycles: the L2 store-port transaction for the valid output bytes (incl. bank conflicts and
// latency), started when the first run's results arrive, ending no earlier than one cycle after
// the neurons' last result plus the L2 latency. The descriptor then retires. A post-op's operand
// read is one more store-port transaction of the same bytes in the same pieces (at the operand's
// channel stride), issued first, so the write queues behind it on the port (read-modify-write
// through one port: a fused tile holds the store port for twice its output bytes plus both
// transactions' bank conflicts); the integer add and activation are pipelined at the port's rate
// and add no cycles.
// A tile with a fused max-pool (OpDesc::pool) writes only the pooled tensor: as the conv's rows
// arrive, a comparator per byte lane takes the maximum over each window's columns and folds it
// into the running maximum of every open pooled row held in the row buffer
// (core/timing/fused_pool.h: group channels x ceil(kernel_h / stride_h) x pooled width bytes,
// `l1.pool_row_buffer_bytes`; the validator refuses a tile needing more). The compares run at the
// rate results arrive (one word of results per cycle, pipelined behind the post-op): no cycles per
// row or word, one cycle of latency after the last result for the last window's compare. The L2
// store-port transaction carries only the pooled bytes (one piece per channel), so store traffic
// falls by the pooling ratio (3x3 / 2 on 112 x 112: 12,544 -> 3,136 bytes per channel).
// A tile with a fused global average pool (OpDesc::gap, core/timing/fused_gap.h) adds up each
// channel's stored values as it writes them: an adder per store lane, pipelined at the port's
// rate (no cycle per element or row). Its L2 traffic rides the store port as the unit's other
// transactions do, each with its own bank conflicts: a tile over a band of rows that is not the
// first reads its channels' int32 partial sums (4 bytes per channel) before anything else, as a
// post-op operand is read; the conv's own result is then written (unless it is never stored:
// kResultNotStored), then the partial sums written back (4 bytes per channel, all but the last
// band) or, by the last band's tile, the requantised, activated pooled bytes (1 per channel at
// the output's channel stride). The last band's requantisation takes one cycle after the last
// result (as a fused max-pool's last compare). So a whole-height tile adds one transaction of
// C bytes behind its output (features.1's 32 x 112 x 112 depthwise: 401,408 + 32 bytes) where
// the separate pool re-read all of it through the load unit.
// Ports: in (LatencyFifo<TileToken>), retire (RetireChannel).
// Stats: store.tiles, store.bytes, store.discarded_outputs, store.post_op_read_bytes,
// store.pool_tiles, store.pool_compares, store.pool_row_buffer_accesses, store.gap_tiles,
// store.gap_partial_bytes.
// Observation (for waves.vcd and trace.json, never read by the model): busy_flag() is written
// true when a tile's store starts and false when its L2 store-port transaction ends (an
// sc_buffer: back-to-back tiles still notify at each start).
#pragma once

#include <systemc>

#include "model/common/clock_domain.h"
#include "model/common/latency_fifo.h"
#include "model/common/retire_channel.h"
#include "model/common/run_record.h"
#include "model/common/stats.h"
#include "model/common/tile_token.h"
#include "model/common/timed_memory.h"

namespace strider {

class StoreUnit : public sc_core::sc_module {
 public:
  StoreUnit(sc_core::sc_module_name name, const ClockDomain& clock, bool functional,
            TimedMemory& l2, LatencyFifo<TileToken>& in, RetireChannel& retire,
            RunRecord& record, StatRegistry& stats);

  const sc_core::sc_signal<bool>& busy_flag() const { return busy_flag_; }

 private:
  void run();
  // The tile's store-port transaction over tensor `o` (the destination or a post-op operand).
  Access access_l2(const TileToken& t, const TensorRef& o, uint64_t now);
  void write_output(const TileToken& t);
  void write_pooled(const TileToken& t);
  // A fused global pool's functional part: adds each channel's stored values into `sums`
  // (write_output), then reads / writes the partial sums or writes the pooled bytes.
  void finish_gap(const OpDesc& op, std::vector<int64_t>& sums);
  // The store-port transactions of a fused global pool besides the output's (a partial-sum read
  // before it, then the partial-sum or pooled write), folded into `a`; `now` the tile's start.
  void access_gap(const TileToken& t, uint64_t now, bool read, Access* a, DescriptorRecord& r);
  static bool has_post_op(const OpDesc& op);
  static const TensorRef& destination(const OpDesc& op);
  const ClockDomain& clock_;
  bool functional_;
  TimedMemory& l2_;
  LatencyFifo<TileToken>& in_;
  RetireChannel& retire_;
  RunRecord& record_;
  uint64_t& tiles_;
  uint64_t& bytes_;
  uint64_t& discarded_;
  uint64_t& post_bytes_;
  uint64_t& pool_compares_;
  uint64_t& pool_row_buffer_;
  uint64_t& pool_tiles_;
  uint64_t& gap_tiles_;
  uint64_t& gap_partial_bytes_;
  sc_core::sc_buffer<bool> busy_flag_;
};

}  // namespace strider
