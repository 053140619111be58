// ONNX importer: layout ops. Reshape, Flatten, Squeeze and Unsqueeze of activations become view
// nodes (of constants: new dims); Reshape [N, g, C/g, H, W] -> Transpose [0, 2, 1, 3, 4] ->
// Reshape [N, C, H, W] becomes a channel shuffle; other transposes only when they move size-1
// dims; Pad of H and W with zeros.
#include <algorithm>

#include "planner/import/onnx_import_context.h"

namespace strider {
namespace onnx_import {

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
        if (k >= dims.size()) im.fail("shape " + dims_list(spec) + " copies a dim the input lacks");
        d = dims[k];
      }
      if (d == -1) {
        if (infer >= 0) im.fail("shape " + dims_list(spec) + " has more than one -1");
        infer = static_cast<int>(k);
      } else {
        if (d < -1) im.fail("shape " + dims_list(spec) + " has a negative dim");
        if (d > 0 && known > kMaxTensorElements / d) {
          im.fail("shape " + dims_list(spec) + " has more than " +
                  std::to_string(kMaxTensorElements) + " elements");
        }
        known *= d;
      }
      target.push_back(d);
    }
    if (infer >= 0) {
      if (known == 0 || in->elements() % known != 0) {
        im.fail("cannot reshape " + dims_list(dims) + " to " + dims_list(spec));
      }
      target[static_cast<size_t>(infer)] = in->elements() / known;
    }
    reshape_dims = allow_zero ? target : spec;
  } else if (type == "Flatten") {
    const int64_t axis = im.attr_int("axis", 1);
    const size_t a =
        static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(dims.size()) : axis);
    target = {product(dims, 0, a), product(dims, a, dims.size())};
    reshape_dims = a == 1 ? std::vector<int64_t>{0, -1} : target;
  } else {
    std::vector<int64_t> axes = axes_of(im, 1);
    const bool squeeze = type == "Squeeze";
    if (axes.size() > (squeeze ? dims.size() : 8)) im.fail("too many axes " + dims_list(axes));
    const size_t out_rank =
        squeeze ? dims.size() - (axes.empty() ? 0 : axes.size()) : dims.size() + axes.size();
    for (int64_t& a : axes) a = normalise_axis(im, a, squeeze ? dims.size() : out_rank);
    if (squeeze) {
      for (size_t k = 0; k < dims.size(); ++k) {
        const bool listed = std::count(axes.begin(), axes.end(), static_cast<int64_t>(k)) > 0;
        if (listed && dims[k] != 1)
          im.fail("cannot squeeze axis " + std::to_string(k) + " of size " +
                  std::to_string(dims[k]));
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
    if (checked_elements(target, "target shape") != c->elements()) {
      im.fail("cannot reshape constant " + dims_list(dims) + " to " + dims_list(target));
    }
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
    im.fail("reshape to rank " + std::to_string(target.size()) + " " + dims_list(target) +
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
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t k = 0; k < sorted.size(); ++k) {
    if (sorted.size() != in->dims.size() || sorted[k] != static_cast<int64_t>(k)) {
      im.fail("perm " + dims_list(perm) + " is not a permutation of the " +
              std::to_string(in->dims.size()) + " dims");
    }
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
  for (int64_t p : perm) out.push_back(in->dims[static_cast<size_t>(p)]);
  if (!im.is_activation(0)) {
    const ValuePtr c = im.constant(0);
    if (c->has_data) return im.bind(0, fold_transpose(im, *c, perm));
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
    im.fail("Transpose with perm " + dims_list(perm) + " of " + dims_list(in->dims) +
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
    im.fail("pads " + dims_list(pads) + " must have 8 values for a 4-D input");
  }
  if (pads[0] != 0 || pads[1] != 0 || pads[4] != 0 || pads[5] != 0) {
    im.fail("only padding of H and W is supported, got pads " + dims_list(pads));
  }
  if (*std::min_element(pads.begin(), pads.end()) < 0) im.fail("negative pads " + dims_list(pads));
  if (*std::max_element(pads.begin(), pads.end()) > (int64_t{1} << 24)) {
    im.fail("pads " + dims_list(pads) + " larger than 16777216");
  }

  Node n = im.new_node(OpType::kPad);
  n.inputs = {im.activation(0)};
  n.pad_top = static_cast<int>(pads[2]);
  n.pad_left = static_cast<int>(pads[3]);
  n.pad_bottom = static_cast<int>(pads[6]);
  n.pad_right = static_cast<int>(pads[7]);
  im.emit(n, 4);
}

}  // namespace onnx_import
}  // namespace strider
