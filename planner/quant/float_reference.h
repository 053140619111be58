// FloatReference: the float network a quantised graph stands for, computed layer by layer on one
// input (NCHW, a batch image by image as tb/reference.h does), for calibration and for the fidelity report. Weights are
// float_weights() of the graph's weight tensors, biases the float_data of its bias tensors (the
// calibrator fills them in when an importer gave none). Convolutions and fully-connected layers
// are im2col + the float GEMM of core/common/float_gemm.h (each output summed in input order, the same
// bits on every CPU); a convolution's two halves of positions run on up to `threads` threads,
// with the same results on any number of threads.
//
// Semantics per op mirror the integer model's (tb/reference.h) without quantisation: pools over
// the valid part of the window (average divisor as the integer model: the valid count, or with
// count_include_pad the positions inside the padded input; a max window with nothing valid is
// 0), Add / Mul broadcast a scalar or a per-channel second operand, Softmax over each group of
// channels (causal: row y sees the first y + 1), MatMul of two activations per group (each
// output summed over k in order), LayerNorm over the channels of a position (population
// variance plus ONNX's epsilon) x gamma + beta, GELU x Phi(x) with erf. Activations in real units: ReLU, ReLU6 (clamp to [0, 6]), Clip (the bounds given per node),
// sigmoid, hard-sigmoid clamp(x / 6 + 1/2, 0, 1), hard-swish x * hard-sigmoid(x).
#pragma once

#include <utility>
#include <vector>

#include "core/common/progress.h"
#include "planner/ir/graph.h"

namespace strider {

// The float weights of weight tensor `w` (in the order of its int8 data): its float_data when it
// has them (imported float weights), else int8 x the output channel's scale (materialised
// weights, of which the calibrator keeps no float copy) written to `scratch`; nullptr when it
// has neither float data nor channel scales.
const float* float_weights(const Tensor& w, std::vector<float>& scratch);

class FloatReference {
 public:
  // clip_bounds[i]: the real [min, max] of node i's kClip activation (ignored for other nodes).
  // threads: at most this many threads per convolution; 0: default_threads() (parallel_for.h).
  FloatReference(const Graph& g, std::vector<std::pair<float, float>> clip_bounds, int threads = 0);

  // Sets a graph input (shape.elements() values, CHW); throws naming the tensor on a bad size.
  void set_input(int tensor, std::vector<float> values);

  // Computes every node in graph order; throws naming the node when a conv / fc node lacks
  // float weights.
  // `progress`: k of N nodes after each node (core/common/progress.h).
  void run(const ProgressFn& progress = {});

  const std::vector<float>& value(int tensor) const { return values_.at(tensor); }
  std::vector<std::vector<float>>& values() { return values_; }

  // With keep on, run() keeps each lookup-activation node's (graph.h is_lookup) values before
  // its activation (output_factor applied): what the calibrator sets the table's input scale
  // from. Empty for other nodes, or when keep is off (the default).
  void keep_pre_activations(bool keep) { keep_pre_ = keep; }
  const std::vector<float>& pre_activation(size_t node) const { return pre_.at(node); }

 private:
  void run_node(const Node& n);
  // One image of a node that computes values (conv, fc, pools, add, mul, softmax, activation).
  void compute(const Node& n, const std::vector<const std::vector<float>*>& in,
               std::vector<std::vector<float>>& out);
  float activate(const Node& n, size_t node_index, float x) const;
  // Node n's float weights (kept in weights_ when derived); throws naming the node when none.
  const float* weights_of(const Node& n);

  const Graph& g_;
  std::vector<std::pair<float, float>> clip_bounds_;
  int threads_;
  std::vector<std::vector<float>> values_;
  bool keep_pre_ = false;
  std::vector<std::vector<float>> pre_;      // per node, with keep_pre_
  std::vector<float> weights_;               // the current node's derived float weights
  const float* node_weights_ = nullptr;      // the current node's float weights
  std::vector<std::vector<float>> columns_;  // im2col rows per block of positions, reused
};

}  // namespace strider
