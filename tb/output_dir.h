// OutputDir: a run's results directory written so that it never looks complete unless it is.
//   - Opening it removes its run.json (the completion marker) before anything else is written.
//   - Each report is written under a temporary name (`.NAME.partial`) and renamed into place
//     once whole (commit), so a file under its own name is never half written.
//   - finish() removes the files of an earlier run that this run did not write (the files listed
//     in the earlier run.json, and the run's report names, e.g. a trace.json left from a run
//     with sim.trace: true) and leftover temporary files, then writes run.json last: the version,
//     the command line and every file written with its size and SHA-256.
// A run killed at any point (SIGTERM, SIGINT, a crash) therefore leaves no run.json, or the
// run.json of a run whose files are all whole.
#pragma once

#include <string>
#include <vector>

namespace strider {

class OutputDir {
 public:
  // Creates `dir` and removes its run.json. Throws std::runtime_error naming the directory.
  explicit OutputDir(std::string dir);

  const std::string& path() const { return dir_; }
  // Where to write `name` before commit(name).
  std::string temp(const std::string& name) const;
  // Renames temp(name) into place and records it for run.json. Throws std::runtime_error.
  void commit(const std::string& name);
  // Records `name`, written in place before (waves.vcd, written during the simulation), if it
  // exists.
  void adopt(const std::string& name);
  // Removes stale files (returned, by name) and writes run.json.
  std::vector<std::string> finish(const std::vector<std::string>& command_line);

 private:
  std::string dir_;
  std::vector<std::string> earlier_;  // files listed by the earlier run.json
  std::vector<std::string> written_;
};

// rename(2) of a whole file written under a temporary name. Throws std::runtime_error.
void rename_into_place(const std::string& from, const std::string& to);

// Names of the files `strider run` may write into a results directory (besides run.json).
const std::vector<std::string>& run_report_names();

}  // namespace strider
