#include "tb/run_observers.h"

#include <algorithm>
#include <vector>

#include "model/top/top.h"

namespace strider {

RunObservers::RunObservers(sc_core::sc_module_name name, const RunResult& r, std::ostream* progress)
    : sc_core::sc_module(name), r_(r), monitor_("unit_monitor", timeline_) {
  if (progress != nullptr) {
    progress_ = std::make_unique<ProgressBar>("progress", r.record, *progress);
  }
  SC_HAS_PROCESS(RunObservers);
  SC_THREAD(hold_last_change);
}

// SystemC writes a time step's values to the VCD when time advances past it, so the flags'
// last changes (at the run's final cycle) would be lost: stay one cycle after every change and
// end once the run has ended. Only with waves.vcd; it never touches the model.
void RunObservers::hold_last_change() {
  if (!vcd_ || top_ == nullptr) return;
  std::vector<const sc_core::sc_signal<bool>*> flags = {&top_->load_unit().busy_flag(),
                                                        &top_->neurons().busy_flag(),
                                                        &top_->store_unit().busy_flag()};
  for (size_t ch = 0; ch < top_->dma().channels(); ++ch) {
    flags.push_back(&top_->dma().channel_busy(ch));
  }
  sc_core::sc_event_or_list changes;
  for (const auto* f : flags) changes |= f->value_changed_event();
  auto changed_now = [&] {
    return std::any_of(flags.begin(), flags.end(), [](const auto* f) { return f->event(); });
  };
  const sc_core::sc_time period = top_->clock().period();
  for (;;) {
    sc_core::wait(changes);
    for (;;) {  // until a whole cycle passes without a change
      const sc_core::sc_time from = sc_core::sc_time_stamp();
      sc_core::wait(period, changes);
      if (sc_core::sc_time_stamp() - from >= period && !changed_now()) break;
    }
    if (r_.record.cycles != 0 || r_.record.deadlock) return;
  }
}

void RunObservers::end_of_elaboration() {
  for (sc_core::sc_object* o : sc_core::sc_get_top_level_objects()) {
    Top* top = dynamic_cast<Top*>(o);
    if (top == nullptr) continue;
    found_top_ = true;
    top_ = top;
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
