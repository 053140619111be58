// SweepProgress: progress of a sweep or regression on stderr. On a terminal, one line redrawn in
// place: a bar, done/total, failures, elapsed time and an ETA (elapsed / done x remaining, from
// the points finished in this session). Elsewhere (logs, batch jobs) one line per finished point.
// The terminal line is a ProgressDisplay, as for a single run.
#pragma once

#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>

#include "tb/progress_display.h"

namespace strider {

class SweepProgress {
 public:
  // `total`: points this session will run; `terminal`: redraw in place (else one line each).
  SweepProgress(std::ostream& err, size_t total, bool terminal);

  void finished(const std::string& label, bool ok, double seconds);
  void tick();   // redraws the bar (at most 5 times a second) so elapsed time moves
  void close();  // ends the bar's line

  size_t done() const { return done_; }
  size_t failed() const { return failed_; }
  double elapsed() const;

 private:
  void draw();

  std::ostream& err_;
  size_t total_, done_ = 0, failed_ = 0;
  bool terminal_;
  ProgressDisplay display_;
};

// "m:ss" (or "h:mm:ss") for a duration in seconds.
std::string format_duration(double seconds);

}  // namespace strider
