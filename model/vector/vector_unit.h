// VectorUnit: the DNN module's vector unit for the functions the neurons' post-ops cannot do:
// Softmax (over each group of channels of a position, optionally causal), LayerNorm (over the
// channels of a position, times gamma plus beta, requantised), InstanceNorm (the same over the
// positions of each channel) and GELU (element-wise).
//
// How descriptors reach it: the controller keeps a third in-order issue queue for operation
// descriptors whose op code is a vector op (is_vector_op in core/contract/descriptor.h) and issues its
// head to this unit's `in` FIFO when its dependencies have retired, so vector work overlaps the
// neuron pipeline and the DMA. The unit reads its operands from L2 on the load port and writes
// its results on the store port (sharing them, and their banks, with the load and store units),
// then posts the descriptor on the retire channel.
//
// Cycles, per tile of E = channels x rows x width elements (all channels of the input for
// Softmax and LayerNorm): compute = passes x ceil(E / vector.lanes) x cycles_per_element of the
// op (`vector.softmax_*`, `vector.layernorm_*`, `vector.gelu_*`; InstanceNorm takes LayerNorm's
// keys, its passes over the tile's channels x all H x W input positions, whatever rows it
// writes). The L2 read of the input (and, for the norms, gamma and beta) starts at issue;
// computing streams behind it, so the results are ready at max(read end, issue + compute); the
// L2 write of the E output bytes starts then and the descriptor retires when it ends.
// Functional mode: the integer arithmetic of core/contract/vector_math.h on the bytes in L2; timing is
// identical with it on or off.
// Ports: in (LatencyFifo<const Descriptor*>), retire (RetireChannel); memory: L2 (TimedMemory).
// Stats: vector.tiles, vector.busy_cycles, vector.elements.
#pragma once

#include <systemc>

#include <cstdint>
#include <vector>

#include "core/arch/arch_config.h"
#include "model/common/clock_domain.h"
#include "model/common/latency_fifo.h"
#include "model/common/retire_channel.h"
#include "model/common/run_record.h"
#include "model/common/stats.h"
#include "model/common/timed_memory.h"
#include "core/contract/descriptor.h"

namespace strider {

// The closed-form cost of one vector tile (also used by tests).
struct VectorWork {
  uint64_t elements = 0;     // output elements of the tile
  uint64_t read_bytes = 0;   // input (all channels) plus gamma and beta
  uint64_t compute_cycles = 0;
};
VectorWork vector_work(const OpDesc& op, const VectorConfig& cfg);

// The tile's output ([channel][row][column] of the tile), int8, computed from the bytes in L2.
std::vector<int8_t> compute_vector_tile(const OpDesc& op, const TimedMemory& l2);

class VectorUnit : public sc_core::sc_module {
 public:
  VectorUnit(sc_core::sc_module_name name, const VectorConfig& cfg, const ClockDomain& clock,
             bool functional, TimedMemory& l2, LatencyFifo<const Descriptor*>& in,
             RetireChannel& retire, RunRecord& record, StatRegistry& stats);

 private:
  void run();
  const VectorConfig& cfg_;
  const ClockDomain& clock_;
  bool functional_;
  TimedMemory& l2_;
  LatencyFifo<const Descriptor*>& in_;
  RetireChannel& retire_;
  RunRecord& record_;
  uint64_t& tiles_;
  uint64_t& busy_;
  uint64_t& elements_;
};

}  // namespace strider
