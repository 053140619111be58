// ONNX importer: transformer graphs (attention, LayerNorm, GELU) as PyTorch 1.13 exports them.
//
// Layout: a token sequence [seq, d] is stored C = d, H = seq, W = 1 (graph.h, kMatMul): every
// token is one row, so row bands are token blocks. ONNX values of such graphs are *views*
// (Value::cstride / pstride): each logical axis steps through the IR tensor's channels or
// positions, so the Reshape / Transpose chains that split and merge attention heads
// ([1, S, D] -> [1, S, H, D/H] -> [1, H, S, D/H] and back, K transposed for Q K^T) move no data:
// they only permute strides. An op checks that its operand is in the form it needs (the last
// axis on channels, the rows on positions, heads as channel groups) and fails naming the node
// otherwise.
//
// Mapping: MatMul by a constant [K, N] -> 1x1 Conv over every position (bias from the following
// Add); MatMul of two activations -> kMatMul (groups = heads, B in either orientation);
// LayerNormalization and its decomposition (ReduceMean, Sub, Pow, ReduceMean, Add eps, Sqrt, Div,
// then Mul gamma, Add beta) -> kLayerNorm; GELU in Erf form (Div sqrt2, Erf, Add 1, Mul x,
// Mul 0.5) -> kGelu; Softmax over the last axis -> kSoftmax with groups (causal when the scores
// went through Where / Add of a constant causal mask); residual Add -> kAdd. A scalar Mul / Div
// of scores (the 1/sqrt(d) of attention) folds into the MatMul it feeds or the node it follows
// (Node::output_factor). Views and patterns: onnx_token_view.h.
// Vision transformers (torchvision's VisionTransformer): the patch conv's [1, D, H, W] output
// reshaped to [1, D, H x W] is a view; Gemm of tokens -> 1x1 Conv; Slice of the packed Q / K / V
// projection -> kSlice; the class-token Concat and position-embedding Add -> kPad (one zero row
// on top) + kAdd of a learned [S + 1, D] network input; Gather of token 0 -> a 1x1 kMaxPool
// with row stride S.
// Swin Transformers: a reshape merging axes apart in memory (window partition / reverse), a
// MatMul operand or Linear input in no readable layout, Slices along positions with their
// Concats (cyclic shift, patch merging) and constants broadcast over the scores (relative
// position bias, shifted-window masks) become kGather copies (onnx_gather.h); Gather of an index
// on a channel axis (the packed Q / K / V) is a kSlice.
#include <algorithm>
#include <cmath>

#include "planner/import/onnx_gather.h"
#include "planner/import/onnx_token_view.h"

namespace strider {
namespace onnx_import {
namespace {

// x W (+ bias) of a token sequence as a 1x1 convolution over every position: W is [K, N], or
// [N, K] when `transposed` (Gemm transB = 1).
void emit_linear(Importer& im, const CView& a, const Value& w, bool transposed,
                 const ValuePtr& bias) {
  const int64_t k = w.dims[transposed ? 1 : 0], n_out = w.dims[transposed ? 0 : 1];
  Node n = im.new_node(OpType::kConv);
  n.inputs = {a.tensor};
  std::vector<double> data;
  if (w.has_data) {
    data.resize(static_cast<size_t>(k * n_out));
    for (int64_t o = 0; o < n_out; ++o) {
      for (int64_t i = 0; i < k; ++i) {
        data[o * k + i] = w.data[transposed ? o * k + i : i * n_out + o];
      }
    }
  }
  n.weights = im.add_weights(".weight", TensorShape{n_out, k, 1, 1}, w.has_data ? &data : nullptr);
  if (bias) n.bias = im.add_bias(n_out, bias->has_data ? &bias->data : nullptr);
  im.emit(std::move(n));
  CView out = a;  // the tokens' strides, n_out channels
  out.tensor = im.graph().nodes.back().outputs[0];
  out.dims.back() = n_out;
  out.axes.back() = {{n_out, 1, 0}};
  bind_cview(im, 0, out);
}

// Gemm(A, B, C) of a token sequence [.., K] (alpha = beta = 1, A not transposed).
void import_gemm_view(Importer& im) {
  const View a = view_of(im, 0);
  const ValuePtr w = const_or_null(im, 1);
  const bool trans_b = im.attr_int("transB", 0) != 0;
  if (!w || w->dims.size() != 2 || w->dims[trans_b ? 1 : 0] != a.dims.back() ||
      !channels_last(im, a) || im.attr_int("transA", 0) != 0 || im.attr_float("alpha", 1) != 1 ||
      im.attr_float("beta", 1) != 1) {
    im.fail("Gemm of " + dims_list(a.dims) + " needs [.., K] with K on channels, a constant B " +
            "[K, N] (or [N, K] with transB), no transA and alpha = beta = 1");
  }
  ValuePtr bias;
  if (im.has_input(2)) {
    bias = const_or_null(im, 2);
    const int64_t n_out = w->dims[trans_b ? 0 : 1];
    if (!bias || bias->elements() != n_out) {
      im.fail("Gemm bias must be a constant of " + std::to_string(n_out) + " elements");
    }
  }
  emit_linear(im, as_cview(a), *w, trans_b, bias);
}

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

void import_matmul_views(Importer& im) {
  // A scaled operand (q x 1 / sqrt(d) before Q K^T) scales the product: its factor goes to this
  // MatMul's output factor, not to the operand's producer.
  double factor = 1.0;
  for (size_t k = 0; k < 2; ++k) {
    const ValuePtr v = im.input(k);
    if (v->kind == Value::Kind::kPattern) factor *= v->factor, v->factor = 1.0;
  }
  CView a = cview_of(im, 0);
  if (a.rank() < 2) im.fail("the first operand has rank " + std::to_string(a.rank()));
  const ValuePtr bc = const_or_null(im, 1);
  if (bc) {  // x W: a 1x1 convolution over every position
    if (bc->dims.size() != 2 || bc->dims[0] != a.dims.back()) {
      im.fail("MatMul of " + dims_list(a.dims) + " by constant " + dims_list(bc->dims) +
              " needs [.., K] by [K, N]");
    }
    // Tokens whose channels are not all on the channels of one tensor (Swin's attention output,
    // windows and heads on channels) are copied into a layout a 1x1 conv reads: the windows'
    // planar layout when a window partition was read by a Linear before, so the window reverse
    // after this Linear is a view. The partition itself (a compound view) is copied into token
    // layout: Q, K and V then copy rows of 49 tokens; read from the planar map they would be
    // rows of 7 (measured on swin_t: 38,936,759 cycles against 37,794,470, the 903 KB QKV
    // output spilling to DRAM, whose 64 B bursts carry 7 B each).
    if (!channels_last(im, a)) {
      a = linear_layout(im, a, "/tokens");
    } else if (!as_view(a, nullptr)) {
      note_windows(im, a);
      a = as_cview(token_layout(im, a, "/tokens"));
    }
    return emit_linear(im, a, *bc, false, nullptr);
  }
  CView b = cview_of(im, 1);
  if (b.rank() != a.rank()) im.fail("operands of rank " + std::to_string(a.rank()) + " and " +
                                    std::to_string(b.rank()) + " (broadcasting is not supported)");
  const size_t r = a.rank();
  if (a.dims[r - 1] != b.dims[r - 2]) {
    im.fail("MatMul of " + dims_list(a.dims) + " and " + dims_list(b.dims) +
            ": the inner dimensions differ");
  }
  for (size_t k = 0; k + 2 < r; ++k) {
    if (a.dims[k] != b.dims[k]) im.fail("batch dims " + dims_list(a.dims) + " and " +
                                        dims_list(b.dims) + " differ (broadcasting is not supported)");
  }
  // Operands not in a grouped form (Swin's windows on positions) are copied into one: B in the
  // orientation that copies in fewer blocks.
  int64_t ga = 0, gb = 0;
  View av, bv;
  if (!as_view(a, &av) || !grouped_form(im, av, r - 2, r - 1, &ga)) {
    av = grouped_layout(im, a, false, "/a");
    grouped_form(im, av, r - 2, r - 1, &ga);
  }
  Node n = im.new_node(OpType::kMatMul);
  n.groups = static_cast<int>(ga);
  n.output_factor = factor;
  const bool plain = as_view(b, &bv);
  if (plain && grouped_form(im, bv, r - 2, r - 1, &gb)) {
    n.transpose_b = false;
  } else if (plain && grouped_form(im, bv, r - 1, r - 2, &gb)) {
    n.transpose_b = true;
  } else {
    n.transpose_b = copy_block_count(im, b, true) < copy_block_count(im, b, false);
    bv = grouped_layout(im, b, n.transpose_b, "/b");
    grouped_form(im, bv, n.transpose_b ? r - 1 : r - 2, n.transpose_b ? r - 2 : r - 1, &gb);
  }
  if (ga != gb) im.fail("operands have " + std::to_string(ga) + " and " + std::to_string(gb) + " groups");
  n.inputs = {av.tensor, bv.tensor};
  std::vector<int64_t> dims = a.dims, ps;
  dims.back() = b.dims.back();
  std::vector<int64_t> cs = grouped_strides(dims, &ps);
  emit_view(im, n, dims, cs, ps);
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

void emit_layernorm(Importer& im, const View& x, const ValuePtr& gamma, const ValuePtr& beta) {
  if (!channels_last(im, x)) im.fail("LayerNorm over an axis that is not the channels of every position");
  const int64_t d = x.dims.back();
  Node n = im.new_node(OpType::kLayerNorm);
  n.inputs = {x.tensor};
  std::vector<double> ones(static_cast<size_t>(d), 1.0);
  const bool g_data = !gamma || gamma->has_data;
  n.weights = im.add_weights(".gamma", TensorShape{d, 1, 1, 1},
                             g_data ? (gamma ? &gamma->data : &ones) : nullptr);
  if (beta) n.bias = im.add_bias(d, beta->has_data ? &beta->data : nullptr);
  emit_view(im, n, x.dims, x.cs, x.ps);
}

// Add of a learned tensor of the sequence's own shape (a position embedding; after a class-token
// Concat it also carries the class token on row 0): the tensor becomes a network input read
// from DRAM (like every parameter without data, its values come from the run's seed) and the
// sum an element-wise kAdd of two activations.
void emit_add_learned(Importer& im, const ValuePtr& x, const Value& c) {
  const View v = view_value(im, x->kind == Value::Kind::kPattern ? x->source : x);
  if (!channels_last(im, v)) {
    im.fail("Add of " + dims_list(c.dims) + " to a sequence that is not tokens x channels");
  }
  Tensor t;
  t.name = x->kind == Value::Kind::kPattern ? "class_token+" + c.name : c.name;
  t.shape = im.graph().tensors[v.tensor].shape;
  const int learned = im.graph().add_tensor(t);
  im.graph().inputs.push_back(learned);
  Node n = im.new_node(OpType::kAdd);
  n.inputs = {v.tensor, learned};
  emit_view(im, n, v.dims, v.cs, v.ps);
}

// Mul / Div / Add / Sub with at least one view or pattern operand.
void import_binary_view(Importer& im) {
  const std::string& type = im.node().op_type();
  const ValuePtr in0 = im.input(0), in1 = im.input(1);
  const ValuePtr c0 = const_or_null(im, 0), c1 = const_or_null(im, 1);
  const ValuePtr c = c1 ? c1 : c0;
  const ValuePtr x = c1 ? in0 : in1;  // the non-constant operand (when one is constant)
  const int p = x->kind == Value::Kind::kPattern ? x->pattern : kNone;
  if (c) {
    if (type == "Add" && p == kNone && c->dims.size() >= 2 && c->dims.back() > 1 &&
        broadcasts_to(c->dims, x->dims) && !causal_mask(*c, true) &&
        (c->dims != x->dims || !channels_last(im, view_value(im, x)))) {
      return emit_add_broadcast(im, x, *c);
    }
    if (type == "Add" && c->dims == x->dims && (p == kTokens || p == kNone)) {
      return emit_add_learned(im, x, *c);
    }
    if (type == "Add" && p == kVar) return im.bind(0, make_pattern(im, kVarEps, x->source));
    if (type == "Add" && p == kErf) return im.bind(0, make_pattern(im, kErfPlus1, x->source));
    if (type == "Mul" && p == kXErf && scalar_near(c, 0.5)) {
      const View v = view_value(im, x->source);
      Node n = im.new_node(OpType::kGelu);
      n.inputs = {v.tensor};
      emit_view(im, n, v.dims, v.cs, v.ps);
      return;
    }
    if (type == "Add" && causal_mask(*c, true)) {
      auto m = make_pattern(im, kMasked, x->kind == Value::Kind::kPattern ? x->source : x);
      m->causal = true;
      if (x->kind == Value::Kind::kPattern) m->factor = x->factor, x->factor = 1.0;
      return im.bind(0, m);
    }
    if ((type == "Mul" || type == "Div") && c->elements() == 1 && p == kNone) {
      auto scaled = make_pattern(im, kScaled, x);
      if (c->has_data) {
        if (type == "Div" && c->data[0] == 0.0) im.fail("Div by a constant 0");
        scaled->factor = type == "Mul" ? c->data[0] : 1.0 / c->data[0];
      }
      return im.bind(0, scaled);
    }
    if ((type == "Mul" || type == "Add") && p == kNone && c->elements() == x->dims.back()) {
      // Per-channel gamma / beta after a LayerNorm, bias after a Linear (1x1 conv).
      const CView v = cview_of(im, c1 ? 0 : 1);
      Node* prod = producer(im, v.tensor);
      if (prod && channels_last(im, v) && im.consumers_of(x->name) <= 1) {
        if (type == "Mul" && prod->op == OpType::kLayerNorm) {
          if (c->has_data) im.set_float_data(prod->weights, c->data);
          else im.drop_float_data(prod->weights);
          return im.bind_alias(0, x);
        }
        if (type == "Add" && (prod->op == OpType::kLayerNorm || prod->op == OpType::kConv) &&
            prod->bias < 0) {
          prod->bias = im.add_bias(c->elements(), c->has_data ? &c->data : nullptr, prod->name);
          return im.bind_alias(0, x);
        }
      }
    }
    im.fail(type + " of " + dims_list(x->dims) + " with constant " + dims_list(c->dims) +
            " is not supported (only a bias, a LayerNorm gamma / beta, a scalar scale or a "
            "causal mask)");
  }
  const int p0 = in0->kind == Value::Kind::kPattern ? in0->pattern : kNone;
  const int p1 = in1->kind == Value::Kind::kPattern ? in1->pattern : kNone;
  if (type == "Sub" && p1 == kMean && in1->source == in0) {
    return im.bind(0, make_pattern(im, kCentred, in0));
  }
  if (type == "Div" && p0 == kCentred && p1 == kStd && in0->source == in1->source) {
    emit_layernorm(im, view_value(im, in0->source), nullptr, nullptr);
    return;
  }
  if (type == "Mul" && (p0 == kErfPlus1 || p1 == kErfPlus1)) {
    const ValuePtr e = p0 == kErfPlus1 ? in0 : in1, other = p0 == kErfPlus1 ? in1 : in0;
    if (e->source == other) return im.bind(0, make_pattern(im, kXErf, other));
  }
  if (type == "Add" || type == "Mul") {
    const View a = view_of(im, 0), b = view_of(im, 1);
    if (a.dims != b.dims || a.cs != b.cs || a.ps != b.ps ||
        im.graph().tensors[a.tensor].shape != im.graph().tensors[b.tensor].shape) {
      im.fail(type + " of " + dims_list(a.dims) + " and " + dims_list(b.dims) +
              " in different layouts is not supported");
    }
    Node n = im.new_node(type == "Add" ? OpType::kAdd : OpType::kMul);
    n.inputs = {a.tensor, b.tensor};
    emit_view(im, n, a.dims, a.cs, a.ps);
    return;
  }
  im.fail(type + " of two activations is not supported here");
}

}  // namespace

bool transformer_claims(Importer& im) {
  const std::string& type = im.node().op_type();
  if (type == "Shape" || type == "Identity" || type == "Dropout") return false;
  // A conv's [1, C, H, W] output reshaped to [1, C, H x W] (a ViT's patch grid to tokens).
  if (type == "Reshape" && im.is_activation(0) && !is_view(im.input(0)) &&
      im.input(0)->dims.size() == 4 && im.input(1)->kind == Value::Kind::kConstant &&
      im.input(1)->has_data && im.input(1)->dims == std::vector<int64_t>{3}) {
    const std::vector<int64_t>& d = im.input(0)->dims;
    const std::vector<double>& t = im.input(1)->data;
    const bool n_kept = t[0] == 0 || t[0] == static_cast<double>(d[0]);
    const bool c_kept = t[1] == 0 || t[1] == static_cast<double>(d[1]);
    if (n_kept && c_kept && (t[2] == -1 || t[2] == static_cast<double>(d[2] * d[3]))) return true;
  }
  if (type == "MatMul" && im.num_inputs() == 2 && im.is_activation(0) &&
      (im.is_activation(1) || im.input(0)->dims.size() >= 3)) {
    return true;
  }
  for (size_t k = 0; k < im.num_inputs(); ++k) {
    if (!im.has_input(k)) continue;
    const ValuePtr v = im.input(k);
    if (v->kind == Value::Kind::kPattern || is_view(v)) return true;
    if (v->kind == Value::Kind::kPending && v->dims.size() == 3 && type != "Conv") return true;
  }
  return false;
}

void import_transformer(Importer& im) {
  const std::string& type = im.node().op_type();
  if (type != "Slice" && type != "Concat") {  // pieces are copied for any other reader
    for (size_t k = 0; k < im.num_inputs(); ++k) {
      const ValuePtr v = im.has_input(k) ? im.input(k) : nullptr;
      if (v && v->kind == Value::Kind::kPattern && v->pattern == kPieces) view_value(im, v);
    }
  }
  if (type == "MatMul") return import_matmul_views(im);
  if (type == "Reshape" || type == "Flatten" || type == "Squeeze" || type == "Unsqueeze") {
    return import_reshape_view(im);
  }
  if (type == "Transpose") return import_transpose_view(im);
  if (type == "Gemm") return import_gemm_view(im);
  if (type == "Slice") return import_slice_view(im);
  if (type == "Gather") return import_gather_view(im);
  if (type == "Concat") return import_concat_view(im);
  if (type == "Expand") return import_expand(im);
  if (type == "Add" || type == "Sub" || type == "Mul" || type == "Div") return import_binary_view(im);
  if (type == "LayerNormalization") {
    const View x = view_of(im, 0);
    if (axis_of(im, im.attr_int("axis", -1), x.rank()) != x.rank() - 1) {
      im.fail("LayerNormalization over axis " + std::to_string(im.attr_int("axis", -1)) +
              " (only the last axis is supported)");
    }
    return emit_layernorm(im, x, im.constant(1), im.has_input(2) ? im.constant(2) : nullptr);
  }
  if (type == "ReduceMean") {
    const ValuePtr in = im.input(0);
    const std::vector<int64_t> axes = axes_of(im, 1);
    const size_t r = in->dims.size();
    if (axes.size() != 1 || axis_of(im, axes[0], r) != r - 1 || im.attr_int("keepdims", 1) != 1) {
      im.fail("ReduceMean over " + dims_list(axes) + " (only the last axis with keepdims, as in a "
              "decomposed LayerNorm)");
    }
    if (in->kind == Value::Kind::kPattern && in->pattern == kSquare) {
      return im.bind(0, make_pattern(im, kVar, in->source));
    }
    if (in->kind == Value::Kind::kPattern) im.fail("ReduceMean of an unfinished decomposition");
    view_of(im, 0);
    return im.bind(0, make_pattern(im, kMean, im.input(0)));
  }
  const ValuePtr in = im.input(0);
  const int p = in->kind == Value::Kind::kPattern ? in->pattern : kNone;
  if (type == "Pow" && p == kCentred && scalar_near(const_or_null(im, 1), 2.0)) {
    return im.bind(0, make_pattern(im, kSquare, in->source));
  }
  if (type == "Sqrt" && p == kVarEps) return im.bind(0, make_pattern(im, kStd, in->source));
  if (type == "Erf" && p == kScaled) return im.bind(0, make_pattern(im, kErf, in->source));
  if (type == "Softmax") {
    const View x = view_of(im, 0);
    if (axis_of(im, im.attr_int("axis", -1), x.rank()) != x.rank() - 1) {
      im.fail("Softmax over an axis other than the last");
    }
    int64_t groups = 0;
    if (!grouped_form(im, x, x.rank() - 2, x.rank() - 1, &groups)) {
      im.fail("Softmax input " + dims_list(x.dims) + " is not rows on positions, columns on channels");
    }
    Node n = im.new_node(OpType::kSoftmax);
    n.inputs = {x.tensor};
    n.groups = static_cast<int>(groups);
    n.causal = p == kMasked && in->causal;
    emit_view(im, n, x.dims, x.cs, x.ps);
    return;
  }
  if (type == "Where") {
    const ValuePtr cond = im.input(0);
    const ValuePtr scores = im.input(2);
    if (cond->kind == Value::Kind::kConstant && causal_mask(*cond, false) &&
        scores->kind != Value::Kind::kConstant) {
      const ValuePtr fill = const_or_null(im, 1);
      if (fill && fill->has_data && fill->elements() == 1 && fill->data[0] < -1e3) {
        auto m = make_pattern(im, kMasked, view_of(im, 2).v);
        m->causal = true;
        return im.bind(0, m);
      }
    }
    im.fail("only Where(causal mask, -inf, scores) before a Softmax is supported");
  }
  if (type == "Erf") {
    im.fail("Erf is supported only inside a GELU of a token sequence (x * 0.5 * (1 + Erf(x / "
            "sqrt 2)))");
  }
  if (type == "Pow" || type == "Sqrt") {
    im.fail(type + " is supported only inside a decomposed LayerNorm of a token sequence");
  }
  im.fail(type + " of a token sequence is not supported (supported: MatMul, Add, Sub, Mul, Div, "
          "Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Gemm, Slice of channels, Gather of "
          "token 0, Concat of a class token, Softmax, LayerNormalization, "
          "ReduceMean / Pow / Sqrt / Div of a LayerNorm, Erf of a GELU, Where of a causal mask)");
}

}  // namespace onnx_import
}  // namespace strider
