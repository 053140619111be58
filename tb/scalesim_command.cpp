// `strider scalesim CFG TOPOLOGY.csv [--arch BASE.yaml] [--out DIR] [--set arch.key=value ...]`:
// a SCALE-Sim architecture file and topology run in one command. The .cfg is mapped onto the
// base arch (default: the bundled seed.yaml; tb/scalesim_config.h says how each key maps), the
// mapping is printed as a table (mapped / approximated / ignored), the topology runs as `strider
// run` would, and beside Strider's own reports the output folder gets SCALE-Sim's three, with
// SCALE-Sim's column names and its row format ("0, 123, ...,"), one row per topology layer:
//   COMPUTE_REPORT.csv: Total Cycles = the layer's span; Stall Cycles = the span less the
//     neurons' compute cycles; Overall Util % = MACs / (span x peak MACs per cycle); Mapping
//     Efficiency % and Compute Util % = MACs / (compute cycles x peak): how full the array is
//     while it computes (Strider does not separate SCALE-Sim's spatial mapping from its fill and
//     drain, so both columns carry the same figure).
//   BANDWIDTH_REPORT.csv, in words (bytes) per cycle of the span: SRAM = L2 bytes the layer read
//     for its inputs and filters (the load port, split by what the mapping puts in the lines and
//     in the kernel region) and wrote for its outputs (the store port); DRAM = the lowering's
//     input + fill bytes (IFMAP), weight and bias bytes (FILTER), output + spill bytes (OFMAP);
//     the network's first input load and last output store are layers of their own in Strider
//     (input:..., output:... in layers.csv), not rows here.
//   DETAILED_ACCESS_REPORT.csv: the same bytes as reads / writes, with the layer's first start and
//     last end as every operand's start and stop cycle (Strider does not time data spaces apart).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <stdexcept>

#include "core/arch/config_loader.h"
#include "tb/bundled_configs.h"
#include "tb/cli_args.h"
#include "tb/commands.h"
#include "tb/run_flow.h"
#include "tb/scalesim_config.h"

namespace strider {
namespace {

std::string pct(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.4f", v);
  return b;
}

double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

void print_mapping(const ScaleSimMapping& m, std::ostream& out) {
  size_t wk = 3, wv = 5, ws = 6, wt = 7;
  for (const ScaleSimMappingRow& r : m.rows) {
    wk = std::max(wk, r.key.size());
    wv = std::max(wv, r.value.size());
    ws = std::max(ws, r.status.size());
    wt = std::max(wt, r.strider.size());
  }
  auto line = [&](const std::string& a, const std::string& b, const std::string& c,
                  const std::string& d, const std::string& e) {
    std::string s = a + std::string(wk + 2 - a.size(), ' ') + b +
                    std::string(wv + 2 - b.size(), ' ') + c + std::string(ws + 2 - c.size(), ' ') +
                    d + (e.empty() ? "" : std::string(wt + 2 - d.size(), ' ') + e);
    out << "  " << s << "\n";
  };
  out << "SCALE-Sim config mapped onto the arch:\n";
  line("key", "value", "status", "strider", "note");
  for (const ScaleSimMappingRow& r : m.rows) line(r.key, r.value, r.status, r.strider, r.note);
}

// The topology's layers: the layers of the run made from graph nodes (not input / output moves).
struct LayerFigures {
  const LayerRow* row;
  const LayerReport* lowered;
};

void write_scalesim_reports(const RunResult& r, const RunSummary& s, OutputDir& dir) {
  std::vector<LayerFigures> layers;
  for (size_t i = 0; i < s.layers.size() && i < r.lowered.layers.size(); ++i) {
    if (i < r.lowered.layer_node.size() && r.lowered.layer_node[i] >= 0) {
      layers.push_back({&s.layers[i], &r.lowered.layers[i]});
    }
  }
  const double peak = double(s.peak_macs_per_cycle);
  std::ofstream compute(dir.temp("COMPUTE_REPORT.csv")),
      bandwidth(dir.temp("BANDWIDTH_REPORT.csv")), detail(dir.temp("DETAILED_ACCESS_REPORT.csv"));
  if (!compute || !bandwidth || !detail) {
    throw std::runtime_error(dir.path() + ": cannot write the SCALE-Sim reports");
  }
  compute << "LayerID, Total Cycles, Stall Cycles, Overall Util %, Mapping Efficiency %, "
             "Compute Util %,\n";
  bandwidth << "LayerID, Avg IFMAP SRAM BW, Avg FILTER SRAM BW, Avg OFMAP SRAM BW, "
               "Avg IFMAP DRAM BW, Avg FILTER DRAM BW, Avg OFMAP DRAM BW,\n";
  detail << "LayerID, SRAM IFMAP Start Cycle, SRAM IFMAP Stop Cycle, SRAM IFMAP Reads, "
            "SRAM Filter Start Cycle, SRAM Filter Stop Cycle, SRAM Filter Reads, "
            "SRAM OFMAP Start Cycle, SRAM OFMAP Stop Cycle, SRAM OFMAP Writes, "
            "DRAM IFMAP Start Cycle, DRAM IFMAP Stop Cycle, DRAM IFMAP Reads, "
            "DRAM Filter Start Cycle, DRAM Filter Stop Cycle, DRAM Filter Reads, "
            "DRAM OFMAP Start Cycle, DRAM OFMAP Stop Cycle, DRAM OFMAP Writes,\n";
  for (size_t id = 0; id < layers.size(); ++id) {
    const LayerRow& l = *layers[id].row;
    const LayerReport& lo = *layers[id].lowered;
    const uint64_t stalls = l.cycles > l.compute_cycles ? l.cycles - l.compute_cycles : 0;
    const double macs = double(l.macs);
    const std::string in_compute =
        pct(std::min(100.0, 100 * ratio(macs, double(l.compute_cycles) * peak)));
    compute << id << ", " << l.cycles << ", " << stalls << ", "
            << pct(100 * ratio(macs, double(l.cycles) * peak)) << ", " << in_compute << ", "
            << in_compute << ",\n";
    // Load-port bytes: the kernel region's loads, the rest into the lines; positions puts
    // inputs in the lines and filters in the kernel region, channels the other way round.
    const uint64_t kernel = std::min(l.actions.kernel_write_bytes, l.load_port_bytes);
    const uint64_t lines = l.load_port_bytes - kernel;
    const bool channels = l.mapping == "channels" || l.mapping == "im2col";
    const uint64_t sram_if = channels ? kernel : lines, sram_f = channels ? lines : kernel;
    const uint64_t sram_of = l.store_port_bytes;
    const uint64_t dram_if = lo.input_bytes + lo.fill_bytes, dram_f = lo.weight_bytes;
    const uint64_t dram_of = lo.output_bytes + lo.spill_bytes;
    const double c = double(l.cycles);
    bandwidth << id << ", " << pct(ratio(sram_if, c)) << ", " << pct(ratio(sram_f, c)) << ", "
              << pct(ratio(sram_of, c)) << ", " << pct(ratio(dram_if, c)) << ", "
              << pct(ratio(dram_f, c)) << ", " << pct(ratio(dram_of, c)) << ",\n";
    detail << id;
    for (uint64_t bytes : {sram_if, sram_f, sram_of, dram_if, dram_f, dram_of}) {
      detail << ", " << l.start << ", " << l.end << ", " << bytes;
    }
    detail << ",\n";
  }
  for (std::ofstream* f : {&compute, &bandwidth, &detail}) {
    if (!f->flush()) throw std::runtime_error(dir.path() + ": cannot write the SCALE-Sim reports");
    f->close();
  }
  dir.commit("COMPUTE_REPORT.csv");
  dir.commit("BANDWIDTH_REPORT.csv");
  dir.commit("DETAILED_ACCESS_REPORT.csv");
}

}  // namespace

int scalesim_command(const Args& args, std::ostream& out, std::ostream& err) {
  CliArgs cli(
      "scalesim",
      "usage: strider scalesim CFG TOPOLOGY.csv [--arch BASE.yaml] [--out DIR] "
      "[--set arch.key=value ...]",
      "Runs a SCALE-Sim architecture file and topology: maps the .cfg's keys onto the\n"
      "arch (printing what was mapped, approximated or ignored), simulates the topology\n"
      "and writes SCALE-Sim's COMPUTE_REPORT.csv, BANDWIDTH_REPORT.csv and\n"
      "DETAILED_ACCESS_REPORT.csv beside Strider's own reports.",
      "  CFG                   the SCALE-Sim .cfg file\n"
      "  TOPOLOGY.csv          the SCALE-Sim topology (conv or GEMM form)\n",
      {{"arch", "BASE.yaml", "the arch the .cfg is mapped onto (default: the bundled seed.yaml)"},
       {"out", "DIR", "the output folder (default results/scalesim/<run_name>)"},
       {"set", "KEY=VALUE", "override an arch key after the mapping (arch.*, repeatable)"}});
  RunResult r;
  ScaleSimMapping mapping;
  try {
    if (!cli.parse(args, out)) return 0;
    if (cli.positional().size() != 2) throw UsageError("expected a .cfg file and a topology .csv");
    for (const std::string& s : cli.values("--set")) {
      if (s.rfind("arch.", 0) != 0) throw UsageError("--set " + s + ": only arch.* keys");
    }
  } catch (const UsageError& e) {
    return cli.usage_error(e.what(), err);
  }
  try {
    const std::string cfg_path = cli.positional()[0], topology = cli.positional()[1];
    mapping = map_scalesim_config(read_scalesim_config(cfg_path));
    std::string base = cli.value("--arch");
    if (base.empty()) {
      std::vector<std::string> tried;
      base = find_bundled_config("arch/seed.yaml", &tried);
      if (base.empty()) {
        throw std::runtime_error("no seed arch found (tried " + tried.front() + " and " +
                                 std::to_string(tried.size() - 1) + " more); give --arch");
      }
    }
    std::vector<std::string> sets = mapping.arch_sets;
    for (const std::string& s : cli.values("--set")) sets.push_back(s);
    r.config.source = cfg_path;
    r.config.arch_file = base;
    r.config.arch = load_arch(base, sets);
    NetworkSpec net;
    net.path = topology;
    net.name = std::filesystem::path(topology).stem().string();
    r.config.networks = {net};
    r.config.output_dir = cli.value("--out", "results/scalesim/" + mapping.run_name);
  } catch (const std::exception& e) {
    err << "strider scalesim: " << e.what() << "\n";
    return 1;
  }
  print_mapping(mapping, out);
  r.command_line = {"strider", "scalesim"};
  r.command_line.insert(r.command_line.end(), args.begin(), args.end());
  return execute_run(
      r, out, err,
      {{"COMPUTE_REPORT.csv", "BANDWIDTH_REPORT.csv", "DETAILED_ACCESS_REPORT.csv"},
       write_scalesim_reports});
}

}  // namespace strider
