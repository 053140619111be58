// ONNX importer: activations, element-wise ops, concat / split / slice, layout ops (Reshape,
// Flatten, Squeeze, Unsqueeze, Transpose), Pad, Softmax, and constant folding of shape
// arithmetic (Constant, Shape, Gather, Cast, ConstantOfShape and arithmetic on constants).
#include <algorithm>
#include <cmath>
#include <limits>

#include "planner/import/onnx_import_context.h"

namespace strider {
namespace onnx_import {
namespace {

std::string list(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + std::to_string(v[k]);
  return s + "]";
}

int64_t product(const std::vector<int64_t>& d, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t k = begin; k < end && k < d.size(); ++k) p *= d[k];
  return p;
}

int64_t normalise_axis(Importer& im, int64_t axis, size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) {
    im.fail("axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
  }
  return axis < 0 ? axis + r : axis;
}

// Axes from the attribute (older opsets) or from input `k` (newer ones).
std::vector<int64_t> axes_of(Importer& im, size_t k) {
  if (im.has_attr("axes")) return im.attr_ints("axes");
  if (im.has_input(k)) return im.ints_input(k);
  return {};
}

// Broadcast (numpy rules) element-wise arithmetic on constants with data.
ValuePtr fold_binary(Importer& im, const Value& a, const Value& b, const std::string& op) {
  const size_t rank = std::max(a.dims.size(), b.dims.size());
  std::vector<int64_t> out(rank), da(rank, 1), db(rank, 1);
  std::copy(a.dims.begin(), a.dims.end(), da.begin() + static_cast<long>(rank - a.dims.size()));
  std::copy(b.dims.begin(), b.dims.end(), db.begin() + static_cast<long>(rank - b.dims.size()));
  for (size_t k = 0; k < rank; ++k) {
    if (da[k] != db[k] && da[k] != 1 && db[k] != 1) {
      im.fail("constant operands " + list(a.dims) + " and " + list(b.dims) + " do not broadcast");
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
    if (op == "Div") {
      if (y == 0) im.fail("division by zero while folding constants");
      r = x / y;
      // Integer shape arithmetic divides with truncation.
      if (std::floor(x) == x && std::floor(y) == y) r = std::trunc(r);
    }
    data[i] = r;
  }
  return im.make_constant(out, data);
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
    } else if (lo == 0 && hi == inf) {
      n.activation = Activation::kRelu;
    } else {
      // Bounds in the int8 domain (kActivationScale per unit), clamped to int8.
      auto q = [](double v) {
        return static_cast<int32_t>(std::max(-128.0, std::min(127.0, std::round(v * kActivationScale))));
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
  if (!im.is_activation(0) || !im.is_activation(1)) {
    im.fail(type + " with a constant operand is not supported (both operands must be "
                   "activations)");
  }
  int a = im.activation(0), b = im.activation(1);
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
    if (first->dims.size() != 1) im.fail("folding a concat of constants needs 1-D constants");
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

void import_split(Importer& im) {
  const int x = im.activation(0);
  const size_t rank = im.input(0)->dims.size();
  const int64_t axis = normalise_axis(im, im.attr_int("axis", 0), rank);
  if (axis != 1) {
    im.fail("only splits along the channel axis (1) are supported, got axis " +
            std::to_string(axis));
  }
  const int64_t channels = im.graph().tensors[x].shape.c;
  std::vector<int64_t> sizes = im.attr_ints("split");
  if (sizes.empty() && im.has_input(1)) sizes = im.ints_input(1);
  const int64_t outputs = im.node().output_size();
  if (sizes.empty()) {
    if (channels % outputs != 0) {
      im.fail(std::to_string(channels) + " channels do not split evenly into " +
              std::to_string(outputs) + " outputs");
    }
    sizes.assign(static_cast<size_t>(outputs), channels / outputs);
  }
  if (static_cast<int64_t>(sizes.size()) != outputs) {
    im.fail("split sizes " + list(sizes) + " do not match " + std::to_string(outputs) + " outputs");
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
    im.fail("split sizes " + list(sizes) + " sum to " + std::to_string(begin) + ", expected " +
            std::to_string(channels) + " channels");
  }
  im.emit(n, rank);
}

void import_slice(Importer& im) {
  const std::vector<int64_t> starts = im.ints_input(1), ends = im.ints_input(2);
  std::vector<int64_t> axes = im.has_input(3) ? im.ints_input(3) : std::vector<int64_t>{};
  std::vector<int64_t> steps = im.has_input(4) ? im.ints_input(4) : std::vector<int64_t>{};
  if (axes.empty()) {
    for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size()) {
    im.fail("starts, ends, axes and steps differ in length");
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

void import_reshape(Importer& im) {
  const std::string& type = im.node().op_type();
  const ValuePtr in = im.input(0);
  const std::vector<int64_t>& dims = in->dims;
  std::vector<int64_t> target;        // explicit output dims
  std::vector<int64_t> reshape_dims;  // IR form kept symbolic where possible
  if (type == "Reshape") {
    const std::vector<int64_t> spec = im.ints_input(1);
    const bool allow_zero = im.attr_int("allowzero", 0) != 0;
    int64_t known = 1;
    int infer = -1;
    for (size_t k = 0; k < spec.size(); ++k) {
      int64_t d = spec[k];
      if (d == 0 && !allow_zero) {
        if (k >= dims.size()) im.fail("shape " + list(spec) + " copies a dim the input lacks");
        d = dims[k];
      }
      if (d == -1) {
        if (infer >= 0) im.fail("shape " + list(spec) + " has more than one -1");
        infer = static_cast<int>(k);
      } else {
        known *= d;
      }
      target.push_back(d);
    }
    if (infer >= 0) {
      if (known == 0 || in->elements() % known != 0) {
        im.fail("cannot reshape " + list(dims) + " to " + list(spec));
      }
      target[static_cast<size_t>(infer)] = in->elements() / known;
    }
    reshape_dims = allow_zero ? target : spec;
  } else if (type == "Flatten") {
    const int64_t axis = im.attr_int("axis", 1);
    const size_t a = static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(dims.size()) : axis);
    target = {product(dims, 0, a), product(dims, a, dims.size())};
    reshape_dims = a == 1 ? std::vector<int64_t>{0, -1} : target;
  } else {
    std::vector<int64_t> axes = axes_of(im, 1);
    const bool squeeze = type == "Squeeze";
    const size_t out_rank = squeeze ? dims.size() - (axes.empty() ? 0 : axes.size())
                                    : dims.size() + axes.size();
    for (int64_t& a : axes) a = normalise_axis(im, a, squeeze ? dims.size() : out_rank);
    if (squeeze) {
      for (size_t k = 0; k < dims.size(); ++k) {
        const bool listed = std::count(axes.begin(), axes.end(), static_cast<int64_t>(k)) > 0;
        if (listed && dims[k] != 1) im.fail("cannot squeeze axis " + std::to_string(k) + " of size " + std::to_string(dims[k]));
        if (!(listed || (axes.empty() && dims[k] == 1))) target.push_back(dims[k]);
      }
    } else {
      size_t next = 0;
      for (size_t k = 0; k < out_rank; ++k) {
        const bool listed = std::count(axes.begin(), axes.end(), static_cast<int64_t>(k)) > 0;
        target.push_back(listed ? 1 : dims.at(next++));
      }
    }
    reshape_dims = target;
  }
  if (!im.is_activation(0)) {
    const ValuePtr c = im.constant(0);
    auto v = std::make_shared<Value>(*c);
    v->dims = target;
    im.bind(0, v);
    return;
  }
  if (in->kind == Value::Kind::kShuffle) {
    // The closing reshape of a channel shuffle: back to [N, C, H, W].
    const TensorShape& s = im.graph().tensors[in->tensor].shape;
    if (!in->transposed || target != std::vector<int64_t>{s.n, s.c, s.h, s.w}) {
      im.activation(0);  // reports the unsupported use
    }
    Node n = im.new_node(OpType::kChannelShuffle);
    n.inputs = {in->tensor};
    n.shuffle_groups = in->shuffle_groups;
    im.emit(n, 4);
    return;
  }
  const int x = im.activation(0);
  if (target.size() == 5 && dims.size() == 4 && target[0] == dims[0] &&
      target[1] * target[2] == dims[1] && target[3] == dims[2] && target[4] == dims[3]) {
    auto v = std::make_shared<Value>();
    v->kind = Value::Kind::kShuffle;
    v->dims = target;
    v->tensor = x;
    v->shuffle_groups = static_cast<int>(target[1]);
    im.bind(0, v);
    return;
  }
  if (target.size() > 4) {
    im.fail("reshape to rank " + std::to_string(target.size()) + " " + list(target) +
            " is not supported (at most 4 dims, or the channel shuffle pattern)");
  }
  Node n = im.new_node(OpType::kReshape);
  n.inputs = {x};
  n.reshape_dims = reshape_dims;
  im.emit(n, target.size());
}

void import_transpose(Importer& im) {
  const ValuePtr in = im.input(0);
  std::vector<int64_t> perm = im.attr_ints("perm");
  if (perm.empty()) {
    for (size_t k = in->dims.size(); k-- > 0;) perm.push_back(static_cast<int64_t>(k));
  }
  if (in->kind == Value::Kind::kShuffle && !in->transposed &&
      perm == std::vector<int64_t>{0, 2, 1, 3, 4}) {
    auto v = std::make_shared<Value>(*in);
    v->transposed = true;
    v->dims = {in->dims[0], in->dims[2], in->dims[1], in->dims[3], in->dims[4]};
    im.bind(0, v);
    return;
  }
  std::vector<int64_t> out;
  for (int64_t p : perm) out.push_back(in->dims.at(static_cast<size_t>(normalise_axis(im, p, in->dims.size()))));
  if (!im.is_activation(0)) {
    const ValuePtr c = im.constant(0);
    if (c->has_data && c->dims.size() == 2 && perm == std::vector<int64_t>{1, 0}) {
      std::vector<double> data(c->data.size());
      for (int64_t r = 0; r < c->dims[0]; ++r) {
        for (int64_t q = 0; q < c->dims[1]; ++q) data[q * c->dims[0] + r] = c->data[r * c->dims[1] + q];
      }
      im.bind(0, im.make_constant(out, data));
      return;
    }
    if (c->has_data) im.fail("folding a transpose needs a 2-D constant");
    auto v = std::make_shared<Value>(*c);
    v->dims = out;
    im.bind(0, v);
    return;
  }
  // A permutation that keeps the order of the dims larger than 1 moves no data: a view.
  std::vector<int64_t> before, after;
  for (int64_t d : in->dims) {
    if (d != 1) before.push_back(d);
  }
  for (int64_t d : out) {
    if (d != 1) after.push_back(d);
  }
  std::vector<int64_t> kept;
  for (int64_t p : perm) {
    if (in->dims[static_cast<size_t>(p)] != 1) kept.push_back(p);
  }
  if (!std::is_sorted(kept.begin(), kept.end()) || out.size() > 4) {
    im.fail("Transpose with perm " + list(perm) + " of " + list(in->dims) +
            " is not supported (only the channel shuffle Reshape-Transpose-Reshape pattern or "
            "a permutation moving size-1 dims)");
  }
  if (perm == std::vector<int64_t>{0, 1, 2, 3} || perm == std::vector<int64_t>{0, 1}) {
    im.bind_alias(0, in);
    return;
  }
  Node n = im.new_node(OpType::kReshape);
  n.inputs = {im.activation(0)};
  n.reshape_dims = out;
  im.emit(n, out.size());
}

void import_pad(Importer& im) {
  const std::string mode = im.attr_string("mode", "constant");
  if (mode != "constant") im.fail("pad mode '" + mode + "' is not supported (only constant)");
  const std::vector<int64_t> pads = im.has_input(1) ? im.ints_input(1) : im.attr_ints("pads");
  if (im.has_input(2)) {
    const ValuePtr v = im.constant_data(2);
    if (!v->data.empty() && v->data[0] != 0) im.fail("only zero padding is supported");
  }
  if (im.has_input(3)) im.fail("the axes input is not supported");
  const size_t rank = im.input(0)->dims.size();
  if (rank != 4 || pads.size() != 8) {
    im.fail("pads " + list(pads) + " must have 8 values for a 4-D input");
  }
  if (pads[0] != 0 || pads[1] != 0 || pads[4] != 0 || pads[5] != 0) {
    im.fail("only padding of H and W is supported, got pads " + list(pads));
  }
  if (*std::min_element(pads.begin(), pads.end()) < 0) im.fail("negative pads " + list(pads));
  Node n = im.new_node(OpType::kPad);
  n.inputs = {im.activation(0)};
  n.pad_top = static_cast<int>(pads[2]);
  n.pad_left = static_cast<int>(pads[3]);
  n.pad_bottom = static_cast<int>(pads[6]);
  n.pad_right = static_cast<int>(pads[7]);
  im.emit(n, 4);
}

void import_softmax(Importer& im) {
  const ValuePtr in = im.input(0);
  const size_t rank = in->dims.size();
  const int64_t axis = normalise_axis(im, im.attr_int("axis", im.opset() < 13 ? 1 : -1), rank);
  if (axis != 1 || product(in->dims, 2, rank) != 1) {
    im.fail("softmax over axis " + std::to_string(axis) + " of " + list(in->dims) +
            " is not supported (only over channels, with H = W = 1)");
  }
  Node n = im.new_node(OpType::kSoftmax);
  n.inputs = {im.activation(0)};
  im.emit(n, rank);
}

void import_constant(Importer& im) {
  auto v = std::make_shared<Value>();
  v->kind = Value::Kind::kConstant;
  if (const onnx::TensorProto* t = im.attr_tensor("value")) {
    try {
      decode_tensor(*t, "value", &v->dims, &v->data, &v->has_data);
    } catch (const std::runtime_error& e) {
      im.fail(e.what());
    }
  } else if (im.has_attr("value_float")) {
    v->data = {im.attr_float("value_float", 0)};
    v->has_data = true;
  } else if (im.has_attr("value_int")) {
    v->data = {static_cast<double>(im.attr_int("value_int", 0))};
    v->has_data = true;
  } else if (im.has_attr("value_ints")) {
    for (int64_t x : im.attr_ints("value_ints")) v->data.push_back(static_cast<double>(x));
    v->dims = {static_cast<int64_t>(v->data.size())};
    v->has_data = true;
  } else {
    im.fail("needs a 'value', 'value_float', 'value_int' or 'value_ints' attribute");
  }
  im.bind(0, v);
}

void import_shape_op(Importer& im) {
  if (im.node().op_type() == "Shape") {
    const ValuePtr in = im.input(0);
    const int64_t rank = static_cast<int64_t>(in->dims.size());
    int64_t start = im.attr_int("start", 0), end = im.attr_int("end", rank);
    start = std::max<int64_t>(0, std::min(rank, start < 0 ? start + rank : start));
    end = std::max<int64_t>(start, std::min(rank, end < 0 ? end + rank : end));
    std::vector<double> data;
    for (int64_t k = start; k < end; ++k) data.push_back(static_cast<double>(in->dims[k]));
    im.bind(0, im.make_constant({end - start}, data));
    return;
  }
  // Gather on constants (shape arithmetic).
  if (im.is_activation(0)) im.fail("Gather of an activation is not supported");
  const ValuePtr data = im.constant_data(0), indices = im.constant_data(1);
  if (data->dims.size() != 1 || im.attr_int("axis", 0) != 0) {
    im.fail("only Gather along axis 0 of a 1-D constant is supported");
  }
  std::vector<double> out;
  const int64_t size = data->dims[0];
  for (double d : indices->data) {
    int64_t i = static_cast<int64_t>(d);
    if (i < 0) i += size;
    if (i < 0 || i >= size) im.fail("index " + std::to_string(static_cast<int64_t>(d)) + " out of range");
    out.push_back(data->data[static_cast<size_t>(i)]);
  }
  im.bind(0, im.make_constant(indices->dims, out));
}

void import_cast(Importer& im) {
  if (im.is_activation(0)) {
    im.bind_alias(0, im.input(0));
    return;
  }
  const ValuePtr c = im.constant(0);
  auto v = std::make_shared<Value>(*c);
  const int64_t to = im.attr_int("to", onnx::TensorProto::FLOAT);
  const bool to_float = to == onnx::TensorProto::FLOAT || to == onnx::TensorProto::DOUBLE ||
                        to == onnx::TensorProto::FLOAT16;
  if (!to_float) {
    for (double& d : v->data) d = std::trunc(d);
  }
  im.bind(0, v);
}

void import_constant_of_shape(Importer& im) {
  const std::vector<int64_t> dims = im.ints_input(0);
  double fill = 0;
  if (const onnx::TensorProto* t = im.attr_tensor("value")) {
    std::vector<int64_t> d;
    std::vector<double> data;
    bool has = false;
    decode_tensor(*t, "value", &d, &data, &has);
    if (has && !data.empty()) fill = data[0];
  }
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  im.bind(0, im.make_constant(dims, std::vector<double>(static_cast<size_t>(count), fill)));
}

}  // namespace onnx_import
}  // namespace strider
