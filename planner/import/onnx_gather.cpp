// ONNX importer: the data movement of Swin-style graphs (torchvision swin_t), as kGather copies
// (graph.h) of views (onnx_token_view.h) into fresh tensors, made only where an op cannot read
// its operand through strides:
//   - materialise / token_layout / grouped_layout / linear_layout: a view (or compound view,
//     onnx_token_view.h CView) copied into the layout an op needs (the window partition into
//     token layout, Q / K / V into the grouped layout of a MatMul, the attention output into
//     the windows' planar layout for the projection, so that the window reverse is a view);
//   - pieces: Slices along positions and Concats of them (torch.roll's Slice + Concat, patch
//     merging's stride-2 slices) collected as strided pieces of one tensor and assembled by one
//     copy when an op reads the value (view_value);
//   - emit_add_broadcast: a constant or parameter broadcast over some axes of the scores (the
//     relative position bias over the windows, the shifted-window mask over the heads) replicated
//     by a copy with source stride 0, then added element-wise.
// planner/ir/strided_copy.h cuts each copy into the 2-D blocks the DMA moves.
#include "planner/import/onnx_gather.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>

namespace strider {
namespace onnx_import {

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

namespace {

void grouped_target(const std::vector<int64_t>& v, bool transposed, std::vector<int64_t>* cs,
                    std::vector<int64_t>* ps, TensorShape* shape) {
  const size_t r = v.size();
  std::vector<int64_t> dims = v;
  if (transposed) std::swap(dims[r - 1], dims[r - 2]);
  *cs = grouped_strides(dims, ps);
  if (transposed) std::swap((*cs)[r - 1], (*cs)[r - 2]), std::swap((*ps)[r - 1], (*ps)[r - 2]);
  const int64_t rows = transposed ? v[r - 1] : v[r - 2];
  *shape = TensorShape{1, product(v, 0, r) / rows, rows, 1};
}

std::vector<std::vector<SubAxis>> simple_axes(const std::vector<int64_t>& dims,
                                              const std::vector<int64_t>& cs,
                                              const std::vector<int64_t>& ps) {
  std::vector<std::vector<SubAxis>> axes;
  for (size_t k = 0; k < dims.size(); ++k) axes.push_back({{dims[k], cs[k], ps[k]}});
  return axes;
}

// The copy of `v` into a tensor of `shape` whose logical axis k is the sub-axes dest[k]: both
// sides' sub-axes of an axis cut to a common refinement, innermost first.
std::vector<CopyAxis> copy_axes(Importer& im, const CView& v,
                                const std::vector<std::vector<SubAxis>>& dest,
                                const TensorShape& shape) {
  const TensorShape& in = im.graph().tensors[v.tensor].shape;
  const int64_t in_plane = in.h * in.w, out_plane = shape.h * shape.w;
  std::vector<CopyAxis> axes;
  for (size_t k = 0; k < v.rank(); ++k) {
    std::vector<SubAxis> src = v.axes[k], dst = dest[k];
    while (!src.empty() && !dst.empty()) {
      SubAxis& a = src.back();
      SubAxis& b = dst.back();
      const int64_t sa = a.cs * in_plane + a.ps, sb = b.cs * out_plane + b.ps;
      const int64_t n = std::min(a.size, b.size);
      if (a.size % n != 0 || b.size % n != 0) {
        im.fail("cannot copy " + dims_list(v.dims) + ": axis " + std::to_string(k) +
                " is cut differently on the two sides");
      }
      axes.push_back({n, sa, sb});
      a.size /= n, b.size /= n;
      a.cs *= n, a.ps *= n, b.cs *= n, b.ps *= n;
      if (a.size == 1) src.pop_back();
      if (b.size == 1) dst.pop_back();
    }
  }
  return axes;
}

CView materialise_into(Importer& im, const CView& v, std::vector<std::vector<SubAxis>> dest,
                       const TensorShape& shape, const std::string& suffix) {
  CView r = v;
  r.tensor = gather_copy(im, v.tensor, copy_axes(im, v, dest, shape), shape, suffix);
  r.axes = std::move(dest);
  r.v = nullptr;
  return r;
}

}  // namespace

View materialise(Importer& im, const CView& v, std::vector<int64_t> dcs, std::vector<int64_t> dps,
                 const TensorShape& shape, const std::string& suffix) {
  View r;
  as_view(materialise_into(im, v, simple_axes(v.dims, dcs, dps), shape, suffix), &r);
  return r;
}

View token_layout(Importer& im, const CView& v, const std::string& suffix) {
  std::vector<int64_t> cs, ps;
  TensorShape shape;
  natural_layout(v.dims, &cs, &ps, &shape);
  return materialise(im, v, std::move(cs), std::move(ps), shape, suffix);
}

void note_windows(Importer& im, const CView& v) {
  if (v.rank() < 2 || !channels_last(im, v)) return;
  Importer::WindowLayout w;
  for (size_t k = 0; k + 1 < v.rank(); ++k) {
    w.dims.push_back(v.dims[k]);
    w.parts.push_back(static_cast<int64_t>(v.axes[k].size()));
    for (const SubAxis& a : v.axes[k]) w.sub_dims.push_back(a.size), w.sub_ps.push_back(a.ps);
  }
  const TensorShape& s = im.graph().tensors[v.tensor].shape;
  w.h = s.h, w.w = s.w;
  if (product(w.dims, 0, w.dims.size()) == s.h * s.w) im.window_layouts().push_back(w);
}

CView linear_layout(Importer& im, const CView& v, const std::string& suffix) {
  const std::vector<int64_t> lead(v.dims.begin(), v.dims.end() - 1);
  for (auto it = im.window_layouts().rbegin(); it != im.window_layouts().rend(); ++it) {
    if (it->dims != lead) continue;
    std::vector<std::vector<SubAxis>> dest;
    size_t at = 0;
    for (int64_t n : it->parts) {
      std::vector<SubAxis> axis;
      for (int64_t j = 0; j < n; ++j, ++at) axis.push_back({it->sub_dims[at], 0, it->sub_ps[at]});
      dest.push_back(axis);
    }
    dest.push_back({{v.dims.back(), 1, 0}});
    return materialise_into(im, v, std::move(dest), TensorShape{1, v.dims.back(), it->h, it->w},
                            suffix);
  }
  return as_cview(token_layout(im, v, suffix));
}

View grouped_layout(Importer& im, const CView& v, bool transposed, const std::string& suffix) {
  std::vector<int64_t> cs, ps;
  TensorShape shape;
  grouped_target(v.dims, transposed, &cs, &ps, &shape);
  return materialise(im, v, std::move(cs), std::move(ps), shape, suffix);
}

size_t copy_block_count(Importer& im, const CView& v, bool transposed) {
  std::vector<int64_t> cs, ps;
  TensorShape shape;
  grouped_target(v.dims, transposed, &cs, &ps, &shape);
  return copy_blocks(copy_axes(im, v, simple_axes(v.dims, cs, ps), shape)).size();
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

}  // namespace

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

// True when constant dims `c` broadcast to `x` (numpy rules, c not of higher rank).
bool broadcasts_to(const std::vector<int64_t>& c, const std::vector<int64_t>& x) {
  if (c.size() > x.size()) return false;
  for (size_t k = 0; k < c.size(); ++k) {
    const int64_t d = c[c.size() - 1 - k];
    if (d != 1 && d != x[x.size() - 1 - k]) return false;
  }
  return true;
}

// Add of a tensor broadcast over some axes of the scores (Swin's relative position bias
// [1, heads, 49, 49] over the windows, its shifted-window mask [1, windows, 1, 49, 49] over the
// heads): the compact tensor is a network input read from DRAM, replicated in L2 into the
// scores' layout by a kGather (source stride 0 along the broadcast axes), then added
// element-wise (kAdd). A parameter without data takes its values from the run's seed; a
// constant with data (the mask: 0 or -100) keeps them (Tensor::float_data, which calibration
// uses instead of a calibration image; int8 at kActivationScale until then, -100 saturating to
// -128: a masked score sits at the bottom of the softmax's input range).
void emit_add_broadcast(Importer& im, const ValuePtr& x, const Value& c) {
  const View v = view_value(im, x);
  const TensorShape& xs = im.graph().tensors[v.tensor].shape;
  if (product(v.dims, 0, v.rank()) != xs.elements()) {
    im.fail("Add of " + dims_list(c.dims) + " to " + dims_list(v.dims) +
            ", a view of part of its tensor");
  }
  std::vector<int64_t> cdims(v.rank() - c.dims.size(), 1), ccs, cps;
  cdims.insert(cdims.end(), c.dims.begin(), c.dims.end());
  Tensor t;
  t.name = c.name;
  const bool full = cdims == v.dims && !c.has_data;  // learned, in the scores' own layout
  if (full) {
    t.shape = xs;
    ccs = v.cs, cps = v.ps;
  } else {
    natural_layout(cdims, &ccs, &cps, &t.shape);
  }
  const int64_t cplane = t.shape.h * t.shape.w, xplane = xs.h * xs.w;
  if (c.has_data) {
    t.data.resize(static_cast<size_t>(t.shape.elements()));
    t.float_data.resize(t.data.size());
    std::vector<int64_t> idx(cdims.size(), 0);
    for (size_t i = 0; i < c.data.size(); ++i) {
      int64_t at = 0;
      for (size_t k = 0; k < cdims.size(); ++k) at += idx[k] * (ccs[k] * cplane + cps[k]);
      const double q = std::round(c.data[i] * kActivationScale);
      t.float_data[size_t(at)] = static_cast<float>(c.data[i]);
      t.data[size_t(at)] = static_cast<int8_t>(std::clamp(q, -128.0, 127.0));
      for (size_t k = cdims.size(); k-- > 0;) {
        if (++idx[k] < cdims[k]) break;
        idx[k] = 0;
      }
    }
  }
  int compact = im.graph().find_tensor(c.name);
  if (compact < 0) {
    compact = im.graph().add_tensor(t);
    im.graph().inputs.push_back(compact);
  }
  int operand = compact;
  if (!full) {
    std::vector<CopyAxis> axes;
    for (size_t k = 0; k < v.rank(); ++k) {
      axes.push_back({v.dims[k], cdims[k] == 1 ? 0 : ccs[k] * cplane + cps[k],
                      v.cs[k] * xplane + v.ps[k]});
    }
    operand = gather_copy(im, compact, std::move(axes), xs, "/broadcast");
  }
  Node n = im.new_node(OpType::kAdd);
  n.inputs = {v.tensor, operand};
  emit_view(im, n, v.dims, v.cs, v.ps);
}

}  // namespace onnx_import
}  // namespace strider
