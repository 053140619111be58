// RunPlan (see run_plan.h).
#include "tb/run_plan.h"

#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <stdexcept>

#include "planner/import/network_loader.h"
#include "planner/quant/calibration_inputs.h"
#include "planner/quant/calibrator.h"
#include "planner/lower/legalise.h"
#include "tb/fusion_planner.h"
#include "tb/resource_limits.h"
#include "tb/stage_progress.h"

namespace strider {

namespace {

// Imports network k of the run, refusing absurd sizes before its weights are materialised, and
// fuses its activations into their producers (its residual Adds: plan_networks).
Graph load_checked(const RunConfig& cfg, size_t k, QuantInfo* quant, std::ostream& warnings,
                   StageProgress& stages) {
  const NetworkSpec& net = cfg.networks[k];
  ImportOptions opt;
  opt.input_h = net.input_h;
  opt.input_w = net.input_w;
  opt.batch = net.batch;
  parse_scalesim_output_size(net.scalesim_output_size, &opt.scalesim.output_size);
  opt.progress = stages.stage("import");
  Graph g = import_network(net.path, opt);
  stages.finish();
  for (const std::string& w : g.warnings) warnings << "warning: " << w << "\n";
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
    warnings << "warning: quant.calibration / quant.evaluation inputs are used only in functional mode (sim.functional: true)\n";
  }
  if (cfg.sim.functional) {
    const size_t before = g.warnings.size();
    CalibrationOptions co{net.seed, 1};
    co.method = qo.method;
    co.percentile = qo.percentile;
    co.output_headroom = qo.output_headroom;
    co.unsigned_activations = qo.unsigned_activations;
    co.bias_correction = qo.bias_correction;
    if (g.inputs.empty() && files) throw std::runtime_error(net.path + ": quant: the network has no input to calibrate on");
    if (!qo.calibration.inputs.empty()) {
      co.inputs = load_input_set(qo.calibration, g.tensors[size_t(g.inputs[0])], qo.preprocess,
                                 "quant.calibration.inputs", &quant->calibration_files);
    }
    if (!qo.evaluation.inputs.empty()) {
      quant->evaluation_samples = load_input_set(qo.evaluation, g.tensors[size_t(g.inputs[0])],
                                                 qo.preprocess, "quant.evaluation.inputs",
                                                 &quant->evaluation_files);
      quant->evaluation_inputs = qo.evaluation.inputs;
    }
    co.progress = stages.stage("calibration");
    quant->clip_bounds = calibrate(&g, co);
    stages.finish();
    quant->calibrated = true;
    quant->seed = net.seed;
    quant->method = g.calibration_method;
    quant->bias_correction = co.bias_correction;
    quant->synthetic = co.inputs.empty();
    quant->calibration_inputs = qo.calibration.inputs;
    quant->calibration_images = co.inputs.empty() ? co.images : int(co.inputs.size());
    quant->calibration_samples = std::move(co.inputs);
    for (size_t i = before; i < g.warnings.size(); ++i) warnings << "warning: " << g.warnings[i] << "\n";
  }
  return g;  // residual Adds are fused by plan_networks (after calibration: the Add's scales)
}

}  // namespace

PlannedRun plan_networks(const RunConfig& cfg, std::ostream& warnings) {
  PlannedRun r;
  if (cfg.networks.empty()) throw std::runtime_error(cfg.source + ": networks: no network given");
  check_config_limits(cfg);
  LowerOptions opt;
  opt.allocator = cfg.planner.allocator;
  opt.schedule = cfg.planner.schedule;
  opt.time_limit_s = cfg.planner.time_limit_s;
  opt.segment_choice = cfg.planner.image_segments;
  // Progress lines only on a terminal, and only when the warnings go to it.
  StageProgress stages(warnings, &warnings == &std::cerr && isatty(STDERR_FILENO));
  std::vector<Graph> nets;
  std::vector<std::string> names;
  for (size_t k = 0; k < cfg.networks.size(); ++k) {
    nets.push_back(load_checked(cfg, k, &r.quant, warnings, stages));
    names.push_back(cfg.networks[k].name);
  }
  opt.progress = stages.stage("planning");
  // Fusion per layer, decided with the memory plan (tb/fusion_planner.h).
  FusionPlanner planner(std::move(nets), names, cfg, opt);
  FusionCandidate chosen = planner.choose();
  // The input sets' float passes run the graph as calibrated, before fusion folded Adds into
  // convs (QuantInfo::float_graph; input sets apply to a run of one network).
  const QuantOptions& qo = cfg.quant;
  if (cfg.sim.functional && (!qo.calibration.inputs.empty() || !qo.evaluation.inputs.empty()) &&
      chosen.graph.nodes.size() != planner.network_nodes(0)) {
    r.quant.float_graph = std::make_shared<const Graph>(planner.network(0));
  }
  if (planner.networks() > 1) {
    for (size_t k = 0; k < planner.networks(); ++k) {
      const Lowered l = planner.lower_alone(k, chosen.keep);
      r.models.push_back({names[k], l.arena_bytes, l.weights_stored_bytes});
    }
  }
  planner.adopt(chosen);
  r.graph = std::move(chosen.graph);
  r.lowered = std::move(chosen.lowered);
  stages.finish();
  r.stage_seconds = stages.times();
  check_descriptor_limits(cfg, r.lowered.list);
  if (r.models.empty()) {
    r.models.push_back(
        {cfg.networks[0].name, r.lowered.arena_bytes, r.lowered.weights_stored_bytes});
  }
  return r;
}

}  // namespace strider
