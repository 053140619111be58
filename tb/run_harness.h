// RunHarness: loads a run (config, networks), plans and lowers it, simulates the descriptor list
// on a Top and collects everything the reports need. One simulation per process (SystemC
// elaborates once).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/common/run_record.h"
#include "model/common/stats.h"
#include "model/config/run_config.h"
#include "planner/ir/graph.h"
#include "planner/lower/lowering.h"

namespace strider {

struct RunResult {
  RunConfig config;
  Graph graph;
  Lowered lowered;
  RunRecord record;
  StatRegistry stats;
  uint64_t cycles = 0;
  double wall_seconds = 0;
  uint64_t checked_tensors = 0;
  uint64_t mismatches = 0;
};

// Loads the networks of `cfg` into one graph (the foundation runs the first network) and lowers
// it. Throws std::runtime_error with a message naming the file / node on bad input.
void plan_run(RunResult& r);

// plan_run, then simulates. Returns normally on a deadlock with r.record.deadlock set.
void simulate_run(RunResult& r);

}  // namespace strider
