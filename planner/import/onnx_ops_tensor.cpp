// ONNX importer: activations (Relu, Clip, Sigmoid, HardSigmoid, HardSwish, SiLU written as
// Mul(x, Sigmoid(x)) and hard-swish written as Mul(x, HardSigmoid(x))), element-wise Add and Mul
// (and folding of Add / Sub / Mul / Div / Equal on constants), Concat, Split, Slice and Softmax.
#include <algorithm>
#include <cmath>
#include <limits>

#include "planner/import/onnx_import_context.h"
#include "planner/import/onnx_token_view.h"

namespace strider {
namespace onnx_import {
namespace {

// Broadcast (numpy rules) element-wise arithmetic on constants with data.
ValuePtr fold_binary(Importer& im, const Value& a, const Value& b, const std::string& op) {
  const size_t rank = std::max(a.dims.size(), b.dims.size());
  std::vector<int64_t> out(rank), da(rank, 1), db(rank, 1);
  std::copy(a.dims.begin(), a.dims.end(), da.begin() + static_cast<long>(rank - a.dims.size()));
  std::copy(b.dims.begin(), b.dims.end(), db.begin() + static_cast<long>(rank - b.dims.size()));
  for (size_t k = 0; k < rank; ++k) {
    if (da[k] != db[k] && da[k] != 1 && db[k] != 1) {
      im.fail("constant operands " + dims_list(a.dims) + " and " + dims_list(b.dims) +
              " do not broadcast");
    }
    out[k] = std::max(da[k], db[k]);
  }
  const int64_t total = product(out, 0, rank);
  std::vector<double> data(static_cast<size_t>(total));
  for (int64_t i = 0; i < total; ++i) {
    int64_t rem = i, ia = 0, ib = 0, sa = 1, sb = 1;
    for (size_t k = rank; k-- > 0;) {
      const int64_t idx = rem % out[k];
      rem /= out[k];
      ia += (da[k] == 1 ? 0 : idx) * sa;
      ib += (db[k] == 1 ? 0 : idx) * sb;
      sa *= da[k];
      sb *= db[k];
    }
    const double x = a.data[ia], y = b.data[ib];
    double r = 0;
    if (op == "Add") r = x + y;
    if (op == "Sub") r = x - y;
    if (op == "Mul") r = x * y;
    if (op == "Equal") r = x == y ? 1 : 0;
    if (op == "Pow") r = std::pow(x, y);  // Swin's head_dim ** -0.5
    if (op == "Div") {
      if (y == 0) im.fail("division by zero while folding constants");
      r = x / y;
      // Integer shape arithmetic divides with truncation.
      if (std::floor(x) == x && std::floor(y) == y) r = std::trunc(r);
    }
    if (op == "Mod") {  // fmod = 1: the sign of x (C fmod); fmod = 0: the sign of y (Python %)
      if (y == 0) im.fail("modulo by zero while folding constants");
      r = std::fmod(x, y);
      if (im.attr_int("fmod", 0) == 0 && r != 0 && (r < 0) != (y < 0)) r += y;
    }
    data[i] = r;
  }
  return im.make_constant(out, data);
}

// A gated activation as torchvision exports it: Mul(x, g(x)) (either operand order), the gate g
// read by nothing else. SiLU is Mul(x, Sigmoid(x)); hard-swish at opset 13 is Mul(x,
// HardSigmoid(x)) (the importer accepts HardSigmoid only at alpha 1/6, beta 0.5, PyTorch's). The
// gate's node becomes the one activation (kSilu, kHardSwish) and the Mul's output is its output,
// so it runs as one table lookup and fuses into x's producer; returns false (nothing changed)
// for any other Mul.
bool fold_gated_activation(Importer& im, int a, int b) {
  for (int k = 0; k < 2; ++k) {
    const int x = k == 0 ? a : b, s = k == 0 ? b : a;
    Node* gate = producer(im, s);
    if (!gate || gate->op != OpType::kActivation || gate->inputs != std::vector<int>{x} ||
        !gate->negative_slope.empty() || im.consumers_of(im.node().input(1 - k)) != 1) {
      continue;
    }
    if (gate->activation == Activation::kSigmoid) {
      gate->activation = Activation::kSilu;
    } else if (gate->activation == Activation::kHardSigmoid) {
      gate->activation = Activation::kHardSwish;
    } else {
      continue;
    }
    im.bind_alias(0, im.input(size_t(1 - k)));
    return true;
  }
  return false;
}

}  // namespace

void import_activation(Importer& im) {
  Node n = im.new_node(OpType::kActivation);
  n.inputs = {im.activation(0)};
  const std::string& type = im.node().op_type();
  if (type == "Relu") n.activation = Activation::kRelu;
  if (type == "Sigmoid") n.activation = Activation::kSigmoid;
  if (type == "HardSwish") n.activation = Activation::kHardSwish;
  if (type == "HardSigmoid") {
    const double alpha = im.attr_float("alpha", 0.2), beta = im.attr_float("beta", 0.5);
    if (std::fabs(alpha - 1.0 / 6.0) > 1e-4 || std::fabs(beta - 0.5) > 1e-6) {
      im.fail("alpha " + std::to_string(alpha) + " and beta " + std::to_string(beta) +
              " are not supported (only alpha 1/6, beta 0.5, PyTorch's hardsigmoid)");
    }
    n.activation = Activation::kHardSigmoid;
  }
  if (type == "Clip") {
    const double inf = std::numeric_limits<double>::infinity();
    double lo = -inf, hi = inf;
    if (im.opset() < 11) {
      lo = im.attr_float("min", -inf);
      hi = im.attr_float("max", inf);
    }
    if (im.has_input(1)) lo = im.constant_data(1)->data.at(0);
    if (im.has_input(2)) hi = im.constant_data(2)->data.at(0);
    if (lo == 0 && hi == 6) {
      n.activation = Activation::kRelu6;
      n.clip_min = 0;
      n.clip_max = 6 * kActivationScale;
    } else if (lo == 0 && hi == inf) {
      n.activation = Activation::kRelu;
    } else {
      // Bounds in the int8 domain (kActivationScale per unit), clamped to int8.
      auto q = [](double v) {
        return static_cast<int32_t>(
            std::max(-128.0, std::min(127.0, std::round(v * kActivationScale))));
      };
      n.activation = Activation::kClip;
      n.clip_min = q(lo);
      n.clip_max = q(hi);
    }
  }
  im.emit(n);
}

void import_binary(Importer& im) {
  const std::string& type = im.node().op_type();
  if (!im.is_activation(0) && !im.is_activation(1)) {
    const ValuePtr a = im.constant_data(0), b = im.constant_data(1);
    im.bind(0, fold_binary(im, *a, *b, type));
    return;
  }
  if (type != "Add" && type != "Mul") {
    im.fail(type + " of activations is not supported (only constant folding)");
  }
  if (type == "Add" && im.is_activation(0) != im.is_activation(1)) {
    // A bias Add after a MatMul or a conv without one (tf2onnx's Dense: MatMul + Add): the bias
    // of the fully-connected or conv layer.
    const size_t xi = im.is_activation(0) ? 0 : 1;
    const ValuePtr c = im.input(1 - xi);
    const int x = im.activation(xi);
    Node* prod = producer(im, x);
    if (c->kind == Value::Kind::kConstant && prod && prod->bias < 0 &&
        (prod->op == OpType::kFullyConnected || prod->op == OpType::kConv) &&
        prod->activation == Activation::kNone && c->elements() == im.graph().tensors[x].shape.c &&
        im.consumers_of(im.node().input(static_cast<int>(xi))) == 1) {
      prod->bias = im.add_bias(c->elements(), c->has_data ? &c->data : nullptr, prod->name);
      return im.bind_alias(0, im.input(xi));
    }
  }
  if (!im.is_activation(0) || !im.is_activation(1)) {
    im.fail(type +
            " with a constant operand is not supported (both operands must be "
            "activations)");
  }
  int a = im.activation(0), b = im.activation(1);
  if (type == "Mul" && fold_gated_activation(im, a, b)) return;
  size_t rank = std::max(im.input(0)->dims.size(), im.input(1)->dims.size());
  // Element-wise ops are commutative: the operand that broadcasts goes second.
  if (im.graph().tensors[a].shape.elements() < im.graph().tensors[b].shape.elements()) {
    std::swap(a, b);
  }
  Node n = im.new_node(type == "Add" ? OpType::kAdd : OpType::kMul);
  n.inputs = {a, b};
  im.emit(n, rank);
}

void import_concat(Importer& im) {
  const size_t count = im.num_inputs();
  bool all_constant = true;
  for (size_t k = 0; k < count; ++k) all_constant = all_constant && !im.is_activation(k);
  const ValuePtr first = im.input(0);
  const int64_t axis = normalise_axis(im, im.attr_int("axis", 1), first->dims.size());
  if (all_constant) {
    if (first->dims.size() != 1) return im.bind(0, fold_concat(im, static_cast<size_t>(axis)));
    std::vector<double> data;
    for (size_t k = 0; k < count; ++k) {
      const ValuePtr v = im.constant_data(k);
      data.insert(data.end(), v->data.begin(), v->data.end());
    }
    const int64_t size = static_cast<int64_t>(data.size());
    im.bind(0, im.make_constant({size}, data));
    return;
  }
  if (axis != 1) {
    im.fail("only concatenation along the channel axis (1) is supported, got axis " +
            std::to_string(axis));
  }
  Node n = im.new_node(OpType::kConcat);
  for (size_t k = 0; k < count; ++k) n.inputs.push_back(im.activation(k));
  im.emit(n);
}

Node make_split_node(Importer& im, int x, int64_t channels) {
  std::vector<int64_t> sizes = im.attr_ints("split");
  if (sizes.empty() && im.has_input(1)) sizes = im.ints_input(1);
  const int64_t outputs = im.node().output_size();
  if (sizes.empty()) {
    if (outputs <= 0 || channels % outputs != 0) {
      im.fail(std::to_string(channels) + " channels do not split evenly into " +
              std::to_string(outputs) + " outputs");
    }
    sizes.assign(static_cast<size_t>(outputs), channels / outputs);
  }
  if (static_cast<int64_t>(sizes.size()) != outputs) {
    im.fail("split sizes " + dims_list(sizes) + " do not match " + std::to_string(outputs) +
            " outputs");
  }
  Node n = im.new_node(OpType::kSplit);
  n.inputs = {x};
  int64_t begin = 0;
  for (int64_t s : sizes) {
    n.channel_begin.push_back(begin);
    n.channel_end.push_back(begin + s);
    begin += s;
  }
  if (begin != channels) {
    im.fail("split sizes " + dims_list(sizes) + " sum to " + std::to_string(begin) + ", expected " +
            std::to_string(channels) + " channels");
  }
  return n;
}

void import_split(Importer& im) {
  const int x = im.activation(0);
  const size_t rank = im.input(0)->dims.size();
  const int64_t axis = normalise_axis(im, im.attr_int("axis", 0), rank);
  if (axis != 1) {
    im.fail("only splits along the channel axis (1) are supported, got axis " +
            std::to_string(axis));
  }
  im.emit(make_split_node(im, x, im.graph().tensors[x].shape.c), rank);
}

namespace {

// Slice of a constant with data, any rank and steps (ONNX clamping: [0, dim] for positive steps,
// [-1, dim - 1] for negative ones), e.g. the reversed pads of F.pad's shape arithmetic.
void fold_slice(Importer& im, const std::vector<int64_t>& starts, const std::vector<int64_t>& ends,
                const std::vector<int64_t>& axes, const std::vector<int64_t>& steps) {
  const ValuePtr c = im.constant_data(0);
  const size_t rank = c->dims.size();
  std::vector<std::vector<int64_t>> index(rank);
  for (size_t a = 0; a < rank; ++a) {
    for (int64_t i = 0; i < c->dims[a]; ++i) index[a].push_back(i);
  }
  for (size_t k = 0; k < starts.size(); ++k) {
    const size_t a = static_cast<size_t>(normalise_axis(im, axes[k], rank));
    const int64_t dim = c->dims[a], step = steps[k];
    if (step == 0 || step > kMaxTensorElements || step < -kMaxTensorElements) {
      im.fail("slice step " + std::to_string(step) + " of a constant");
    }
    int64_t s = starts[k] < 0 ? starts[k] + dim : starts[k];
    int64_t e = ends[k] < 0 ? ends[k] + dim : ends[k];
    const int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? dim : dim - 1;
    s = std::max(step > 0 ? lo : int64_t{0}, std::min(s, hi));
    e = std::max(lo, std::min(e, hi));
    const int64_t count = dim == 0   ? 0
                          : step > 0 ? (e > s ? (e - s - 1) / step + 1 : 0)
                                     : (s > e ? (s - e - 1) / -step + 1 : 0);
    index[a].clear();
    for (int64_t j = 0; j < count; ++j) index[a].push_back(s + j * step);
  }
  std::vector<int64_t> dims(rank);
  int64_t total = 1;
  for (size_t a = 0; a < rank; ++a) {
    dims[a] = static_cast<int64_t>(index[a].size());
    total *= dims[a];
  }
  std::vector<double> data(static_cast<size_t>(total));
  for (int64_t o = 0; o < total; ++o) {
    int64_t rem = o, at = 0, stride = 1;
    for (size_t a = rank; a-- > 0;) {
      at += index[a][static_cast<size_t>(rem % dims[a])] * stride;
      rem /= dims[a];
      stride *= c->dims[a];
    }
    data[static_cast<size_t>(o)] = c->data[static_cast<size_t>(at)];
  }
  im.bind(0, im.make_constant(dims, data));
}

}  // namespace

void import_slice(Importer& im) {
  const std::vector<int64_t> starts = im.ints_input(1), ends = im.ints_input(2);
  std::vector<int64_t> axes = im.has_input(3) ? im.ints_input(3) : std::vector<int64_t>{};
  std::vector<int64_t> steps = im.has_input(4) ? im.ints_input(4) : std::vector<int64_t>{};
  if (axes.empty()) {
    for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size()) {
    im.fail("starts, ends, axes and steps differ in length");
  }
  if (!im.is_activation(0) && im.constant(0)->has_data) {
    return fold_slice(im, starts, ends, axes, steps);
  }
  const ValuePtr in = im.input(0);
  const size_t rank = in->dims.size();
  int64_t begin = 0, end = rank > 1 ? in->dims[1] : 0;
  bool channel_sliced = false;
  for (size_t k = 0; k < starts.size(); ++k) {
    const int64_t axis = normalise_axis(im, axes[k], rank);
    const int64_t dim = in->dims[static_cast<size_t>(axis)];
    if (steps[k] != 1) im.fail("slice steps other than 1 are not supported");
    int64_t s = starts[k] < 0 ? starts[k] + dim : starts[k];
    int64_t e = ends[k] < 0 ? ends[k] + dim : ends[k];
    s = std::max<int64_t>(0, std::min(s, dim));
    e = std::max<int64_t>(0, std::min(e, dim));
    if (!im.is_activation(0)) {
      if (rank != 1) im.fail("folding a slice of a constant needs a 1-D constant");
      const ValuePtr c = im.constant_data(0);
      std::vector<double> data(c->data.begin() + s, c->data.begin() + std::max(s, e));
      im.bind(0, im.make_constant({std::max<int64_t>(0, e - s)}, data));
      return;
    }
    if (axis == 1) {
      begin = s;
      end = e;
      channel_sliced = true;
    } else if (s != 0 || e != dim) {
      im.fail("only slices of the channel axis are supported (axis " + std::to_string(axis) +
              " sliced to [" + std::to_string(s) + ", " + std::to_string(e) + "))");
    }
  }
  const int x = im.activation(0);
  if (!channel_sliced || (begin == 0 && end == in->dims[1])) {
    im.bind_alias(0, im.input(0));
    return;
  }
  Node n = im.new_node(OpType::kSlice);
  n.inputs = {x};
  n.channel_begin = {begin};
  n.channel_end = {end};
  im.emit(n, rank);
}

void import_softmax(Importer& im) {
  const ValuePtr in = im.input(0);
  const size_t rank = in->dims.size();
  const int64_t axis = normalise_axis(im, im.attr_int("axis", im.opset() < 13 ? 1 : -1), rank);
  if (axis != 1 || product(in->dims, 2, rank) != 1) {
    im.fail("softmax over axis " + std::to_string(axis) + " of " + dims_list(in->dims) +
            " is not supported (only over channels, with H = W = 1)");
  }
  Node n = im.new_node(OpType::kSoftmax);
  n.inputs = {im.activation(0)};
  im.emit(n, rank);
}

}  // namespace onnx_import
}  // namespace strider
