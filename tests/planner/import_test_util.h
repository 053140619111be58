// Helpers of the importer tests.
#pragma once

#include <map>
#include <stdexcept>
#include <string>

#include "planner/ir/graph.h"

namespace strider {

// How many nodes of each op the graph holds, by op name.
inline std::map<std::string, int> op_counts(const Graph& g) {
  std::map<std::string, int> m;
  for (const Node& n : g.nodes) ++m[to_string(n.op)];
  return m;
}

// The node called `name`; throws when there is none.
inline const Node& node_named(const Graph& g, const std::string& name) {
  for (const Node& n : g.nodes) {
    if (n.name == name) return n;
  }
  throw std::runtime_error("no node " + name);
}

}  // namespace strider
