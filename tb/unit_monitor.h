// UnitMonitor: watches the busy flags of the load unit, neuron array and store unit (and the load
// unit's line-buffer fill size) during the simulation and records a UnitTimeline. It also drives
// `line_buffer_bytes`, the line-buffer occupancy as a signal, for waves.vcd.
//
// It never influences the model: one SC_METHOD woken by the flags' value-change events (the flags
// are sc_buffers, so a tile that starts in the cycle the previous one ended still wakes it).
// Attach it to the units before sc_start (attach() from an end_of_elaboration callback is fine).
#pragma once

#include <systemc>

#include "model/common/clock_domain.h"
#include "tb/unit_timeline.h"

namespace strider {

class LoadUnit;
class NeuronArray;
class StoreUnit;

class UnitMonitor : public sc_core::sc_module {
 public:
  UnitMonitor(sc_core::sc_module_name name, UnitTimeline& timeline);

  void attach(const ClockDomain& clock, const LoadUnit& load, const NeuronArray& neurons,
              const StoreUnit& store);
  const sc_core::sc_signal<uint32_t>& line_buffer_bytes() const { return lb_bytes_; }

 private:
  void observe();
  void track(const sc_core::sc_signal<bool>& flag, std::vector<BusyInterval>& out, bool& open,
             uint32_t bytes, uint64_t now);

  UnitTimeline& timeline_;
  const ClockDomain* clock_ = nullptr;
  const LoadUnit* load_ = nullptr;
  const NeuronArray* neurons_ = nullptr;
  const StoreUnit* store_ = nullptr;
  bool load_open_ = false, neurons_open_ = false, store_open_ = false;
  uint32_t occupancy_ = 0;
  sc_core::sc_signal<uint32_t> lb_bytes_;
};

}  // namespace strider
