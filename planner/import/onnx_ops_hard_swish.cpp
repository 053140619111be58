// Hard-swish and hard-sigmoid written out as element-wise steps, the way Paddle2ONNX, tf2onnx
// and PyTorch's `x * F.relu6(x + 3) / 6` export them, recognised as the fused activation:
//   x * Clip(x + 3, 0, 6) / 6   (or / 6 before the Mul, or * (1/6))  -> HardSwish(x)
//   Clip(x + 3, 0, 6) / 6       (or * (1/6))                        -> HardSigmoid(x)
// (Mul(x, HardSigmoid(x)) is then an element-wise Mul of two activations.) The steps are kPattern
// values (onnx_token_view.h kPlus3, kClip6, kXClip6) that emit nothing until the pattern ends, on
// an image (NCHW) or a token-sequence view alike; a step read by anything else is refused naming
// the op and the form expected.
#include <cmath>
#include <limits>

#include "planner/import/onnx_import_context.h"
#include "planner/import/onnx_token_view.h"

namespace strider {
namespace onnx_import {
namespace {

int step_of(const ValuePtr& v) {
  return v && v->kind == Value::Kind::kPattern &&
                 (v->pattern == kPlus3 || v->pattern == kClip6 || v->pattern == kXClip6)
             ? v->pattern
             : kNone;
}

// The fused activation `a` of the pattern's source x, bound to the node's output.
void emit_activation(Importer& im, const ValuePtr& x, Activation a) {
  Node n = im.new_node(OpType::kActivation);
  n.activation = a;
  if (is_view(x)) {
    const View v = view_value(im, x);
    n.inputs = {v.tensor};
    emit_view(im, n, v.dims, v.cs, v.ps);
    return;
  }
  n.inputs = {x->tensor};
  im.emit(n, x->dims.size());
}

// The Clip's bounds (inputs 1 and 2; absent: unbounded).
bool clips_0_6(Importer& im) {
  const double inf = std::numeric_limits<double>::infinity();
  const double lo = im.has_input(1) ? im.constant_data(1)->data.at(0) : -inf;
  const double hi = im.has_input(2) ? im.constant_data(2)->data.at(0) : inf;
  return lo == 0 && hi == 6;
}

}  // namespace

bool hard_swish_claims(Importer& im) {
  const std::string& type = im.node().op_type();
  for (size_t k = 0; k < im.num_inputs(); ++k) {
    if (im.has_input(k) && step_of(im.input(k)) != kNone) return true;
  }
  if (type != "Add" || im.num_inputs() != 2) return false;
  const ValuePtr a = im.input(0), b = im.input(1);
  const auto active = [](const ValuePtr& v) {
    return v->kind == Value::Kind::kActivation || v->kind == Value::Kind::kPending;
  };
  const bool a_act = active(a), b_act = active(b);
  return (a_act && !b_act && scalar_near(b, 3.0)) || (b_act && !a_act && scalar_near(a, 3.0));
}

void import_hard_swish(Importer& im) {
  const std::string& type = im.node().op_type();
  const ValuePtr in0 = im.input(0), in1 = im.num_inputs() > 1 ? im.input(1) : nullptr;
  const int p0 = step_of(in0), p1 = step_of(in1);
  if (type == "Add" && p0 == kNone && p1 == kNone) {
    const size_t x = scalar_near(in1, 3.0) ? 0 : 1;
    view_of(im, x);  // a graph input becomes an image or a token sequence here
    return im.bind(0, make_pattern(im, kPlus3, im.input(x)));
  }
  if (type == "Clip" && p0 == kPlus3 && clips_0_6(im)) {
    return im.bind(0, make_pattern(im, kClip6, in0->source));
  }
  const int p = p0 != kNone ? p0 : p1;
  const ValuePtr step = p0 != kNone ? in0 : in1, other = p0 != kNone ? in1 : in0;
  if (type == "Mul" && p == kClip6 && other == step->source) {
    return im.bind(0, make_pattern(im, kXClip6, step->source));
  }
  const bool by_six = (type == "Div" && p0 != kNone && scalar_near(in1, 6.0)) ||
                      (type == "Mul" && other && scalar_near(other, 1.0 / 6.0));
  if (by_six && p == kXClip6) return emit_activation(im, step->source, Activation::kHardSwish);
  if (by_six && p == kClip6) return emit_activation(im, step->source, Activation::kHardSigmoid);
  im.fail(type + " of a partial hard-swish (" +
          (p == kPlus3   ? "x + 3"
           : p == kClip6 ? "Clip(x + 3, 0, 6)"
                         : "x * Clip(x + 3, 0, 6)") +
          ") is not supported: only x * Clip(x + 3, 0, 6) / 6 (hard-swish) and "
          "Clip(x + 3, 0, 6) / 6 (hard-sigmoid) are");
}

}  // namespace onnx_import
}  // namespace strider
