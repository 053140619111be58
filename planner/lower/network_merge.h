// Several networks on one accelerator: their graphs merged into one (tensor and node names
// prefixed "<network>/") with an explicit node order, so that one activation plan covers them.
// In series, each network runs to completion before the next starts, and the planner
// time-multiplexes one arena (its size is the largest network's need, not the sum). Concurrent
// networks interleave their schedules node by node and share the arena while both are live.
#pragma once

#include <string>
#include <vector>

#include "planner/ir/graph.h"

namespace strider {

struct MergedNetworks {
  Graph graph;
  std::vector<int> order;  // node order for LowerOptions::order
};

// `schedule` is the per-network order (schedule_nodes); `execution` is "serial" or "concurrent".
// Throws std::invalid_argument naming a bad execution mode.
MergedNetworks merge_networks(const std::vector<Graph>& nets, const std::vector<std::string>& names,
                              const std::string& schedule, const std::string& execution);

}  // namespace strider
