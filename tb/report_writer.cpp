#include "tb/report_writer.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <future>
#include <iomanip>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/arch/config_writer.h"
#include "core/arch/energy_tables.h"
#include "core/common/csv.h"
#include "core/common/parallel_for.h"
#include "tb/dram_figures.h"
#include "tb/output_dir.h"
#include "tb/plan_tables.h"
#include "tb/quant_report.h"
#include "tb/trace_writer.h"
#include "tb/version.h"

namespace strider {
namespace {

std::ofstream open(const std::string& path) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error(path + ": cannot open for writing");
  return f;
}

// The searched layers per loop order (mapping.csv's loop_order; empty without the search).
nlohmann::ordered_json loop_order_counts(const Lowered& l) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const char* o : {"inputs_outer", "weights_outer", "images_grouped"}) {
    const auto k = std::count_if(l.mapping.begin(), l.mapping.end(),
                                 [&](const MappingRow& m) { return m.loop_order == o; });
    if (!l.mapping.empty()) j[o] = k;
  }
  return j;
}

nlohmann::ordered_json summary_json(const RunResult& r, const RunSummary& s) {
  const ArchConfig& arch = r.config.arch;
  nlohmann::ordered_json j;
  j["format_version"] = 1;
  j["version"] = strider_version();
  j["git_revision"] = strider_git_revision();
  j["cycles"] = s.cycles;
  j["seconds_at_clock"] = s.seconds_at_clock;
  j["batch"] = s.images;
  j["cycles_per_image"] = s.cycles_per_image;
  j["macs"] = s.macs;
  j["utilization"] = s.utilization;
  j["bound_cycles"] = s.bound_cycles;
  j["cycles_over_bound"] = s.cycles_over_bound;
  j["layer_bound_cycles"] = s.layer_bound_cycles;
  j["capacity_bound_cycles"] = s.capacity_bound_cycles;
  j["capacity_bound_node"] = s.capacity_bound_node;
  const uint64_t dram_read = r.stats.get("dram.read_bytes"),
                 dram_write = r.stats.get("dram.write_bytes");
  j["dram"] = {{"read_bytes", dram_read},
               {"write_bytes", dram_write},
               {"descriptor_fetch_bytes", s.descriptor_fetch_bytes},
               {"read_bytes_per_image", double(dram_read) / double(s.images)},
               {"write_bytes_per_image", double(dram_write) / double(s.images)}};
  j["dram"]["model"] = arch.dram.model;
  if (arch.dram.model == "jedec") {
    // The JEDEC model's figures (tb/dram_figures.h) over the whole run.
    const double ns_per_cycle = 1000.0 / arch.clock.frequency_mhz;
    DramCounters c;
    c.read_bytes = r.stats.get("dram.read_bytes");
    c.write_bytes = r.stats.get("dram.write_bytes");
    c.bursts = r.stats.get("dram.bursts");
    c.row_hits = r.stats.get("dram.row_hits");
    for (int k = 0; k < kDramCmdCount; ++k) {
      c.commands[k] = r.stats.get(dram_command_stat(static_cast<DramCmd>(k)));
    }
    c.read_requests = r.stats.get("dram.read_requests");
    c.read_latency_sum_ns = r.stats.get("dram.read_latency_cycles") * ns_per_cycle;
    c.read_latency_p99_ns = r.stats.get("dram.read_latency_p99_cycles") * ns_per_cycle;
    c.refresh_ns = r.stats.get("dram.refresh_cycles") * ns_per_cycle;
    c.elapsed_ns = s.cycles * ns_per_cycle;
    j["dram"].update(dram_figures(arch.dram.spec, c));
  }
  j["l2"] = {{"capacity_bytes", arch.l2.size_bytes},
             {"peak_planned_bytes", s.l2_peak_planned},
             {"peak_observed_bytes", s.l2_peak_observed},
             {"bank_conflict_cycles",
              {{"dma", r.stats.get("l2.bank_conflict_cycles.dma")},
               {"load", r.stats.get("l2.bank_conflict_cycles.load")},
               {"store", r.stats.get("l2.bank_conflict_cycles.store")}}}};
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
                  {"weight_slot_bytes", r.lowered.weight_slot_bytes},
                  {"loop_orders", loop_order_counts(r.lowered)},
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
  if (!r.layer_fidelity.empty()) j["quant"] = quant_json(r);
  const Totals& t = s.totals;
  j["totals"] = {{"dram_bytes", t.dram_bytes},
                 {"l2_bytes", t.l2_bytes},
                 {"lb_write_cycles", t.lb_write_cycles},
                 {"shifted_writes", t.shifted_writes},
                 {"discarded_outputs", t.discarded_outputs},
                 {"compute_cycles", t.compute_cycles},
                 {"stall_l2_conflict", t.stall_l2_conflict},
                 {"l2_bank_conflict_cycles", t.l2_bank_conflict_cycles},
                 {"stall_dram", t.stall_dram},
                 {"stall_line_buffer", t.stall_line_buffer},
                 {"stall_backpressure", t.stall_backpressure}};
  const EnergyReport& e = s.energy;
  nlohmann::ordered_json by_unit, by_action, area;
  for (const auto& [unit, pj] : e.by_unit) by_unit[unit] = pj;
  for (const ActionEnergyRow& a : e.rows) {
    by_action[a.action] = {{"count", a.count}, {"pj_each", a.pj_each}, {"pj", a.pj}};
  }
  for (const auto& [unit, mm2] : e.area_mm2) area[unit] = mm2;
  nlohmann::ordered_json breakdown;
  for (int l = 0; l < kLevels; ++l) {
    for (int k = 0; k < kSpaces; ++k) {
      const BreakdownCell& c = s.breakdown.cell[l][k];
      if (c.reads == 0 && c.writes == 0 && c.bytes == 0 && c.pj == 0) continue;
      breakdown[level_name(l)][space_name(k)] = {
          {"reads", c.reads}, {"writes", c.writes}, {"bytes", c.bytes}, {"pj", c.pj}};
    }
  }
  area["total"] = e.area_total_mm2;
  j["energy"] = {{"tech", arch.energy.tech},         {"dram_type", arch.energy.dram_type},
                 {"total_pj", e.total_pj},           {"dynamic_pj", e.dynamic_pj},
                 {"clock_pj", e.clock_pj},           {"leakage_pj", e.leakage_pj},
                 {"dram_background_pj", e.dram_background_pj},
                 {"dram_unattributed_pj", e.dram_unattributed_pj},
                 {"onchip_pj", e.onchip_pj},         {"dram_pj", e.dram_pj},
                 {"by_unit", by_unit},
                 {"by_action", by_action},
                 {"breakdown", breakdown}};
  j["power_mw"] = e.power_mw;  // on-chip + DRAM
  j["power_onchip_mw"] = e.power_onchip_mw;
  j["power_dram_mw"] = e.power_dram_mw;
  j["tops_per_watt"] = e.tops_per_watt;  // DRAM included
  j["tops_per_watt_onchip"] = e.tops_per_watt_onchip;
  j["edp"] = e.edp;
  j["area_mm2"] = area;
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

void write_layers(const RunSummary& s, const std::vector<Fidelity>& fidelity,
                  const std::vector<Fidelity>& held_out, const std::string& path) {
  std::ofstream f = open(path);
  f << "layer,op,tiles,start,end,cycles,macs,utilization,dram_bytes,l2_bytes,lb_write_cycles,"
       "shifted_writes,discarded_outputs,compute_cycles,stall_l2_conflict,"
       "l2_bank_conflict_cycles,stall_dram,"
       "stall_line_buffer,stall_backpressure,bound_cycles,bottleneck,mapping,batch_order,class,energy_pj,"
       "sqnr_db,saturated_fraction,eval_sqnr_db,eval_saturated_fraction,"
       "dram_row_hit_rate\n";
  for (size_t i = 0; i < s.layers.size(); ++i) {
    const LayerRow& l = s.layers[i];
    csv::Writer w(f);
    w << l.name << l.op << l.tiles << l.start << l.end << l.cycles << l.macs;
    w.fixed(l.utilization, 6) << l.dram_bytes << l.l2_bytes << l.lb_write_cycles << l.shifted_writes
      << l.discarded_outputs << l.compute_cycles << l.stall_l2_conflict
      << l.l2_bank_conflict_cycles << l.stall_dram
      << l.stall_line_buffer << l.stall_backpressure << l.bound_cycles << l.bottleneck
      << l.mapping << l.batch_order << l.layer_class;
    w.fixed(l.energy_pj, 3);
    // Quantisation fidelity (functional mode, calibrated): empty when not measured.
    // An SQNR that is no finite number (a (near) zero float output, or exact values) is empty.
    // The evaluation set's (quant.evaluation) after them, empty without one.
    for (const std::vector<Fidelity>* set : {&fidelity, &held_out}) {
      if (i < set->size() && (*set)[i].values > 0) {
        const Fidelity& f = (*set)[i];
        if (std::isfinite(f.sqnr_db())) {
          w.fixed(f.sqnr_db(), 3);
        } else {
          w.cell("");
        }
        w.fixed(f.saturated_fraction(), 6);
      } else {
        w.cell("").cell("");
      }
    }
    // Row-buffer hits of the layer's DRAM bursts (jedec model): empty without bursts.
    if (l.dram_bursts > 0) {
      w.fixed(double(l.dram_row_hits) / double(l.dram_bursts), 4);
    } else {
      w.cell("");
    }
    w.end_row();
  }
}

void write_descriptors(const RunResult& r, const std::string& path) {
  std::ofstream f = open(path);
  f << "id,kind,layer,unit,channel,fetched,ready,start,end,mapping\n";
  for (const DescriptorRecord& d : r.record.descriptors) {
    csv::Writer w(f);
    w << d.id << (d.is_move ? "move" : "op") << r.lowered.list.layers[d.layer]
      << to_string(d.unit) << d.channel << d.fetched << d.ready << d.start << d.end
      << (d.is_move ? "" : to_string(r.lowered.list.descriptors[d.id].op.mapping));
    w.end_row();
  }
}

// A row per cycle at which either occupancy changes, with both values in force from then on.
constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();
// energy_breakdown.csv: per layer, each storage level x data space with any access or energy
// (tb/energy_breakdown.h); the DRAM background cell is the run's, under layer "(run)".
void write_energy_breakdown(const RunSummary& s, const std::string& path) {
  std::ofstream f = open(path);
  f << "layer,level,data_space,reads,writes,bytes,energy_pj\n";
  const auto rows = [&](const std::string& name, const EnergyBreakdown& b) {
    for (int l = 0; l < kLevels; ++l) {
      for (int k = 0; k < kSpaces; ++k) {
        const BreakdownCell& c = b.cell[l][k];
        if (c.reads == 0 && c.writes == 0 && c.bytes == 0 && c.pj == 0) continue;
        csv::Writer w(f);
        w << name << level_name(l) << space_name(k) << c.reads << c.writes << c.bytes;
        w.fixed(c.pj, 3);
        w.end_row();
      }
    }
  };
  for (const LayerRow& l : s.layers) rows(l.name, l.breakdown);
  EnergyBreakdown run;
  run.cell[kLvDram][kSpBackground] = s.breakdown.cell[kLvDram][kSpBackground];
  rows("(run)", run);
}

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
    csv::Writer w(f);
    w << cycle << l2_now << lb_now;
    w.end_row();
  }
}

// mapping.csv (`lowering.mapping: search`, planner/lower/mapper.h): per searched layer the
// choice, its predicted and simulated cycles, the best other candidate, auto's predicted cycles
// and how far auto was (auto / chosen, predicted), the candidates costed and the worst of them;
// the weight-staging slot the plan was lowered with (searched, weight_slot_search.h), per row.
void write_mapping(const RunResult& r, const RunSummary& s, const std::string& path) {
  std::ofstream f = open(path);
  f << "layer,mapping,block,rows,loop_order,predicted_dram_bytes,predicted_cycles,"
       "simulated_cycles,objective,predicted_cost,"
       "alternative,alternative_cycles,auto_cycles,auto_over_chosen,candidates,worst_cycles,"
       "weight_slot_bytes\n";
  for (const MappingRow& m : r.lowered.mapping) {
    csv::Writer w(f);
    w << r.lowered.layers.at(m.layer).name << m.mapping << m.block << m.rows << m.loop_order
      << m.predicted_dram_bytes << m.predicted_cycles;
    if (m.layer < s.layers.size()) {
      w << s.layers[m.layer].cycles;
    } else {
      w.cell("");
    }
    w << r.config.arch.lowering.objective;
    w.fixed(m.predicted_cost, 3) << m.alternative << m.alternative_cycles << m.auto_cycles;
    w.fixed(m.predicted_cycles ? double(m.auto_cycles) / double(m.predicted_cycles) : 0.0, 4);
    w << m.candidates << m.worst_cycles << r.lowered.weight_slot_bytes;
    w.end_row();
  }
}

}  // namespace

void write_memory_plan(const Lowered& l, const std::string& path) {
  std::ofstream f = open(path);
  write_csv_table(f, l.plan, [](const PlannedBuffer& b, auto&& column) {
    for_each_memory_plan_field(b, column);
  });
}

void write_reports(const RunResult& r, const RunSummary& s, OutputDir& out,
                   const UnitTimeline* timeline) {
  // Each file is written whole under a temporary name and renamed into place. trace.json, the
  // largest (0.04 s of functional resnet50's 0.05 s of reports), on a second thread when there is
  // one (default_threads()), beside the others; committed last as before.
  std::future<void> trace;
  if (r.config.sim.trace) {
    const std::string path = out.temp("trace.json");
    const auto write = [&r, &s, timeline, path] {
      write_trace(r, s, timeline, path, r.config.sim.trace_max_slices);
    };
    if (default_threads() > 1) {
      trace = std::async(std::launch::async, write);
    } else {
      write();
    }
  }
  open(out.temp("summary.json"))
      << summary_json(r, s).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
  out.commit("summary.json");
  static const std::vector<Fidelity> kNone;
  const std::vector<Fidelity>* held_out = &kNone;
  for (const SetFigures& f : r.quant.sets) {
    if (f.name == "evaluation") held_out = &f.layers;
  }
  write_layers(s, r.layer_fidelity, *held_out, out.temp("layers.csv"));
  out.commit("layers.csv");
  write_energy_breakdown(s, out.temp("energy_breakdown.csv"));
  out.commit("energy_breakdown.csv");
  // The run's action energies and areas in Accelergy's form (re-importable: arch.energy.ert/art).
  open(out.temp("ert.yaml")) << write_ert(action_energy(r.config.arch));
  out.commit("ert.yaml");
  open(out.temp("art.yaml")) << write_art(s.energy.area_mm2);
  out.commit("art.yaml");
  if (r.config.sim.detail == "full") {
    write_descriptors(r, out.temp("descriptors.csv"));
    out.commit("descriptors.csv");
    write_occupancy(s, out.temp("occupancy.csv"));
    out.commit("occupancy.csv");
  }
  write_memory_plan(r.lowered, out.temp("memory_plan.csv"));
  out.commit("memory_plan.csv");
  if (!r.lowered.mapping.empty()) {
    write_mapping(r, s, out.temp("mapping.csv"));
    out.commit("mapping.csv");
  }
  open(out.temp("effective_config.yaml")) << effective_yaml(r.config);
  out.commit("effective_config.yaml");
  if (r.config.sim.trace) {
    if (trace.valid()) trace.get();  // its error, if any, rethrown here
    out.commit("trace.json");
  }
}

void print_summary(const RunResult& r, const RunSummary& s, std::ostream& out) {
  const ArchConfig& arch = r.config.arch;
  out << "strider: " << r.graph.name << " on " << arch.name << "\n";
  out << "  cycles           " << s.cycles << "  (" << std::fixed << std::setprecision(3)
      << s.seconds_at_clock * 1e3 << " ms at " << arch.clock.frequency_mhz << " MHz)\n";
  if (s.images > 1) {
    out << "  batch            " << s.images << " images, " << std::setprecision(1)
        << s.cycles_per_image << " cycles per image, "
        << double(r.stats.get("dram.read_bytes")) / double(s.images) << " DRAM bytes read per image\n";
  }
  out << "  MACs             " << s.macs << "  utilisation " << std::setprecision(1)
      << s.utilization * 100 << " %\n";
  out << "  bound            " << s.bound_cycles << " cycles, run at " << std::setprecision(2)
      << s.cycles_over_bound << "x its bound; its layers' own bounds sum to "
      << s.layer_bound_cycles << " ("
      << (s.layer_bound_cycles ? double(s.cycles) / double(s.layer_bound_cycles) : 0.0) << "x)\n";
  if (s.capacity_bound_cycles != 0 && s.capacity_bound_cycles == s.bound_cycles) {
    out << "                   (the capacity bound: the weights from " << s.capacity_bound_node
        << " on do not fit L2; tb/capacity_bound.h)\n";
  }
  out << "  DRAM traffic     " << r.stats.get("dram.read_bytes") << " B read, "
      << r.stats.get("dram.write_bytes") << " B written\n";
  out << "  L2 peak          " << s.l2_peak_planned << " B planned, " << s.l2_peak_observed
      << " B live as executed, of " << arch.l2.size_bytes << " (" << r.lowered.allocator
      << ", activations " << r.lowered.arena_bytes << " B";
  // A descriptor list carries no memory-planning problem, so no lower bound.
  if (r.lowered.lower_bound_bytes > 0) out << ", lower bound " << r.lowered.lower_bound_bytes << " B";
  out << ")\n";
  out << "  line buffer      " << r.stats.get("line_buffer.write_cycles") << " write cycles, "
      << r.stats.get("line_buffer.shifted_writes") << " shifted writes, "
      << r.stats.get("store.discarded_outputs") << " discarded outputs";
  if (!s.line_buffer_occupancy.empty()) out << ", peak " << s.line_buffer_peak << " B";
  out << "\n";
  const EnergyReport& e = s.energy;
  out << "  energy           " << std::setprecision(3) << e.total_pj * 1e-6 << " uJ ("
      << arch.energy.tech << ", " << arch.energy.dram_type << "), " << e.power_mw << " mW, "
      << e.tops_per_watt << " TOPS/W, " << e.area_total_mm2 << " mm2\n";
  out << "  energy split     dynamic " << e.dynamic_pj * 1e-6 << ", clock " << e.clock_pj * 1e-6
      << ", leakage " << e.leakage_pj * 1e-6 << ", DRAM background " << e.dram_background_pj * 1e-6
      << " uJ; on-chip " << e.power_onchip_mw
      << " mW, DRAM " << e.power_dram_mw << " mW\n";
  if (r.config.sim.functional) {
    out << "  functional check " << r.checked_tensors << " layers checked against the reference, "
        << r.mismatches << " mismatches";
    if (r.output_fidelity.values > 0) {
      out << ", output SQNR " << std::setprecision(1) << r.output_fidelity.sqnr_db()
          << " dB against the float network";
    }
    out << "\n";
  }
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
