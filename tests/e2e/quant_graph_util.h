// Hand-made graphs for the quantisation tests (quant_*_test.cpp): activation tensors with a
// scale, parameters with float values, nodes, and the requantisation of 1/127.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "planner/ir/graph.h"

namespace strider {
namespace quant_test {

inline int tensor(Graph& g, const std::string& name, TensorShape s, double scale) {
  Tensor t;
  t.name = name;
  t.shape = s;
  t.scale = scale;
  return g.add_tensor(t);
}

// A weight (int8) or bias (int32) tensor with float values.
inline int parameter(Graph& g, const std::string& name, TensorKind kind, TensorShape s,
                     std::vector<float> values) {
  Tensor t;
  t.name = name;
  t.kind = kind;
  t.element_bytes = kind == TensorKind::kBias ? 4 : 1;
  t.shape = s;
  t.float_data = std::move(values);
  return g.add_tensor(t);
}

inline Node node(const std::string& name, OpType op, std::vector<int> in, int out) {
  Node n;
  n.name = name;
  n.op = op;
  n.inputs = std::move(in);
  n.outputs = {out};
  return n;
}

// 1/127 = 0.50394 x 2^-6: multiplier round(0.50394 x 2^15) = 16513, shift 15 + 6 = 21.
constexpr int32_t kM127 = 16513, kS127 = 21;

}  // namespace quant_test
}  // namespace strider
