// ONNX importer: layout ops of token sequences as views (Slice, Gather, Concat, Reshape,
// Transpose): each permutes or restricts the strides of a view (onnx_token_view.h) and moves no
// data, or, where no view can express the result (Swin's window partition, the pieces of a cyclic
// shift), becomes a kGather copy (onnx_gather.h). The dispatch is import_transformer
// (onnx_ops_transformer.cpp, which has the overview).
#include <algorithm>
#include <cmath>

#include "planner/import/onnx_gather.h"
#include "planner/import/onnx_token_view.h"

namespace strider {
namespace onnx_import {

// Slice of a token sequence along its last axis (channels): a channel range (kSlice), e.g. the
// Q, K and V thirds of nn.MultiheadAttention's packed projection.
void import_slice_view(Importer& im) {
  const std::vector<int64_t> starts = im.ints_input(1), ends = im.ints_input(2);
  std::vector<int64_t> axes = im.has_input(3) ? im.ints_input(3) : std::vector<int64_t>{};
  const std::vector<int64_t> steps = im.has_input(4) ? im.ints_input(4) : std::vector<int64_t>{};
  if (axes.empty()) {
    for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
  }
  // Slices along positions (Swin's cyclic shift, patch merging) and of pieces: pieces.
  const ValuePtr in = im.input(0);
  const size_t rank = in->dims.size();
  bool on_positions = in->kind == Value::Kind::kPattern && in->pattern == kPieces;
  for (size_t j = 0; j < axes.size() && j < starts.size() && j < ends.size(); ++j) {
    const size_t k = axis_of(im, axes[j], rank);
    const int64_t n = in->dims[k];
    const bool whole = (starts[j] == 0 || starts[j] <= -n) && ends[j] >= n &&
                       (steps.empty() || steps[j] == 1);
    on_positions = on_positions || (k + 1 != rank && !whole);
  }
  if (on_positions && starts.size() == ends.size() && axes.size() == starts.size() &&
      (steps.empty() || steps.size() == starts.size()) &&
      slice_pieces(im, starts, ends, axes, steps)) {
    return;
  }
  const View x = view_of(im, 0);
  const size_t last = x.rank() - 1;
  const int64_t d = x.dims[last];
  // Slices that keep every element (Swin's x[:, :H, :W, :] after the window reverse): no-ops.
  bool whole = starts.size() == ends.size() && axes.size() == starts.size();
  for (size_t k = 0; whole && k < starts.size(); ++k) {
    const int64_t n = x.dims[axis_of(im, axes[k], x.rank())];
    whole = (starts[k] == 0 || starts[k] <= -n) && ends[k] >= n &&
            (steps.empty() || steps[k] == 1);
  }
  if (whole) return im.bind_alias(0, x.v);
  if (starts.size() != 1 || ends.size() != 1 || axes.size() != 1 ||
      axis_of(im, axes[0], x.rank()) != last || (!steps.empty() && steps[0] != 1) ||
      !channels_last(im, x)) {
    im.fail("Slice of " + dims_list(x.dims) + " is supported only along the last axis (the "
            "channels of every token) with step 1");
  }
  const int64_t b = std::clamp<int64_t>(starts[0] < 0 ? starts[0] + d : starts[0], 0, d);
  const int64_t e = std::clamp<int64_t>(ends[0] < 0 ? ends[0] + d : ends[0], 0, d);
  if (e <= b) im.fail("empty slice [" + std::to_string(b) + ", " + std::to_string(e) + ")");
  Node n = im.new_node(OpType::kSlice);
  n.inputs = {x.tensor};
  n.channel_begin = {b};
  n.channel_end = {e};
  std::vector<int64_t> dims = x.dims;
  dims[last] = e - b;
  emit_view(im, n, dims, x.cs, x.ps);
}

// Split of a token sequence along its last axis (channels): one kSplit whose outputs are the
// channel ranges, each bound as a view like the input's (GPT-2's fused QKV projection,
// qkv(x).split(d, dim=2)); no data moves.
void import_split_view(Importer& im) {
  const View x = view_of(im, 0);
  const size_t last = x.rank() - 1;
  const size_t axis = axis_of(im, im.attr_int("axis", 0), x.rank());
  if (axis != last || !channels_last(im, x)) {
    im.fail("Split of " + dims_list(x.dims) + " along axis " + std::to_string(axis) +
            " is supported only along the last axis (the channels of every token)");
  }
  const Node n = make_split_node(im, x.tensor, x.dims[last]);
  im.emit(n);
  const std::vector<int> outs = im.graph().nodes.back().outputs;
  for (size_t k = 0; k < outs.size(); ++k) {
    std::vector<int64_t> dims = x.dims;
    dims[last] = n.channel_end[k] - n.channel_begin[k];
    bind_view(im, k, outs[k], dims, x.cs, x.ps);
  }
}

// Gather of token 0 (a ViT's class token) of a token sequence [.., S, D]: a 1x1 max pool with
// row stride S keeps row 0 only (one element per window: the value itself, scale unchanged).
// The result is a plain [.., D] activation (C = D, H = W = 1) for the classifier head.
void import_gather_view(Importer& im) {
  const CView cx = cview_of(im, 0);
  const ValuePtr idx = const_or_null(im, 1);
  const size_t axis = axis_of(im, im.attr_int("axis", 0), cx.rank());
  const std::vector<SubAxis>& on = cx.axes[axis];
  if (idx && idx->has_data && idx->dims.empty() && on.size() == 1 && on[0].ps == 0 &&
      on[0].cs > 0) {
    // Index i of an axis on channels (Swin's packed Q / K / V [3, ..]): the channel range the
    // other axes read from channel i x stride on (kSlice, no data moves).
    const int64_t i = to_int64(idx->data[0]) < 0 ? to_int64(idx->data[0]) + cx.dims[axis]
                                                 : to_int64(idx->data[0]);
    if (i < 0 || i >= cx.dims[axis]) im.fail("Gather index out of range");
    CView out;
    int64_t extent = 1;
    for (size_t k = 0; k < cx.rank(); ++k) {
      if (k == axis) continue;
      out.dims.push_back(cx.dims[k]), out.axes.push_back(cx.axes[k]);
      for (const SubAxis& a : cx.axes[k]) extent += (a.size - 1) * a.cs;
    }
    Node n = im.new_node(OpType::kSlice);
    n.inputs = {cx.tensor};
    n.channel_begin = {i * on[0].cs};
    n.channel_end = {i * on[0].cs + extent};
    im.emit(std::move(n));
    out.tensor = im.graph().nodes.back().outputs[0];
    bind_cview(im, 0, out);
    return;
  }
  const View x = view_of(im, 0);
  const TensorShape& s = im.graph().tensors[x.tensor].shape;
  if (!idx || !idx->has_data || idx->elements() != 1 || !idx->dims.empty() ||
      axis + 2 != x.rank() || !channels_last(im, x) || x.ps[axis] != 1 || s.w != 1 ||
      s.h != x.dims[axis] || to_int64(idx->data[0]) != 0) {
    im.fail("Gather of " + dims_list(x.dims) + " is supported only for token 0 (a scalar index "
            "0 on the token axis, as a ViT's class token)");
  }
  Node n = im.new_node(OpType::kMaxPool);
  n.inputs = {x.tensor};
  n.kernel_h = n.kernel_w = 1;
  n.stride_h = static_cast<int>(s.h);
  n.stride_w = 1;
  im.emit(n, x.rank() - 1);
}

// Concat of a ViT's class token (a constant [1, 1, D]) before the patch tokens [1, S, D] along
// the token axis: the patch tokens move down one row (zero padding on top, kPad, after a
// reshape of a conv's H x W patch grid to S x 1), and the class token waits for the position
// embedding Add that follows (import_binary_view): both enter there as one learned [S + 1, D]
// tensor, read from DRAM like an input (class token + position 0 on row 0).
void import_concat_view(Importer& im) {
  bool activations = true;
  for (size_t i = 0; i < im.num_inputs(); ++i) {
    const ValuePtr v = im.input(i);
    activations = activations && (v->kind == Value::Kind::kActivation ||
                                  (v->kind == Value::Kind::kPattern && v->pattern == kPieces));
  }
  // Concat of views and pieces (Swin's cyclic shift, patch merging): pieces.
  if (activations && im.num_inputs() >= 2 &&
      concat_pieces(im, axis_of(im, im.attr_int("axis", 0), im.input(0)->dims.size()))) {
    return;
  }
  const ValuePtr cls = im.num_inputs() == 2 ? const_or_null(im, 0) : nullptr;
  const View x = view_of(im, 1);
  const size_t axis = axis_of(im, im.attr_int("axis", 0), x.rank());
  if (!cls || x.rank() != 3 || axis != 1 || cls->dims.size() != 3 || cls->dims[1] != 1 ||
      cls->dims[2] != x.dims[2] || !channels_last(im, x) || x.ps[1] != 1) {
    im.fail("Concat of a token sequence is supported only as a class token [1, 1, D] before "
            "the tokens [1, S, D] along axis 1");
  }
  const int64_t d = x.dims[2], tokens = x.dims[1];
  int tensor = x.tensor;
  if (im.graph().tensors[tensor].shape != TensorShape{1, d, tokens, 1}) {
    Node r = im.new_node(OpType::kReshape);
    r.name += "/tokens";
    r.inputs = {tensor};
    r.reshape_dims = {1, d, tokens, 1};
    tensor = add_node_output(im, std::move(r), "_tokens");
  }
  Node pad = im.new_node(OpType::kPad);
  pad.inputs = {tensor};
  pad.pad_top = 1;
  im.emit(std::move(pad));
  auto v = std::make_shared<Value>();
  v->kind = Value::Kind::kActivation;
  v->tensor = im.graph().nodes.back().outputs[0];
  v->dims = {1, tokens + 1, d};
  v->cstride = {0, 0, 1};
  v->pstride = {0, 1, 0};
  auto p = make_pattern(im, kTokens, v);
  p->name = im.node().output(0);
  im.bind(0, p);
}


// Reshape of a view: old and new axes are matched in chunks of equal element count; a chunk of
// old axes must be contiguous in both stride spaces, its new axes take strides from its
// innermost axis.
void import_reshape_view(Importer& im) {
  const CView x = cview_of(im, 0);
  std::vector<int64_t> shape;
  const std::string& type = im.node().op_type();
  const int64_t total = product(x.dims, 0, x.rank());
  if (type == "Reshape") {
    shape = im.ints_input(1);
    int64_t known = 1, infer = -1;
    for (size_t k = 0; k < shape.size(); ++k) {
      if (shape[k] == 0 && k < x.rank()) shape[k] = x.dims[k];
      if (shape[k] == -1) infer = static_cast<int64_t>(k);
      else known *= shape[k];
    }
    if (infer >= 0 && known > 0) shape[infer] = total / known;
  } else if (type == "Flatten") {
    const size_t axis = axis_of(im, im.attr_int("axis", 1), x.rank());
    shape = {product(x.dims, 0, axis), product(x.dims, axis, x.rank())};
  } else {  // Squeeze / Unsqueeze
    const std::vector<int64_t> axes = axes_of(im, 1);
    if (type == "Squeeze") {
      for (size_t k = 0; k < x.rank(); ++k) {
        bool drop = axes.empty() ? x.dims[k] == 1 : false;
        for (int64_t a : axes) drop = drop || axis_of(im, a, x.rank()) == k;
        if (!drop) shape.push_back(x.dims[k]);
      }
    } else {
      shape = x.dims;
      const size_t out_rank = x.rank() + axes.size();
      std::vector<size_t> at;
      for (int64_t a : axes) at.push_back(axis_of(im, a, out_rank));
      std::sort(at.begin(), at.end());
      for (size_t a : at) shape.insert(shape.begin() + static_cast<long>(a), 1);
    }
  }
  if (product(shape, 0, shape.size()) != total) {
    im.fail("reshape of " + dims_list(x.dims) + " to " + dims_list(shape) + " changes the element count");
  }
  // The input's sub-axes (outermost first) cut into the new axes: a new axis takes whole
  // sub-axes (merging them, contiguous in memory or not) or the outer part of one (a split).
  std::vector<SubAxis> flat;
  for (const std::vector<SubAxis>& axis : x.axes) {
    for (const SubAxis& sub : axis) {
      if (sub.size != 1) flat.push_back(sub);
    }
  }
  CView out;
  out.tensor = x.tensor;
  out.dims = shape;
  size_t at = 0;
  for (int64_t n : shape) {
    std::vector<SubAxis> axis;
    for (int64_t need = n; need > 1;) {
      SubAxis& f = flat.at(at);
      const bool whole = f.size <= need;
      if ((whole && need % f.size != 0) || (!whole && f.size % need != 0)) {
        im.fail("reshape of " + dims_list(x.dims) + " to " + dims_list(shape) +
                " cuts an axis of " + std::to_string(f.size) + " elements into parts that do "
                "not divide it");
      }
      if (whole) {
        axis.push_back(f), need /= f.size, ++at;
        continue;
      }
      const int64_t inner = f.size / need;
      axis.push_back({need, f.cs * inner, f.ps * inner});
      f.size = inner;
      need = 1;
    }
    if (axis.empty()) axis.push_back({1, 0, 0});
    out.axes.push_back(axis);
  }
  bind_cview(im, 0, out);
}

void import_transpose_view(Importer& im) {
  const CView x = cview_of(im, 0);
  std::vector<int64_t> perm = im.attr_ints("perm");
  if (perm.empty()) {
    for (size_t k = x.rank(); k-- > 0;) perm.push_back(static_cast<int64_t>(k));
  }
  if (perm.size() != x.rank()) im.fail("perm " + dims_list(perm) + " does not match rank " + std::to_string(x.rank()));
  CView out;
  out.tensor = x.tensor;
  for (int64_t p : perm) {
    const size_t k = axis_of(im, p, x.rank());
    out.dims.push_back(x.dims[k]), out.axes.push_back(x.axes[k]);
  }
  bind_cview(im, 0, out);
}

}  // namespace onnx_import
}  // namespace strider
