// Reference: a plain C++ model of every Graph IR op, computing whole layers (not tiles) straight
// from the Graph, to check the hardware model's functional mode against. It shares with the model
// only the numeric contract of core/contract/quant.h (requantize, activate, round_away, saturate8),
// the int32 matrix product of core/common/int8_gemm.h and the row requantisation of
// core/common/requant_row.h (each tested on its own against the plain definition); its
// data flow (windows, padding, groups) is written independently of model/neuron/tile_compute.cpp.
//
// A batch (N > 1) is computed image by image, each image's CHW block being contiguous (NCHW);
// an operand with N = 1 (a broadcast) is shared by every image.
// Numerics per op (int8 activations, planar CHW, per image):
// - Conv / FullyConnected: acc = bias + sum(in x w) in int32 (virtual zero padding), then
//   requantize(acc, multiplier, shift) and the fused activation.
// - A MaxPool fused into a conv (Node::pool): the conv's result, then each window's maximum.
// - A Mul fused into a conv's input (Node::input_scale): the Mul's product of the conv's input
//   and the per-channel scale (inputs.back()), then the conv over it.
// - MaxPool: the maximum over the window's elements inside the input; AvgPool: their sum divided
//   by their count (with count_include_pad by the elements inside the padded input), rounded half
//   away from zero; GlobalAvgPool: the same over the whole plane. Then the fused activation.
// - Add / Mul (second operand may broadcast per channel or be a scalar) and Activation:
//   requantize(a op b, multiplier, shift), then the fused activation.
// - Softmax over each group of channels (causal: row y sees the group's first y + 1 channels),
//   LayerNorm over the channels, GELU: the integer functions of core/contract/vector_math.h
//   (probabilities at scale 1/127; LayerNorm requantised after x gamma + beta).
// - MatMul of two activations: int32 sum over the inner dimension per group, then requantize.
// - Concat, Split, Slice, ChannelShuffle, Pad and Reshape move bytes only.
// ReLU6 and Clip clamp to the node's clip bounds (the calibrator sets them from its scales).
#pragma once

#include <cstdint>
#include <vector>

#include "planner/ir/graph.h"

namespace strider {

class Reference {
 public:
  explicit Reference(const Graph& g);

  // Sets a graph input's value (shape.elements() bytes, CHW). Throws std::runtime_error naming
  // the tensor when the size is wrong.
  void set_input(int tensor, std::vector<int8_t> bytes);

  // Computes every node in graph order (the importers keep nodes topologically sorted).
  void run();

  // Computes one node from the current values of its inputs and stores its outputs.
  void run_node(const Node& n);

  // The value of an activation tensor (empty before it is computed).
  const std::vector<int8_t>& value(int tensor) const { return values_.at(tensor); }
  std::vector<int8_t>& mutable_value(int tensor) { return values_.at(tensor); }

 private:
  // One image: `in` and `out` hold that image's CHW values.
  void compute(const Node& n, const std::vector<const std::vector<int8_t>*>& in,
               std::vector<std::vector<int8_t>>& out) const;

  const Graph& g_;
  std::vector<std::vector<int8_t>> values_;
};

}  // namespace strider
