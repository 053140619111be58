// ONNX importer: reads an ONNX model (opsets 1 to 21) with Debian's libonnx protobuf classes
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

#include <cstdint>
#include <string>

#include "core/common/progress.h"
#include "planner/ir/graph.h"

namespace strider {

// Values for the symbolic dims of the graph inputs (0: not given): the batch (dim 0) and the
// height and width (dims 2 and 3 of a 4-D input). Bound before any node is read, so shape
// arithmetic on them (Shape, Gather, Concat, ... feeding a Reshape) folds with the real sizes.
struct OnnxInputDims {
  int64_t batch = 0, h = 0, w = 0;
};

// A symbolic dim of a graph input that `dims` does not give is an error naming the input, the
// dim and the key that would give it. Models of opsets 1 to 10 are upgraded to opset 11 by ONNX's
// own version converter first (Graph::warnings says so); opsets 11 to 17 import as they are;
// opsets 18 to 21 as 17 when none of their operators changed after 17 (onnx_newer_opsets.h).
// `progress`: called with k of N after each of the N ONNX nodes (core/common/progress.h).
Graph import_onnx(const std::string& path, const OnnxInputDims& dims,
                  const ProgressFn& progress = {});
// `sized`: height and width are given afterwards (symbolic ones read as 1 until then).
Graph import_onnx(const std::string& path, bool sized = false);

// The serialized model `bytes` (a model.onnx already read or rewritten in memory), named `label`
// in errors as import_onnx names the file.
Graph import_onnx_bytes(const std::string& bytes, const std::string& label,
                        const OnnxInputDims& dims = {});

// The ONNX op types import_onnx accepts, sorted, comma separated.
std::string onnx_supported_ops();

}  // namespace strider
