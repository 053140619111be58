// ProgressBar: a line on a terminal (stderr) showing how many descriptors have retired, updated
// from inside the simulation while it runs. A SystemC thread wakes every `period_cycles` cycles,
// redraws at most every 0.2 s of wall time, starts drawing only after 0.5 s (short runs print
// nothing) and ends with the run (the controller sets RunRecord::cycles when the last descriptor
// retires, or the run deadlocks). The model never sees it; it only reads the RunRecord. The line
// itself is a ProgressDisplay, as for sweeps.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>
#include <systemc>

#include "model/common/clock_domain.h"
#include "model/common/run_record.h"
#include "tb/progress_display.h"

namespace strider {

class ProgressBar : public sc_core::sc_module {
 public:
  // Defaults: wake every 20,000 cycles, first draw after 0.5 s, redraw at most every 0.2 s.
  ProgressBar(sc_core::sc_module_name name, const RunRecord& record, std::ostream& out,
              uint64_t period_cycles = 20000,
              std::chrono::milliseconds first_draw = std::chrono::milliseconds(500),
              std::chrono::milliseconds redraw = std::chrono::milliseconds(200));

  // Must be called before sc_start; without it the thread returns at once.
  void attach(const ClockDomain& clock) { clock_ = &clock; }

  // The bar for `done` of `total` descriptors at `cycle`, without the leading carriage return.
  static std::string render(uint64_t done, uint64_t total, uint64_t cycle, unsigned width = 30);

 private:
  void run();
  // sc_stop (a deadlock) ends the run without a last wake-up: end the bar's line.
  void end_of_simulation() override;
  const RunRecord& record_;
  uint64_t period_cycles_;
  ProgressDisplay display_;
  const ClockDomain* clock_ = nullptr;
};

}  // namespace strider
