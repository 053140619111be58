#include "planner/quant/bias_correction.h"

#include <algorithm>

namespace strider {

BiasCorrection::BiasCorrection(const Graph& g)
    : g_(g),
      corrected_(g.nodes.size(), 0),
      input_sum_(g.nodes.size()),
      count_(g.nodes.size(), 0.0) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if ((n.op != OpType::kConv && n.op != OpType::kFullyConnected) || n.bias < 0 || n.weights < 0 ||
        n.inputs.empty()) {
      continue;
    }
    const Tensor& w = g.tensors[size_t(n.weights)];
    const size_t out_c = size_t(std::max<int64_t>(w.shape.n, 1));
    if (w.float_data.empty() || w.channel_scales.size() != out_c ||
        w.data.size() != w.float_data.size()) {
      continue;  // materialised weights: the float ones are int8 x scale, no error
    }
    const size_t per = w.data.size() / out_c;
    bool differs = false;
    for (size_t k = 0; k < w.data.size() && !differs; ++k) {
      differs = float(w.data[k] * w.channel_scales[k / per]) != w.float_data[k];
    }
    if (!differs) continue;
    corrected_[i] = 1;
    // M's size: one value per weight of an output channel (its input channels' kernel offsets
    // for a conv, its inputs for an fc), over all input channels of a grouped conv.
    const int64_t groups = n.op == OpType::kConv ? std::max(n.groups, 1) : 1;
    input_sum_[i].assign(per * size_t(groups), 0.0);
  }
}

void BiasCorrection::add(const std::vector<std::vector<float>>& values) {
  for (size_t i = 0; i < g_.nodes.size(); ++i) {
    if (!corrected_[i]) continue;
    const Node& n = g_.nodes[i];
    const std::vector<float>& x = values[size_t(n.inputs[0])];
    std::vector<double>& m = input_sum_[i];
    const TensorShape& is = g_.tensors[size_t(n.inputs[0])].shape;
    const int64_t batch = std::max<int64_t>(is.n, 1);
    if (n.op == OpType::kFullyConnected) {  // one product per image of the batch
      const size_t k = m.size();
      for (size_t v = 0; v < x.size(); ++v) m[v % k] += x[v];
      count_[i] += double(batch);
      continue;
    }
    const TensorShape& os = g_.tensors[size_t(n.outputs[0])].shape;
    const int64_t kh = n.kernel_h, kw = n.kernel_w, plane = is.h * is.w;
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t c = 0; c < is.c; ++c) {
        const float* p = &x[size_t((b * is.c + c) * plane)];
        for (int64_t ky = 0; ky < kh; ++ky) {
          for (int64_t kx = 0; kx < kw; ++kx) {
            double s = 0;  // the input the weight (c, ky, kx) meets at every output position
            for (int64_t oy = 0; oy < os.h; ++oy) {
              const int64_t iy = oy * n.stride_h - n.pad_top + ky * n.dilation_h;
              if (iy < 0 || iy >= is.h) continue;
              const float* row = p + iy * is.w;
              for (int64_t ox = 0; ox < os.w; ++ox) {
                const int64_t ix = ox * n.stride_w - n.pad_left + kx * n.dilation_w;
                if (ix >= 0 && ix < is.w) s += row[ix];
              }
            }
            m[size_t((c * kh + ky) * kw + kx)] += s;
          }
        }
      }
    }
    count_[i] += double(batch * os.h * os.w);
  }
}

std::vector<std::vector<double>> BiasCorrection::shifts() const {
  std::vector<std::vector<double>> shift(g_.nodes.size());
  for (size_t i = 0; i < g_.nodes.size(); ++i) {
    if (!corrected_[i] || count_[i] == 0) continue;
    const Node& n = g_.nodes[i];
    const Tensor& w = g_.tensors[size_t(n.weights)];
    const size_t out_c = w.channel_scales.size(), per = w.data.size() / out_c;
    const size_t groups = n.op == OpType::kConv ? size_t(std::max(n.groups, 1)) : 1;
    const size_t out_g = out_c / groups;  // output channels per group
    shift[i].assign(out_c, 0.0);
    for (size_t o = 0; o < out_c; ++o) {
      const double* m = &input_sum_[i][(o / out_g) * per];  // the group's input channels
      double s = 0;
      for (size_t k = 0; k < per; ++k) {
        const double dw =
            double(w.data[o * per + k]) * w.channel_scales[o] - w.float_data[o * per + k];
        s += dw * m[k];
      }
      shift[i][o] = s / count_[i];
    }
  }
  return shift;
}

}  // namespace strider
