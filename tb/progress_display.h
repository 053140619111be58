// ProgressDisplay: the one progress line of the program, used by the simulation's ProgressBar
// and by sweeps and regressions (SweepProgress). It draws a line in place ("\r...") on a
// terminal, waits `first_draw` before the first draw (short jobs print nothing), redraws at most
// every `redraw`, and ends the line when closed. bar() is the "[####....]" both show.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

namespace strider {

class ProgressDisplay {
 public:
  ProgressDisplay(std::ostream& out, std::chrono::milliseconds first_draw,
                  std::chrono::milliseconds redraw);

  // "[" + done/total of `width` as '#', the rest '.' + "]" (total 0: full).
  static std::string bar(uint64_t done, uint64_t total, unsigned width);
  // Whether a draw now would show: past first_draw, and redraw since the last draw.
  bool due() const;
  // Draws `line` in place (when due(), or always with `force`).
  void draw(const std::string& line, bool force = false);
  // Ends the line if one is drawn.
  void close();
  bool drawn() const { return open_; }
  double elapsed_seconds() const;

 private:
  using Clock = std::chrono::steady_clock;
  std::ostream& out_;
  std::chrono::milliseconds first_draw_, redraw_;
  Clock::time_point start_, last_;
  bool ever_drawn_ = false, open_ = false;
};

}  // namespace strider
