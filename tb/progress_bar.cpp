#include "tb/progress_bar.h"

#include <sstream>

namespace strider {

ProgressBar::ProgressBar(sc_core::sc_module_name name, const RunRecord& record, std::ostream& out,
                         uint64_t period_cycles, std::chrono::milliseconds first_draw,
                         std::chrono::milliseconds redraw)
    : sc_core::sc_module(name),
      record_(record),
      period_cycles_(period_cycles),
      display_(out, first_draw, redraw) {
  SC_HAS_PROCESS(ProgressBar);
  SC_THREAD(run);
}

std::string ProgressBar::render(uint64_t done, uint64_t total, uint64_t cycle, unsigned width) {
  std::ostringstream os;
  os << "  simulating " << ProgressDisplay::bar(done, total, width) << " "
     << (total ? done * 100 / total : 100) << " %  " << done << "/" << total
     << " descriptors  cycle " << cycle;
  return os.str();
}

void ProgressBar::run() {
  if (clock_ == nullptr) return;
  const uint64_t total = record_.descriptors.size();
  for (;;) {
    sc_core::wait(clock_->cycles(period_cycles_));
    if (record_.cycles != 0 || record_.deadlock) {
      if (display_.drawn()) display_.draw(render(total, total, record_.cycles), true);
      display_.close();
      return;
    }
    if (!display_.due()) continue;
    uint64_t done = 0;
    for (const DescriptorRecord& d : record_.descriptors) done += d.end != 0 ? 1 : 0;
    display_.draw(render(done, total, clock_->now()), true);
  }
}

void ProgressBar::end_of_simulation() { display_.close(); }

}  // namespace strider
