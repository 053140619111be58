// Strider's own YAML network format: a hand-writable list of layers, each producing one tensor
// named after the layer (a split layer produces `<name>.0`, `<name>.1`, ...).
//
//   network:
//     name: tiny_cnn
//     input: {name: x, shape: [1, 3, 32, 32]}      # or inputs: [{name, shape}, ...]
//     layers:
//       - {name: conv1, op: conv, inputs: [x], out_channels: 16, kernel: 3, pad: 1,
//          activation: relu}
//       - {name: fc, op: fc, out_features: 10}      # inputs default to the previous layer
//     outputs: [fc]                                 # default: the last layer
//
// Ops and their keys (besides name, op, inputs):
//   conv: out_channels, kernel, stride, pad, dilation, groups, bias (default true), activation
//   fc: out_features, bias, activation
//   maxpool, avgpool: kernel, stride (default kernel), pad, ceil_mode, count_include_pad (avg)
//   globalavgpool; add, mul (second input broadcasts); concat (channels): activation
//   relu, relu6, sigmoid, hardsigmoid, hardswish, clip (clip: [min, max] in int8 units),
//   activation (activation: NAME): activation-only
//   reshape: shape (ONNX form, 0 copies, -1 infers); flatten; identity; dropout
//   split: sizes; slice: begin, end; channel_shuffle: groups; pad: pad; softmax
// kernel / stride / dilation: N or [h, w]; pad: N, [h, w] or [top, left, bottom, right].
// Conv weights, fc weights and biases are declared without data (see materialise_parameters).
//
// Errors (std::runtime_error) read "<file>:<line>: layer '<name>': key '<key>': <expected>".
#pragma once

#include <string>

#include "planner/ir/graph.h"

namespace strider {

Graph import_yaml_network(const std::string& path);

}  // namespace strider
