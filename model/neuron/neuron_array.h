// NeuronArray: `neurons.count` neurons in lock-step, each with `neurons.macs_per_cycle` int8 MAC
// lanes and `neurons.accumulators` int32 accumulators, plus the post-op pipeline (bias, requantisation, activation,
// pooling and element-wise ops). The neurons are plain C++ (TileCompute) stepped by this one
// process; in timing-only runs only their cycle count is computed.
//
// Cycles: the tile's fill pipeline from its first fill (TileWork::pipeline_cycles, see
// fill_pipeline.h: compute incl. discarded positions, waiting for fills not yet written), but never
// ending before the load unit's last fill (late when the L2 port was slower) plus its compute:
// end = max(start + pipeline - first fill writes, load_end + last fill compute) +
// `neurons.postop_cycles`. Cycles beyond start + compute are line-buffer stalls. The store unit
// receives the tile when the first group's results are out. A hybrid tile (tile_work.h) turns the
// array round for its tail: output channels on neurons, the tail's positions in the accumulators;
// the same fill pipeline counts it.
// Ports: in (LatencyFifo<TileToken>), out (LatencyFifo<TileToken>, capacity 1).
// Stats: neurons.tiles, neurons.busy_cycles, neurons.macs, neurons.acc_updates, neurons.stall_cycles.
// Observation (for waves.vcd and trace.json, never read by the model): busy_flag() is written
// true when a tile starts and false when its last result leaves the post-op pipeline (an
// sc_buffer: back-to-back tiles still notify at each start).
#pragma once

#include <systemc>

#include "model/common/clock_domain.h"
#include "model/common/latency_fifo.h"
#include "model/common/run_record.h"
#include "model/common/stats.h"
#include "model/common/tile_token.h"
#include "model/common/timed_memory.h"
#include "model/neuron/tile_compute.h"
#include "core/arch/arch_config.h"

namespace strider {

class NeuronArray : public sc_core::sc_module {
 public:
  NeuronArray(sc_core::sc_module_name name, const NeuronConfig& cfg, const ClockDomain& clock,
              bool functional, const TimedMemory& l2, LatencyFifo<TileToken>& in,
              LatencyFifo<TileToken>& out, RunRecord& record, StatRegistry& stats);

  const sc_core::sc_signal<bool>& busy_flag() const { return busy_flag_; }

 private:
  void run();
  const NeuronConfig& cfg_;
  const ClockDomain& clock_;
  bool functional_;
  const TimedMemory& l2_;
  TileCompute compute_;  // functional mode: the tiles' arithmetic, buffers kept between tiles
  LatencyFifo<TileToken>& in_;
  LatencyFifo<TileToken>& out_;
  RunRecord& record_;
  uint64_t& tiles_;
  uint64_t& busy_;
  uint64_t& macs_;
  uint64_t& acc_updates_;
  uint64_t& stalls_;
  sc_core::sc_buffer<bool> busy_flag_;
};

}  // namespace strider
