// Report writers: the files of DESIGN section 5 in a run's output directory, and the compact
// human summary on stdout. Every figure comes from RunSummary / RunResult, so the files agree:
// each layers.csv column sums to summary.json's `totals` of the same name, and
// totals.dram_bytes + dram.descriptor_fetch_bytes = dram.read_bytes + dram.write_bytes.
#pragma once

#include <ostream>
#include <string>

#include "tb/output_dir.h"
#include "tb/run_summary.h"
#include "tb/unit_timeline.h"

namespace strider {

// summary.json, layers.csv, descriptors.csv, occupancy.csv, memory_plan.csv,
// effective_config.yaml and (unless sim.trace is false) trace.json into `out`, each committed
// whole (the caller then calls out.finish(), which writes run.json).
// `timeline` (optional, from RunObservers) puts operation tiles on the load / neurons / store
// tracks of trace.json. Throws std::runtime_error naming a file it cannot write.
void write_reports(const RunResult& r, const RunSummary& s, OutputDir& out,
                   const UnitTimeline* timeline = nullptr);

// Writes memory_plan.csv alone (also used by `strider plan`).
void write_memory_plan(const Lowered& l, const std::string& path);

void print_summary(const RunResult& r, const RunSummary& s, std::ostream& out);

}  // namespace strider
