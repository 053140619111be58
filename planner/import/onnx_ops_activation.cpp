// Rectifiers with a slope below zero: LeakyRelu (attribute alpha, one slope) and PRelu (input 1,
// one slope or one per channel in any shape ONNX's unidirectional broadcast allows: [1], [C],
// [C, 1, 1], [1, C, 1, 1], ... whose only non-1 dim lands on the channel axis of X). Both import
// as an IR kActivation node with Node::negative_slope; the integer datapath requantises a
// negative input with its channel's multiplier (Node::channel_requant), so the slope costs no
// step of its own (planner/ir/parameters.cpp set_negative_requant).
#include <cmath>
#include <string>
#include <vector>

#include "planner/import/onnx_import_context.h"
#include "planner/import/onnx_token_view.h"

namespace strider {
namespace onnx_import {
namespace {

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t k = 0; k < dims.size(); ++k) s += (k ? ", " : "") + std::to_string(dims[k]);
  return s + "]";
}

// Binds the node's output to `n` applied element-wise to input 0 (an image or a strided view).
void emit_elementwise(Importer& im, Node n) {
  const ValuePtr x = im.input(0);
  if (is_view(x)) {
    const View v = view_value(im, x);
    n.inputs = {v.tensor};
    emit_view(im, n, v.dims, v.cs, v.ps);
    return;
  }
  n.inputs = {im.activation(0)};
  im.emit(n, x->dims.size());
}

}  // namespace

void import_leaky_relu(Importer& im) {
  const double alpha = im.attr_float("alpha", 0.01);
  if (!std::isfinite(alpha)) im.fail("alpha " + std::to_string(alpha) + " is not finite");
  Node n = im.new_node(OpType::kActivation);
  n.negative_slope = {alpha};
  emit_elementwise(im, n);
}

void import_prelu(Importer& im) {
  const ValuePtr slope = im.constant_data(1);
  const ValuePtr x = im.input(0);
  for (double s : slope->data) {
    if (!std::isfinite(s))
      im.fail("slope '" + slope->name + "' holds " + std::to_string(s) +
              ", expected finite values");
  }
  Node n = im.new_node(OpType::kActivation);
  bool uniform = !slope->data.empty();
  for (double s : slope->data) uniform = uniform && s == slope->data[0];
  if (uniform) {  // one slope (a [1] slope, or every element equal)
    n.negative_slope = {slope->data[0]};
    emit_elementwise(im, n);
    return;
  }
  // The one axis of X (right-aligned broadcast) along which the slope varies.
  const std::vector<int64_t>& sd = slope->dims;
  const size_t rank = x->dims.size();
  if (sd.size() > rank) {
    im.fail("slope '" + slope->name + "' of shape " + dims_text(sd) + " has more dims than X " +
            dims_text(x->dims));
  }
  size_t axis = rank;
  for (size_t k = 0; k < sd.size(); ++k) {
    const size_t xa = rank - sd.size() + k;
    if (sd[k] == 1) continue;
    if (sd[k] != x->dims[xa] || axis != rank) {
      im.fail("slope '" + slope->name + "' of shape " + dims_text(sd) +
              " does not broadcast to X " + dims_text(x->dims) +
              " along one axis (expected one slope or one per channel)");
    }
    axis = xa;
  }
  // Per channel in the IR: the slope's axis is the IR tensor's channels, stride 1, and no other
  // axis moves along channels.
  im.activation(0);  // a graph input becomes its IR tensor
  const View v = view_value(im, x);
  const int64_t channels = im.graph().tensors[v.tensor].shape.c;
  bool on_channels = v.dims[axis] == channels && v.cs[axis] == 1 && v.ps[axis] == 0;
  for (size_t k = 0; k < rank; ++k) {
    if (k != axis && v.dims[k] != 1 && v.cs[k] != 0) on_channels = false;
  }
  if (!on_channels) {
    im.fail("slope '" + slope->name + "' of shape " + dims_text(sd) + " varies along axis " +
            std::to_string(axis) + " of X " + dims_text(x->dims) +
            ", which is not the channel axis (only one slope or one per channel is supported)");
  }
  n.negative_slope = slope->data;
  n.inputs = {v.tensor};
  if (is_view(x)) {
    emit_view(im, n, v.dims, v.cs, v.ps);
  } else {
    im.emit(n, rank);
  }
}

}  // namespace onnx_import
}  // namespace strider
