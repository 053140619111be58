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
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {
  if (terminal_ && total_ > 0) draw();
}

double SweepProgress::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

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
  if (!terminal_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ >= std::chrono::milliseconds(200)) draw();
}

void SweepProgress::close() {
  if (terminal_ && drawn_) err_ << "\n";
  err_.flush();
  drawn_ = false;
}

void SweepProgress::draw() {
  constexpr size_t kWidth = 30;
  last_draw_ = std::chrono::steady_clock::now();
  const size_t filled = total_ ? done_ * kWidth / total_ : kWidth;
  const double t = elapsed();
  std::string bar(filled, '#');
  bar += std::string(kWidth - filled, '.');
  std::string eta = done_ == 0 ? "?" : format_duration(t / double(done_) * double(total_ - done_));
  err_ << "\r[" << bar << "] " << done_ << "/" << total_;
  if (failed_) err_ << " (" << failed_ << " failed)";
  err_ << "  elapsed " << format_duration(t) << "  ETA " << eta << "   ";
  err_.flush();
  drawn_ = true;
}

}  // namespace strider
