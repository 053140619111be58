// NetworkSummary: what `strider inspect` says about an imported network, per layer (op, input
// and output shapes, MACs, weight and activation bytes) and in total, as table rows or as the
// `--json` document. SystemC-free: the Python module's import_network uses it in-process.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "planner/ir/graph.h"

namespace strider {

struct NetworkLayer {
  std::string name, op, inputs, outputs;  // op with its variant and activation: "conv(dw)+relu6"
  int64_t macs = 0, weight_bytes = 0, activation_bytes = 0;
};

// An already-quantised model's own quantisation (ONNX QDQ, planner/import/onnx_ops_quant.cpp):
// activation tensors with a scale and weight tensors with per-output-channel scales.
struct ModelQuantisation {
  int activation_scales = 0, weight_tensors = 0;
};

// "1x3x32x32 1x16x32x32": the shapes of tensors `ids`, space-separated.
std::string shapes_of(const Graph& g, const std::vector<int>& ids);
NetworkLayer layer_row(const Graph& g, const Node& n);
ModelQuantisation model_quantisation(const Graph& g);

// {"network", "layers": [{name, op, activation, inputs, outputs, macs, weight_bytes,
//  activation_bytes, [from_batchnorm], [output_scale]}...], "macs", "weights", "executed_macs",
//  "weight_bytes", "activation_bytes", ["model_quantisation"]}
nlohmann::ordered_json network_json(const Graph& g);

}  // namespace strider
