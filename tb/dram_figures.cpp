#include "tb/dram_figures.h"

namespace strider {

nlohmann::json dram_figures(const DramSpec& spec, const DramCounters& c) {
  nlohmann::json j;
  const double bytes = double(c.read_bytes + c.write_bytes);
  const double peak = spec.peak_bytes_per_second() / 1e9;               // GB/s
  const double achieved = c.elapsed_ns > 0 ? bytes / c.elapsed_ns : 0;  // B/ns = GB/s
  j["preset"] = spec.name;
  j["read_bytes"] = c.read_bytes;
  j["write_bytes"] = c.write_bytes;
  j["achieved_gb_per_s"] = achieved;
  j["peak_gb_per_s"] = peak;
  j["fraction_of_peak"] = peak > 0 ? achieved / peak : 0;
  j["bursts"] = c.bursts;
  j["row_hit_rate"] = c.bursts ? double(c.row_hits) / double(c.bursts) : 0;
  j["read_requests"] = c.read_requests;
  j["avg_read_latency_ns"] = c.read_requests ? c.read_latency_sum_ns / c.read_requests : 0;
  j["p99_read_latency_ns"] = c.read_latency_p99_ns;
  nlohmann::json cmds;
  for (int k = 0; k < kDramCmdCount; ++k) cmds[to_string(static_cast<DramCmd>(k))] = c.commands[k];
  j["commands"] = cmds;
  j["refresh_ns"] = c.refresh_ns;
  const double ranks = double(spec.channels) * spec.ranks;
  j["refresh_fraction"] = c.elapsed_ns > 0 ? c.refresh_ns / (ranks * c.elapsed_ns) : 0;
  return j;
}

}  // namespace strider
