// TensorDump: `strider run --dump-tensors DIR` (functional mode). For every compute layer it writes
// NumPy files of the layer's inputs (the reference's values of its input tensors), weights, bias
// and output (as the model computed it), and <layer>.json with everything needed to recompute
// the layer independently: op, kernel, stride, padding, dilation, groups, requantisation
// multiplier and shift, activation and clip bounds, pooling flags, shapes and the file names.
// DIR/index.json lists the layers in execution order with their file stems.
//
// Files (stem = layer name with every character outside [A-Za-z0-9._-] replaced by '_'):
//   <stem>.input0.npy [, <stem>.input1.npy]  int8, (1, C, H, W)
//   <stem>.weights.npy  int8, conv (O, I/groups, KH, KW), fully connected (O, I)
//   <stem>.bias.npy     int32, (O,)
//   <stem>.output.npy   int8, (1, C, H, W)
// (a stem already taken by an earlier layer gets "_<layer index>" appended).
// .npy is format version 1.0, little-endian, C order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planner/ir/graph.h"
#include "planner/lower/lowering.h"
#include "tb/functional_check.h"

namespace strider {

// Writes one .npy file; `dtype` is "<i1" or "<i4", `data` holds the raw little-endian bytes.
// Throws std::runtime_error naming the path when it cannot be written.
void write_npy(const std::string& path, const std::string& dtype,
               const std::vector<int64_t>& shape, const void* data, uint64_t bytes);

// The file stem of a layer name.
std::string tensor_dump_stem(const std::string& layer);

// Writes every captured layer of `check` (after finish()) into `dir` (created).
void dump_tensors(const Graph& g, const Lowered& lowered, const FunctionalCheck& check,
                  const std::string& dir);

}  // namespace strider
