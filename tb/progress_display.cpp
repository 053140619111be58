// See progress_display.h.
#include "tb/progress_display.h"

namespace strider {

ProgressDisplay::ProgressDisplay(std::ostream& out, std::chrono::milliseconds first_draw,
                                 std::chrono::milliseconds redraw)
    : out_(out), first_draw_(first_draw), redraw_(redraw), start_(Clock::now()), last_(start_) {}

std::string ProgressDisplay::bar(uint64_t done, uint64_t total, unsigned width) {
  const uint64_t filled = total ? done * width / total : width;
  return "[" + std::string(filled, '#') + std::string(width - filled, '.') + "]";
}

bool ProgressDisplay::due() const {
  const Clock::time_point t = Clock::now();
  return t - start_ >= first_draw_ && (!ever_drawn_ || t - last_ >= redraw_);
}

void ProgressDisplay::draw(const std::string& line, bool force) {
  if (!force && !due()) return;
  out_ << "\r" << line << std::flush;
  last_ = Clock::now();
  ever_drawn_ = open_ = true;
}

void ProgressDisplay::close() {
  if (open_) out_ << "\n" << std::flush;
  open_ = false;
}

double ProgressDisplay::elapsed_seconds() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

}  // namespace strider
