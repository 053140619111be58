// RunObservers: everything that watches a simulation without being part of the model: the
// UnitMonitor (per-unit busy intervals and line-buffer occupancy for trace.json and
// occupancy.csv), the VcdTracer (waves.vcd when sim.vcd is set) and the ProgressBar (stderr, when
// asked for). Construct it before simulate_run(): at the end of elaboration it finds the Top the
// harness built (any top-level sc_module of type Top) and attaches to its units, so the harness
// needs no change. waves.vcd is closed when the observers are destroyed.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <systemc>

#include "tb/progress_bar.h"
#include "tb/run_harness.h"
#include "tb/unit_monitor.h"
#include "tb/unit_timeline.h"
#include "tb/vcd_tracer.h"

namespace strider {

class Top;

class RunObservers : public sc_core::sc_module {
 public:
  // `r` must outlive the simulation; its config (sim.vcd, output_dir) is read at the end of
  // elaboration. `progress` is where the progress bar goes (nullptr: none).
  RunObservers(sc_core::sc_module_name name, const RunResult& r, std::ostream* progress);

  const UnitTimeline& timeline() const { return timeline_; }
  bool found_top() const { return found_top_; }
  // Why waves.vcd could not be written (empty when it was, or was not asked for).
  const std::string& vcd_error() const { return vcd_error_; }

 private:
  void end_of_elaboration() override;
  void hold_last_change();

  const RunResult& r_;
  UnitTimeline timeline_;
  UnitMonitor monitor_;
  std::unique_ptr<ProgressBar> progress_;
  std::unique_ptr<VcdTracer> vcd_;
  Top* top_ = nullptr;
  bool found_top_ = false;
  std::string vcd_error_;
};

}  // namespace strider
