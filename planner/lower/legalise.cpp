#include "planner/lower/legalise.h"

#include <algorithm>

namespace strider {
namespace {

bool can_take_activation(OpType op) {
  switch (op) {
    case OpType::kConv:
    case OpType::kFullyConnected:
    case OpType::kMaxPool:
    case OpType::kAvgPool:
    case OpType::kGlobalAvgPool:
    case OpType::kAdd:
    case OpType::kMul:
      return true;
    default:
      return false;
  }
}

// Per tensor: whether it is a graph output.
std::vector<char> output_flags(const Graph& g) {
  std::vector<char> is_output(g.tensors.size(), 0);
  for (int t : g.outputs) {
    if (t >= 0 && t < static_cast<int>(is_output.size())) is_output[t] = 1;
  }
  return is_output;
}

// Drops the nodes marked in `removed`, keeping the others' order.
void remove_nodes(Graph* g, const std::vector<char>& removed) {
  size_t kept = 0;
  for (size_t i = 0; i < g->nodes.size(); ++i) {
    if (!removed[i]) {
      if (kept != i) g->nodes[kept] = std::move(g->nodes[i]);
      ++kept;
    }
  }
  g->nodes.resize(kept);
}

}  // namespace

int fuse_activations(Graph* g) {
  // One pass in node order (linear in the graph): a fused activation's output is thereafter
  // produced by its producer, which now carries an activation and so takes no second one.
  std::vector<int> producer = g->producers();
  const std::vector<std::vector<int>> consumers = g->consumers();
  const std::vector<char> is_output = output_flags(*g);
  std::vector<char> removed(g->nodes.size(), 0);
  int fused = 0;
  for (size_t i = 0; i < g->nodes.size(); ++i) {
    const Node& a = g->nodes[i];
    // Only an identity requantisation folds exactly: the producer's own requantisation stays.
    // LeakyRelu / PRelu keep their node (their slope is a requantisation of their own).
    if (a.op != OpType::kActivation || a.inputs.size() != 1 || a.outputs.size() != 1 ||
        a.requant_multiplier != 1 || a.requant_shift != 0 || !a.negative_slope.empty()) {
      continue;
    }
    const int t = a.inputs[0], p = producer[t];
    if (p < 0 || consumers[t].size() != 1 || is_output[t]) continue;
    Node& prod = g->nodes[p];
    if (!can_take_activation(prod.op) || prod.activation != Activation::kNone ||
        prod.outputs.size() != 1) {
      continue;
    }
    prod.activation = a.activation;
    prod.clip_min = a.clip_min;
    prod.clip_max = a.clip_max;
    prod.outputs[0] = a.outputs[0];  // the producer now writes the activation's output
    producer[a.outputs[0]] = p;
    removed[i] = 1;
    ++fused;
  }
  remove_nodes(g, removed);
  return fused;
}

int fuse_residual_adds(Graph* g) {
  const std::vector<int> producer = g->producers();
  const std::vector<std::vector<int>> consumers = g->consumers();
  const std::vector<char> is_output = output_flags(*g);
  std::vector<char> removed(g->nodes.size(), 0);
  int fused = 0;
  for (size_t i = 0; i < g->nodes.size(); ++i) {
    const Node& a = g->nodes[i];
    if (a.op != OpType::kAdd || a.inputs.size() != 2 || a.outputs.size() != 1 ||
        a.inputs[0] == a.inputs[1]) {
      continue;
    }
    const TensorShape& out = g->tensors[a.outputs[0]].shape;
    if (g->tensors[a.inputs[0]].shape != out || g->tensors[a.inputs[1]].shape != out) continue;
    int take = -1;  // the Add's operand whose conv takes it
    for (int k = 0; k < 2; ++k) {
      const int t = a.inputs[k], p = producer[t], other = producer[a.inputs[1 - k]];
      if (p < 0 || consumers[t].size() != 1 || is_output[t] || other >= p) continue;
      const Node& conv = g->nodes[p];
      // The conv's own result stays int8 inside the fused op (OpDesc::kOutputUnsigned names the
      // Add's output), so a conv whose output calibration made uint8 keeps its Add.
      if (conv.op != OpType::kConv || conv.outputs.size() != 1 || conv.inputs.size() != 1 ||
          conv.residual.fused || g->tensors[t].is_unsigned) {
        continue;
      }
      if (take < 0 || p > producer[a.inputs[take]]) take = k;
    }
    if (take < 0) continue;
    Node& conv = g->nodes[producer[a.inputs[take]]];
    conv.inputs.push_back(a.inputs[1 - take]);
    conv.residual.fused = true;
    conv.residual.multiplier = take == 0 ? a.requant_multiplier : a.input2_multiplier;
    conv.residual.operand_multiplier = take == 0 ? a.input2_multiplier : a.requant_multiplier;
    conv.residual.shift = a.requant_shift;
    conv.residual.act = a.activation;
    conv.residual.clip_min = a.clip_min;
    conv.residual.clip_max = a.clip_max;
    conv.outputs[0] = a.outputs[0];  // the conv now writes the Add's output
    removed[i] = 1;
    ++fused;
  }
  remove_nodes(g, removed);
  return fused;
}

}  // namespace strider
