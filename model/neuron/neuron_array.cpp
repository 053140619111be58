#include "model/neuron/neuron_array.h"

#include <algorithm>


namespace strider {

NeuronArray::NeuronArray(sc_core::sc_module_name name, const NeuronConfig& cfg,
                         const ClockDomain& clock, bool functional, const TimedMemory& l2,
                         LatencyFifo<TileToken>& in, LatencyFifo<TileToken>& out,
                         RunRecord& record, StatRegistry& stats)
    : sc_core::sc_module(name),
      cfg_(cfg),
      clock_(clock),
      functional_(functional),
      l2_(l2),
      in_(in),
      out_(out),
      record_(record),
      tiles_(stats.add("neurons.tiles", "operation tiles computed")),
      busy_(stats.add("neurons.busy_cycles", "cycles the neuron array was computing")),
      macs_(stats.add("neurons.macs", "useful multiply-accumulates (conv and fc)")),
      acc_updates_(stats.add("neurons.acc_updates",
                             "accumulator updates (active neurons x compute cycles)")),
      stalls_(stats.add("neurons.stall_cycles", "cycles the neurons waited for line-buffer fills")),
      busy_flag_("busy") {
  SC_HAS_PROCESS(NeuronArray);
  SC_THREAD(run);
}

void NeuronArray::run() {
  for (;;) {
    while (out_.full()) sc_core::wait(out_.data_read_event());
    TileToken t = in_.read();
    const uint64_t now = clock_.now();
    const TileWork& w = t.work;
    busy_flag_.write(true);
    // The fill pipeline from the first fill written (when the tile arrives here), unless the load
    // side (L2 port) ended later than the pipeline assumed.
    const uint64_t mac_end =
        std::max(now + (w.pipeline_cycles - w.first_fill_write_cycles),
                 t.load_end + w.last_fill_compute_cycles);
    t.neuron_end = mac_end + cfg_.postop_cycles;
    if (functional_) t.output = compute_.compute(t.desc->op, l2_);
    DescriptorRecord& r = record_.descriptors[t.desc->id];
    r.macs = w.macs;
    r.compute_cycles = w.compute_cycles;
    r.acc_updates = w.acc_updates;
    r.stall_line_buffer = mac_end - (now + w.compute_cycles);
    ++tiles_;
    busy_ += w.compute_cycles;
    macs_ += w.macs;
    acc_updates_ += w.acc_updates;
    stalls_ += r.stall_line_buffer;
    const uint64_t end = t.neuron_end;
    out_.write(std::move(t), clock_.cycles(std::min(end - now, w.first_output_cycles +
                                                                     cfg_.postop_cycles)));
    clock_.wait_until(end);
    busy_flag_.write(false);
  }
}

}  // namespace strider
