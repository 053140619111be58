#include "planner/import/onnx_token_view.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>

namespace strider {
namespace onnx_import {

bool is_view(const ValuePtr& v) {
  return v->kind == Value::Kind::kActivation && !v->cstride.empty();
}

namespace {

// The pieces of a view (one) or of a kPieces pattern; false for anything else.
bool pieces_of(Importer& im, const ValuePtr& v, std::vector<Value::Piece>* out) {
  if (v->kind == Value::Kind::kPattern && v->pattern == kPieces) {
    *out = v->pieces;
    return true;
  }
  if (v->kind != Value::Kind::kActivation) return false;
  const View x = view_value(im, v);
  Value::Piece p;
  p.tensor = x.tensor, p.dims = x.dims, p.cstride = x.cs, p.pstride = x.ps;
  p.at.assign(x.rank(), 0);
  out->assign(1, p);
  return true;
}

void bind_pieces(Importer& im, std::vector<Value::Piece> pieces, std::vector<int64_t> dims) {
  auto v = std::make_shared<Value>();
  v->kind = Value::Kind::kPattern;
  v->pattern = kPieces;
  v->pieces = std::move(pieces);
  v->dims = std::move(dims);
  v->name = im.node().output(0);
  im.bind(0, v);
}

// A kPieces pattern copied into its natural layout (one kGather), turning `v` into the plain
// view of the copy for every later reader.
void assemble(Importer& im, const ValuePtr& v) {
  std::vector<int64_t> cs, ps;
  TensorShape shape;
  natural_layout(v->dims, &cs, &ps, &shape);
  const int64_t out_plane = shape.h * shape.w;
  int source = -1;
  Node n = im.new_node(OpType::kGather);
  n.name = v->name + "/assemble";
  n.gather_shape = shape;
  for (const Value::Piece& p : v->pieces) {
    if (source >= 0 && p.tensor != source) {
      im.fail("'" + v->name + "' joins slices of several tensors (supported: slices and concats "
              "of one tensor, as torch.roll and patch merging)");
    }
    source = p.tensor;
    const TensorShape& in = im.graph().tensors[p.tensor].shape;
    std::vector<CopyAxis> axes;
    int64_t dst = 0;
    for (size_t k = 0; k < p.dims.size(); ++k) {
      const int64_t d = cs[k] * out_plane + ps[k];
      axes.push_back({p.dims[k], p.cstride[k] * in.h * in.w + p.pstride[k], d});
      dst += p.at[k] * d;
    }
    for (const GatherBlock& b : copy_blocks(std::move(axes), p.offset, dst)) n.gather.push_back(b);
  }
  n.inputs = {source};
  Tensor t;
  t.name = v->name;
  n.outputs = {im.graph().add_tensor(t)};
  im.graph().tensors[n.outputs[0]].shape = infer_output_shapes(im.graph(), n)[0];
  v->kind = Value::Kind::kActivation;
  v->tensor = n.outputs[0];
  v->cstride = cs, v->pstride = ps;
  v->pieces.clear();
  v->pattern = kNone;
  im.graph().add_node(std::move(n));
}

}  // namespace

bool slice_pieces(Importer& im, const std::vector<int64_t>& starts,
                  const std::vector<int64_t>& ends, const std::vector<int64_t>& axes,
                  const std::vector<int64_t>& steps) {
  const ValuePtr x = im.input(0);
  std::vector<Value::Piece> pieces;
  if (!pieces_of(im, x, &pieces)) return false;
  std::vector<int64_t> dims = x->dims;
  for (size_t j = 0; j < axes.size(); ++j) {
    const size_t k = axis_of(im, axes[j], dims.size());
    const int64_t n = dims[k], step = steps.empty() ? 1 : steps[j];
    if (step < 1) return false;
    const int64_t b = std::clamp<int64_t>(starts[j] < 0 ? starts[j] + n : starts[j], 0, n);
    const int64_t e = std::clamp<int64_t>(ends[j] < 0 ? ends[j] + n : ends[j], 0, n);
    if (e <= b) im.fail("empty slice [" + std::to_string(b) + ", " + std::to_string(e) + ")");
    const int64_t count = (e - b + step - 1) / step;
    std::vector<Value::Piece> kept;
    for (Value::Piece p : pieces) {
      const TensorShape& in = im.graph().tensors[p.tensor].shape;
      const int64_t stride = p.cstride[k] * in.h * in.w + p.pstride[k];
      if (step != 1) {  // strided: only of a piece covering the whole axis
        if (p.at[k] != 0 || p.dims[k] != n) return false;
        p.offset += b * stride;
        p.dims[k] = count;
        p.cstride[k] *= step, p.pstride[k] *= step;
        kept.push_back(p);
        continue;
      }
      const int64_t lo = std::max(b, p.at[k]), hi = std::min(e, p.at[k] + p.dims[k]);
      if (hi <= lo) continue;
      p.offset += (lo - p.at[k]) * stride;
      p.dims[k] = hi - lo;
      p.at[k] = lo - b;
      kept.push_back(p);
    }
    pieces = std::move(kept);
    dims[k] = count;
  }
  bind_pieces(im, std::move(pieces), std::move(dims));
  return true;
}

bool concat_pieces(Importer& im, size_t axis) {
  std::vector<Value::Piece> all;
  std::vector<int64_t> dims;
  for (size_t i = 0; i < im.num_inputs(); ++i) {
    const ValuePtr x = im.input(i);
    std::vector<Value::Piece> pieces;
    if (!pieces_of(im, x, &pieces)) return false;
    if (i == 0) {
      dims = x->dims;
      dims[axis] = 0;
    }
    if (x->dims.size() != dims.size()) return false;
    for (Value::Piece& p : pieces) {
      p.at[axis] += dims[axis];
      all.push_back(p);
    }
    dims[axis] += x->dims[axis];
  }
  bind_pieces(im, std::move(all), std::move(dims));
  return true;
}

// The strides of an activation value: its own, or those of the canonical NCHW reading of its
// dims. A scaled or masked score stands for the scores themselves; pieces are assembled.
View view_value(Importer& im, ValuePtr v) {
  View r;
  if (v->kind == Value::Kind::kPattern && v->pattern == kPieces) assemble(im, v);
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
    v = v->source;    // the scale is absorbed by the producer (Node::output_factor)
    if (factor != 1.0) absorb_scalar(im, v, factor);
  }
  if (v->kind != Value::Kind::kActivation) im.fail("input '" + v->name + "' must be an activation");
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

// Input k as a view; a graph input [1, S, D] (or [S, D]) becomes a token sequence C = D, H = S.
View view_of(Importer& im, size_t k) {
  const ValuePtr v = im.input(k);
  if (v->kind == Value::Kind::kPending && v->dims.size() <= 3) {
    const size_t r = v->dims.size();
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
  return view_value(im, v);
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

int gather_copy(Importer& im, int tensor, std::vector<CopyAxis> axes, const TensorShape& shape,
                const std::string& suffix) {
  Node n = im.new_node(OpType::kGather);
  n.name += suffix;
  n.inputs = {tensor};
  n.gather_shape = shape;
  n.gather = copy_blocks(std::move(axes));
  return add_node_output(im, std::move(n), suffix);
}

void natural_layout(const std::vector<int64_t>& dims, std::vector<int64_t>* cs,
                    std::vector<int64_t>* ps, TensorShape* shape) {
  const size_t r = dims.size();
  cs->assign(r, 0), ps->assign(r, 0);
  (*cs)[r - 1] = 1;
  int64_t stride = 1;
  for (size_t k = r - 1; k-- > 0;) (*ps)[k] = dims[k] == 1 ? 0 : stride, stride *= dims[k];
  *shape = TensorShape{1, dims[r - 1], stride, 1};
  if (r == 4 && dims[0] == 1) *shape = TensorShape{1, dims[3], dims[1], dims[2]};
}

View token_layout(Importer& im, const View& v, const std::string& suffix) {
  std::vector<int64_t> cs, ps;
  TensorShape shape;
  natural_layout(v.dims, &cs, &ps, &shape);
  return materialise(im, v, std::move(cs), std::move(ps), shape, suffix);
}

namespace {

void grouped_target(const View& v, bool transposed, std::vector<int64_t>* cs,
                    std::vector<int64_t>* ps, TensorShape* shape) {
  const size_t r = v.rank();
  std::vector<int64_t> dims = v.dims;
  if (transposed) std::swap(dims[r - 1], dims[r - 2]);
  *cs = grouped_strides(dims, ps);
  if (transposed) std::swap((*cs)[r - 1], (*cs)[r - 2]), std::swap((*ps)[r - 1], (*ps)[r - 2]);
  const int64_t rows = transposed ? v.dims[r - 1] : v.dims[r - 2];
  *shape = TensorShape{1, product(v.dims, 0, r) / rows, rows, 1};
}

std::vector<CopyAxis> copy_axes(Importer& im, const View& v, const std::vector<int64_t>& dcs,
                                const std::vector<int64_t>& dps, const TensorShape& shape) {
  const TensorShape& in = im.graph().tensors[v.tensor].shape;
  const int64_t in_plane = in.h * in.w, out_plane = shape.h * shape.w;
  std::vector<CopyAxis> axes;
  for (size_t k = 0; k < v.rank(); ++k) {
    axes.push_back({v.dims[k], v.cs[k] * in_plane + v.ps[k], dcs[k] * out_plane + dps[k]});
  }
  return axes;
}

}  // namespace

View grouped_layout(Importer& im, const View& v, bool transposed, const std::string& suffix) {
  std::vector<int64_t> cs, ps;
  TensorShape shape;
  grouped_target(v, transposed, &cs, &ps, &shape);
  return materialise(im, v, std::move(cs), std::move(ps), shape, suffix);
}

View materialise(Importer& im, const View& v, std::vector<int64_t> dcs, std::vector<int64_t> dps,
                 const TensorShape& shape, const std::string& suffix) {
  View r = v;
  r.tensor = gather_copy(im, v.tensor, copy_axes(im, v, dcs, dps, shape), shape, suffix);
  r.cs = std::move(dcs), r.ps = std::move(dps);
  r.v = nullptr;
  return r;
}

size_t copy_block_count(Importer& im, const View& v, bool transposed) {
  std::vector<int64_t> cs, ps;
  TensorShape shape;
  grouped_target(v, transposed, &cs, &ps, &shape);
  return copy_blocks(copy_axes(im, v, cs, ps, shape)).size();
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
