// `strider inspect NETWORK [--json] [--input H,W]`: imports a network (ONNX, YAML or SCALE-Sim
// CSV) without simulating it and prints one row per layer (op, input and output shapes, MACs,
// weight bytes, activation bytes) and the totals; --json prints
// {"network", "layers": [...], "macs", "weights", "executed_macs", "weight_bytes",
//  "activation_bytes"} where macs / weights count conv and fully-connected MACs and weight
// elements of the original model (see GraphTotals in planner/ir/graph.h).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace strider {

// args: the words after "inspect". Returns 0 on success, 1 when the network cannot be loaded,
// 2 on a usage error (message and usage on `err`).
int inspect_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace strider
