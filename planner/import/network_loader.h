// Network loading front door: picks the importer by file extension (.onnx, .yaml / .yml, .csv
// for SCALE-Sim topologies), optionally overrides the spatial size of every graph input and the
// batch (re-running shape inference), validates the graph and materialises its parameters.
// A SCALE-Sim topology refuses an input size override: each row states its own IFMAP (resizing
// would turn its GEMM / FC rows into convolutions over the new size).
#pragma once

#include <cstdint>
#include <string>

#include "core/common/progress.h"
#include "planner/import/scalesim_csv.h"
#include "planner/ir/graph.h"

namespace strider {

struct ImportOptions {
  // New H, W and N of every graph input but the constants the importer made inputs with their
  // values (Swin's relative-position bias with the model's parameters); 0: as in the file.
  int64_t input_h = 0, input_w = 0;
  int64_t batch = 0;         // images per run
  ScaleSimOptions scalesim;  // SCALE-Sim CSV only
  ProgressFn progress;       // ONNX: k of N nodes imported (core/common/progress.h)
};

// Import with the overrides of `opt`, without materialising parameters.
Graph import_network(const std::string& path, const ImportOptions& opt);

// input_h / input_w: new height / width of every graph input, 0 keeps the file's size (both or
// neither must be given). seed: pseudo-random weights for tensors imported without data.
Graph load_network(const std::string& path, int64_t input_h, int64_t input_w, uint64_t seed);

// Import and optional input size override, without materialising parameters (weights without
// data stay empty): what `strider inspect` needs.
Graph import_network(const std::string& path, int64_t input_h = 0, int64_t input_w = 0);

}  // namespace strider
