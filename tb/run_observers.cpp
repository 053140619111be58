#include "tb/run_observers.h"

#include "model/top/top.h"

namespace strider {

RunObservers::RunObservers(sc_core::sc_module_name name, const RunResult& r, std::ostream* progress)
    : sc_core::sc_module(name), r_(r), monitor_("unit_monitor", timeline_) {
  if (progress != nullptr) {
    progress_ = std::make_unique<ProgressBar>("progress", r.record, *progress);
  }
}

void RunObservers::end_of_elaboration() {
  for (sc_core::sc_object* o : sc_core::sc_get_top_level_objects()) {
    Top* top = dynamic_cast<Top*>(o);
    if (top == nullptr) continue;
    found_top_ = true;
    monitor_.attach(top->clock(), top->load_unit(), top->neurons(), top->store_unit());
    if (progress_) progress_->attach(top->clock());
    if (r_.config.sim.vcd) {
      try {
        vcd_ = std::make_unique<VcdTracer>(r_.config.output_dir + "/waves", *top, monitor_);
      } catch (const std::exception& e) {
        vcd_error_ = e.what();
      }
    }
    return;
  }
}

}  // namespace strider
