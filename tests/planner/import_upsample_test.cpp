// Upsampling imports. Resize (planner/import/onnx_ops_resize.cpp): nearest as a kGather whose
// blocks the DMA moves, bilinear x2 as that gather (with a replicated border) + a depthwise conv
// with the fixed-point kernel, checked against ONNX's formulas computed here. ConvTranspose
// (onnx_ops_conv_transpose.cpp): the stacked sub-convolutions + an interleaving gather, checked
// against the scatter form. Refusals name the node and the attribute. Models are built in memory
// with the ONNX protobuf.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "planner/import/onnx_importer.h"
#include "planner/ir/graph.h"
#include "planner/quant/float_reference.h"
#include "tests/lib/error_text.h"

namespace strider {
namespace {

onnx::TensorProto floats(const std::string& name, std::vector<int64_t> dims,
                         const std::vector<float>& v) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t.add_dims(d);
  for (float f : v) t.add_float_data(f);
  return t;
}

// x [1, C, H, W] -> node `op` named 'up' (inputs x then `inputs`, attributes set by `attrs`)
// -> y [1, C', H', W'], opset 13, with initializers `inits`.
template <typename Attrs>
std::string one_node_model(const std::string& op, std::vector<int64_t> x, std::vector<int64_t> y,
                           const std::vector<std::string>& inputs,
                           const std::vector<onnx::TensorProto>& inits, Attrs attrs) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name(op);
  auto value = [](onnx::ValueInfoProto* v, const std::string& name, std::vector<int64_t> dims) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
  };
  value(g->add_input(), "x", x);
  value(g->add_output(), "y", y);
  for (const onnx::TensorProto& t : inits) *g->add_initializer() = t;
  onnx::NodeProto* n = g->add_node();
  n->set_op_type(op);
  n->set_name("up");
  n->add_input("x");
  for (const std::string& i : inputs) n->add_input(i);
  n->add_output("y");
  attrs(n);
  return m.SerializeAsString();
}

void string_attr(onnx::NodeProto* n, const std::string& name, const std::string& v) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

void ints_attr(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t i : v) a->add_ints(i);
}

// x [1, C, H, W] -> Resize(scales [1, 1, sh, sw]) -> y.
std::string resize_model(int64_t c, int64_t h, int64_t w, float sh, float sw,
                         const std::string& mode, const std::string& ct_mode) {
  return one_node_model("Resize", {1, c, h, w}, {1, c, int64_t(h * sh), int64_t(w * sw)},
                        {"", "scales"}, {floats("scales", {4}, {1, 1, sh, sw})},
                        [&](onnx::NodeProto* n) {
                          string_attr(n, "mode", mode);
                          string_attr(n, "coordinate_transformation_mode", ct_mode);
                        });
}

std::vector<float> run_float(const Graph& g, const std::vector<float>& x) {
  FloatReference ref(g, std::vector<std::pair<float, float>>(g.nodes.size(), {0.0f, 0.0f}), 1);
  ref.set_input(g.inputs.at(0), x);
  ref.run();
  return ref.value(g.outputs.at(0));
}

std::vector<float> ramp(size_t n) {
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = float(i % 11) * 0.5f - 2.0f;
  return x;
}

TEST(ImportResize, NearestX2IsAGatherOfStridedBlocks) {
  const Graph g = import_onnx_bytes(resize_model(2, 3, 4, 2, 2, "nearest", "asymmetric"), "m");
  ASSERT_EQ(g.nodes.size(), 1u);
  const Node& n = g.nodes[0];
  EXPECT_EQ(n.op, OpType::kGather);
  EXPECT_EQ(g.tensors[n.outputs[0]].shape, (TensorShape{1, 2, 6, 8}));
  // One block per row phase and column phase: 2 x 2 = 4 blocks, each the 2 x 3 input rows
  // (both channels: 3 rows of 4 continue into the next channel's plane of 12, 3 output rows 16
  // apart into the next plane of 48) of 4 elements read contiguously and written to every 2nd
  // output column. The phased cut would take 2 x 6 x 2 = 24 blocks, one per pixel 48.
  ASSERT_EQ(n.gather.size(), 4u);
  // Row phase 1, column phase 1: from input (0, 0) to output (1, 1), 6 rows of 4.
  EXPECT_EQ(n.gather[3], (GatherBlock{0, 1 * 8 + 1, 6, 4, 4, 16, 2}));
  const std::vector<float> x = ramp(2 * 3 * 4), y = run_float(g, x);
  ASSERT_EQ(y.size(), 2u * 6 * 8);
  for (int c = 0; c < 2; ++c) {
    for (int oy = 0; oy < 6; ++oy) {
      for (int ox = 0; ox < 8; ++ox) {
        EXPECT_EQ(y[size_t((c * 6 + oy) * 8 + ox)], x[size_t((c * 3 + oy / 2) * 4 + ox / 2)]);
      }
    }
  }
}

// ONNX's linear Resize of one axis, half_pixel: x_in = (o + 0.5) / scale - 0.5, clamped.
void linear_taps(int64_t o, int64_t in, double scale, int64_t* i0, int64_t* i1, double* f) {
  const double x = std::max(0.0, (double(o) + 0.5) / scale - 0.5);
  *i0 = std::min<int64_t>(int64_t(std::floor(x)), in - 1);
  *i1 = std::min<int64_t>(*i0 + 1, in - 1);
  *f = x - double(*i0);
}

TEST(ImportResize, BilinearX2IsAGatherAndAFixedPointDepthwiseConv) {
  const Graph g = import_onnx_bytes(resize_model(3, 4, 5, 2, 2, "linear", "half_pixel"), "m");
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].op, OpType::kGather);
  // The nearest x2 copy with one replicated element on each side: (8 + 2) x (10 + 2).
  EXPECT_EQ(g.tensors[g.nodes[0].outputs[0]].shape, (TensorShape{1, 3, 10, 12}));
  // Strided blocks: each axis is its border index, 2 phases of the x2 copy between, and the
  // other border (4 phases); the 2 x 4 blocks of the 2 border rows take the 3 channels as their
  // rows, the 2 x 4 of the inner phases (4 rows of 5 continue into the next plane of 20, but 4
  // rows 24 apart do not reach the next copy plane of 120) one per channel: 8 + 24 = 32 moves,
  // against 10 x 8 = 80 runs of consecutive columns per row across the channels.
  const std::vector<GatherBlock>& blocks = g.nodes[0].gather;
  ASSERT_EQ(blocks.size(), 32u);
  EXPECT_EQ(blocks[0].rows, 3);  // copy row 0, column 0: input (0, 0) of each channel
  EXPECT_EQ(blocks[0].src_stride, 20);
  EXPECT_EQ(blocks[0].dst_stride, 120);
  // The phases from copy row 1 and column 1, channel 0: input (0, 0) to copy (1, 1), 4 rows of
  // 5 elements, written every 2nd column of every 2nd row.
  EXPECT_EQ(blocks[4 + 3 * 1 + 0], (GatherBlock{0, 1 * 12 + 1, 4, 5, 5, 24, 2}));
  const Node& conv = g.nodes[1];
  EXPECT_EQ(conv.op, OpType::kConv);
  EXPECT_EQ(conv.groups, 3);
  EXPECT_EQ(conv.kernel_h, 3);
  EXPECT_EQ(conv.kernel_w, 3);
  EXPECT_EQ(conv.pad_top + conv.pad_left + conv.pad_bottom + conv.pad_right, 0);
  // [1, 2, 1] x [1, 2, 1] in int8 at scale 1/16 (exact: the model's own weight scale).
  const Tensor& w = g.tensors[size_t(conv.weights)];
  EXPECT_EQ(w.data, (std::vector<int8_t>{1, 2, 1, 2, 4, 2, 1, 2, 1, 1, 2, 1, 2, 4,
                                         2, 1, 2, 1, 1, 2, 1, 2, 4, 2, 1, 2, 1}));
  EXPECT_EQ(w.channel_scales, (std::vector<double>{1.0 / 16, 1.0 / 16, 1.0 / 16}));
  EXPECT_EQ(g.tensors[g.nodes[1].outputs[0]].shape, (TensorShape{1, 3, 8, 10}));
  const std::vector<float> x = ramp(3 * 4 * 5), y = run_float(g, x);
  ASSERT_EQ(y.size(), 3u * 8 * 10);
  for (int64_t c = 0; c < 3; ++c) {
    for (int64_t oy = 0; oy < 8; ++oy) {
      for (int64_t ox = 0; ox < 10; ++ox) {
        int64_t y0, y1, x0, x1;
        double fy, fx;
        linear_taps(oy, 4, 2.0, &y0, &y1, &fy);
        linear_taps(ox, 5, 2.0, &x0, &x1, &fx);
        const auto at = [&](int64_t r, int64_t q) {
          return double(x[size_t((c * 4 + r) * 5 + q)]);
        };
        const double want = (1 - fy) * ((1 - fx) * at(y0, x0) + fx * at(y0, x1)) +
                            fy * ((1 - fx) * at(y1, x0) + fx * at(y1, x1));
        EXPECT_NEAR(y[size_t((c * 8 + oy) * 10 + ox)], want, 1e-5) << c << " " << oy << " " << ox;
      }
    }
  }
}

std::string refusal(const std::string& model) {
  return error_text([&] { import_onnx_bytes(model, "m.onnx"); });
}

TEST(ImportResize, RefusalsNameTheNodeAndTheAttribute) {
  EXPECT_EQ(refusal(resize_model(1, 4, 4, 2, 2, "cubic", "half_pixel")),
            "m.onnx: node 'up' (Resize): attribute 'mode' is 'cubic': only 'nearest' and "
            "'linear' are supported");
  EXPECT_EQ(refusal(resize_model(1, 4, 4, 3, 3, "linear", "half_pixel")),
            "m.onnx: node 'up' (Resize): linear Resize of H from 4 to 12 (scale 3) is not "
            "supported: only scales 1 and 2 (use mode 'nearest' for others)");
  EXPECT_EQ(refusal(resize_model(1, 4, 4, 2, 2, "linear", "align_corners")),
            "m.onnx: node 'up' (Resize): attribute 'coordinate_transformation_mode' is "
            "'align_corners' with mode 'linear': supported are half_pixel, pytorch_half_pixel "
            "and asymmetric");
  EXPECT_EQ(refusal(resize_model(1, 4, 4, 2, 2, "nearest", "tf_crop_and_resize")),
            "m.onnx: node 'up' (Resize): attribute 'coordinate_transformation_mode' is "
            "'tf_crop_and_resize': supported are half_pixel, pytorch_half_pixel, align_corners, "
            "asymmetric, tf_half_pixel_for_nn and half_pixel_symmetric");
}

// ConvTranspose [1, 2, 4, 5] -> [1, 3, H', W'] with seeded weights and bias, checked against the
// scatter form computed here: y[o][iy s - pad + ky][ix s - pad + kx] += x[ci][iy][ix]
// w[ci][o][ky][kx].
void check_conv_transpose(int64_t k, int64_t s, int64_t pad, int64_t out_pad, size_t nodes) {
  const int64_t ci = 2, co = 3, h = 4, w = 5;
  const int64_t oh = s * (h - 1) + out_pad + k - 2 * pad, ow = s * (w - 1) + out_pad + k - 2 * pad;
  std::vector<float> wt(size_t(ci * co * k * k)), bias = {0.25f, -0.5f, 0.125f};
  for (size_t i = 0; i < wt.size(); ++i) wt[i] = float(int(i * 7 % 9) - 4) / 8.0f;
  const Graph g =
      import_onnx_bytes(one_node_model("ConvTranspose", {1, ci, h, w}, {1, co, oh, ow}, {"w", "b"},
                                       {floats("w", {ci, co, k, k}, wt), floats("b", {co}, bias)},
                                       [&](onnx::NodeProto* n) {
                                         ints_attr(n, "strides", {s, s});
                                         ints_attr(n, "pads", {pad, pad, pad, pad});
                                         ints_attr(n, "output_padding", {out_pad, out_pad});
                                       }),
                        "m.onnx");
  ASSERT_EQ(g.nodes.size(), nodes);
  EXPECT_EQ(g.nodes[0].op, OpType::kConv);
  EXPECT_EQ(g.nodes[0].kernel_h, (k + s - 1) / s);  // ceil(k / s) taps per phase
  EXPECT_EQ(g.tensors[g.nodes[0].outputs[0]].shape.c, co * s * s);
  EXPECT_EQ(g.tensors[g.outputs[0]].shape, (TensorShape{1, co, oh, ow}));
  const std::vector<float> x = ramp(size_t(ci * h * w)), y = run_float(g, x);
  std::vector<double> want(size_t(co * oh * ow));
  for (int64_t o = 0; o < co; ++o) {
    for (int64_t i = 0; i < oh * ow; ++i) want[size_t(o * oh * ow + i)] = bias[size_t(o)];
  }
  for (int64_t c = 0; c < ci; ++c) {
    for (int64_t o = 0; o < co; ++o) {
      for (int64_t iy = 0; iy < h; ++iy) {
        for (int64_t ix = 0; ix < w; ++ix) {
          for (int64_t ky = 0; ky < k; ++ky) {
            for (int64_t kx = 0; kx < k; ++kx) {
              const int64_t yy = iy * s - pad + ky, xx = ix * s - pad + kx;
              if (yy < 0 || yy >= oh || xx < 0 || xx >= ow) continue;
              want[size_t((o * oh + yy) * ow + xx)] += double(x[size_t((c * h + iy) * w + ix)]) *
                                                       wt[size_t(((c * co + o) * k + ky) * k + kx)];
            }
          }
        }
      }
    }
  }
  ASSERT_EQ(y.size(), want.size());
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], want[i], 1e-4) << i;
}

TEST(ImportConvTranspose, StridedIsStackedSubConvolutionsAndAnInterleave) {
  check_conv_transpose(4, 2, 1, 0, 2);  // FPN / DCGAN's k 4, s 2, pad 1: 2 x 2 taps per phase
  check_conv_transpose(3, 2, 1, 1, 2);  // k 3, s 2, output_padding 1: phases of 2 and 1 taps
  check_conv_transpose(2, 2, 0, 0, 2);  // k 2, s 2: one tap per phase
  check_conv_transpose(3, 3, 0, 0, 2);
}

TEST(ImportConvTranspose, StrideOneIsOneConvWithTheFlippedKernel) {
  check_conv_transpose(3, 1, 0, 0, 1);
  check_conv_transpose(3, 1, 1, 0, 1);
}

TEST(ImportConvTranspose, RefusalsNameTheAttribute) {
  const auto model = [](const std::string& attr, std::vector<int64_t> v) {
    return one_node_model("ConvTranspose", {1, 2, 4, 4}, {1, 2, 8, 8}, {"w"},
                          {floats("w", {2, 1, 2, 2}, std::vector<float>(8, 0.5f))},
                          [&](onnx::NodeProto* n) {
                            ints_attr(n, "strides", {2, 2});
                            if (attr == "group") {
                              onnx::AttributeProto* a = n->add_attribute();
                              a->set_name("group"), a->set_type(onnx::AttributeProto::INT);
                              a->set_i(v[0]);
                            } else {
                              ints_attr(n, attr, v);
                            }
                          });
  };
  EXPECT_EQ(refusal(model("group", {2})),
            "m.onnx: node 'up' (ConvTranspose): attribute 'group' is 2: only 1 is supported");
  EXPECT_EQ(refusal(model("dilations", {2, 2})),
            "m.onnx: node 'up' (ConvTranspose): attribute 'dilations' is [2, 2]: only [1, 1] is "
            "supported");
  EXPECT_EQ(refusal(model("output_padding", {2, 2})),
            "m.onnx: node 'up' (ConvTranspose): attribute 'output_padding' [2, 2] (expected 0 to "
            "stride - 1)");
}

}  // namespace
}  // namespace strider
