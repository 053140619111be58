// Legalisation before planning: an activation-only node (ReLU, ReLU6, clip, sigmoid family) whose
// input is the sole use of a conv, fully-connected, pooling or element-wise result is fused into
// that producer, which then applies it in its post-op pipeline: one layer, no tensor in between.
#pragma once

#include "planner/ir/graph.h"

namespace strider {

// Fuses in place; returns how many activation nodes were folded away.
int fuse_activations(Graph* g);

// A conv whose result is read only by an element-wise Add of two same-shape tensors takes the Add
// (and the activation fused into it) as its post-op (Node::residual, OpDesc::post): the conv gets
// the Add's other operand as inputs[1] and writes the Add's output; the Add and the conv's own
// output tensor go. The other operand must come from before the conv in node order (or be a
// graph input); of two convs feeding one Add the later one takes it. Run after calibration (the
// scales are the Add's). Returns how many Adds were fused.
int fuse_residual_adds(Graph* g);

}  // namespace strider
