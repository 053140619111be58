// Network loading front door: picks the importer by file extension (.onnx, .yaml / .yml, .csv
// for SCALE-Sim topologies), optionally overrides the spatial size of every graph input
// (re-running shape inference), validates the graph and materialises its parameters.
#pragma once

#include <cstdint>
#include <string>

#include "planner/ir/graph.h"

namespace strider {

// input_h / input_w: new height / width of every graph input, 0 keeps the file's size (both or
// neither must be given). seed: pseudo-random weights for tensors imported without data.
Graph load_network(const std::string& path, int64_t input_h, int64_t input_w, uint64_t seed);

// Import only (no size override, no parameters): the graph as the file describes it.
Graph import_network(const std::string& path);

}  // namespace strider
