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

namespace {

// The fidelity per input set: the calibration set (the simulated image's figures when it is the
// synthetic image 0, else every calibration sample) and the evaluation set when given. With
// calibration files the layer and output figures of the reports are the calibration set's.
void measure_sets(RunResult& r, const FunctionalCheck& check) {
  QuantInfo& q = r.quant;
  q.sets.clear();
  const Graph& float_graph = q.float_graph ? *q.float_graph : r.graph;
  if (q.calibration_samples.empty()) {
    SetFigures f;
    f.name = "calibration";
    f.inputs = "synthetic";
    f.samples = 1;
    f.layers = r.layer_fidelity;
    f.output = r.output_fidelity;
    f.classifier = is_classifier(r.graph);
    for (int out : r.graph.outputs) {
      const Tensor& t = r.graph.tensors[size_t(out)];
      if (!f.classifier || t.float_data.empty()) continue;
      for (int64_t b = 0; b < std::max<int64_t>(t.shape.n, 1); ++b) {
        ++f.top1_total;
        f.top1_agree += top1(t.float_data, t.shape, b) ==
                        top1(check.reference().value(out), t.shape, b, t.is_unsigned);
      }
    }
    q.sets.push_back(std::move(f));
  } else {
    q.sets.push_back(evaluate_set(r.graph, float_graph, r.lowered, q.clip_bounds,
                                  q.calibration_samples, "calibration", q.calibration_inputs, q.calibration_files));
    r.layer_fidelity = q.sets.back().layers;
    r.output_fidelity = q.sets.back().output;
  }
  if (!q.evaluation_samples.empty()) {
    q.sets.push_back(evaluate_set(r.graph, float_graph, r.lowered, q.clip_bounds,
                                  q.evaluation_samples, "evaluation", q.evaluation_inputs, q.evaluation_files));
  }
}

}  // namespace

void plan_run(RunResult& r) {
  PlannedRun p = plan_networks(r.config, std::cerr);
  r.graph = std::move(p.graph);
  r.lowered = std::move(p.lowered);
  r.models = std::move(p.models);
  r.quant = std::move(p.quant);
  r.stage_seconds = std::move(p.stage_seconds);
}

void simulate_run(RunResult& r) {
  const auto t0 = std::chrono::steady_clock::now();
  plan_run(r);
  simulate_planned(r);
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void check_planned(const RunResult& r) {
  const ResourceLimits limits;
  check_descriptor_limits(r.config, r.lowered.list, limits);
  ValidationLimits vl;
  vl.max_macs = r.config.sim.functional ? limits.max_functional_macs : limits.max_macs;
  validate_descriptors(r.lowered.list, r.config.arch,
                       r.graph.nodes.empty() ? r.config.source
                                             : r.config.source + " (lowered)",
                       vl);
}

void simulate_planned(RunResult& r) {
  const auto t0 = std::chrono::steady_clock::now();
  // Every list, emitted or loaded, is checked for meaning before it runs.
  check_planned(r);
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
    if (r.quant.calibrated) measure_sets(r, *check);
    if (!r.dump_tensors_dir.empty()) dump_tensors(r.graph, r.lowered, *check, r.dump_tensors_dir);
  }
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace strider
