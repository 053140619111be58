// `strider dram TRACE --dram PRESET [--set key=value ...] [--out DIR]`: replays a DRAM request
// trace on a preset's JEDEC timing model and prints its statistics as JSON (tb/dram_figures.h);
// with --out, also writes DIR/dram.json (and run.json, as every Strider results folder).
//
// Trace format (text, one request a line; `#` starts a comment; blank lines are skipped):
//   CYCLE  R|W  ADDRESS  BYTES
// CYCLE is the DRAM clock cycle (of the preset's tCK) the request arrives, nondecreasing down the
// file; ADDRESS is a byte address (decimal or 0x hex); BYTES > 0. Example: `0 R 0x1000 64`.
// --set takes the keys of arch.dram (page_policy=closed, scheduler=fcfs, queue_depth=8,
// refresh_postpone=0, row_hit_cap=0,
// mapping=ChRaBaRoCo; the `arch.dram.` prefix is optional). Errors name the file and line.
// `energy` gives the DRAM energy of the replay from the preset's currents (tb/energy_model.h's
// DRAM rows: per command, per burst, and the standby residency of every rank from DRAM cycle 0 to
// the last data beat), total_pj and pj_per_byte.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

#include "core/arch/config_loader.h"
#include "core/arch/strict_number.h"
#include "model/dram/dram_system.h"
#include "tb/cli_args.h"
#include "tb/commands.h"
#include "tb/dram_figures.h"
#include "tb/energy_model.h"
#include "tb/output_dir.h"

namespace strider {
namespace {

struct TraceRequest {
  uint64_t cycle = 0, addr = 0, bytes = 0;
  bool write = false;
};

std::vector<TraceRequest> read_trace(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot read the trace");
  std::vector<TraceRequest> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const std::string where = path + ":" + std::to_string(n) + ": ";
    line = line.substr(0, line.find('#'));
    std::istringstream s(line);
    std::string cycle, rw, addr, bytes, extra;
    if (!(s >> cycle)) continue;
    if (!(s >> rw >> addr >> bytes) || (s >> extra)) {
      throw std::runtime_error(where + "expected `CYCLE R|W ADDRESS BYTES`, got '" + line + "'");
    }
    TraceRequest r;
    try {
      r.cycle = parse_u64(cycle, "CYCLE");
      r.addr = parse_u64(addr, "ADDRESS");
      r.bytes = parse_u64(bytes, "BYTES");
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(where + e.what());
    }
    if (rw != "R" && rw != "W" && rw != "r" && rw != "w")
      throw std::runtime_error(where + "expected R or W, got '" + rw + "'");
    r.write = rw == "W" || rw == "w";
    if (r.bytes == 0 || r.bytes > (uint64_t(1) << 32))
      throw std::runtime_error(where + "BYTES must be 1..4294967296, got " + bytes);
    if (r.addr > UINT64_MAX - r.bytes)
      throw std::runtime_error(where + "ADDRESS + BYTES overflows 64 bits");
    if (!out.empty() && r.cycle < out.back().cycle)
      throw std::runtime_error(where + "CYCLE " + cycle + " is before the previous request's " +
                               std::to_string(out.back().cycle) + " (the trace must be in order)");
    out.push_back(r);
  }
  if (out.empty()) throw std::runtime_error(path + ": the trace has no request");
  return out;
}

nlohmann::json replay_dram_trace(const DramConfig& cfg, const std::vector<TraceRequest>& trace) {
  DramSystem sys(cfg.spec,
                 dram_policy(cfg.page_policy, cfg.scheduler, cfg.queue_depth, cfg.refresh_postpone,
                             cfg.spec.powerdown_idle, cfg.row_hit_cap));
  std::vector<std::pair<DramRequestState*, bool>> states;
  DramCounters c;
  for (const TraceRequest& r : trace) {
    states.emplace_back(sys.submit(r.cycle, r.addr, r.bytes, r.write), r.write);
    (r.write ? c.write_bytes : c.read_bytes) += r.bytes;
  }
  sys.drain();
  const double tck_ns = cfg.spec.tck_ps / 1000.0;
  std::vector<uint64_t> lat;
  uint64_t end = 0;
  for (const auto& [s, write] : states) {
    end = std::max(end, s->end);
    if (!write) lat.push_back(s->end - s->arrival);
  }
  const DramTotals t = sys.totals();
  c.bursts = t.read_bursts + t.write_bursts;
  c.row_hits = t.row_hits;
  c.commands = t.commands;
  c.read_requests = lat.size();
  for (uint64_t l : lat) c.read_latency_sum_ns += l * tck_ns;
  if (!lat.empty()) {
    const size_t k = (lat.size() * 99 + 99) / 100 - 1;
    std::nth_element(lat.begin(), lat.begin() + k, lat.end());
    c.read_latency_p99_ns = lat[k] * tck_ns;
  }
  c.refresh_ns = t.refresh_cycles * tck_ns;
  c.elapsed_ns = (end - trace.front().cycle) * tck_ns;
  nlohmann::json j = dram_figures(cfg.spec, c);
  j["requests"] = trace.size();
  j["dram_cycles"] = end - trace.front().cycle;
  j["page_policy"] = cfg.page_policy;
  j["scheduler"] = cfg.scheduler;
  j["mapping"] = cfg.spec.mapping;
  ActionEnergy e;
  dram_command_energy(cfg.spec, e);
  if (e.dram_commands) {
    // Residency from cycle 0: a trace's arrivals count from there.
    sys.finish(end);
    DramActivity a;
    const DramTotals done = sys.totals();  // with the refreshes owed before `end`
    a.commands = done.commands;
    const DramResidency r =
        dram_residency(done, uint64_t(cfg.spec.channels) * cfg.spec.ranks * end);
    a.active_cycles = r.active_standby;
    a.precharged_cycles = r.precharged_standby;
    a.active_powerdown_cycles = r.active_powerdown;
    a.precharged_powerdown_cycles = r.precharged_powerdown;
    nlohmann::ordered_json by_action;
    double total = 0;
    for (const ActionEnergyRow& r : dram_command_rows(e, a)) {
      by_action[r.action] = {{"count", r.count}, {"pj_each", r.pj_each}, {"pj", r.pj}};
      total += r.pj;
    }
    const double bytes = double(c.read_bytes + c.write_bytes);
    j["energy"] = {{"total_pj", total},
                   {"pj_per_byte", bytes > 0 ? total / bytes : 0},
                   {"by_action", by_action}};
  }
  return j;
}

}  // namespace

int dram_command(const Args& args, std::ostream& out, std::ostream& err) {
  CliArgs cli("dram", "usage: strider dram TRACE --dram PRESET [--set KEY=VALUE]... [--out DIR]",
              "Replays a DRAM request trace (lines `CYCLE R|W ADDRESS BYTES`, CYCLE in DRAM clock "
              "cycles) on a JEDEC DRAM preset and prints bandwidth, row-hit rate, read latency, "
              "command counts and refresh time as JSON.",
              "TRACE  the request trace",
              {{"dram", "PRESET", "a preset name in configs/dram (lpddr4_3200, ...) or a file"},
               {"set", "KEY=VALUE",
                "an arch.dram key: page_policy, scheduler, queue_depth, refresh_postpone, "
                "row_hit_cap, mapping (repeatable)"},
               {"out", "DIR", "also write DIR/dram.json"}});
  try {
    if (!cli.parse(args, out)) return 0;
  } catch (const UsageError& e) {
    return cli.usage_error(e.what(), err);
  }
  if (cli.positional().size() != 1) return cli.usage_error("expected one TRACE", err);
  if (!cli.has("dram")) return cli.usage_error("--dram PRESET is required", err);
  try {
    std::vector<std::string> sets = {"arch.dram.model=jedec",
                                     "arch.dram.preset=" + cli.value("dram")};
    for (const std::string& s : cli.values("set")) {
      sets.push_back(s.rfind("arch.", 0) == 0   ? s
                     : s.rfind("dram.", 0) == 0 ? "arch." + s
                                                : "arch.dram." + s);
    }
    const ArchConfig arch = default_arch(sets);
    const nlohmann::json j = replay_dram_trace(arch.dram, read_trace(cli.positional()[0]));
    out << j.dump(2) << "\n";
    if (cli.has("out")) {
      OutputDir dir(cli.value("out"));
      {
        std::ofstream f(dir.temp("dram.json"));
        f << j.dump(2) << "\n";
        if (!f) throw std::runtime_error(dir.temp("dram.json") + ": cannot write");
      }
      dir.commit("dram.json");
      std::vector<std::string> cmd = {"strider", "dram"};
      cmd.insert(cmd.end(), args.begin(), args.end());
      dir.finish(cmd);
    }
    return 0;
  } catch (const std::exception& e) {
    err << "strider dram: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace strider
