#include "tb/sweep_progress.h"

#include <cstdio>

namespace strider {

std::string format_duration(double seconds) {
  long s = seconds < 0 ? 0 : long(seconds + 0.5);
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  }
  return buf;
}

SweepProgress::SweepProgress(std::ostream& err, size_t total, bool terminal)
    : err_(err),
      total_(total),
      terminal_(terminal),
      display_(err, std::chrono::milliseconds(0), std::chrono::milliseconds(200)) {
  if (terminal_ && total_ > 0) draw();
}

double SweepProgress::elapsed() const { return display_.elapsed_seconds(); }

void SweepProgress::finished(const std::string& label, bool ok, double seconds) {
  ++done_;
  if (!ok) ++failed_;
  if (terminal_) {
    draw();
    return;
  }
  char secs[32];
  std::snprintf(secs, sizeof secs, "%.2f", seconds);
  err_ << "[" << done_ << "/" << total_ << "] " << label << (ok ? " done" : " FAILED") << " in "
       << secs << " s\n";
  err_.flush();
}

void SweepProgress::tick() {
  if (terminal_ && display_.due()) draw();
}

void SweepProgress::close() {
  display_.close();
  err_.flush();
}

void SweepProgress::draw() {
  const double t = elapsed();
  const std::string eta =
      done_ == 0 ? "?" : format_duration(t / double(done_) * double(total_ - done_));
  std::string line = ProgressDisplay::bar(done_, total_, 30) + " " + std::to_string(done_) + "/" +
                     std::to_string(total_);
  if (failed_) line += " (" + std::to_string(failed_) + " failed)";
  line += "  elapsed " + format_duration(t) + "  ETA " + eta + "   ";
  display_.draw(line, true);
}

}  // namespace strider
