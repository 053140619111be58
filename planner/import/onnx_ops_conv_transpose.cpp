// ONNX importer: ConvTranspose (2-D, group 1, dilation 1) as its s_h x s_w sub-convolutions
// stacked as the output channels of ONE stride-1 conv on the line buffer, then a kGather that
// interleaves the phases into the output (depth-to-space, moved by the DMA).
//
// Output row oy of a transposed conv with stride s and top pad p reads, with t = oy + p, phase
// a = t mod s and q = floor(t / s), the input rows q - m through kernel rows a + s m (m >= 0,
// a + s m < k): a stride-1 correlation over the input with the phase's kernel rows flipped,
// M = ceil(k / s) taps (a phase with fewer taps gets zero weights). All phases share the input
// window, so they are one conv with s_h s_w Cout output channels (channel (a s_w + b) Cout + o),
// kernel M_h x M_w, pads M - 1 - floor(p / s) before and floor((output_padding + k - 1 - p_end)
// / s) after: the seed's positions mapping with shifted writes, as any conv.
//
// Why not zero insertion (an s-upsample with zeros, then a stride-1 conv with the flipped
// k x k kernel): the neurons would multiply the inserted zeros. Per input pixel that is s_h s_w
// k_h k_w Cin Cout MACs against s_h s_w M_h M_w Cin Cout here: for the common k 4, s 2 (and k 2,
// s 2) the sub-convolutions do 4x fewer MACs, for k 3, s 2 16 against 36 — and zero insertion
// needs a zero-filled buffer s_h s_w times the input that the DMA must write. Both are exact in
// int8 (the same products), so the cheaper one is taken.
//
// Refused naming the attribute: group != 1, dilations != 1, rank other than 4, quantised
// (DequantizeLinear) weights, pads that drop a whole kernel (a pad >= the kernel).
#include <algorithm>
#include <string>
#include <vector>

#include "planner/import/onnx_gather.h"
#include "planner/import/onnx_import_context.h"
#include "planner/import/onnx_resample.h"

namespace strider {
namespace onnx_import {
namespace {

// One spatial axis of the decomposition.
struct AxisPlan {
  int64_t in = 1, out = 1, k = 1, s = 1, pad = 0, pad_end = 0;
  int64_t taps = 1;  // M = ceil(k / s)
  int64_t q0 = 0;    // the first input index an output reads: floor(pad / s)
  int64_t conv_pad = 0, conv_pad_end = 0, conv_out = 1;
};

AxisPlan plan_axis(Importer& im, const char* name, int64_t in, int64_t k, int64_t s, int64_t pad,
                   int64_t pad_end, int64_t out_pad) {
  AxisPlan a;
  a.in = in, a.k = k, a.s = s, a.pad = pad, a.pad_end = pad_end;
  a.out = s * (in - 1) + out_pad + k - pad - pad_end;
  if (a.out < 1) {
    im.fail("output " + std::string(name) + " would be " + std::to_string(a.out) + " (input " +
            std::to_string(in) + ", kernel " + std::to_string(k) + ", stride " + std::to_string(s) +
            ", pads " + std::to_string(pad) + " / " + std::to_string(pad_end) +
            ", output_padding " + std::to_string(out_pad) + ")");
  }
  if (pad >= k || pad_end >= k + out_pad) {
    im.fail("attribute 'pads' " + std::to_string(pad) + " / " + std::to_string(pad_end) + " on " +
            name + " reach past the kernel (" + std::to_string(k) + "): not supported");
  }
  a.taps = (k + s - 1) / s;
  a.q0 = pad / s;
  a.conv_pad = a.taps - 1 - a.q0;
  a.conv_pad_end = (out_pad + k - 1 - pad_end) / s;
  a.conv_out = in + a.conv_pad + a.conv_pad_end - a.taps + 1;
  return a;
}

// The 2 values of spatial attribute `name` (default `def`), refused when it is not 2 values.
std::vector<int64_t> pair_attr(Importer& im, const std::string& name, int64_t def, size_t n = 2) {
  std::vector<int64_t> v = im.attr_ints(name);
  if (v.empty()) v.assign(n, def);
  if (v.size() != n) {
    im.fail("attribute '" + name + "' has " + std::to_string(v.size()) + " values, expected " +
            std::to_string(n));
  }
  return v;
}

}  // namespace

void import_conv_transpose(Importer& im) {
  const ValuePtr xv = im.input(0);
  if (xv->dims.size() != 4) {
    im.fail("ConvTranspose of a rank " + std::to_string(xv->dims.size()) +
            " tensor is not supported (only 2-D, NCHW)");
  }
  const ValuePtr w = im.constant(1);
  if (w->dims.size() != 4) {
    im.fail("weights '" + w->name + "' have rank " + std::to_string(w->dims.size()) +
            ", only 2-D transposed convolutions (rank 4) are supported");
  }
  const int64_t group = im.attr_int("group", 1);
  if (group != 1)
    im.fail("attribute 'group' is " + std::to_string(group) + ": only 1 is supported");
  const std::vector<int64_t> dil = pair_attr(im, "dilations", 1);
  if (dil[0] != 1 || dil[1] != 1) {
    im.fail("attribute 'dilations' is " + dims_list(dil) + ": only [1, 1] is supported");
  }
  if (!w->quant_scales.empty()) im.fail("quantised (DequantizeLinear) weights are not supported");
  const int64_t cin = xv->dims[1], h = xv->dims[2], wd = xv->dims[3];
  if (w->dims[0] != cin) {
    im.fail("weights '" + w->name + "' " + dims_list(w->dims) + " do not match the input's " +
            std::to_string(cin) + " channels");
  }
  const int64_t cout = w->dims[1], kh = w->dims[2], kw = w->dims[3];
  const std::vector<int64_t> ks = pair_attr(im, "kernel_shape", 0);
  if ((ks[0] != 0 && ks[0] != kh) || (ks[1] != 0 && ks[1] != kw)) {
    im.fail("attribute 'kernel_shape' " + dims_list(ks) + " does not match the weights " +
            dims_list(w->dims));
  }
  const std::vector<int64_t> st = pair_attr(im, "strides", 1);
  const std::vector<int64_t> op = pair_attr(im, "output_padding", 0);
  std::vector<int64_t> pads = pair_attr(im, "pads", 0, 4);
  for (int64_t v : st) {
    if (v < 1 || v > 64) im.fail("attribute 'strides' " + dims_list(st) + " (expected 1 to 64)");
  }
  for (size_t i = 0; i < 2; ++i) {
    if (op[i] < 0 || op[i] >= st[i]) {
      im.fail("attribute 'output_padding' " + dims_list(op) + " (expected 0 to stride - 1)");
    }
  }
  // auto_pad and output_shape give the pads (ONNX's total_padding rule).
  const std::string auto_pad = im.attr_string("auto_pad", "NOTSET");
  std::vector<int64_t> out_shape = im.attr_ints("output_shape");
  if (out_shape.size() == 4) out_shape = {out_shape[2], out_shape[3]};
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" &&
      auto_pad != "SAME_LOWER") {
    im.fail("attribute 'auto_pad' is '" + auto_pad + "'");
  }
  if (auto_pad == "VALID") pads = {0, 0, 0, 0};
  if (out_shape.empty() && (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER")) {
    out_shape = {h * st[0], wd * st[1]};
  }
  if (!out_shape.empty()) {
    if (out_shape.size() != 2) {
      im.fail("attribute 'output_shape' " + dims_list(out_shape) + " (expected 2 or 4 values)");
    }
    const int64_t in[2] = {h, wd}, k[2] = {kh, kw};
    for (size_t i = 0; i < 2; ++i) {
      const int64_t total = st[i] * (in[i] - 1) + op[i] + k[i] - out_shape[i];
      if (total < 0) {
        im.fail("attribute 'output_shape' " + dims_list(out_shape) +
                " is larger than the transposed conv gives without pads");
      }
      const bool upper = auto_pad == "SAME_UPPER";
      pads[i] = upper ? total / 2 : total - total / 2;
      pads[i + 2] = total - pads[i];
    }
  }
  const AxisPlan ph = plan_axis(im, "H", h, kh, st[0], pads[0], pads[2], op[0]);
  const AxisPlan pw = plan_axis(im, "W", wd, kw, st[1], pads[1], pads[3], op[1]);
  const int64_t phases = ph.s * pw.s, conv_c = phases * cout;

  // The stacked sub-convolutions.
  Node n = im.new_node(OpType::kConv);
  n.name += "/phases";
  n.inputs = {im.activation(0)};
  n.kernel_h = static_cast<int>(ph.taps), n.kernel_w = static_cast<int>(pw.taps);
  n.pad_top = static_cast<int>(ph.conv_pad), n.pad_bottom = static_cast<int>(ph.conv_pad_end);
  n.pad_left = static_cast<int>(pw.conv_pad), n.pad_right = static_cast<int>(pw.conv_pad_end);
  std::vector<double> weights, bias;
  const std::vector<double>* wdata = w->has_data ? &w->data : nullptr;
  if (wdata != nullptr) {
    weights.assign(size_t(conv_c * cin * ph.taps * pw.taps), 0.0);
    for (int64_t a = 0; a < ph.s; ++a) {
      for (int64_t b = 0; b < pw.s; ++b) {
        for (int64_t o = 0; o < cout; ++o) {
          const int64_t oc = (a * pw.s + b) * cout + o;
          for (int64_t ci = 0; ci < cin; ++ci) {
            for (int64_t j = 0; j < ph.taps; ++j) {
              for (int64_t l = 0; l < pw.taps; ++l) {
                const int64_t ky = a + ph.s * (ph.taps - 1 - j), kx = b + pw.s * (pw.taps - 1 - l);
                if (ky >= kh || kx >= kw) continue;
                weights[size_t(((oc * cin + ci) * ph.taps + j) * pw.taps + l)] =
                    (*wdata)[size_t(((ci * cout + o) * kh + ky) * kw + kx)];
              }
            }
          }
        }
      }
    }
  }
  n.weights = im.add_weights(".weight", TensorShape{conv_c, cin, ph.taps, pw.taps},
                             wdata != nullptr ? &weights : nullptr);
  if (im.has_input(2)) {
    const ValuePtr bv = im.constant(2);
    if (bv->elements() != cout) {
      im.fail("bias '" + bv->name + "' has " + std::to_string(bv->elements()) +
              " values, expected " + std::to_string(cout));
    }
    if (bv->has_data) {
      for (int64_t p = 0; p < phases; ++p)
        bias.insert(bias.end(), bv->data.begin(), bv->data.end());
    }
    n.bias = im.add_bias(conv_c, bv->has_data ? &bias : nullptr);
  }
  if (phases == 1) {  // stride 1: the conv with the flipped kernel writes the output as it is
    n.name = im.node_name();
    im.emit(n, 4);
    return;
  }
  const int conv = add_node_output(im, std::move(n), "/phases");

  // The interleave: output (o, oy, ox) from channel (a s_w + b) Cout + o, row q - q0, column
  // r - r0 of the conv, a and q the phase and quotient of oy + pad_top (b, r of ox + pad_left).
  const int64_t plane = ph.conv_out * pw.conv_out;
  std::vector<int64_t> row_off, col_off;
  for (int64_t oy = 0; oy < ph.out; ++oy) {
    const int64_t t = oy + ph.pad;
    row_off.push_back((t % ph.s) * pw.s * cout * plane + (t / ph.s - ph.q0) * pw.conv_out);
  }
  for (int64_t ox = 0; ox < pw.out; ++ox) {
    const int64_t t = ox + pw.pad;
    col_off.push_back((t % pw.s) * cout * plane + (t / pw.s - pw.q0));
  }
  Node g = im.new_node(OpType::kGather);
  g.name += "/interleave";
  g.inputs = {conv};
  g.gather_shape = TensorShape{1, cout, ph.out, pw.out};
  g.gather = resample_blocks(cout, plane, row_off, col_off);
  im.emit(g, 4);
}

}  // namespace onnx_import
}  // namespace strider
