// Controller: the layer-descriptor controller.
//
// Models: prefetch of the descriptor list from DRAM in batches that keep at most
// `controller.prefetch_depth` descriptors fetched but not yet issued; decode; four in-order issue
// queues whose heads issue as soon as every descriptor in `deps` has retired (dependency
// fences): operations to the compute pipeline, vector ops (Softmax, LayerNorm, GELU, see
// is_vector_op) to the vector unit, and two for the DMA — stores (moves to DRAM: graph
// outputs, spills) and loads (every other move: weights, fills, graph inputs, copies) —, the
// DMA taking the older of the two ready heads. So a store waiting for the tile it writes back
// does not hold back the next layer's weight prefetch (the DMA completes moves out of order on
// its channels anyway; every ordering between moves is a dependency). The pipelines overlap;
// retirement messages from the DMA and the store unit; the end of the run when the last
// descriptor retires; a watchdog that reports a deadlock with the stuck descriptors when nothing
// retires for `sim.watchdog_cycles`.
// Cycles: a fetch of k descriptors is one DRAM read of k x `controller.descriptor_bytes`, which
// streams at the DRAM's peak rate: descriptor i's bytes are in (k - 1 - i) x T before the read's
// end (T = `descriptor_transfer_cycles`, one descriptor at the peak rate; never before the read
// started). Decode streams behind it: descriptor i is decoded in `controller.decode_cycles` once
// its bytes are in and descriptor i-1 is decoded, and joins its issue queue then, so the first
// descriptor of the list issues before the batch's last byte. The next batch is requested once
// the previous read has ended. An issue takes `controller.dispatch_cycles` to reach its unit.
// Ports: to_dma, to_compute, to_vector (LatencyFifo<const Descriptor*>), retire (RetireChannel).
// Stats: controller.fetch_batches, controller.descriptors, controller.dep_wait_cycles.
// Observer: set_retire_observer() registers a testbench callback called with each descriptor id
// at the cycle the controller retires it (functional checks); it is not a channel between units
// and takes no simulated time.
#pragma once

#include <systemc>

#include <deque>
#include <functional>
#include <vector>

#include "model/common/clock_domain.h"
#include "model/common/latency_fifo.h"
#include "model/common/retire_channel.h"
#include "model/common/run_record.h"
#include "model/common/stats.h"
#include "model/common/timed_memory.h"
#include "core/arch/arch_config.h"
#include "core/contract/descriptor.h"

namespace strider {

class Controller : public sc_core::sc_module {
 public:
  Controller(sc_core::sc_module_name name, const ControllerConfig& cfg, const ClockDomain& clock,
             const DescriptorList& list, uint64_t watchdog_cycles, TimedMemory& dram,
             uint64_t descriptor_transfer_cycles,
             LatencyFifo<const Descriptor*>& to_dma, LatencyFifo<const Descriptor*>& to_compute,
             LatencyFifo<const Descriptor*>& to_vector, RetireChannel& retire, RunRecord& record,
             StatRegistry& stats);

  static constexpr uint64_t kListBase = 0;  // DRAM address of the descriptor list

  void set_retire_observer(std::function<void(uint32_t id)> observer) {
    retire_observer_ = std::move(observer);
  }

 private:
  void run();
  bool ready(const Descriptor& d) const;
  void dispatch(const Descriptor& d, LatencyFifo<const Descriptor*>& unit);
  void issue(std::deque<uint32_t>& queue, LatencyFifo<const Descriptor*>& unit);
  void issue_moves();  // the older ready head of loads_ and stores_, while the DMA has room
  void report_deadlock();

  const ControllerConfig& cfg_;
  const ClockDomain& clock_;
  const DescriptorList& list_;
  uint64_t watchdog_cycles_;
  TimedMemory& dram_;
  uint64_t descriptor_transfer_cycles_;  // one descriptor's bytes at the DRAM's peak rate
  LatencyFifo<const Descriptor*>& to_dma_;
  LatencyFifo<const Descriptor*>& to_compute_;
  LatencyFifo<const Descriptor*>& to_vector_;
  RetireChannel& retire_;
  RunRecord& record_;
  std::vector<bool> retired_;
  std::deque<uint32_t> loads_, stores_, ops_, vector_ops_;
  std::function<void(uint32_t)> retire_observer_;
  uint64_t& batches_;
  uint64_t& descriptors_;
  uint64_t& dep_wait_;
};

}  // namespace strider
