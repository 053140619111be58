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
// The layout ops (Slice, Gather, Concat, Reshape, Transpose of views) are in
// onnx_ops_view_layout.cpp.
#include <algorithm>
#include <cmath>
#include <sstream>

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

// A LayerNorm's epsilon (the attribute, or the constant a decomposed one adds to the
// variance): finite and > 0, else an error naming the node.
double checked_epsilon(Importer& im, double eps) {
  if (!std::isfinite(eps) || !(eps > 0)) {
    std::ostringstream os;
    os << eps;
    im.fail("LayerNorm epsilon " + os.str() + ", expected a finite value > 0");
  }
  return eps;
}

void emit_layernorm(Importer& im, const View& x, const ValuePtr& gamma, const ValuePtr& beta,
                    double epsilon) {
  if (!channels_last(im, x)) im.fail("LayerNorm over an axis that is not the channels of every position");
  const int64_t d = x.dims.back();
  Node n = im.new_node(OpType::kLayerNorm);
  n.epsilon = epsilon;
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

// The GELU of x (erf form; the tanh form differs from it by less than 5e-4).
void emit_gelu(Importer& im, const ValuePtr& x) {
  const View v = view_value(im, x);
  Node n = im.new_node(OpType::kGelu);
  n.inputs = {v.tensor};
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
    if (type == "Add" && p == kVar) {
      if (!c->has_data || c->elements() != 1) {
        im.fail("the epsilon a decomposed LayerNorm adds to the variance is not one constant");
      }
      ValuePtr v = make_pattern(im, kVarEps, x->source);
      v->epsilon = checked_epsilon(im, c->data[0]);
      return im.bind(0, v);
    }
    if (type == "Add" && p == kErf) return im.bind(0, make_pattern(im, kErfPlus1, x->source));
    // GELU, tanh form: the constant steps.
    if (type == "Mul" && p == kCube && scalar_near(c, 0.044715)) {
      return im.bind(0, make_pattern(im, kCubeScaled, x->source));
    }
    if (type == "Mul" && p == kInner && scalar_near(c, std::sqrt(2.0 / 3.14159265358979323846))) {
      return im.bind(0, make_pattern(im, kInnerScaled, x->source));
    }
    if (type == "Add" && p == kTanh && scalar_near(c, 1.0)) {
      return im.bind(0, make_pattern(im, kTanhPlus1, x->source));
    }
    if (type == "Mul" && p == kXTanh && scalar_near(c, 0.5)) return emit_gelu(im, x->source);
    if (type == "Mul" && p == kXErf && scalar_near(c, 0.5)) return emit_gelu(im, x->source);
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
    emit_layernorm(im, view_value(im, in0->source), nullptr, nullptr, in1->epsilon);
    return;
  }
  if (type == "Mul" && (p0 == kErfPlus1 || p1 == kErfPlus1)) {
    const ValuePtr e = p0 == kErfPlus1 ? in0 : in1, other = p0 == kErfPlus1 ? in1 : in0;
    if (e->source == other) return im.bind(0, make_pattern(im, kXErf, other));
  }
  if (type == "Mul" && in0 == in1 && p0 == kNone) return im.bind(0, make_pattern(im, kSq, in0));
  // GELU, tanh form: the steps of two operands (step `s` of x and x itself, or 0.5 x).
  const bool first = p0 == kSq || p0 == kCubeScaled || p0 == kTanhPlus1;
  const ValuePtr s = first ? in0 : in1, other = first ? in1 : in0;
  const int ps = first ? p0 : p1;
  if (type == "Mul" && ps == kSq && s->source == other) {
    return im.bind(0, make_pattern(im, kCube, other));
  }
  if (type == "Add" && ps == kCubeScaled && s->source == other) {
    return im.bind(0, make_pattern(im, kInner, other));
  }
  if (type == "Mul" && ps == kTanhPlus1 && s->source == other) {
    return im.bind(0, make_pattern(im, kXTanh, other));
  }
  if (type == "Mul" && ps == kTanhPlus1 && other->kind == Value::Kind::kPattern &&
      other->pattern == kScaled && other->source == s->source &&
      std::fabs(other->factor - 0.5) < 1e-6) {
    return emit_gelu(im, s->source);  // 0.5 x first, as GPT-2's gelu_new
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
  // Element-wise on any activation or view (onnx_ops_activation.cpp).
  if ((type == "LeakyRelu" || type == "PRelu") && im.input(0)->kind != Value::Kind::kPattern) return false;
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
  if (type == "Split") return import_split_view(im);
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
    return emit_layernorm(im, x, im.constant(1), im.has_input(2) ? im.constant(2) : nullptr,
                          checked_epsilon(im, im.attr_float("epsilon", 1e-5)));
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
  if (type == "Pow" && p == kNone && scalar_near(const_or_null(im, 1), 3.0)) {
    view_of(im, 0);  // a graph input becomes a token sequence here
    return im.bind(0, make_pattern(im, kCube, im.input(0)));
  }
  if (type == "Tanh" && p == kInnerScaled) return im.bind(0, make_pattern(im, kTanh, in->source));
  if (type == "Sqrt" && p == kVarEps) {
    ValuePtr v = make_pattern(im, kStd, in->source);
    v->epsilon = in->epsilon;
    return im.bind(0, v);
  }
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
  im.fail(type +
          " of a token sequence is not supported (supported: MatMul, Add, Sub, Mul, Div, "
          "Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Gemm, Slice or Split of channels, "
          "Gather of token 0, Concat of a class token, Softmax, LayerNormalization, "
          "ReduceMean / Pow / Sqrt / Div of a LayerNorm, Erf of a GELU, Where of a causal mask)");
}

}  // namespace onnx_import
}  // namespace strider
