#include "tb/run_harness.h"

#include <chrono>
#include <iostream>
#include <memory>
#include <stdexcept>

#include "model/top/top.h"
#include "planner/lower/descriptor_validator.h"
#include "tb/resource_limits.h"
#include "tb/functional_check.h"
#include "tb/tensor_dump.h"

namespace strider {

void plan_run(RunResult& r) {
  PlannedRun p = plan_networks(r.config, std::cerr);
  r.graph = std::move(p.graph);
  r.lowered = std::move(p.lowered);
  r.models = std::move(p.models);
}

void simulate_run(RunResult& r) {
  const auto t0 = std::chrono::steady_clock::now();
  plan_run(r);
  simulate_planned(r);
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void simulate_planned(RunResult& r) {
  const auto t0 = std::chrono::steady_clock::now();
  // Every list, emitted or loaded, is checked for meaning before it runs.
  const ResourceLimits limits;
  check_descriptor_limits(r.config, r.lowered.list, limits);
  ValidationLimits vl;
  vl.max_macs = r.config.sim.functional ? limits.max_functional_macs : limits.max_macs;
  validate_descriptors(r.lowered.list, r.config.arch,
                       r.graph.nodes.empty() ? r.config.source
                                             : r.config.source + " (lowered)",
                       vl);
  Top top("top", r.config.arch, r.config.sim, r.lowered.list, r.stats, r.record);
  std::unique_ptr<FunctionalCheck> check;
  if (r.config.sim.functional) {
    check = std::make_unique<FunctionalCheck>(r.graph, r.lowered, r.config.networks.at(0).seed);
    check->preload(top.dram());
    FunctionalCheck* c = check.get();
    const TimedMemory& l2 = top.l2();
    const TimedMemory& dram = top.dram();
    top.set_retire_observer([c, &l2, &dram](uint32_t id) { c->on_retire(id, l2, dram); });
  }
  r.cycles = top.run();
  if (check && !r.record.deadlock) {
    check->finish();
    r.checked_tensors = check->checked_tensors();
    r.mismatches = check->mismatches();
    r.functional_details = check->details();
    r.layer_fidelity = check->layer_fidelity();
    r.output_fidelity = check->output_fidelity();
    if (!r.dump_tensors_dir.empty()) dump_tensors(r.graph, r.lowered, *check, r.dump_tensors_dir);
  }
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace strider
