#include "planner/import/onnx_newer_opsets.h"

#include <onnx/onnx_pb.h>

#include <map>
#include <stdexcept>

namespace strider {
namespace onnx_import {
namespace {

// Operator -> the opsets 18-21 that gave it a new version (ONNX's Changelog.md). 18: Reduce* take
// axes as an input, Pad takes axes, Resize antialias / axes / keep_aspect_ratio_policy, Split
// num_outputs, ScatterElements / ScatterND max and min, LpPool ceil_mode, the Bitwise ops,
// CenterCropPad, Col2Im, GroupNormalization, Mish, Optional*. 19: float8 types and Pad's wrap
// mode, AveragePool dilations, Resize half_pixel_symmetric, DeformConv. 20: Gelu, AffineGrid,
// ImageDecoder, string ops, DFT axis input, GridSample N-D, ReduceMax / ReduceMin booleans. 21:
// int4 / uint4 types, blocked quantisation, GroupNormalization's per-channel scale.
const std::map<std::string, std::vector<int>>& changed_after_17() {
  static const std::map<std::string, std::vector<int>> kChangedAfter17 = {
      {"AffineGrid", {20}},
      {"AveragePool", {19}},
      {"BitwiseAnd", {18}},
      {"BitwiseNot", {18}},
      {"BitwiseOr", {18}},
      {"BitwiseXor", {18}},
      {"Cast", {19, 21}},
      {"CastLike", {19, 21}},
      {"CenterCropPad", {18}},
      {"Col2Im", {18}},
      {"Constant", {19, 21}},
      {"ConstantOfShape", {20, 21}},
      {"DFT", {20}},
      {"DeformConv", {19}},
      {"DequantizeLinear", {19, 21}},
      {"Equal", {19}},
      {"Flatten", {21}},
      {"Gelu", {20}},
      {"GridSample", {20}},
      {"GroupNormalization", {18, 21}},
      {"Identity", {19, 21}},
      {"If", {19, 21}},
      {"ImageDecoder", {20}},
      {"IsInf", {20}},
      {"IsNaN", {20}},
      {"Loop", {19, 21}},
      {"LpPool", {18}},
      {"Mish", {18}},
      {"OptionalGetElement", {18}},
      {"OptionalHasElement", {18}},
      {"Pad", {18, 19, 21}},
      {"QLinearMatMul", {21}},
      {"QuantizeLinear", {19, 21}},
      {"ReduceL1", {18}},
      {"ReduceL2", {18}},
      {"ReduceLogSum", {18}},
      {"ReduceLogSumExp", {18}},
      {"ReduceMax", {18, 20}},
      {"ReduceMean", {18}},
      {"ReduceMin", {18, 20}},
      {"ReduceProd", {18}},
      {"ReduceSumSquare", {18}},
      {"RegexFullMatch", {20}},
      {"Reshape", {19, 21}},
      {"Resize", {18, 19}},
      {"Scan", {19, 21}},
      {"ScatterElements", {18}},
      {"ScatterND", {18}},
      {"Shape", {19, 21}},
      {"Size", {19, 21}},
      {"Split", {18}},
      {"Squeeze", {21}},
      {"StringConcat", {20}},
      {"StringSplit", {20}},
      {"Transpose", {21}},
      {"Unsqueeze", {21}},
  };
  return kChangedAfter17;
}

std::string joined(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

}  // namespace

std::vector<int> versions_after_17(const std::string& op, int opset) {
  std::vector<int> out;
  const auto it = changed_after_17().find(op);
  if (it == changed_after_17().end()) return out;
  for (int v : it->second) {
    if (v <= opset) out.push_back(v);
  }
  return out;
}

void check_unchanged_since_17(const onnx::GraphProto& g, int opset, const std::string& path) {
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    const bool onnx_domain = n.domain().empty() || n.domain() == "ai.onnx";
    const std::vector<int> v =
        onnx_domain ? versions_after_17(n.op_type(), opset) : std::vector<int>{};
    if (!v.empty()) {
      const std::string name = n.name().empty() ? n.op_type() + "_" + std::to_string(i) : n.name();
      throw std::runtime_error(
          path + ": node '" + name + "' (" + n.op_type() + "): opset " + std::to_string(opset) +
          " model, and " + n.op_type() + " has a new version at opset " + joined(v) +
          " (ONNX's library here reads opsets up to 17; a model of opsets 18 to 21 imports only "
          "when none of its operators changed after 17)");
    }
    for (const onnx::AttributeProto& a : n.attribute()) {
      if (a.has_g()) check_unchanged_since_17(a.g(), opset, path);
      for (const onnx::GraphProto& sub : a.graphs()) check_unchanged_since_17(sub, opset, path);
    }
  }
}

}  // namespace onnx_import
}  // namespace strider
