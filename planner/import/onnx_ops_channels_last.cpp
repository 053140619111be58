// ONNX importer: channels-last blocks of CNNs (torchvision ConvNeXt) as pattern rewrites that
// move no data.
//
// ConvNeXt permutes NCHW to NHWC (Transpose [0, 2, 3, 1]), applies LayerNorm over the last axis
// and Linear layers (MatMul by a constant [C, K]) to every position, then permutes back
// (Transpose [0, 3, 1, 2]). In Strider's planar CHW layout the channels of one position are
// already what a LayerNorm over channels and a 1x1 convolution read, so:
//   - Transpose [0, 2, 3, 1] of a plain NCHW activation becomes a strided *view* of the same IR
//     tensor (Value::cstride / pstride: the last axis steps through channels, H and W through
//     positions); the token-sequence handlers (onnx_ops_transformer.cpp) then map LayerNorm to
//     kLayerNorm over the channels of each position, MatMul by a constant to a 1x1 conv, GELU to
//     kGelu, all on the unchanged NCHW tensor;
//   - a Transpose of a view whose result is the canonical NCHW reading of its IR tensor becomes
//     that plain activation again, so the CNN handlers (Conv, Add, pools) take over.
// Any other view reaching a CNN handler or an op that needs a different form fails naming the
// node (Importer::activation / the token-sequence checks); nothing is silently reordered.
//
// Parameters exported as graph inputs (export_params = False: a Linear's [K, N] weight, a
// LayerNorm's gamma and beta, a bias) that meet a view are made constants here before the
// token-sequence handlers look at them.
//
// Layer scale (ConvNeXt's per-channel Mul by a [C, 1, 1] parameter after the block) is folded
// into the producing 1x1 / k x k convolution: gamma (W x + b) = (gamma W) x + gamma b, exact in
// real arithmetic; the network then has no extra op (like a folded BatchNormalization).
#include <stdexcept>

#include "planner/import/onnx_token_view.h"

namespace strider {
namespace onnx_import {
namespace {

// An NCHW activation, or a graph input not used yet (it becomes one).
bool plain_rank4(const ValuePtr& v) {
  const bool pending = v->kind == Value::Kind::kPending;
  return (pending || v->kind == Value::Kind::kActivation) && v->cstride.empty() &&
         v->parts.empty() && v->dims.size() == 4;
}

std::vector<int64_t> perm_of(Importer& im, size_t rank) {
  std::vector<int64_t> perm = im.attr_ints("perm");
  if (perm.empty()) {
    for (size_t k = rank; k-- > 0;) perm.push_back(static_cast<int64_t>(k));
  }
  return perm;
}

// The permuted view of `v` (a view already), or false when perm is not a permutation of its axes.
bool permuted(const Value& v, const std::vector<int64_t>& perm, Value* out) {
  const size_t r = v.dims.size();
  if (perm.size() != r) return false;
  std::vector<bool> seen(r, false);
  out->dims.clear(), out->cstride.clear(), out->pstride.clear();
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(r) || seen[static_cast<size_t>(p)]) return false;
    const size_t k = static_cast<size_t>(p);
    seen[k] = true;
    out->dims.push_back(v.dims[k]);
    out->cstride.push_back(v.cstride[k]);
    out->pstride.push_back(v.pstride[k]);
  }
  return true;
}

// True when view `v` reads IR tensor shape `s` exactly as the plain NCHW value of dims
// [1, C, H, W] does (axes of size 1 may carry any stride).
bool canonical_nchw(const Value& v, const TensorShape& s) {
  if (v.dims.size() != 4 || v.dims[0] != 1) return false;
  if (v.dims[1] != s.c || v.dims[2] != s.h || v.dims[3] != s.w) return false;
  const int64_t want_c[4] = {0, 1, 0, 0}, want_p[4] = {0, 0, s.w, 1};
  for (size_t k = 1; k < 4; ++k) {
    if (v.dims[k] == 1) continue;
    if (v.cstride[k] != want_c[k] || v.pstride[k] != want_p[k]) return false;
  }
  return true;
}

// A per-channel constant of a rank-4 activation [1, C, H, W]: dims [C, 1, 1] or [1, C, 1, 1];
// a graph input only as [C, 1, 1] (a parameter exported without data; a [1, C, 1, 1] graph
// input is an activation broadcast per channel).
bool per_channel_constant(const ValuePtr& c, int64_t channels) {
  const std::vector<int64_t>& d = c->dims;
  if (c->kind == Value::Kind::kPending) return d == std::vector<int64_t>{channels, 1, 1};
  if (c->kind != Value::Kind::kConstant) return false;
  return d == std::vector<int64_t>{channels, 1, 1} || d == std::vector<int64_t>{1, channels, 1, 1};
}

void import_nhwc_transpose(Importer& im) {
  const ValuePtr in = im.input(0);
  const std::vector<int64_t> perm = perm_of(im, in->dims.size());
  auto v = std::make_shared<Value>();
  v->kind = Value::Kind::kActivation;
  v->tensor = im.activation(0);
  if (in->cstride.empty()) {  // NCHW -> NHWC: channels on the last axis, H and W on positions
    const TensorShape& s = im.graph().tensors[v->tensor].shape;
    v->dims = {in->dims[0], in->dims[2], in->dims[3], in->dims[1]};
    v->cstride = {0, 0, 0, 1};
    v->pstride = {0, s.w, 1, 0};
    im.bind(0, v);
    return;
  }
  if (!permuted(*in, perm, v.get())) im.fail("perm " + dims_list(perm) + " is not a permutation");
  v->cstride.clear(), v->pstride.clear();  // back to the plain NCHW activation
  im.bind(0, v);
}

// Layer scale: Mul of the output of a convolution by a per-channel constant, folded into it.
void import_layer_scale(Importer& im) {
  const size_t ci = plain_rank4(im.input(0)) ? 1 : 0;  // the constant's input index
  const ValuePtr x = im.input(1 - ci);
  const ValuePtr scale = im.constant(ci);
  const int t = im.activation(1 - ci);
  const int64_t channels = im.graph().tensors[t].shape.c;
  Node* conv = nullptr;
  for (auto it = im.graph().nodes.rbegin(); it != im.graph().nodes.rend(); ++it) {
    if (it->outputs.size() == 1 && it->outputs[0] == t) {
      if (it->op == OpType::kConv && it->activation == Activation::kNone) conv = &*it;
      break;
    }
  }
  int readers = 0;
  for (const Node& n : im.graph().nodes) {
    for (int i : n.inputs) readers += i == t ? 1 : 0;
  }
  // The scaled value and the conv's own output (the tensor is named after it) have this one use
  // (through single-use aliases such as the bias Add and the permutes).
  const bool single_use = im.consumers_of(im.node().input(static_cast<int>(1 - ci))) == 1 &&
                          im.consumers_of(im.graph().tensors[t].name) <= 1;
  if (!conv || readers != 0 || !single_use) {
    im.fail("Mul of " + dims_list(x->dims) + " by the per-channel constant '" + scale->name +
            "' is supported only as a layer scale folded into the convolution producing its only "
            "use");
  }
  if (im.has_imported_scales(conv->weights)) {
    im.fail("the layer scale '" + scale->name + "' folds into conv '" + conv->name +
            "' whose weights carry the model's quantisation (DequantizeLinear)");
  }
  std::vector<double>* w = im.float_data(conv->weights);
  std::vector<double>* b = conv->bias >= 0 ? im.float_data(conv->bias) : nullptr;
  if (scale->has_data && w && (conv->bias < 0 || b)) {
    const size_t per_channel = w->size() / static_cast<size_t>(channels);
    for (int64_t c = 0; c < channels; ++c) {
      for (size_t i = 0; i < per_channel; ++i) (*w)[c * per_channel + i] *= scale->data[c];
      if (b) (*b)[c] *= scale->data[c];
    }
  } else {
    // Part of the parameters have no data: the folded conv gets pseudo-random parameters.
    im.drop_float_data(conv->weights);
    if (conv->bias >= 0) im.drop_float_data(conv->bias);
  }
  im.bind_alias(0, x);
}

}  // namespace

bool channels_last_claims(Importer& im) {
  const std::string& type = im.node().op_type();
  if (type == "Transpose" && im.num_inputs() == 1) {
    const ValuePtr in = im.input(0);
    if (!in->parts.empty()) return false;  // a compound view (onnx_token_view.h CView)
    if (!plain_rank4(in) && !(is_view(in) && in->dims.size() == 4)) return false;
    const std::vector<int64_t> perm = perm_of(im, 4);
    if (in->cstride.empty()) {
      return perm == std::vector<int64_t>{0, 2, 3, 1} && in->dims[0] == 1;
    }
    Value out;
    return permuted(*in, perm, &out) && canonical_nchw(out, im.graph().tensors[in->tensor].shape);
  }
  if (type == "Reshape" && is_view(im.input(0)) && im.input(0)->dims.size() == 6) {
    return true;  // the window partition / reverse of Swin: rank 6 [B, h, w, wh, ww, C]
  }
  if (type == "Pad" && im.num_inputs() >= 2 && is_view(im.input(0))) {
    // Swin pads H and W of its NHWC view to a multiple of the window: zero pads are no-ops.
    const ValuePtr pads = im.input(1);
    if (pads->kind != Value::Kind::kConstant || !pads->has_data) return false;
    for (double p : pads->data) {
      if (p != 0) return false;
    }
    return true;
  }
  if (type == "MatMul" && im.num_inputs() == 2) {
    // The weight of a Linear on a view, exported as a graph input [K, N]: a constant.
    const ValuePtr x = im.input(0), w = im.input(1);
    if (is_view(x) && w->kind == Value::Kind::kPending && w->dims.size() == 2 &&
        w->dims[0] == x->dims.back()) {
      im.constant(1);
    }
    return false;
  }
  const bool binary = type == "Mul" || type == "Add" || type == "Sub" || type == "Div";
  if (!binary || im.num_inputs() != 2) return false;
  for (size_t k = 0; k < 2; ++k) {
    const ValuePtr x = im.input(k), c = im.input(1 - k);
    if (type == "Mul" && plain_rank4(x) && per_channel_constant(c, x->dims[1]) && x->dims[1] > 1) {
      return true;
    }
    // A parameter exported as a graph input (export_params = False) of the last axis of a view
    // (a LayerNorm's gamma or beta, a Linear's bias) is a constant without data.
    if ((x->kind == Value::Kind::kPattern || is_view(x)) && c->kind == Value::Kind::kPending &&
        c->dims.size() == 1 && c->dims[0] == x->dims.back()) {
      im.constant(1 - k);
    }
  }
  return false;
}

void import_channels_last(Importer& im) {
  // A view, or a kGather where the windows are apart in memory (onnx_ops_transformer.cpp).
  if (im.node().op_type() == "Reshape") return import_transformer(im);
  if (im.node().op_type() == "Transpose") return import_nhwc_transpose(im);
  if (im.node().op_type() == "Pad") return im.bind_alias(0, im.input(0));  // all pads zero
  import_layer_scale(im);
}

}  // namespace onnx_import
}  // namespace strider
