// ONNX importer: the operator form of a quantised model (QLinearConv, QLinearMatMul, as
// onnxruntime's quantize_static with QuantFormat.QOperator writes it) rewritten, before import,
// into the QDQ form the importer reads (planner/import/onnx_ops_quant.cpp), node for node:
//
//   QLinearConv(x, sx, zx, w, sw, zw, sy, zy[, B])  ->  DequantizeLinear(x, sx, zx),
//       DequantizeLinear(w, sw, zw, axis 0), [DequantizeLinear(B, sx x sw, 0, axis 0)],
//       Conv (the QLinearConv's attributes), QuantizeLinear(., sy, zy) -> the QLinearConv's output
//   QLinearMatMul(a, sa, za, b, sb, zb, sy, zy)  ->  DequantizeLinear(a, sa, za),
//       DequantizeLinear(b, sb, zb, axis 1: per column), MatMul, QuantizeLinear(., sy, zy)
//
// An int8 tensor between two such ops becomes a QuantizeLinear -> DequantizeLinear pair, so the
// model's scales and int8 weights are taken exactly as in QDQ form, with the same checks (int8
// zero points 0, scales matching between producer and consumer). The bias scale sx x sw[o] is a
// new float initializer computed in float32, as onnxruntime computes it. Other operator-form ops
// (QLinearAdd, ConvInteger, ...) are left for the importer to refuse.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

namespace strider {
namespace onnx_import {

// Rewrites `g` in place. Throws std::runtime_error naming `path` and the node when a QLinearConv
// has a bias but non-constant input or weight scales (the bias scale must be computed here).
void expand_qoperator(onnx::GraphProto* g, const std::string& path);

}  // namespace onnx_import
}  // namespace strider
