// ONNX importer: Resize (opsets 10-21; Upsample of opsets 7-9 arrives as Resize, converted by
// ONNX's version converter) of the H and W axes of an NCHW activation, with constant scales or
// sizes.
//
// Nearest (every nearest_mode, coordinate_transformation_mode half_pixel, pytorch_half_pixel,
// align_corners, asymmetric, tf_half_pixel_for_nn, half_pixel_symmetric) is pure data movement:
// each output element is one input element, so it becomes a kGather whose 2-D blocks the DMA
// moves L2 -> L2 (what an accelerator without an interpolation unit does: an upsample is an
// address pattern, not arithmetic). Exact in int8 and in float by construction.
//
// Linear (bilinear on H, W) with a scale of 1 or 2 per axis and half_pixel / pytorch_half_pixel /
// asymmetric coordinates becomes the same gather (a nearest x2 upsample with one replicated
// border element, which is the edge clamping of the ONNX formula) followed by a depthwise conv on
// the neurons with a fixed kernel, per axis [1, 2, 1] / 4 (half_pixel: out[2i] = x[i-1]/4 +
// 3x[i]/4, out[2i+1] = 3x[i]/4 + x[i+1]/4 read off the nearest copy u as u[p-1]/4 + u[p]/2 +
// u[p+1]/4) or [1, 1] / 2 (asymmetric: out[2i] = x[i], out[2i+1] = (x[i] + x[i+1]) / 2). The
// weights are fixed point with a power-of-two scale (int8 values 1, 2, 4 at scale 1/16, given as
// the weights' own scale so quantisation keeps them exact): the int8 result is the conv's
// requantisation of the exact integer sum. Other scales, cubic, align_corners for linear,
// tf_crop_and_resize, antialias, axes other than H and W and keep_aspect_ratio_policy other than
// stretch are refused naming the node and the attribute or input.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "planner/import/onnx_gather.h"
#include "planner/import/onnx_import_context.h"
#include "planner/import/onnx_resample.h"

namespace strider {
namespace onnx_import {

namespace {

// The smallest period p of `off` whose step off[i + p] - off[i] is one constant *step >= 1 for
// every i; off.size() when there is none.
int64_t period(const std::vector<int64_t>& off, int64_t* step) {
  const int64_t n = int64_t(off.size());
  for (int64_t p = 1; p < n; ++p) {
    *step = off[size_t(p)] - off[0];
    bool ok = *step >= 1;
    for (int64_t i = 0; ok && i + p < n; ++i) ok = off[size_t(i + p)] - off[size_t(i)] == *step;
    if (ok) return p;
  }
  *step = 0;
  return n;
}

// One phase of an axis for the strided cut: `count` output indices from `first`, `every` apart,
// reading input offsets `step` apart.
struct Phase {
  int64_t first = 0, count = 1, every = 1, step = 0;
};

// An axis as phases: the smallest period with a constant step >= 1 of the run [lo, hi) that
// gives the fewest phases, trimming at most one index at each end (the replicated border of the
// bilinear's copy), each trimmed index a phase of its own. Empty when no run has a period.
std::vector<Phase> axis_phases(const std::vector<int64_t>& off) {
  const int64_t n = int64_t(off.size());
  std::vector<Phase> best;
  for (int64_t lo = 0; lo <= 1; ++lo) {
    for (int64_t hi = n; hi >= n - 1; --hi) {
      if (hi - lo < 2) continue;
      const std::vector<int64_t> core(off.begin() + lo, off.begin() + hi);
      int64_t step = 0;
      const int64_t p = period(core, &step);
      if (p >= hi - lo) continue;
      std::vector<Phase> out;
      if (lo == 1) out.push_back(Phase{0, 1, 1, 0});
      for (int64_t ph = 0; ph < p; ++ph)
        out.push_back(Phase{lo + ph, (hi - lo - ph + p - 1) / p, p, step});
      if (hi == n - 1) out.push_back(Phase{n - 1, 1, 1, 0});
      if (best.empty() || out.size() < best.size()) best = std::move(out);
    }
  }
  return best;
}

// The strided cut: per row phase and column phase (axis_phases) one block of the phase's rows,
// each row read contiguously (its columns' step is 1) and written to every `every`-th output
// element (GatherBlock::dst_step); all channels in one block when their planes continue the
// rows' strides (a single row: always). Empty when an axis has no phases or a column phase
// reads non-consecutive elements.
std::vector<GatherBlock> strided_blocks(int64_t channels, int64_t in_plane,
                                        const std::vector<int64_t>& row_off,
                                        const std::vector<int64_t>& col_off) {
  const int64_t ow = int64_t(col_off.size()), plane = int64_t(row_off.size()) * ow;
  const std::vector<Phase> rows = axis_phases(row_off), cols = axis_phases(col_off);
  if (rows.empty() || cols.empty()) return {};
  std::vector<GatherBlock> out;
  for (const Phase& r : rows) {
    for (const Phase& c : cols) {
      if (c.count > 1 && c.step != 1) return {};
      GatherBlock b;
      b.rows = r.count, b.row_len = c.count;
      b.src = row_off[size_t(r.first)] + col_off[size_t(c.first)], b.dst = r.first * ow + c.first;
      b.src_stride = b.rows > 1 ? r.step : 0, b.dst_stride = b.rows > 1 ? r.every * ow : 0;
      b.dst_step = c.count > 1 ? c.every : 1;
      if (b.rows > 1 && b.src_stride < b.row_len) return {};
      const bool merge =
          channels > 1 &&
          (b.rows == 1 || (b.rows * r.step == in_plane && b.rows * r.every * ow == plane));
      if (merge) {
        b.src_stride = b.rows == 1 ? in_plane : r.step;
        b.dst_stride = b.rows == 1 ? plane : r.every * ow;
        b.rows *= channels;
        out.push_back(b);
        continue;
      }
      for (int64_t ch = 0; ch < channels; ++ch) {
        GatherBlock bc = b;
        bc.src += ch * in_plane, bc.dst += ch * plane;
        out.push_back(bc);
      }
    }
  }
  return out;
}

}  // namespace

std::vector<GatherBlock> resample_blocks(int64_t channels, int64_t in_plane,
                                         const std::vector<int64_t>& row_off,
                                         const std::vector<int64_t>& col_off) {
  const int64_t oh = int64_t(row_off.size()), ow = int64_t(col_off.size()), plane = oh * ow;
  std::vector<GatherBlock> runs;
  for (int64_t y = 0; y < oh; ++y) {
    for (int64_t x = 0; x < ow;) {
      int64_t len = 1;
      while (x + len < ow && col_off[size_t(x + len)] == col_off[size_t(x)] + len) ++len;
      GatherBlock b;
      b.src = row_off[size_t(y)] + col_off[size_t(x)];
      b.dst = y * ow + x;
      b.rows = channels, b.row_len = len;
      b.src_stride = channels > 1 ? in_plane : 0, b.dst_stride = channels > 1 ? plane : 0;
      runs.push_back(b);
      x += len;
    }
  }
  std::vector<GatherBlock> strided = strided_blocks(channels, in_plane, row_off, col_off);
  if (!strided.empty() && strided.size() < runs.size()) runs = std::move(strided);
  // The smallest period p with a constant source step d >= 1 between columns p apart.
  int64_t d = 0;
  const int64_t p = period(col_off, &d);
  if (p >= ow || channels * oh * p >= int64_t(runs.size())) return runs;
  std::vector<GatherBlock> phased;
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t y = 0; y < oh; ++y) {
      for (int64_t ph = 0; ph < p; ++ph) {
        GatherBlock b;
        b.src = c * in_plane + row_off[size_t(y)] + col_off[size_t(ph)];
        b.dst = c * plane + y * ow + ph;
        b.rows = (ow - ph + p - 1) / p, b.row_len = 1;
        b.src_stride = b.rows > 1 ? d : 0, b.dst_stride = b.rows > 1 ? p : 0;
        phased.push_back(b);
      }
    }
  }
  return phased;
}

namespace {

std::string num(double v) {
  std::string s = std::to_string(v);
  while (s.size() > 1 && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

// One resized axis (H or W): input length, output length and the scale the coordinate transform
// uses (the given scale, or output / input when sizes are given).
struct Axis {
  int64_t in = 1, out = 1;
  double scale = 1.0;
  const char* name = "H";
};

// The input coordinate of output index o (ONNX Resize's coordinate_transformation_mode).
double source_coordinate(const std::string& mode, const Axis& a, int64_t o) {
  const double x = static_cast<double>(o), in = static_cast<double>(a.in);
  if (mode == "asymmetric") return x / a.scale;
  if (mode == "align_corners") return a.out == 1 ? 0.0 : x * (in - 1) / double(a.out - 1);
  if (mode == "tf_half_pixel_for_nn") return (x + 0.5) / a.scale;
  if (mode == "pytorch_half_pixel") return a.out > 1 ? (x + 0.5) / a.scale - 0.5 : 0.0;
  if (mode == "half_pixel_symmetric") {
    const double adjustment = double(a.out) / (a.scale * in);
    return in / 2 * (1 - adjustment) + (x + 0.5) / a.scale - 0.5;
  }
  return (x + 0.5) / a.scale - 0.5;  // half_pixel
}

// Nearest input index of output index o, clamped to the input.
int64_t nearest_index(Importer& im, const std::string& ct_mode, const std::string& nearest_mode,
                      const Axis& a, int64_t o) {
  const double x = source_coordinate(ct_mode, a, o), f = std::floor(x), frac = x - f;
  int64_t i = static_cast<int64_t>(f);
  if (nearest_mode == "floor") {
  } else if (nearest_mode == "ceil") {
    i += frac > 0 ? 1 : 0;
  } else if (nearest_mode == "round_prefer_ceil") {
    i += frac >= 0.5 ? 1 : 0;
  } else if (nearest_mode == "round_prefer_floor") {
    i += frac > 0.5 ? 1 : 0;
  } else {
    im.fail("attribute 'nearest_mode' is '" + nearest_mode +
            "' (expected round_prefer_floor, round_prefer_ceil, floor or ceil)");
  }
  return std::min(std::max<int64_t>(i, 0), a.in - 1);
}

// Linear interpolation weights of one axis (scale 1 or 2) over the gathered copy: the copy's
// index map (output index -> input index, with the kernel's extra border) and the kernel.
void linear_axis(Importer& im, const std::string& ct_mode, const Axis& a, std::vector<int64_t>* map,
                 std::vector<int>* kernel) {
  map->clear();
  if (a.out == a.in) {  // scale 1: an identity axis
    for (int64_t i = 0; i < a.in; ++i) map->push_back(i);
    *kernel = {1};
    return;
  }
  if (a.out != 2 * a.in || a.scale != 2.0) {
    im.fail("linear Resize of " + std::string(a.name) + " from " + std::to_string(a.in) + " to " +
            std::to_string(a.out) + " (scale " + num(a.scale) +
            ") is not supported: only scales 1 and 2 (use mode 'nearest' for others)");
  }
  const auto clamp = [&](int64_t i) { return std::min(std::max<int64_t>(i, 0), a.in - 1); };
  // The nearest x2 copy u[p] = x[p / 2]; half_pixel reads u[p - 1 .. p + 1], asymmetric u[p, p +
  // 1].
  const bool half = ct_mode == "half_pixel" || ct_mode == "pytorch_half_pixel";
  if (half) {
    for (int64_t q = 0; q < a.out + 2; ++q) map->push_back(clamp((q - 1 + 2) / 2 - 1));
    *kernel = {1, 2, 1};
  } else {
    for (int64_t q = 0; q < a.out + 1; ++q) map->push_back(clamp(q / 2));
    *kernel = {1, 1};
  }
}

// Input row indices as element offsets of rows `w` long.
std::vector<int64_t> rows(std::vector<int64_t> index, int64_t w) {
  for (int64_t& i : index) i *= w;
  return index;
}

}  // namespace

void import_resize(Importer& im) {
  const std::string op = im.node().op_type();
  const std::vector<int64_t> dims = im.input(0)->dims;
  if (dims.size() != 4) {
    im.fail(op + " of a rank " + std::to_string(dims.size()) +
            " tensor is not supported (only NCHW, rank 4)");
  }
  const std::string mode = im.attr_string("mode", "nearest");
  // Resize-10 and Upsample (opsets 7-10, converted to opset 11 by ONNX's converter, which adds
  // no coordinate_transformation_mode) compute x_in = x_out / scale and floor it for nearest:
  // kept when the converted node has no such attribute (opset 11's default, half_pixel with
  // round_prefer_floor, differs for non-integer scales and for linear).
  const bool v10 = im.source_opset() >= 1 && im.source_opset() < 11 &&
                   !im.has_attr("coordinate_transformation_mode");
  const std::string ct_mode =
      im.attr_string("coordinate_transformation_mode", v10 ? "asymmetric" : "half_pixel");
  const std::string nearest_mode =
      im.attr_string("nearest_mode", v10 ? "floor" : "round_prefer_floor");
  if (mode != "nearest" && mode != "linear") {
    im.fail("attribute 'mode' is '" + mode + "': only 'nearest' and 'linear' are supported");
  }
  static const char* const kModes[] = {"half_pixel",           "pytorch_half_pixel",
                                       "align_corners",        "asymmetric",
                                       "tf_half_pixel_for_nn", "half_pixel_symmetric"};
  if (std::find(std::begin(kModes), std::end(kModes), ct_mode) == std::end(kModes)) {
    im.fail("attribute 'coordinate_transformation_mode' is '" + ct_mode +
            "': supported are half_pixel, pytorch_half_pixel, align_corners, asymmetric, "
            "tf_half_pixel_for_nn and half_pixel_symmetric");
  }
  if (im.attr_int("antialias", 0) != 0) im.fail("attribute 'antialias' 1 is not supported");
  const std::string policy = im.attr_string("keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch") {
    im.fail("attribute 'keep_aspect_ratio_policy' is '" + policy +
            "': only 'stretch' is supported");
  }
  // The axes resized: all four unless the attribute 'axes' (opset 18) names some.
  std::vector<int64_t> axes = im.attr_ints("axes");
  if (axes.empty()) axes = {0, 1, 2, 3};
  for (int64_t& a : axes) a = normalise_axis(im, a, 4);

  // Scales (input 2) or sizes (input 3), constants; the roi (input 1) matters only for
  // tf_crop_and_resize.
  std::vector<double> scales;
  std::vector<int64_t> sizes;
  if (im.has_input(2)) scales = im.constant_data(2)->data;
  if (im.has_input(3)) sizes = im.ints_input(3);
  if (!scales.empty() && !sizes.empty()) im.fail("both 'scales' and 'sizes' are given");
  if (scales.empty() && sizes.empty()) im.fail("neither 'scales' nor 'sizes' is given");
  const size_t given = scales.empty() ? sizes.size() : scales.size();
  if (given != axes.size()) {
    im.fail(std::string(scales.empty() ? "'sizes'" : "'scales'") + " has " + std::to_string(given) +
            " values for " + std::to_string(axes.size()) + " axes");
  }
  Axis h{dims[2], dims[2], 1.0, "H"}, w{dims[3], dims[3], 1.0, "W"};
  for (size_t k = 0; k < axes.size(); ++k) {
    const int64_t a = axes[k];
    const double s = scales.empty() ? double(sizes[k]) / double(dims[size_t(a)]) : scales[k];
    const int64_t out =
        scales.empty() ? sizes[k] : static_cast<int64_t>(std::floor(double(dims[size_t(a)]) * s));
    if (!(s > 0) || out < 1 || out > (int64_t{1} << 24)) {
      im.fail("axis " + std::to_string(a) + " would be resized from " +
              std::to_string(dims[size_t(a)]) + " to " + std::to_string(out) + " (scale " + num(s) +
              "): expected a positive size up to 16777216");
    }
    if (a < 2) {
      if (out != dims[size_t(a)]) {
        im.fail("resizing axis " + std::to_string(a) + " (" + (a == 0 ? "batch" : "channels") +
                ") is not supported (scale " + num(s) + "): only H and W");
      }
      continue;
    }
    Axis& ax = a == 2 ? h : w;
    ax.out = out, ax.scale = s;
  }
  const int64_t c = dims[1];
  const int x = im.activation(0);

  if (mode == "nearest") {
    std::vector<int64_t> ih, iw;
    for (int64_t o = 0; o < h.out; ++o)
      ih.push_back(nearest_index(im, ct_mode, nearest_mode, h, o));
    for (int64_t o = 0; o < w.out; ++o)
      iw.push_back(nearest_index(im, ct_mode, nearest_mode, w, o));
    Node n = im.new_node(OpType::kGather);
    n.inputs = {x};
    n.gather_shape = TensorShape{1, c, h.out, w.out};
    n.gather = resample_blocks(c, h.in * w.in, rows(ih, w.in), iw);
    im.emit(n, 4);
    return;
  }

  if (ct_mode != "half_pixel" && ct_mode != "pytorch_half_pixel" && ct_mode != "asymmetric") {
    im.fail("attribute 'coordinate_transformation_mode' is '" + ct_mode +
            "' with mode 'linear': supported are half_pixel, pytorch_half_pixel and asymmetric");
  }
  std::vector<int64_t> ih, iw;
  std::vector<int> kh, kw;
  linear_axis(im, ct_mode, h, &ih, &kh);
  linear_axis(im, ct_mode, w, &iw, &kw);
  Node g = im.new_node(OpType::kGather);
  g.name += "/nearest";
  g.inputs = {x};
  g.gather_shape = TensorShape{1, c, int64_t(ih.size()), int64_t(iw.size())};
  g.gather = resample_blocks(c, h.in * w.in, rows(ih, w.in), iw);
  const int copy = add_node_output(im, std::move(g), "/nearest");

  Node n = im.new_node(OpType::kConv);
  n.inputs = {copy};
  n.groups = static_cast<int>(c);
  n.kernel_h = static_cast<int>(kh.size());
  n.kernel_w = static_cast<int>(kw.size());
  int sum = 0;
  std::vector<double> weights;
  for (int64_t ch = 0; ch < c; ++ch) {
    for (int a : kh) {
      for (int b : kw) weights.push_back(a * b);
    }
  }
  for (int a : kh) {
    for (int b : kw) sum += a * b;
  }
  for (double& v : weights) v /= sum;
  n.weights = im.add_weights(".interpolation", TensorShape{c, 1, n.kernel_h, n.kernel_w}, &weights);
  Value scale;  // the kernel's fixed point: int8 value / sum, exact
  scale.name = im.node().output(0) + ".interpolation";
  scale.dims = {c, 1, n.kernel_h, n.kernel_w};
  scale.quant_scales = {1.0 / sum};
  im.take_weight_scales(n.weights, scale, 0);
  im.emit(n, 4);
}

}  // namespace onnx_import
}  // namespace strider
