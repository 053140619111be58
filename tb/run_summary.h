// RunSummary: the figures of a run derived from its descriptor records and stats, per layer and
// in total. Computed once after the simulation; every report writer reads from it, so the files
// agree with each other by construction.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tb/run_harness.h"
#include "tb/unit_timeline.h"

namespace strider {

struct LayerRow {
  std::string name, op;
  uint32_t tiles = 0;
  uint64_t start = 0, end = 0, cycles = 0;  // first start, last retirement, end - start
  uint64_t macs = 0;
  double utilization = 0;                   // macs / (cycles x peak MACs per cycle)
  uint64_t dram_bytes = 0, l2_bytes = 0;
  uint64_t lb_write_cycles = 0, shifted_writes = 0, discarded_outputs = 0;
  uint64_t compute_cycles = 0;
  uint64_t stall_l2_conflict = 0, stall_dram = 0, stall_line_buffer = 0, stall_backpressure = 0;
};

// Sums over every descriptor (so over every layer): each equals the sum of the layers' column of
// the same name, and each is checked against the model's own counters in the e2e tests.
struct Totals {
  uint64_t dram_bytes = 0;  // descriptor traffic; + descriptor_fetch_bytes = DRAM read + written
  uint64_t l2_bytes = 0;
  uint64_t lb_write_cycles = 0, shifted_writes = 0, discarded_outputs = 0;
  uint64_t compute_cycles = 0;
  uint64_t stall_l2_conflict = 0, stall_dram = 0, stall_line_buffer = 0, stall_backpressure = 0;
};

struct RunSummary {
  std::vector<LayerRow> layers;
  uint64_t cycles = 0;
  double seconds_at_clock = 0;
  uint64_t images = 1;          // batch: images per run (the largest N of the graph inputs)
  double cycles_per_image = 0;  // cycles / images
  uint64_t macs = 0;
  double utilization = 0;
  uint64_t peak_macs_per_cycle = 0;
  uint64_t l2_peak_planned = 0, l2_peak_observed = 0;
  std::vector<std::pair<uint64_t, uint64_t>> l2_occupancy;  // (cycle, bytes) at every change
  Totals totals;
  uint64_t descriptor_fetch_bytes = 0;  // the controller's reads of the descriptor list
  // Line-buffer occupancy (from the UnitMonitor; empty when the run was not observed).
  std::vector<std::pair<uint64_t, uint64_t>> line_buffer_occupancy;
  uint64_t line_buffer_peak = 0;
};

// `timeline` (optional) adds the line-buffer occupancy observed during the run.
RunSummary summarise(const RunResult& r, const UnitTimeline* timeline = nullptr);

}  // namespace strider
