#include "tb/report_writer.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "arch/config_writer.h"
#include "tb/trace_writer.h"

namespace strider {
namespace {

std::ofstream open(const std::string& path) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error(path + ": cannot open for writing");
  return f;
}

nlohmann::ordered_json summary_json(const RunResult& r, const RunSummary& s) {
  const ArchConfig& arch = r.config.arch;
  nlohmann::ordered_json j;
  j["format_version"] = 1;
  j["cycles"] = s.cycles;
  j["seconds_at_clock"] = s.seconds_at_clock;
  j["macs"] = s.macs;
  j["utilization"] = s.utilization;
  j["bound_cycles"] = s.bound_cycles;
  j["cycles_over_bound"] = s.cycles_over_bound;
  j["layer_bound_cycles"] = s.layer_bound_cycles;
  j["dram"] = {{"read_bytes", r.stats.get("dram.read_bytes")},
               {"write_bytes", r.stats.get("dram.write_bytes")},
               {"descriptor_fetch_bytes", s.descriptor_fetch_bytes}};
  j["l2"] = {{"capacity_bytes", arch.l2.size_bytes},
             {"peak_planned_bytes", s.l2_peak_planned},
             {"peak_observed_bytes", s.l2_peak_observed}};
  j["line_buffer"] = {{"write_cycles", r.stats.get("line_buffer.write_cycles")},
                      {"shifted_writes", r.stats.get("line_buffer.shifted_writes")},
                      {"line_writes", r.stats.get("line_buffer.line_writes")},
                      {"discarded_outputs", r.stats.get("store.discarded_outputs")},
                      {"peak_observed_bytes", s.line_buffer_peak}};
  j["planner"] = {{"allocator", r.lowered.allocator},
                  {"peak_bytes", r.lowered.arena_bytes},
                  {"lower_bound_bytes", r.lowered.lower_bound_bytes},
                  {"proven_optimal", r.lowered.proven_optimal},
                  {"staging_bytes", r.lowered.staging_bytes},
                  {"band_bytes", r.lowered.band_bytes},
                  {"fast_region_bytes", r.lowered.fast_region_bytes},
                  {"arena_bytes", r.lowered.arena_bytes},
                  {"weights_total_bytes", r.lowered.weights_total_bytes},
                  {"weights_stored_bytes", r.lowered.weights_stored_bytes},
                  {"seconds", r.lowered.planner_seconds}};
  // Each model planned alone, and what sharing one accelerator saved against that.
  nlohmann::ordered_json models = nlohmann::ordered_json::array();
  uint64_t arenas = 0, weights = 0;
  for (const ModelFigures& m : r.models) {
    models.push_back({{"name", m.name},
                      {"arena_bytes", m.arena_bytes},
                      {"weights_stored_bytes", m.weights_stored_bytes}});
    arenas += m.arena_bytes;
    weights += m.weights_stored_bytes;
  }
  j["planner"]["models"] = models;
  j["planner"]["saved_arena_bytes"] = arenas - std::min(arenas, r.lowered.arena_bytes);
  j["planner"]["saved_weights_bytes"] = weights - std::min(weights, r.lowered.weights_stored_bytes);
  j["functional"] = {{"enabled", r.config.sim.functional},
                     {"checked_tensors", r.checked_tensors},
                     {"mismatches", r.mismatches}};
  const Totals& t = s.totals;
  j["totals"] = {{"dram_bytes", t.dram_bytes},
                 {"l2_bytes", t.l2_bytes},
                 {"lb_write_cycles", t.lb_write_cycles},
                 {"shifted_writes", t.shifted_writes},
                 {"discarded_outputs", t.discarded_outputs},
                 {"compute_cycles", t.compute_cycles},
                 {"stall_l2_conflict", t.stall_l2_conflict},
                 {"stall_dram", t.stall_dram},
                 {"stall_line_buffer", t.stall_line_buffer},
                 {"stall_backpressure", t.stall_backpressure}};
  j["deadlock"] = r.record.deadlock;
  j["descriptors"] = r.lowered.list.descriptors.size();
  j["wall_seconds"] = r.wall_seconds;
  j["simulated_cycles_per_second"] = r.wall_seconds > 0 ? double(s.cycles) / r.wall_seconds : 0.0;
  nlohmann::ordered_json stats;
  for (const Stat& st : r.stats.all()) {
    stats[st.name] = {{"value", st.value}, {"description", st.description}};
  }
  j["stats"] = stats;
  return j;
}

void write_layers(const RunSummary& s, const std::string& path) {
  std::ofstream f = open(path);
  f << "layer,op,tiles,start,end,cycles,macs,utilization,dram_bytes,l2_bytes,lb_write_cycles,"
       "shifted_writes,discarded_outputs,compute_cycles,stall_l2_conflict,stall_dram,"
       "stall_line_buffer,stall_backpressure,bound_cycles,bottleneck,mapping,class\n";
  for (const LayerRow& l : s.layers) {
    f << l.name << ',' << l.op << ',' << l.tiles << ',' << l.start << ',' << l.end << ','
      << l.cycles << ',' << l.macs << ',' << std::fixed << std::setprecision(6) << l.utilization
      << ',' << l.dram_bytes << ',' << l.l2_bytes << ',' << l.lb_write_cycles << ','
      << l.shifted_writes << ',' << l.discarded_outputs << ',' << l.compute_cycles << ','
      << l.stall_l2_conflict << ',' << l.stall_dram << ',' << l.stall_line_buffer << ','
      << l.stall_backpressure << ',' << l.bound_cycles << ',' << l.bottleneck << ','
      << l.mapping << ',' << l.layer_class << '\n';
  }
}

void write_descriptors(const RunResult& r, const std::string& path) {
  std::ofstream f = open(path);
  f << "id,kind,layer,unit,channel,fetched,ready,start,end,mapping\n";
  for (const DescriptorRecord& d : r.record.descriptors) {
    f << d.id << ',' << (d.is_move ? "move" : "op") << ',' << r.lowered.list.layers[d.layer]
      << ',' << to_string(d.unit) << ',' << d.channel << ',' << d.fetched << ',' << d.ready << ','
      << d.start << ',' << d.end << ','
      << (d.is_move ? "" : to_string(r.lowered.list.descriptors[d.id].op.mapping)) << '\n';
  }
}

// A row per cycle at which either occupancy changes, with both values in force from then on.
constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();
void write_occupancy(const RunSummary& s, const std::string& path) {
  std::ofstream f = open(path);
  f << "cycle,l2_bytes,line_buffer_bytes\n";
  const auto& l2 = s.l2_occupancy;
  const auto& lb = s.line_buffer_occupancy;
  uint64_t l2_now = 0, lb_now = 0;
  for (size_t i = 0, j = 0; i < l2.size() || j < lb.size();) {
    const uint64_t cycle = std::min(i < l2.size() ? l2[i].first : kNone,
                                    j < lb.size() ? lb[j].first : kNone);
    if (i < l2.size() && l2[i].first == cycle) l2_now = l2[i++].second;
    if (j < lb.size() && lb[j].first == cycle) lb_now = lb[j++].second;
    f << cycle << ',' << l2_now << ',' << lb_now << '\n';
  }
}

}  // namespace

void write_memory_plan(const Lowered& l, const std::string& path) {
  std::ofstream f = open(path);
  f << "tensor,kind,offset,size,first,last\n";
  for (const PlannedBuffer& b : l.plan) {
    f << b.tensor << ',' << b.kind << ',' << b.offset << ',' << b.size << ',' << b.first << ','
      << b.last << '\n';
  }
}

void write_reports(const RunResult& r, const RunSummary& s, const std::string& dir,
                   const UnitTimeline* timeline) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error(dir + ": cannot create the output directory: " + ec.message());
  open(dir + "/summary.json") << summary_json(r, s).dump(2) << '\n';
  write_layers(s, dir + "/layers.csv");
  write_descriptors(r, dir + "/descriptors.csv");
  write_occupancy(s, dir + "/occupancy.csv");
  write_memory_plan(r.lowered, dir + "/memory_plan.csv");
  open(dir + "/effective_config.yaml") << effective_yaml(r.config);
  if (r.config.sim.trace) write_trace(r, s, timeline, dir + "/trace.json");
}

void print_summary(const RunResult& r, const RunSummary& s, std::ostream& out) {
  const ArchConfig& arch = r.config.arch;
  out << "strider: " << r.graph.name << " on " << arch.name << "\n";
  out << "  cycles           " << s.cycles << "  (" << std::fixed << std::setprecision(3)
      << s.seconds_at_clock * 1e3 << " ms at " << arch.clock.frequency_mhz << " MHz)\n";
  out << "  MACs             " << s.macs << "  utilisation " << std::setprecision(1)
      << s.utilization * 100 << " %\n";
  out << "  bound            " << s.bound_cycles << " cycles, run at " << std::setprecision(2)
      << s.cycles_over_bound << "x its bound\n";
  out << "  DRAM traffic     " << r.stats.get("dram.read_bytes") << " B read, "
      << r.stats.get("dram.write_bytes") << " B written\n";
  out << "  L2 peak          " << s.l2_peak_planned << " B planned, " << s.l2_peak_observed
      << " B live as executed, of " << arch.l2.size_bytes << " (" << r.lowered.allocator
      << ", activations " << r.lowered.arena_bytes << " B, lower bound "
      << r.lowered.lower_bound_bytes << " B)\n";
  out << "  line buffer      " << r.stats.get("line_buffer.write_cycles") << " write cycles, "
      << r.stats.get("line_buffer.shifted_writes") << " shifted writes, "
      << r.stats.get("store.discarded_outputs") << " discarded outputs";
  if (!s.line_buffer_occupancy.empty()) out << ", peak " << s.line_buffer_peak << " B";
  out << "\n";
  std::vector<const LayerRow*> top;
  for (const LayerRow& l : s.layers) top.push_back(&l);
  std::stable_sort(top.begin(), top.end(),
                   [](const LayerRow* a, const LayerRow* b) { return a->cycles > b->cycles; });
  out << "  most expensive layers:\n";
  for (size_t i = 0; i < std::min<size_t>(5, top.size()); ++i) {
    out << "    " << std::left << std::setw(28) << top[i]->name << std::right << std::setw(12)
        << top[i]->cycles << " cycles  " << std::setw(5) << std::setprecision(1)
        << top[i]->utilization * 100 << " % util  " << top[i]->bottleneck << "\n";
  }
}

}  // namespace strider
