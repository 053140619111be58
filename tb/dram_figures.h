// DramFigures: the DRAM statistics a run reports under `dram.` in summary.json and the trace
// replay (`strider dram`) prints: bytes, achieved bandwidth and its fraction of the preset's
// peak, row-hit rate, average and p99 read latency, command counts and refresh time. Computed
// from counters at report time (derived values are never stored as stats).
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/arch/dram_spec.h"

namespace strider {

struct DramCounters {
  uint64_t read_bytes = 0, write_bytes = 0;
  uint64_t bursts = 0, row_hits = 0;
  std::array<uint64_t, kDramCmdCount> commands{};
  uint64_t read_requests = 0;
  double read_latency_sum_ns = 0, read_latency_p99_ns = 0;
  double refresh_ns = 0;  // summed over ranks and channels
  double elapsed_ns = 0;  // the span the bandwidth is measured over
};

// The `dram` JSON object: read_bytes, write_bytes, achieved_gb_per_s, peak_gb_per_s,
// fraction_of_peak, row_hit_rate, avg_read_latency_ns, p99_read_latency_ns, commands{ACT..REF},
// refresh_ns, refresh_fraction (of elapsed time per rank).
nlohmann::json dram_figures(const DramSpec& spec, const DramCounters& c);

}  // namespace strider
