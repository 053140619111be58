// RunSummary: the figures of a run derived from its descriptor records and stats, per layer and
// in total. Computed once after the simulation; every report writer reads from it, so the files
// agree with each other by construction.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tb/energy_breakdown.h"
#include "tb/energy_model.h"
#include "tb/run_harness.h"
#include "tb/unit_timeline.h"

namespace strider {

// Work and stall counters summed over descriptors: a layer's (LayerRow) or the run's (Totals).
// In the run's totals each equals the sum of the layers' column of the same name, and each is
// checked against the model's own counters in the e2e tests.
struct WorkCounts {
  uint64_t dram_bytes = 0;  // descriptor traffic; in Totals + descriptor_fetch_bytes = all DRAM
  uint64_t l2_bytes = 0;
  uint64_t lb_write_cycles = 0, shifted_writes = 0, discarded_outputs = 0;
  uint64_t compute_cycles = 0;
  uint64_t stall_l2_conflict = 0, stall_dram = 0, stall_line_buffer = 0, stall_backpressure = 0;
  uint64_t l2_bank_conflict_cycles = 0;  // L2 accesses' cycles past their port time (all ports)
  uint64_t dram_bursts = 0, dram_row_hits = 0;  // jedec DRAM model
  void add(const DescriptorRecord& d);
  WorkCounts& operator+=(const WorkCounts& o);
};
using Totals = WorkCounts;

struct LayerRow : WorkCounts {
  std::string name, op;
  uint32_t tiles = 0;
  uint64_t start = 0, end = 0, cycles = 0;  // first start, last retirement, end - start
  uint64_t macs = 0;
  double utilization = 0;                   // macs / (cycles x peak MACs per cycle)
  // L2 bytes per port: load (tiles' reads), store (tiles' writes), dma (moves' L2 side).
  uint64_t load_port_bytes = 0, store_port_bytes = 0, dma_port_bytes = 0;
  // DRAM and DMA-port bytes of the moves that started inside the layer's span (not prefetched).
  uint64_t span_dram_bytes = 0, span_dma_port_bytes = 0;
  // max(MACs / peak MACs per cycle, span DRAM bytes / DRAM bytes per cycle, busiest L2 port's
  // bytes / port bytes per cycle, line-buffer write cycles, all L2 bytes / the banks' bytes per
  // cycle), each rounded up: no schedule of the layer's work inside its span can be shorter.
  uint64_t bound_cycles = 0;
  std::string bottleneck;  // compute | line_buffer | dram | l2_port | l2_banks | latency | none
  std::string mapping;     // positions | channels | mixed (tiles of both); empty: moves only
  std::string batch_order; // images_inside | images_outside (batch > 1, weights); else empty
  std::string layer_class; // conv (k>1) | depthwise | pointwise (1x1, fc) | pool | eltwise; empty: moves
  ActionCounts actions;    // what its descriptors did (tb/energy_model.h)
  double energy_pj = 0;    // dynamic energy of those actions (leakage is the run's)
  EnergyBreakdown breakdown;  // its accesses and energy per storage level and data space
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
  // The network's bound: max(MACs / peak, DRAM bytes incl. descriptor fetch / bandwidth, busiest
  // L2 port's bytes / port bandwidth, line-buffer write cycles, all L2 bytes / the banks'
  // bandwidth) over the whole run; layer_bound_cycles sums the layers' (not the deep prefetches'
  // rows: those moves run under other layers). bound_cycles also takes the capacity bound
  // (tb/capacity_bound.h: the weights L2 cannot hold after a classifier's chain point), kept apart
  // in capacity_bound_cycles with the node that gives it.
  uint64_t bound_cycles = 0, layer_bound_cycles = 0;
  uint64_t capacity_bound_cycles = 0;
  std::string capacity_bound_node;
  double cycles_over_bound = 0;
  uint64_t l2_peak_planned = 0, l2_peak_observed = 0;
  std::vector<std::pair<uint64_t, uint64_t>> l2_occupancy;  // (cycle, bytes) at every change
  Totals totals;
  uint64_t descriptor_fetch_bytes = 0;  // the controller's reads of the descriptor list
  // Line-buffer occupancy (from the UnitMonitor; empty when the run was not observed).
  std::vector<std::pair<uint64_t, uint64_t>> line_buffer_occupancy;
  uint64_t line_buffer_peak = 0;
  // Energy, power, efficiency and area from every layer's actions plus the units' busy cycles.
  EnergyReport energy;
  // The layers' breakdowns summed, plus the DRAM background cell (tb/energy_breakdown.h).
  EnergyBreakdown breakdown;
};

// `timeline` (optional) adds the line-buffer occupancy observed during the run.
RunSummary summarise(const RunResult& r, const UnitTimeline* timeline = nullptr);

}  // namespace strider
