#include "tb/progress_bar.h"

#include <sstream>

namespace strider {

ProgressBar::ProgressBar(sc_core::sc_module_name name, const RunRecord& record, std::ostream& out,
                         uint64_t period_cycles, std::chrono::milliseconds first_draw,
                         std::chrono::milliseconds redraw)
    : sc_core::sc_module(name),
      record_(record),
      out_(out),
      period_cycles_(period_cycles),
      first_draw_(first_draw),
      redraw_(redraw) {
  SC_HAS_PROCESS(ProgressBar);
  SC_THREAD(run);
}

std::string ProgressBar::render(uint64_t done, uint64_t total, uint64_t cycle, unsigned width) {
  const uint64_t filled = total ? done * width / total : width;
  std::ostringstream os;
  os << "  simulating [" << std::string(filled, '#') << std::string(width - filled, '.') << "] "
     << (total ? done * 100 / total : 100) << " %  " << done << "/" << total
     << " descriptors  cycle " << cycle;
  return os.str();
}

void ProgressBar::run() {
  if (clock_ == nullptr) return;
  using Clock = std::chrono::steady_clock;
  const Clock::time_point t0 = Clock::now();
  Clock::time_point last = t0;
  bool drawn = false;
  const uint64_t total = record_.descriptors.size();
  for (;;) {
    sc_core::wait(clock_->cycles(period_cycles_));
    const bool finished = record_.cycles != 0 || record_.deadlock;
    const Clock::time_point t = Clock::now();
    if (finished) {
      if (drawn) out_ << "\r" << render(total, total, record_.cycles) << "\n" << std::flush;
      line_open_ = false;
      return;
    }
    if (t - t0 < first_draw_ || (drawn && t - last < redraw_)) continue;
    uint64_t done = 0;
    for (const DescriptorRecord& d : record_.descriptors) done += d.end != 0 ? 1 : 0;
    out_ << "\r" << render(done, total, clock_->now()) << std::flush;
    last = t;
    drawn = line_open_ = true;
  }
}

void ProgressBar::end_of_simulation() {
  if (line_open_) out_ << "\n" << std::flush;
  line_open_ = false;
}

}  // namespace strider
