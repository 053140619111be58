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

// Import and optional input size override, without materialising parameters (weights without
// data stay empty): what `strider inspect` needs.
Graph import_network(const std::string& path, int64_t input_h = 0, int64_t input_w = 0);

}  // namespace strider
