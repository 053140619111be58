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
  int fused = 0;
  for (;;) {
    const std::vector<int> producer = g->producers();
    const std::vector<std::vector<int>> consumers = g->consumers();
    int victim = -1;
    for (size_t i = 0; i < g->nodes.size() && victim < 0; ++i) {
      const Node& a = g->nodes[i];
      // Only an identity requantisation folds exactly: the producer's own requantisation stays.
      if (a.op != OpType::kActivation || a.inputs.size() != 1 || a.requant_multiplier != 1 ||
          a.requant_shift != 0) {
        continue;
      }
      const int t = a.inputs[0], p = producer[t];
      if (p < 0 || consumers[t].size() != 1) continue;
      if (std::count(g->outputs.begin(), g->outputs.end(), t)) continue;
      const Node& prod = g->nodes[p];
      if (!can_take_activation(prod.op) || prod.activation != Activation::kNone ||
          prod.outputs.size() != 1) {
        continue;
      }
      victim = static_cast<int>(i);
    }
    if (victim < 0) return fused;
    const Node a = g->nodes[victim];
    Node& prod = g->nodes[producer[a.inputs[0]]];
    prod.activation = a.activation;
    prod.clip_min = a.clip_min;
    prod.clip_max = a.clip_max;
    prod.outputs[0] = a.outputs[0];  // the producer now writes the activation's output
    g->nodes.erase(g->nodes.begin() + victim);
    ++fused;
  }
}

}  // namespace strider
