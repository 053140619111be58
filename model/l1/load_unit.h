// LoadUnit: the input iterator and load unit in front of the L1 line buffer.
//
// Models: for each operation descriptor, the iterator's traversal of the input (TileWork, see
// tile_work.h: runs of neuron windows that may cross row ends, strides, dilation, virtual
// padding), the L2 reads it issues on the load port (positions mapping with shift-stride writes:
// every input row piece at its address through the bank model, row_pieces.h, then the kernel
// bytes from the weights; channels mapping: the lines' operands, then the channel-plane gather
// piece by piece; a hybrid tile, tile_work.h: its runs' row pieces, the kernels and the tail's
// lines' weights, then the tail's gather from its first position), and the line-buffer writes:
// one shifted write per segment with `l1.shift_stride`, else one per line (the channels form:
// one per line). A fused input scale (OpDesc::input_scale): the tile's scale bytes are one more
// read (last), and the bytes pass the per-lane multiplier + requantiser on their way into the
// lines and kernel region, `l1.input_scale_cycles` deep (in TileWork's write and pipeline spans,
// so the first fill reaches the neurons that much later; no cycle per byte).
// Cycles: the unit is busy for max(the fill pipeline's write span — writes wait for a free fill
// buffer when the neurons are the bottleneck —, L2 load-port time incl. bank conflicts); the
// neurons may start once the first fill is written, so the tile is handed on after the first
// fill's write cycles plus the L2 latency.
// Ports: in (LatencyFifo<const Descriptor*>), out (LatencyFifo<TileToken>, capacity 1: the line
// buffer holds one tile ahead of the neurons).
// Stats: load.tiles, load.busy_cycles, load.l2_read_bytes, line_buffer.write_cycles,
// line_buffer.shifted_writes, line_buffer.line_writes, line_buffer.fills,
// line_buffer.write_bytes, kernel.load_bytes.
// Observation (for waves.vcd and trace.json, never read by the model): busy_flag() is written
// true when a tile starts (after any back-pressure wait) and false when its load ends; it is an
// sc_buffer, so back-to-back tiles still notify at each start. line_buffer_bytes() is the
// line-buffer fill slot the unit is writing: active lines x `l1.line_bytes`, 0 when idle.
#pragma once

#include <systemc>
#include <vector>

#include "core/arch/arch_config.h"
#include "model/common/clock_domain.h"
#include "model/common/latency_fifo.h"
#include "model/common/run_record.h"
#include "model/common/stats.h"
#include "model/common/tile_token.h"
#include "model/common/timed_memory.h"

namespace strider {

class LoadUnit : public sc_core::sc_module {
 public:
  LoadUnit(sc_core::sc_module_name name, const ArchConfig& arch, const ClockDomain& clock,
           TimedMemory& l2, LatencyFifo<const Descriptor*>& in, LatencyFifo<TileToken>& out,
           RunRecord& record, StatRegistry& stats);

  const sc_core::sc_signal<bool>& busy_flag() const { return busy_flag_; }
  const sc_core::sc_signal<uint32_t>& line_buffer_bytes() const { return lb_bytes_; }

 private:
  void run();
  Access read_l2(const OpDesc& op, const TileWork& w, uint64_t now, uint64_t& bytes);
  const ArchConfig& arch_;
  const ClockDomain& clock_;
  TimedMemory& l2_;
  LatencyFifo<const Descriptor*>& in_;
  LatencyFifo<TileToken>& out_;
  RunRecord& record_;
  uint64_t& tiles_;
  uint64_t& busy_;
  uint64_t& l2_bytes_;
  uint64_t& write_cycles_;
  uint64_t& shifted_;
  uint64_t& line_writes_;
  uint64_t& fills_;
  uint64_t& write_bytes_;
  uint64_t& kernel_bytes_;
  sc_core::sc_buffer<bool> busy_flag_;
  sc_core::sc_signal<uint32_t> lb_bytes_;
  std::vector<AccessPattern> pieces_;  // the current tile's L2 reads (row pieces)
};

}  // namespace strider
