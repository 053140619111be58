#include "planner/import/onnx_token_view.h"

#include <cmath>
#include <memory>
#include <utility>

#include "planner/import/onnx_gather.h"

namespace strider {
namespace onnx_import {

bool is_view(const ValuePtr& v) {
  return v->kind == Value::Kind::kActivation && (!v->cstride.empty() || !v->parts.empty());
}

namespace {

// The activation a value stands for: pieces are assembled, a scaled or masked score stands for
// the scores themselves (its scale absorbed by the producer, Node::output_factor).
ValuePtr unwrap(Importer& im, ValuePtr v) {
  if (v->kind == Value::Kind::kPattern && v->pattern == kPieces) assemble(im, v);
  if (v->kind == Value::Kind::kPattern && v->pattern == kSq) {  // x * x outside a GELU: a Mul
    const View x = view_value(im, v->source);
    Node n = im.new_node(OpType::kMul);
    n.name += "/square";
    n.inputs = {x.tensor, x.tensor};
    v->tensor = add_node_output(im, n, "/square");
    v->kind = Value::Kind::kActivation;
    v->cstride = x.cs, v->pstride = x.ps, v->dims = x.dims;
    v->source = nullptr;
  }
  if (v->kind == Value::Kind::kPattern) {
    if (v->pattern == kTokens) {
      im.fail("input '" + v->name + "' is a class-token Concat: only an Add of the position "
              "embedding may follow it");
    }
    if (v->pattern != kScaled && v->pattern != kMasked) {
      im.fail("input '" + v->name + "' is an unfinished LayerNorm / GELU decomposition");
    }
    const double factor = v->factor;
    v->factor = 1.0;  // folded once, however often the score is read
    v = v->source;
    if (factor != 1.0) absorb_scalar(im, v, factor);
  }
  if (v->kind != Value::Kind::kActivation) im.fail("input '" + v->name + "' must be an activation");
  return v;
}

// A graph input [1, S, D] (or [S, D]) not used yet becomes a token sequence C = D, H = S.
ValuePtr input_value(Importer& im, size_t k) {
  const ValuePtr v = im.input(k);
  if (v->kind == Value::Kind::kPending && v->dims.size() <= 3) {
    const size_t r = v->dims.size();
    if (r == 3 && v->dims[0] != 1) {
      im.fail("graph input '" + v->name + "' " + dims_list(v->dims) +
              " is a batch of token sequences (a token sequence input is [1, S, D] or [S, D])");
    }
    Tensor t;
    t.name = v->name;
    t.shape = TensorShape{1, v->dims.back(), r >= 2 ? v->dims[r - 2] : 1, 1};
    v->tensor = im.graph().add_tensor(t);
    v->kind = Value::Kind::kActivation;
    im.graph().inputs.push_back(v->tensor);
    v->cstride.assign(r, 0);
    v->pstride.assign(r, 0);
    v->cstride.back() = 1;
    if (r >= 2) v->pstride[r - 2] = 1;
  }
  if (v->kind == Value::Kind::kPending) im.activation(k);
  return v;
}

View plain_view(Importer& im, const ValuePtr& v) {
  View r;
  r.v = v;
  r.tensor = v->tensor;
  r.dims = v->dims;
  if (!v->cstride.empty()) {
    r.cs = v->cstride, r.ps = v->pstride;
    return r;
  }
  const TensorShape& s = im.graph().tensors[r.tensor].shape;
  r.cs.assign(r.rank(), 0);
  r.ps.assign(r.rank(), 0);
  if (r.rank() >= 2) r.cs[1] = 1;
  if (r.rank() >= 3) r.ps[2] = r.rank() >= 4 ? s.w : 1;
  if (r.rank() >= 4) r.ps[3] = 1;
  return r;
}

CView compound_view(const ValuePtr& v) {
  CView c;
  c.v = v;
  c.tensor = v->tensor;
  c.dims = v->dims;
  size_t at = 0;
  for (int64_t n : v->parts) {
    std::vector<SubAxis> axis;
    for (int64_t j = 0; j < n; ++j, ++at) {
      axis.push_back({v->sub_dims[at], v->sub_cs[at], v->sub_ps[at]});
    }
    c.axes.push_back(axis);
  }
  return c;
}

}  // namespace

// The strides of an activation value: its own, or those of the canonical NCHW reading of its
// dims; a compound view is copied into its natural layout first (once: the value becomes the
// copy's view).
View view_value(Importer& im, ValuePtr v) {
  v = unwrap(im, v);
  if (!v->parts.empty()) {
    const View copy = token_layout(im, compound_view(v), "/copy");
    v->tensor = copy.tensor;
    v->cstride = copy.cs, v->pstride = copy.ps;
    v->parts.clear(), v->sub_dims.clear(), v->sub_cs.clear(), v->sub_ps.clear();
  }
  return plain_view(im, v);
}

View view_of(Importer& im, size_t k) { return view_value(im, input_value(im, k)); }

CView as_cview(const View& v) {
  CView c;
  c.v = v.v;
  c.tensor = v.tensor;
  c.dims = v.dims;
  for (size_t k = 0; k < v.rank(); ++k) c.axes.push_back({{v.dims[k], v.cs[k], v.ps[k]}});
  return c;
}

bool as_view(const CView& c, View* v) {
  for (const std::vector<SubAxis>& a : c.axes) {
    if (a.size() != 1) return false;
  }
  if (v) {
    *v = View();
    v->v = c.v;
    v->tensor = c.tensor;
    v->dims = c.dims;
    for (const std::vector<SubAxis>& a : c.axes) v->cs.push_back(a[0].cs), v->ps.push_back(a[0].ps);
  }
  return true;
}

CView cview_value(Importer& im, ValuePtr v) {
  v = unwrap(im, v);
  return v->parts.empty() ? as_cview(plain_view(im, v)) : compound_view(v);
}

CView cview_of(Importer& im, size_t k) { return cview_value(im, input_value(im, k)); }

void bind_cview(Importer& im, size_t out, CView c) {
  bool simple = true;
  for (std::vector<SubAxis>& axis : c.axes) {
    // Sub-axes of size 1 dropped, an outer sub-axis continuing its inner neighbour merged.
    std::vector<SubAxis> kept;
    for (const SubAxis& a : axis) {
      if (a.size == 1) continue;
      if (!kept.empty()) {
        const SubAxis& outer = kept.back();
        if (outer.cs == a.cs * a.size && outer.ps == a.ps * a.size) {
          kept.back() = {outer.size * a.size, a.cs, a.ps};
          continue;
        }
      }
      kept.push_back(a);
    }
    if (kept.empty()) kept.push_back({1, 0, 0});
    axis = kept;
    simple = simple && axis.size() == 1;
  }
  auto v = std::make_shared<Value>();
  v->kind = Value::Kind::kActivation;
  v->tensor = c.tensor;
  v->dims = c.dims;
  if (simple) {
    for (const std::vector<SubAxis>& axis : c.axes) {
      v->cstride.push_back(axis[0].cs), v->pstride.push_back(axis[0].ps);
    }
  } else {
    for (const std::vector<SubAxis>& axis : c.axes) {
      v->parts.push_back(static_cast<int64_t>(axis.size()));
      for (const SubAxis& a : axis) {
        v->sub_dims.push_back(a.size), v->sub_cs.push_back(a.cs), v->sub_ps.push_back(a.ps);
      }
    }
  }
  im.bind(out, v);
}

void bind_view(Importer& im, size_t out, int tensor, std::vector<int64_t> dims,
               std::vector<int64_t> cs, std::vector<int64_t> ps) {
  auto v = std::make_shared<Value>();
  v->kind = Value::Kind::kActivation;
  v->tensor = tensor;
  v->dims = std::move(dims);
  v->cstride = std::move(cs);
  v->pstride = std::move(ps);
  im.bind(out, v);
}

ValuePtr make_pattern(Importer& im, int pattern, ValuePtr source) {
  auto v = std::make_shared<Value>();
  v->kind = Value::Kind::kPattern;
  v->pattern = pattern;
  v->source = std::move(source);
  v->dims = v->source->dims;
  v->name = im.node().output(0);
  return v;
}

size_t axis_of(Importer& im, int64_t axis, size_t rank) {
  return static_cast<size_t>(normalise_axis(im, axis, rank));
}

// The view as [G, rows, cols] with cols on channels (stride 1), rows on positions (stride 1,
// all of them) and the remaining axes (G) as channel groups of cols channels each. False when
// the view is not in that form.
bool grouped_form(Importer& im, const View& v, size_t row, size_t col, int64_t* groups) {
  const TensorShape& s = im.graph().tensors[v.tensor].shape;
  if (v.dims[col] > 1 && (v.cs[col] != 1 || v.ps[col] != 0)) return false;
  if (v.dims[row] > 1 && (v.ps[row] != 1 || v.cs[row] != 0)) return false;
  if (v.dims[row] != s.h * s.w) return false;
  int64_t stride = v.dims[col];
  for (size_t k = v.rank(); k-- > 0;) {
    if (k == row || k == col || v.dims[k] == 1) continue;
    if (v.cs[k] != stride || v.ps[k] != 0) return false;
    stride *= v.dims[k];
  }
  *groups = stride / v.dims[col];
  return stride == s.c;
}

std::vector<int64_t> grouped_strides(const std::vector<int64_t>& dims, std::vector<int64_t>* ps) {
  const size_t r = dims.size();
  std::vector<int64_t> cs(r, 0);
  ps->assign(r, 0);
  int64_t stride = 1;
  for (size_t k = r; k-- > 0;) {
    if (k == r - 2) {
      (*ps)[k] = 1;
      continue;
    }
    cs[k] = dims[k] == 1 ? 0 : stride;
    stride *= dims[k];
  }
  return cs;
}

// The last axis runs over all channels of the tensor (stride 1), every other axis over positions.
bool channels_last(Importer& im, const View& v) {
  if (v.cs.back() != 1 || v.ps.back() != 0) return false;
  if (im.graph().tensors[v.tensor].shape.c != v.dims.back()) return false;
  for (size_t k = 0; k + 1 < v.rank(); ++k) {
    if (v.dims[k] > 1 && v.cs[k] != 0) return false;
  }
  return true;
}

bool channels_last(Importer& im, const CView& v) {
  const std::vector<SubAxis>& last = v.axes.back();
  if (last.size() != 1 || last[0].cs != 1 || last[0].ps != 0) return false;
  if (im.graph().tensors[v.tensor].shape.c != v.dims.back()) return false;
  for (size_t k = 0; k + 1 < v.rank(); ++k) {
    for (const SubAxis& a : v.axes[k]) {
      if (a.size > 1 && a.cs != 0) return false;
    }
  }
  return true;
}

// Emits `n` (single output) and binds output 0 as a view with the given strides.
int emit_view(Importer& im, Node n, std::vector<int64_t> dims, std::vector<int64_t> cs,
              std::vector<int64_t> ps) {
  im.emit(std::move(n));
  const int t = im.graph().nodes.back().outputs[0];
  bind_view(im, 0, t, std::move(dims), std::move(cs), std::move(ps));
  return t;
}

// Adds `n` with one output tensor named after the ONNX node's output + `suffix` (an intermediate
// the ONNX graph does not name) and returns that tensor.
int add_node_output(Importer& im, Node n, const std::string& suffix) {
  Tensor t;
  t.name = im.node().output(0) + suffix;
  n.outputs = {im.graph().add_tensor(t)};
  im.graph().tensors[n.outputs[0]].shape = infer_output_shapes(im.graph(), n)[0];
  const int out = n.outputs[0];
  im.graph().add_node(std::move(n));
  return out;
}

// Producer node of IR tensor `t` (or nullptr).
Node* producer(Importer& im, int t) {
  for (auto it = im.graph().nodes.rbegin(); it != im.graph().nodes.rend(); ++it) {
    for (int o : it->outputs) {
      if (o == t) return &*it;
    }
  }
  return nullptr;
}

// A scalar Mul / Div of an activation read as a score (attention's 1 / sqrt(d)) folds into the
// output factor of the conv, fc or MatMul that produced it (Node::output_factor), which the
// float reference and the calibrated requantisation apply.
void absorb_scalar(Importer& im, const ValuePtr& x, double factor) {
  Node* prod = producer(im, x->tensor);
  if (!prod || (prod->op != OpType::kConv && prod->op != OpType::kFullyConnected &&
                prod->op != OpType::kMatMul)) {
    im.fail("scalar scale of '" + x->name + "' must follow a convolution, Linear or MatMul");
  }
  prod->output_factor *= factor;
}

// Input k when it is a constant. A graph input not used yet is a parameter (export_params=False)
// when another input of the node is already known.
ValuePtr const_or_null(Importer& im, size_t k) {
  const ValuePtr v = im.input(k);
  if (v->kind == Value::Kind::kPending) {
    for (size_t j = 0; j < im.num_inputs(); ++j) {
      if (j != k && im.has_input(j) && im.input(j)->kind != Value::Kind::kPending) {
        return im.constant(k);
      }
    }
  }
  return v->kind == Value::Kind::kConstant ? v : nullptr;
}

bool scalar_near(const ValuePtr& c, double x) {
  return c && c->has_data && c->elements() == 1 && std::fabs(c->data[0] - x) < 1e-3 * std::fabs(x);
}

// A constant [.., S, S] mask with data: true where key n > query m (the future) and only there.
bool causal_mask(const Value& c, bool additive) {
  if (!c.has_data || c.dims.size() < 2) return false;
  const int64_t s = c.dims.back();
  if (c.dims[c.dims.size() - 2] != s || c.elements() != s * s) return false;
  for (int64_t m = 0; m < s; ++m) {
    for (int64_t n = 0; n < s; ++n) {
      const double x = c.data[m * s + n];
      const bool masked = additive ? x < -1e3 : x != 0;
      if (masked != (n > m)) return false;
      if (additive && !masked && x != 0) return false;
    }
  }
  return true;
}

}  // namespace onnx_import
}  // namespace strider
