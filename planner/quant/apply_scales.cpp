#include "planner/quant/apply_scales.h"

#include <algorithm>
#include <cmath>

#include "core/contract/quant.h"
#include "core/contract/vector_math.h"
#include "planner/quant/quant_scales.h"

namespace strider {
namespace {

int32_t bound(double real, double scale, bool u8) {
  return int32_t(std::clamp<double>(std::round(real / scale), u8 ? 0 : -128, u8 ? 255 : 127));
}

}  // namespace

std::vector<std::pair<float, float>> real_clip_bounds(const Graph& g) {
  std::vector<std::pair<float, float>> b(g.nodes.size());
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    b[i] = {float(g.nodes[i].clip_min) / kActivationScale,
            float(g.nodes[i].clip_max) / kActivationScale};
  }
  return b;
}

void apply_scales(Graph* g) {
  const std::vector<std::pair<float, float>> clip_bounds = real_clip_bounds(*g);
  for (size_t i = 0; i < g->nodes.size(); ++i) {
    Node& n = g->nodes[i];
    if (n.outputs.empty() || n.inputs.empty()) continue;
    const double s_in = g->tensors[n.inputs[0]].scale, s_out = g->tensors[n.outputs[0]].scale;
    const bool u8 = n.op != OpType::kSoftmax && g->tensors[n.outputs[0]].is_unsigned;
    const bool pool = n.op == OpType::kMaxPool || n.op == OpType::kAvgPool;
    // A lookup activation's table input: the calibrated pre-activation scale (Node::lut.in,
    // calibrate()), or a pool's input scale; a swish's table writes the output scale.
    if (pool && is_lookup(n.activation)) n.lut.in = quantize_multiplier(s_in);
    if (n.activation == Activation::kHardSwish || n.activation == Activation::kSilu) {
      n.lut.out = quantize_multiplier(s_out);
    }
    const double s_pre = pool ? s_in : is_lookup(n.activation) ? lut_scale(n.lut.in) : s_out;
    // The requantisation's divisor: s_pre, over the output factor the importer folded in.
    const double div = s_pre / n.output_factor;
    double m = 0;
    switch (n.op) {
      case OpType::kConv:
      case OpType::kFullyConnected: {
        const Tensor& w = g->tensors[n.weights];
        // Per output channel: s_acc[o] = s_in x s_w[o]; one requantisation per channel when
        // the weights carry channel scales.
        const size_t out_c = w.channel_scales.size();
        std::vector<double> s_acc(std::max<size_t>(out_c, 1), s_in * w.scale);
        for (size_t o = 0; o < out_c; ++o) s_acc[o] = s_in * w.channel_scales[o];
        n.channel_requant.clear();
        for (size_t o = 0; o < out_c; ++o)
          n.channel_requant.push_back(quantize_multiplier(s_acc[o] / div));
        m = s_acc[0] / div;
        if (n.bias >= 0) {
          Tensor& b = g->tensors[n.bias];
          b.bias.resize(b.float_data.size());
          const std::vector<double>& shift = b.bias_shift;
          for (size_t k = 0; k < b.bias.size(); ++k) {
            const double s = s_acc[std::min(k, s_acc.size() - 1)];
            const double real = b.float_data[k] - (k < shift.size() ? shift[k] : 0.0);
            b.bias[k] = int32_t(std::clamp<double>(std::round(real / s), INT32_MIN, INT32_MAX));
          }
        }
        break;
      }
      case OpType::kAdd: {  // a x s_a / s_pre + b x s_b / s_pre, one shift (the larger's)
        const double ma = s_in / div, mb = g->tensors[n.inputs[1]].scale / div;
        const Requant r = quantize_multiplier(std::max(ma, mb));
        n.requant_multiplier = int32_t(std::llround(std::ldexp(ma, r.shift)));
        n.input2_multiplier = int32_t(std::llround(std::ldexp(mb, r.shift)));
        n.requant_shift = r.shift;
        break;
      }
      case OpType::kActivation:
        m = s_in / div;
        // LeakyRelu / PRelu: a negative input's requantisation carries the slope.
        if (!n.negative_slope.empty()) set_negative_requant(&n, m, g->tensors[n.inputs[0]].shape.c);
        break;
      case OpType::kGlobalAvgPool: {  // the sum of the H x W inputs to the output scale
        const TensorShape& is = g->tensors[n.inputs[0]].shape;
        m = s_in / (double(std::max<int64_t>(is.h * is.w, 1)) * div);
        break;
      }
      case OpType::kMul:
      case OpType::kMatMul:
        m = s_in * g->tensors[n.inputs[1]].scale / div;
        break;
      case OpType::kLayerNorm:
      case OpType::kInstanceNorm: {  // y (at kLayerNormScale) x gamma + beta
        const double s_acc = kLayerNormScale * g->tensors[n.weights].scale;
        n.input_multiplier = layernorm_epsilon_code(norm_length(*g, n), n.epsilon, s_in);
        m = s_acc / div;
        if (n.bias >= 0) {
          Tensor& b = g->tensors[n.bias];
          b.bias.resize(b.float_data.size());
          for (size_t k = 0; k < b.bias.size(); ++k) {
            b.bias[k] = int32_t(
                std::clamp<double>(std::round(b.float_data[k] / s_acc), INT32_MIN, INT32_MAX));
          }
        }
        break;
      }
      case OpType::kSoftmax:  // exp at the input scale; probability at 1/127 (uint8: 1/255) to
        n.input_multiplier = softmax_input_multiplier(s_in);  // the output scale
        m = (g->tensors[n.outputs[0]].is_unsigned ? 1.0 / 255 : kUnitScale) / s_out;
        break;
      case OpType::kGelu:  // x Phi(x) at the input scale to the output scale
        n.input_multiplier = gelu_input_multiplier(s_in);
        m = s_in / div;
        break;
      default:
        break;
    }
    if (m > 0) {
      const Requant r = quantize_multiplier(m);
      n.requant_multiplier = r.multiplier;
      n.requant_shift = r.shift;
    }
    if (n.activation == Activation::kRelu6) {
      n.clip_min = 0;
      n.clip_max = bound(6.0, s_pre, u8);
    } else if (n.activation == Activation::kClip) {
      n.clip_min = bound(clip_bounds[i].first, s_pre, u8);
      n.clip_max = bound(clip_bounds[i].second, s_pre, u8);
    }
  }
}

}  // namespace strider
