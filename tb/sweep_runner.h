// SweepRunner: runs simulation points as child processes, N at a time. Each point is
// `EXE run RUN_FILE --set k=v ... --out OUT_DIR` started (fork + exec) in its own working
// directory with stdout and stderr going to OUT_DIR/stdout.txt and OUT_DIR/stderr.txt; SystemC
// elaborates once per process, so a process per point is also what makes points independent.
// The runner polls its children (waitpid WNOHANG), reports each one as it exits, kills a point
// that exceeds the time limit, and on SIGINT / SIGTERM stops the running points and throws
// SweepInterrupted so that the caller can say how to resume.
#pragma once

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tb/sweep_progress.h"

namespace strider {

struct PointJob {
  size_t id = 0;
  std::string label;              // for progress lines, e.g. "point 7"
  std::string run_file;           // absolute
  std::vector<std::string> sets;  // `key=value`
  std::string out_dir;            // absolute; created before the start
  std::string cwd;                // working directory of the child (relative --set paths)
};

struct PointOutcome {
  bool ok = false;     // exited with status 0
  std::string error;   // why not: exit status or signal, and the child's stderr (one line)
  double seconds = 0;  // wall time of the child process
};

struct SweepInterrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class SweepRunner {
 public:
  // `exe`: the strider program; `jobs`: children at once (>= 1); `timeout_s`: per point, 0 = none.
  SweepRunner(std::string exe, size_t jobs, double timeout_s = 0);

  using DoneFn = std::function<void(const PointJob&, const PointOutcome&)>;
  // Runs every job; `done` is called (in this process, one at a time) as each finishes.
  void run(const std::vector<PointJob>& jobs, const DoneFn& done, SweepProgress* progress);

 private:
  std::string exe_;
  size_t jobs_;
  double timeout_s_;
};

// The absolute path of the running program (/proc/self/exe).
std::string self_exe();

// The text of a file folded to one line ("; " between its non-empty lines), at most
// `max_chars` characters (the tail is kept: it holds the final error). "" when unreadable.
std::string file_one_line(const std::string& path, size_t max_chars = 600);

}  // namespace strider
