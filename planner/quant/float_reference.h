// FloatReference: the float network a quantised graph stands for, computed layer by layer on one
// input (NCHW, a batch image by image as tb/reference.h does), for calibration and for the fidelity report. Weights and biases
// are the float_data of the graph's weight and bias tensors (the calibrator fills them in when an
// importer gave none). Convolutions and fully-connected layers are im2col + an Eigen float GEMM.
//
// Semantics per op mirror the integer model's (tb/reference.h) without quantisation: pools over
// the valid part of the window (average divisor as the integer model: the valid count, or with
// count_include_pad the positions inside the padded input; a max window with nothing valid is
// 0), Add / Mul broadcast a scalar or a per-channel second operand, Softmax over channels.
// Activations in real units: ReLU, ReLU6 (clamp to [0, 6]), Clip (the bounds given per node),
// sigmoid, hard-sigmoid clamp(x / 6 + 1/2, 0, 1), hard-swish x * hard-sigmoid(x).
#pragma once

#include <utility>
#include <vector>

#include "planner/ir/graph.h"

namespace strider {

class FloatReference {
 public:
  // clip_bounds[i]: the real [min, max] of node i's kClip activation (ignored for other nodes).
  FloatReference(const Graph& g, std::vector<std::pair<float, float>> clip_bounds);

  // Sets a graph input (shape.elements() values, CHW); throws naming the tensor on a bad size.
  void set_input(int tensor, std::vector<float> values);

  // Computes every node in graph order; throws naming the node when a conv / fc node lacks
  // float weights.
  void run();

  const std::vector<float>& value(int tensor) const { return values_.at(tensor); }
  std::vector<std::vector<float>>& values() { return values_; }

 private:
  void run_node(const Node& n);
  // One image of a node that computes values (conv, fc, pools, add, mul, softmax, activation).
  void compute(const Node& n, const std::vector<const std::vector<float>*>& in,
               std::vector<std::vector<float>>& out) const;
  float activate(const Node& n, size_t node_index, float x) const;

  const Graph& g_;
  std::vector<std::pair<float, float>> clip_bounds_;
  std::vector<std::vector<float>> values_;
};

}  // namespace strider
