// RunPlan: everything of a run up to the descriptor list, without SystemC: imports each network
// of the run (refusing absurd sizes before weights are materialised), fuses activations,
// calibrates in functional mode, merges several networks into one arena and lowers. The
// `strider` program's run and plan commands and the Python module (in-process) share it.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "core/arch/run_config.h"
#include "planner/ir/graph.h"
#include "planner/lower/lowering.h"

namespace strider {

// One model's own figures, planned alone, to show what sharing one accelerator saved.
struct ModelFigures {
  std::string name;
  uint64_t arena_bytes = 0;           // activation arena planned alone
  uint64_t weights_stored_bytes = 0;  // weights and biases stored alone
};

struct PlannedRun {
  Graph graph;
  Lowered lowered;
  std::vector<ModelFigures> models;  // per network of the run, each planned alone
};

// Plans `cfg`; import and calibration warnings go to `warnings` as they arise ("warning: ..."
// lines). Throws std::runtime_error naming the file / node on bad input.
PlannedRun plan_networks(const RunConfig& cfg, std::ostream& warnings);

}  // namespace strider
