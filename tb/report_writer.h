// Report writers: the files of DESIGN section 5 in a run's output directory, and the compact
// human summary on stdout. Every figure comes from RunSummary / RunResult, so the files agree.
#pragma once

#include <ostream>
#include <string>

#include "tb/run_summary.h"

namespace strider {

// summary.json, layers.csv, descriptors.csv, occupancy.csv, memory_plan.csv,
// effective_config.yaml into `dir` (created). Throws std::runtime_error naming a file it cannot
// write.
void write_reports(const RunResult& r, const RunSummary& s, const std::string& dir);

// Writes memory_plan.csv alone (also used by `strider plan`).
void write_memory_plan(const Lowered& l, const std::string& path);

void print_summary(const RunResult& r, const RunSummary& s, std::ostream& out);

}  // namespace strider
