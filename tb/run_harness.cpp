#include "tb/run_harness.h"

#include <chrono>
#include <iostream>
#include <memory>
#include <stdexcept>

#include "model/top/top.h"
#include "planner/import/network_loader.h"
#include "planner/lower/legalise.h"
#include "planner/lower/descriptor_validator.h"
#include "planner/lower/network_merge.h"
#include "planner/quant/calibration_inputs.h"
#include "planner/quant/calibrator.h"
#include "tb/resource_limits.h"
#include "tb/functional_check.h"
#include "tb/tensor_dump.h"

namespace strider {

namespace {

// Imports network k of the run, refusing absurd sizes before its weights are materialised, and
// fuses its activations into their producers.
Graph load_checked(const RunConfig& cfg, size_t k, QuantInfo* quant) {
  const NetworkSpec& net = cfg.networks[k];
  ImportOptions opt;
  opt.input_h = net.input_h;
  opt.input_w = net.input_w;
  opt.batch = net.batch;
  parse_scalesim_output_size(net.scalesim_output_size, &opt.scalesim.output_size);
  Graph g = import_network(net.path, opt);
  for (const std::string& w : g.warnings) std::cerr << "warning: " << w << "\n";
  check_resource_limits(cfg, g, ResourceLimits(), k);
  materialise_parameters(&g, net.seed);
  fuse_activations(&g);
  // Calibrated scales only change values (requantisation, biases, clip bounds), never shapes,
  // so cycles are the same with functional mode on or off.
  const QuantOptions& qo = cfg.quant;
  const bool files = !qo.calibration.inputs.empty() || !qo.evaluation.inputs.empty();
  if (files && cfg.networks.size() > 1) {
    throw std::runtime_error(cfg.source + ": quant: calibration and evaluation inputs apply to a run of one network, this run has " +
                             std::to_string(cfg.networks.size()));
  }
  if (files && !cfg.sim.functional) {
    std::cerr << "warning: quant.calibration / quant.evaluation inputs are used only in functional mode (sim.functional: true)\n";
  }
  if (cfg.sim.functional) {
    const size_t before = g.warnings.size();
    CalibrationOptions co{net.seed, 1};
    co.method = qo.method;
    co.percentile = qo.percentile;
    if (g.inputs.empty() && files) throw std::runtime_error(net.path + ": quant: the network has no input to calibrate on");
    if (!qo.calibration.inputs.empty()) {
      co.inputs = load_input_set(qo.calibration, g.tensors[size_t(g.inputs[0])], qo.preprocess,
                                 "quant.calibration.inputs");
    }
    if (!qo.evaluation.inputs.empty()) {
      quant->evaluation_samples = load_input_set(qo.evaluation, g.tensors[size_t(g.inputs[0])],
                                                 qo.preprocess, "quant.evaluation.inputs");
      quant->evaluation_inputs = qo.evaluation.inputs;
    }
    quant->clip_bounds = calibrate(&g, co);
    quant->calibrated = true;
    quant->seed = net.seed;
    quant->method = g.calibration_method;
    quant->synthetic = co.inputs.empty();
    quant->calibration_inputs = qo.calibration.inputs;
    quant->calibration_images = co.inputs.empty() ? co.images : int(co.inputs.size());
    quant->calibration_samples = std::move(co.inputs);
    for (size_t i = before; i < g.warnings.size(); ++i) std::cerr << "warning: " << g.warnings[i] << "\n";
  }
  return g;
}

// The fidelity per input set: the calibration set (the simulated image's figures when it is the
// synthetic image 0, else every calibration sample) and the evaluation set when given. With
// calibration files the layer and output figures of the reports are the calibration set's.
void measure_sets(RunResult& r, const FunctionalCheck& check) {
  QuantInfo& q = r.quant;
  q.sets.clear();
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
    q.sets.push_back(evaluate_set(r.graph, r.lowered, q.clip_bounds, q.calibration_samples,
                                  "calibration", q.calibration_inputs));
    r.layer_fidelity = q.sets.back().layers;
    r.output_fidelity = q.sets.back().output;
  }
  if (!q.evaluation_samples.empty()) {
    q.sets.push_back(evaluate_set(r.graph, r.lowered, q.clip_bounds, q.evaluation_samples,
                                  "evaluation", q.evaluation_inputs));
  }
}

}  // namespace

void plan_run(RunResult& r) {
  const RunConfig& cfg = r.config;
  if (cfg.networks.empty()) throw std::runtime_error(cfg.source + ": networks: no network given");
  check_config_limits(cfg);
  LowerOptions opt;
  opt.allocator = cfg.planner.allocator;
  opt.schedule = cfg.planner.schedule;
  opt.time_limit_s = cfg.planner.time_limit_s;
  if (cfg.networks.size() == 1) {
    r.graph = load_checked(cfg, 0, &r.quant);
  } else {
    std::vector<Graph> nets;
    std::vector<std::string> names;
    for (size_t k = 0; k < cfg.networks.size(); ++k) {
      nets.push_back(load_checked(cfg, k, &r.quant));
      names.push_back(cfg.networks[k].name);
    }
    for (size_t k = 0; k < nets.size(); ++k) {
      const Lowered alone = lower(nets[k], cfg.arch, opt);
      r.models.push_back({names[k], alone.arena_bytes, alone.weights_stored_bytes});
    }
    MergedNetworks m = merge_networks(nets, names, cfg.planner.schedule, cfg.execution);
    r.graph = std::move(m.graph);
    opt.order = std::move(m.order);
  }
  r.lowered = lower(r.graph, cfg.arch, opt);
  check_descriptor_limits(cfg, r.lowered.list);
  if (r.models.empty()) {
    r.models.push_back({cfg.networks[0].name, r.lowered.arena_bytes, r.lowered.weights_stored_bytes});
  }
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
    if (r.quant.calibrated) measure_sets(r, *check);
    if (!r.dump_tensors_dir.empty()) dump_tensors(r.graph, r.lowered, *check, r.dump_tensors_dir);
  }
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace strider
