// StageProgress: the progress of import, calibration and planning on a terminal, and each
// stage's time for the run's summary. stage(name) starts a stage and returns the callback its
// pass reports "layer k of N" to; the line ("import      layer 120 of 480   1.2 s") is a
// ProgressDisplay, drawn only when `tty` (stderr is a terminal) and only once the stage has run
// 0.5 s, so short stages and logs print nothing. finish() ends the current stage; times() lists
// the stages in order with their seconds.
#pragma once

#include <chrono>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "core/common/progress.h"
#include "tb/progress_display.h"

namespace strider {

class StageProgress {
 public:
  StageProgress(std::ostream& out, bool tty,
                std::chrono::milliseconds first_draw = std::chrono::milliseconds(500));
  ~StageProgress() { finish(); }

  ProgressFn stage(const std::string& name);
  void finish();
  const std::vector<std::pair<std::string, double>>& times() const { return times_; }

  // The line for `done` of `total` layers of stage `name` after `seconds`.
  static std::string render(const std::string& name, uint64_t done, uint64_t total, double seconds);
  // "import 0.012 s, calibration 0.104 s, planning 0.031 s" (a repeated name summed into its
  // first place).
  static std::string summary(const std::vector<std::pair<std::string, double>>& times);

 private:
  std::ostream& out_;
  bool tty_;
  std::chrono::milliseconds first_draw_;
  std::unique_ptr<ProgressDisplay> display_;
  std::string name_;
  std::vector<std::pair<std::string, double>> times_;
};

}  // namespace strider
