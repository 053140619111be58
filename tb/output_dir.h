// OutputDir: a results directory written so that it never looks complete unless it is, and in
// which Strider never removes or overwrites a file it cannot prove it wrote.
//   - A command owns a fixed set of names (its report set) and a manifest (run.json for `run`,
//     plan.json for `plan`) listing each file it wrote with its size and SHA-256.
//   - Opening proves which report-set files are Strider's: those the manifest (or the in-progress
//     manifest of a killed run, `.MANIFEST.partial`) lists by name and SHA-256. A report-set file
//     that is not proven (a user's own, or a forged manifest's) makes the open fail before
//     anything is written; a file outside the report set is never touched whatever a manifest
//     says. A report name that is an input of the command (the run file, the network) is refused.
//   - The manifest (the completion marker) is replaced by the in-progress manifest, kept up to
//     date at each commit, so a killed run's files stay provably Strider's.
//   - Each report is written under a temporary name (`.NAME.partial`) and renamed into place once
//     whole (commit), so a file under its own name is never half written.
//   - finish() removes proven files of an earlier run that this run did not write, then writes
//     the manifest last: the version, the command line and every file written with its size and
//     SHA-256. Temporaries of the report set are removed on every exit path (the destructor).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "core/arch/run_config.h"

namespace strider {

class OutputDir {
 public:
  // Creates `dir`, proves the earlier files and checks `inputs` (paths read by the command).
  // Throws std::runtime_error naming the directory or file. `names` must outlive the OutputDir.
  OutputDir(std::string dir, const std::vector<std::string>& inputs = {},
            std::string manifest = "run.json", const std::vector<std::string>* names = nullptr);
  ~OutputDir();
  OutputDir(const OutputDir&) = delete;
  OutputDir& operator=(const OutputDir&) = delete;

  const std::string& path() const { return dir_; }
  // Where to write `name` (one of the report set) before commit(name).
  std::string temp(const std::string& name) const;
  // Renames temp(name) into place and records it for the manifest. Throws std::runtime_error.
  void commit(const std::string& name);
  // Records `name`, written in place before (waves.vcd, written during the simulation), if it
  // exists.
  void adopt(const std::string& name);
  // Removes stale files (returned, by name) and writes the manifest.
  std::vector<std::string> finish(const std::vector<std::string>& command_line);

 private:
  struct Written {
    std::string name;
    uint64_t bytes = 0;
    std::string sha256;
  };
  void write_progress();
  void remove_temporaries();

  std::string dir_;
  std::string manifest_;
  const std::vector<std::string>* names_;
  std::map<std::string, std::set<std::string>> proven_;  // name -> SHA-256s proven Strider's
  std::vector<Written> written_;
  bool finished_ = false;
};

// rename(2) of a whole file written under a temporary name. Throws std::runtime_error.
void rename_into_place(const std::string& from, const std::string& to);

// Names of the files `strider run` may write into a results directory (besides run.json).
const std::vector<std::string>& run_report_names();
// Names of the files `strider plan` writes into the output directory (besides plan.json).
const std::vector<std::string>& plan_report_names();

// The files a run reads: the run file, the arch file and the network files.
std::vector<std::string> run_inputs(const RunConfig& c);

// Writes `path` whole: `write` fills `.NAME.partial` beside it, renamed into place; the temporary
// is removed when anything fails. Throws std::runtime_error starting with `what` and the path
// (e.g. "--emit x.strd: is a directory").
void write_whole_file(const std::string& path, const std::string& what,
                      const std::function<void(std::ostream&)>& write);

// Throws std::runtime_error when `output` is the same file as one of `inputs` (after following
// links); `what` names the option (e.g. "--emit").
void refuse_input_as_output(const std::string& output, const std::vector<std::string>& inputs,
                            const std::string& what);

}  // namespace strider
