// Schedules: the execution order of a graph's nodes, which fixes every tensor's lifetime and so
// the memory plan.
//   dfs     depth-first topological order: after a node runs, a consumer it made ready runs next
//           (a branch is finished before the next starts); ties by node index, except that the
//           sinks a node makes ready (nodes writing only graph outputs) run with the most output
//           bytes first, so the run ends on the smallest output store.
//   memory  memory-aware greedy: among the ready nodes, the one that adds the fewest live bytes
//           (its output bytes minus the input bytes it frees); ties as in dfs.
#pragma once

#include <string>
#include <vector>

#include "planner/ir/graph.h"

namespace strider {

// Names accepted by schedule_nodes().
std::vector<std::string> schedule_names();

// Node indices in execution order. Throws std::invalid_argument listing the valid names for an
// unknown `order`, std::runtime_error naming a node on a cycle.
std::vector<int> schedule_nodes(const Graph& g, const std::string& order);

}  // namespace strider
