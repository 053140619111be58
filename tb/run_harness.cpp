#include "tb/run_harness.h"

#include <chrono>
#include <stdexcept>

#include "model/top/top.h"
#include "planner/import/network_loader.h"

namespace strider {

void plan_run(RunResult& r) {
  const RunConfig& cfg = r.config;
  if (cfg.networks.empty()) throw std::runtime_error(cfg.source + ": networks: no network given");
  if (cfg.networks.size() > 1) {
    throw std::runtime_error(cfg.source + ": networks: " + std::to_string(cfg.networks.size()) +
                             " networks given; this build runs one network per run");
  }
  const NetworkSpec& net = cfg.networks[0];
  r.graph = load_network(net.path, net.input_h, net.input_w, net.seed);
  LowerOptions opt;
  opt.allocator = cfg.planner.allocator;
  opt.schedule = cfg.planner.schedule;
  opt.time_limit_s = cfg.planner.time_limit_s;
  r.lowered = lower(r.graph, cfg.arch, opt);
}

void simulate_run(RunResult& r) {
  const auto t0 = std::chrono::steady_clock::now();
  plan_run(r);
  Top top("top", r.config.arch, r.config.sim, r.lowered.list, r.stats, r.record);
  if (r.config.sim.functional) {
    for (const DramImage::Blob& b : r.lowered.dram.blobs) {
      top.dram().write(b.addr, b.bytes.data(), b.bytes.size());
    }
  }
  r.cycles = top.run();
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace strider
