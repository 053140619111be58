// StoreUnit: the output iterator and store unit behind the neuron array.
//
// Models: the output iterator keeps the valid positions of each run and drops the extra ones the
// input iterator computed across row ends (counted as discarded outputs); the store unit writes
// the tile's output rows to L2 on the store port (planar, row by row) — or, for a tile over an
// input-channel block, its int32 partial sums.
// Cycles: the L2 store-port transaction for the valid output bytes (incl. bank conflicts and
// latency), started when the first run's results arrive, ending no earlier than one cycle after
// the neurons' last result plus the L2 latency. The descriptor then retires.
// Ports: in (LatencyFifo<TileToken>), retire (RetireChannel).
// Stats: store.tiles, store.bytes, store.discarded_outputs.
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
  Access write_l2(const TileToken& t, uint64_t now);
  void write_output(const TileToken& t);
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
  sc_core::sc_buffer<bool> busy_flag_;
};

}  // namespace strider
