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

}  // namespace

int fuse_activations(Graph* g) {
  // One pass in node order (linear in the graph): a fused activation's output is thereafter
  // produced by its producer, which now carries an activation and so takes no second one.
  std::vector<int> producer = g->producers();
  const std::vector<std::vector<int>> consumers = g->consumers();
  std::vector<char> is_output(g->tensors.size(), 0);
  for (int t : g->outputs) {
    if (t >= 0 && t < static_cast<int>(is_output.size())) is_output[t] = 1;
  }
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
  if (fused > 0) {
    size_t kept = 0;
    for (size_t i = 0; i < g->nodes.size(); ++i) {
      if (!removed[i]) {
        if (kept != i) g->nodes[kept] = std::move(g->nodes[i]);
        ++kept;
      }
    }
    g->nodes.resize(kept);
  }
  return fused;
}

}  // namespace strider
