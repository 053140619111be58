// Legalisation before planning: an activation-only node (ReLU, ReLU6, clip, sigmoid family) whose
// input is the sole use of a conv, fully-connected, pooling or element-wise result is fused into
// that producer, which then applies it in its post-op pipeline: one layer, no tensor in between.
#pragma once

#include "planner/ir/graph.h"

namespace strider {

// Fuses in place; returns how many activation nodes were folded away.
int fuse_activations(Graph* g);

}  // namespace strider
