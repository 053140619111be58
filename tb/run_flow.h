// RunFlow: what `strider run` does once the run is loaded (plan, simulate, write the reports into
// the output directory, print the summary) for the commands that load a run their own way
// (`strider scalesim` builds one from a SCALE-Sim config). Exit status as `strider run`.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "tb/output_dir.h"
#include "tb/run_harness.h"
#include "tb/run_summary.h"

namespace strider {

// Further reports: `write` puts them into the run's directory (each through dir.temp /
// dir.commit) after Strider's own and before run.json; `names` adds them to the run's report set.
struct ExtraReports {
  std::vector<std::string> names;
  std::function<void(const RunResult&, const RunSummary&, OutputDir&)> write;
};

// r.config (and r.command_line, recorded in run.json) set; r.dump_tensors_dir optional.
int execute_run(RunResult& r, std::ostream& out, std::ostream& err, const ExtraReports& extra = {});

}  // namespace strider
