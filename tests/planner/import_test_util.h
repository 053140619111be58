// Helpers of the importer tests.
#pragma once

#include <map>
#include <string>

#include "planner/ir/graph.h"

namespace strider {

// How many nodes of each op the graph holds, by op name.
inline std::map<std::string, int> op_counts(const Graph& g) {
  std::map<std::string, int> m;
  for (const Node& n : g.nodes) ++m[to_string(n.op)];
  return m;
}

}  // namespace strider
