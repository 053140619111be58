// RunPlan: everything of a run up to the descriptor list, without SystemC: imports each network
// of the run (refusing absurd sizes before weights are materialised), fuses activations,
// calibrates in functional mode, merges several networks into one arena and lowers. The
// `strider` program's run and plan commands and the Python module (in-process) share it.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "core/arch/run_config.h"
#include "planner/ir/graph.h"
#include "planner/lower/lowering.h"
#include "planner/quant/calibrator.h"
#include "tb/quant_evaluation.h"

namespace strider {

// One model's own figures, planned alone, to show what sharing one accelerator saved.
struct ModelFigures {
  std::string name;
  uint64_t arena_bytes = 0;           // activation arena planned alone
  uint64_t weights_stored_bytes = 0;  // weights and biases stored alone
};


// How the run's graph was calibrated (functional mode), for the reports.
struct QuantInfo {
  bool calibrated = false;
  bool synthetic = true;       // seeded synthetic images (no quant.calibration inputs given)
  uint64_t seed = 1;           // of the synthetic images
  int calibration_images = 1;  // images the scales were chosen on
  std::string calibration_inputs;  // the files' pattern (empty: synthetic)
  std::string method;              // Graph::calibration_method
  bool bias_correction = false;    // CalibrationOptions::bias_correction (bias_correction.h)
  ClipBounds clip_bounds;          // calibrate()'s, for float passes after calibration
  // The graph as calibrated when fuse_residual_adds then folded Adds into convs and input sets
  // are evaluated: the float network for those passes (clip_bounds indexes its nodes).
  std::shared_ptr<const Graph> float_graph;
  // The samples of graph input 0 (calibration_inputs.h): calibration (files only) and evaluation.
  std::vector<std::vector<float>> calibration_samples, evaluation_samples;
  std::vector<std::string> calibration_files, evaluation_files;  // each sample's first file
  std::string evaluation_inputs;
  // After a functional run: the figures per input set (calibration first, then evaluation).
  std::vector<SetFigures> sets;
};
struct PlannedRun {
  Graph graph;
  Lowered lowered;
  std::vector<ModelFigures> models;  // per network of the run, each planned alone
  QuantInfo quant;                   // how the graph was calibrated (functional mode)
  // Seconds of each stage (import, calibration, planning) in order (tb/stage_progress.h).
  std::vector<std::pair<std::string, double>> stage_seconds;
};

// Plans `cfg`; import and calibration warnings go to `warnings` as they arise ("warning: ..."
// lines). Throws std::runtime_error naming the file / node on bad input.
PlannedRun plan_networks(const RunConfig& cfg, std::ostream& warnings);

}  // namespace strider
