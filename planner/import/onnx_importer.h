// ONNX importer: reads an ONNX model (opsets 11 to 17) with Debian's libonnx protobuf classes
// and builds the graph IR, inferring every shape itself (infer_output_shapes).
//
// - Values are activations (tensors of the IR), constants (initializers, Constant nodes and
//   everything folded from them: Shape, Gather, Unsqueeze, Squeeze, Concat, Cast, Slice,
//   Reshape, arithmetic, ConstantOfShape) or parameters without data (graph inputs used as
//   weights, as in models exported with export_params=False). Identity and Dropout alias their
//   input; Reshape / Flatten / Squeeze / Unsqueeze of activations become view nodes.
// - BatchNormalization is folded into the preceding Conv when that conv feeds only it; other
//   BatchNormalizations become a depthwise 1x1 conv flagged from_batchnorm.
// - Float weights are quantised to int8 symmetric per tensor (scale max|w| / 127), biases to
//   int32 in the accumulator scale (weight scale / kActivationScale); weights without data stay
//   empty for materialise_parameters.
// - Transpose is accepted as the channel shuffle pattern Reshape [N, g, C/g, H, W] ->
//   Transpose [0, 2, 1, 3, 4] -> Reshape [N, C, H, W] (or as an identity permutation).
//
// Errors (std::runtime_error): "<file>: cannot open network file", "<file>: not a valid ONNX
// model ...", "<file>: node '<name>' (<OpType>): <what>", and for an unsupported op
// "<file>: node '<name>': unsupported op type '<T>' (supported: ...)".
#pragma once

#include <string>

#include "planner/ir/graph.h"

namespace strider {

// A symbolic dim of a graph input is an error naming the input and the dim, except height and
// width (dims 2 and 3 of a 4-D input) when `sized` (the caller sets them afterwards).
Graph import_onnx(const std::string& path, bool sized = false);

// The ONNX op types import_onnx accepts, sorted, comma separated.
std::string onnx_supported_ops();

}  // namespace strider
