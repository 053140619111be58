#include "tb/unit_monitor.h"

#include <algorithm>

#include "model/l1/load_unit.h"
#include "model/l1/store_unit.h"
#include "model/neuron/neuron_array.h"

namespace strider {

UnitMonitor::UnitMonitor(sc_core::sc_module_name name, UnitTimeline& timeline)
    : sc_core::sc_module(name), timeline_(timeline), lb_bytes_("line_buffer_bytes") {
  SC_HAS_PROCESS(UnitMonitor);
  SC_METHOD(observe);  // first run at initialisation: arms the dynamic sensitivity
}

void UnitMonitor::attach(const ClockDomain& clock, const LoadUnit& load, const NeuronArray& neurons,
                         const StoreUnit& store) {
  clock_ = &clock;
  load_ = &load;
  neurons_ = &neurons;
  store_ = &store;
  timeline_.attached = true;
}

// A write of true starts a tile (closing the previous one if it is still open: back-to-back);
// a write of false ends the open tile (or is a tile that started and ended in one delta).
void UnitMonitor::track(const sc_core::sc_signal<bool>& flag, std::vector<BusyInterval>& out,
                        bool& open, uint32_t bytes, uint64_t now) {
  if (!flag.event()) return;
  const bool busy = flag.read();
  if (open) {
    out.back().end = now;
    open = false;
  } else if (!busy) {
    out.push_back({now, now, bytes});
  }
  if (busy) {
    out.push_back({now, now, bytes});
    open = true;
  }
}

void UnitMonitor::observe() {
  if (load_ == nullptr) return;  // not attached: never wakes again
  const uint64_t now = clock_->now();
  track(load_->busy_flag(), timeline_.load, load_open_, load_->line_buffer_bytes().read(), now);
  // The neurons read the fill slot of the tile the load unit wrote in the same position.
  const size_t k = timeline_.neurons.size();
  const uint32_t nb = k < timeline_.load.size() ? timeline_.load[k].line_buffer_bytes : 0;
  track(neurons_->busy_flag(), timeline_.neurons, neurons_open_, nb, now);
  track(store_->busy_flag(), timeline_.store, store_open_, 0, now);
  const uint32_t occ = (load_open_ ? timeline_.load.back().line_buffer_bytes : 0) +
                       (neurons_open_ ? timeline_.neurons.back().line_buffer_bytes : 0);
  if (occ != occupancy_) {
    occupancy_ = occ;
    if (!timeline_.line_buffer.empty() && timeline_.line_buffer.back().first == now) {
      timeline_.line_buffer.back().second = occ;
    } else {
      timeline_.line_buffer.emplace_back(now, occ);
    }
    timeline_.line_buffer_peak = std::max(timeline_.line_buffer_peak, occ);
    lb_bytes_.write(occ);
  }
  next_trigger(load_->busy_flag().value_changed_event() |
               neurons_->busy_flag().value_changed_event() |
               store_->busy_flag().value_changed_event());
}

}  // namespace strider
