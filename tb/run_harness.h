// RunHarness: loads a run (config, networks), plans and lowers it, simulates the descriptor list
// on a Top and collects everything the reports need. One simulation per process (SystemC
// elaborates once).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/common/run_record.h"
#include "model/common/stats.h"
#include "core/arch/run_config.h"
#include "planner/ir/graph.h"
#include "planner/lower/lowering.h"
#include "planner/quant/calibrator.h"
#include "planner/quant/fidelity.h"
#include "tb/run_plan.h"

namespace strider {

struct RunResult {
  RunConfig config;
  Graph graph;
  Lowered lowered;
  std::vector<ModelFigures> models;   // per network of the run, each planned alone
  RunRecord record;
  StatRegistry stats;
  uint64_t cycles = 0;
  double wall_seconds = 0;
  // Functional mode (sim.functional): layers checked against the reference, layers that differ
  // (each described in functional_details), and where --dump-tensors writes (empty: nowhere).
  uint64_t checked_tensors = 0;
  uint64_t mismatches = 0;
  std::vector<std::string> functional_details;
  std::string dump_tensors_dir;
  // Functional mode, calibrated graph: per layer of r.lowered the fidelity of its output against
  // the float network (planner/quant/fidelity.h), and over the graph outputs.
  std::vector<Fidelity> layer_fidelity;
  Fidelity output_fidelity;
  QuantInfo quant;
  // Seconds of import, calibration and planning (PlannedRun::stage_seconds).
  std::vector<std::pair<std::string, double>> stage_seconds;
  std::vector<std::string> command_line;  // recorded in run.json
};

// Loads the networks of `cfg` into one graph (the foundation runs the first network) and lowers
// it. Throws std::runtime_error with a message naming the file / node on bad input.
void plan_run(RunResult& r);

// The checks every list passes before it runs (simulate_planned): the resource limits and the
// semantic validator (structure, data flow); throws DescriptorError / std::runtime_error.
void check_planned(const RunResult& r);

// plan_run, then simulate_planned. Returns normally on a deadlock with r.record.deadlock set.
void simulate_run(RunResult& r);

// Simulates an already planned run (r.lowered). In functional mode preloads DRAM, checks every
// compute layer's output against the reference and dumps tensors when r.dump_tensors_dir is set.
void simulate_planned(RunResult& r);

}  // namespace strider
