// Step 4 of calibration (planner/quant/calibrator.h): each node's requantisation, bias, lookup
// table scales and ReLU6 / Clip bounds from the scales of its tensors.
#pragma once

#include <utility>
#include <vector>

#include "planner/ir/graph.h"

namespace strider {

// Real bounds of the kClip / kRelu6 activations as imported (int8 at kActivationScale), per node.
std::vector<std::pair<float, float>> real_clip_bounds(const Graph& g);

// Sets every node's requantisation, its bias (from the bias tensor's float_data) and its ReLU6 /
// Clip bounds from the scales of the activation and weight tensors. Clip bounds are read as
// imported (int8 at kActivationScale), so call it once per graph. A conv / fc bias is
// quantised from float_data less its Tensor::bias_shift (bias correction) when it has one.
void apply_scales(Graph* g);

}  // namespace strider
