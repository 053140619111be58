// ONNX importer: compute ops (Conv, MaxPool, AveragePool, GlobalAveragePool, ReduceMean, Gemm,
// MatMul, BatchNormalization).
#include <algorithm>
#include <cmath>

#include "planner/import/onnx_import_context.h"

namespace strider {
namespace onnx_import {
namespace {

// Largest kernel, stride, dilation or pad accepted (keeps int arithmetic far from overflow).
constexpr int64_t kMaxAttribute = int64_t{1} << 24;

// Two spatial values of attribute `name` (default `def` each).
void spatial_pair(Importer& im, const std::string& name, int def, int* h, int* w) {
  const std::vector<int64_t> v = im.attr_ints(name);
  if (v.empty()) {
    *h = *w = def;
    return;
  }
  if (v.size() != 2) {
    im.fail("attribute '" + name + "' " + dims_list(v) +
            " must have 2 values (only 2-D is supported)");
  }
  for (int64_t x : v) {
    if (x < 1 || x > kMaxAttribute) {
      im.fail("attribute '" + name + "' " + dims_list(v) + " must hold values in [1, " +
              std::to_string(kMaxAttribute) + "]");
    }
  }
  *h = static_cast<int>(v[0]);
  *w = static_cast<int>(v[1]);
}

// Padding from pads / auto_pad once kernel, stride and dilation are set.
void window_pads(Importer& im, const TensorShape& in, Node* n) {
  const std::string auto_pad = im.attr_string("auto_pad", "NOTSET");
  if (auto_pad == "NOTSET") {
    const std::vector<int64_t> p = im.attr_ints("pads");
    if (p.empty()) return;
    if (p.size() != 4) im.fail("attribute 'pads' " + dims_list(p) + " must have 4 values");
    for (int64_t x : p) {
      if (x < 0 || x > kMaxAttribute) {
        im.fail("attribute 'pads' " + dims_list(p) + " must hold values in [0, " +
                std::to_string(kMaxAttribute) + "]");
      }
    }
    n->pad_top = static_cast<int>(p[0]);
    n->pad_left = static_cast<int>(p[1]);
    n->pad_bottom = static_cast<int>(p[2]);
    n->pad_right = static_cast<int>(p[3]);
    return;
  }
  if (auto_pad == "VALID") return;
  if (auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER") {
    im.fail("auto_pad '" + auto_pad + "' is not one of NOTSET, VALID, SAME_UPPER, SAME_LOWER");
  }
  if (n->stride_h < 1 || n->stride_w < 1 || n->dilation_h < 1 || n->dilation_w < 1) {
    im.fail("strides and dilations must be >= 1");
  }
  const bool upper = auto_pad == "SAME_UPPER";
  auto axis = [&](int64_t size, int k, int s, int d, int* begin, int* end) {
    const int64_t out = (size + s - 1) / s;
    const int64_t total = std::max<int64_t>(0, (out - 1) * s + int64_t(d) * (k - 1) + 1 - size);
    *begin = static_cast<int>(upper ? total / 2 : total - total / 2);
    *end = static_cast<int>(total - *begin);
  };
  axis(in.h, n->kernel_h, n->stride_h, n->dilation_h, &n->pad_top, &n->pad_bottom);
  axis(in.w, n->kernel_w, n->stride_w, n->dilation_w, &n->pad_left, &n->pad_right);
}

const TensorShape& shape_of(Importer& im, int tensor) { return im.graph().tensors[tensor].shape; }

}  // namespace

void import_conv(Importer& im) {
  Node n = im.new_node(OpType::kConv);
  n.inputs = {im.activation(0)};
  const ValuePtr w = im.constant(1);
  if (w->dims.size() != 4) {
    im.fail("weights '" + w->name + "' have rank " + std::to_string(w->dims.size()) +
            ", only 2-D convolutions (rank 4) are supported");
  }
  n.groups = static_cast<int>(im.attr_int("group", 1));
  spatial_pair(im, "kernel_shape", 0, &n.kernel_h, &n.kernel_w);
  if (n.kernel_h == 0) {
    n.kernel_h = static_cast<int>(w->dims[2]);
    n.kernel_w = static_cast<int>(w->dims[3]);
  }
  spatial_pair(im, "strides", 1, &n.stride_h, &n.stride_w);
  spatial_pair(im, "dilations", 1, &n.dilation_h, &n.dilation_w);
  window_pads(im, shape_of(im, n.inputs[0]), &n);
  n.weights = im.add_weights(".weight", shape_from_dims(w->dims), w->has_data ? &w->data : nullptr);
  im.take_weight_scales(n.weights, *w, 0);
  if (im.has_input(2)) {
    const ValuePtr b = im.constant(2);
    if (b->elements() != w->dims[0]) {
      im.fail("bias '" + b->name + "' has " + std::to_string(b->elements()) + " values, expected " +
              std::to_string(w->dims[0]));
    }
    n.bias = im.add_bias(w->dims[0], b->has_data ? &b->data : nullptr);
  }
  im.emit(n, 4);
}

void import_pool(Importer& im, bool max_pool) {
  if (max_pool && im.node().output_size() > 1 && im.consumers_of(im.node().output(1)) > 0) {
    im.fail("the Indices output is not supported");
  }
  Node n = im.new_node(max_pool ? OpType::kMaxPool : OpType::kAvgPool);
  n.inputs = {im.activation(0)};
  if (!im.has_attr("kernel_shape")) im.fail("attribute 'kernel_shape' is missing");
  spatial_pair(im, "kernel_shape", 1, &n.kernel_h, &n.kernel_w);
  spatial_pair(im, "strides", 1, &n.stride_h, &n.stride_w);
  int dh = 1, dw = 1;
  spatial_pair(im, "dilations", 1, &dh, &dw);
  if (dh != 1 || dw != 1) im.fail("pooling with dilation is not supported");
  window_pads(im, shape_of(im, n.inputs[0]), &n);
  n.ceil_mode = im.attr_int("ceil_mode", 0) != 0;
  if (!max_pool) n.count_include_pad = im.attr_int("count_include_pad", 0) != 0;
  im.emit(n, 4);
}

void import_global_pool(Importer& im) {
  Node n = im.new_node(OpType::kGlobalAvgPool);
  n.inputs = {im.activation(0)};
  im.emit(n, 4);
}

void import_reduce_mean(Importer& im) {
  Node n = im.new_node(OpType::kGlobalAvgPool);
  n.inputs = {im.activation(0)};
  const size_t rank = im.input(0)->dims.size();
  std::vector<int64_t> axes = im.attr_ints("axes");
  if (axes.empty() && im.has_input(1)) axes = im.ints_input(1);  // opset 18 form
  for (int64_t& a : axes) {
    if (a < 0) a += static_cast<int64_t>(rank);
  }
  std::sort(axes.begin(), axes.end());
  if (rank != 4 || axes != std::vector<int64_t>{2, 3}) {
    im.fail("only the mean over H and W of a 4-D tensor (axes [2, 3]) is supported, got axes " +
            dims_list(axes) + " of a rank " + std::to_string(rank) + " tensor");
  }
  im.emit(n, im.attr_int("keepdims", 1) != 0 ? 4 : 2);
}

namespace {

// Fully-connected node from activation input 0 and weights given as [K][N] (transpose true) or
// [N][K] values; bias optional (N values or a scalar).
void emit_fc(Importer& im, const ValuePtr& b, bool k_major, double alpha, const ValuePtr& bias,
             double beta) {
  Node n = im.new_node(OpType::kFullyConnected);
  n.inputs = {im.activation(0)};
  if (b->dims.size() != 2) {
    im.fail("weights '" + b->name + "' have rank " + std::to_string(b->dims.size()) +
            ", expected 2");
  }
  const int64_t k = k_major ? b->dims[0] : b->dims[1];
  const int64_t out = k_major ? b->dims[1] : b->dims[0];
  std::vector<double> w;
  if (b->has_data) {
    w.resize(static_cast<size_t>(k * out));
    for (int64_t o = 0; o < out; ++o) {
      for (int64_t i = 0; i < k; ++i) {
        w[o * k + i] = alpha * (k_major ? b->data[i * out + o] : b->data[o * k + i]);
      }
    }
  }
  n.weights = im.add_weights(".weight", TensorShape{out, k, 1, 1}, b->has_data ? &w : nullptr);
  if (!b->quant_scales.empty() && alpha != 1.0) {
    im.fail("alpha " + std::to_string(alpha) + " scales the quantised weights '" + b->name +
            "' (only alpha 1 keeps the model's int8 values)");
  }
  im.take_weight_scales(n.weights, *b, k_major ? 1 : 0);
  if (bias) {
    if (bias->elements() != out && bias->elements() != 1) {
      im.fail("bias '" + bias->name + "' has " + std::to_string(bias->elements()) +
              " values, expected " + std::to_string(out) + " or 1");
    }
    std::vector<double> c;
    if (bias->has_data) {
      for (int64_t o = 0; o < out; ++o)
        c.push_back(beta * bias->data[bias->elements() == 1 ? 0 : o]);
    }
    n.bias = im.add_bias(out, bias->has_data ? &c : nullptr);
  }
  im.emit(n, 2);
}

}  // namespace

void import_gemm(Importer& im) {
  if (im.attr_int("transA", 0) != 0) im.fail("transA = 1 is not supported");
  const ValuePtr a = im.input(0);
  if (!im.is_activation(0)) im.fail("input 0 '" + a->name + "' must be an activation");
  const ValuePtr b = im.constant(1);
  const ValuePtr c = im.has_input(2) ? im.constant(2) : nullptr;
  emit_fc(im, b, im.attr_int("transB", 0) == 0, im.attr_float("alpha", 1.0), c,
          im.attr_float("beta", 1.0));
}

void import_matmul(Importer& im) {
  if (!im.is_activation(0)) im.fail("the first operand must be an activation");
  if (im.is_activation(1)) {
    im.fail("MatMul of two activations is not supported (the second operand must be a constant)");
  }
  const size_t rank = im.input(0)->dims.size();
  if (rank != 2) {
    im.fail("the first operand has rank " + std::to_string(rank) +
            "; only [N, K] x [K, M] (a fully-connected layer) is supported");
  }
  emit_fc(im, im.constant(1), true, 1.0, nullptr, 1.0);
}

void import_batchnorm(Importer& im) {
  if (im.attr_int("training_mode", 0) != 0) im.fail("training_mode = 1 is not supported");
  for (int k = 1; k < im.node().output_size(); ++k) {
    if (im.consumers_of(im.node().output(k)) > 0)
      im.fail("running statistics outputs are not supported");
  }
  const int x = im.activation(0);
  const ValuePtr scale = im.constant(1), shift = im.constant(2), mean = im.constant(3),
                 var = im.constant(4);
  const int64_t channels = im.graph().tensors[x].shape.c;
  for (const ValuePtr& p : {scale, shift, mean, var}) {
    if (p->elements() != channels) {
      im.fail("parameter '" + p->name + "' has " + std::to_string(p->elements()) +
              " values, expected " + std::to_string(channels));
    }
  }
  const bool data = scale->has_data && shift->has_data && mean->has_data && var->has_data;
  const double eps = im.attr_float("epsilon", 1e-5);
  std::vector<double> mul(static_cast<size_t>(channels)), add(static_cast<size_t>(channels));
  if (data) {
    for (int64_t c = 0; c < channels; ++c) {
      mul[c] = scale->data[c] / std::sqrt(var->data[c] + eps);
      add[c] = shift->data[c] - mean->data[c] * mul[c];
    }
  }
  // Fold into the producing conv when it feeds only this BatchNormalization.
  Node* conv = nullptr;
  for (auto it = im.graph().nodes.rbegin(); it != im.graph().nodes.rend(); ++it) {
    if (it->outputs.size() == 1 && it->outputs[0] == x) {
      if (it->op == OpType::kConv && it->activation == Activation::kNone && !it->from_batchnorm &&
          im.consumers_of(im.node().input(0)) == 1) {
        conv = &*it;
      }
      break;
    }
  }
  if (conv) {
    if (im.has_imported_scales(conv->weights)) {
      im.fail("folds into conv '" + conv->name +
              "' whose weights carry the model's quantisation (DequantizeLinear); fold the batch "
              "norm into the conv before quantising");
    }
    std::vector<double>* w = im.float_data(conv->weights);
    std::vector<double>* b = conv->bias >= 0 ? im.float_data(conv->bias) : nullptr;
    const bool can_fold_data = data && w && (conv->bias < 0 || b);
    if (conv->bias < 0) conv->bias = im.add_bias(channels, nullptr, conv->name);
    if (can_fold_data) {
      const size_t per_channel = w->size() / static_cast<size_t>(channels);
      std::vector<double> folded_bias(static_cast<size_t>(channels));
      for (int64_t c = 0; c < channels; ++c) {
        for (size_t i = 0; i < per_channel; ++i) (*w)[c * per_channel + i] *= mul[c];
        folded_bias[c] = (b ? (*b)[c] : 0.0) * mul[c] + add[c];
      }
      im.set_float_data(conv->bias, folded_bias);
    } else {
      // Part of the parameters have no data: the folded conv gets pseudo-random parameters.
      im.drop_float_data(conv->weights);
      if (conv->bias >= 0) im.drop_float_data(conv->bias);
    }
    im.bind_alias(0, im.input(0));
    return;
  }
  Node n = im.new_node(OpType::kConv);
  n.inputs = {x};
  n.groups = static_cast<int>(channels);
  n.from_batchnorm = true;
  n.weights = im.add_weights(".weight", TensorShape{channels, 1, 1, 1}, data ? &mul : nullptr);
  n.bias = im.add_bias(channels, data ? &add : nullptr);
  im.emit(n);
}

}  // namespace onnx_import
}  // namespace strider
