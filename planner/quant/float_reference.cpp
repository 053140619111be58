#include "planner/quant/float_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>

#include "core/common/float_gemm.h"
#include "core/common/parallel_for.h"
#include "core/common/window_row.h"
#include "planner/ir/value_ops.h"

namespace strider {
namespace {

using Floats = std::vector<float>;

struct Dims {
  int64_t c, h, w;
  explicit Dims(const TensorShape& s) : c(s.c), h(s.h), w(s.w) {}
  int64_t plane() const { return h * w; }
};

const Floats& params(const Graph& g, const Node& n, int tensor, const char* what) {
  const Floats& f = g.tensors.at(tensor).float_data;
  if (f.empty()) {
    throw std::runtime_error("float reference: node '" + n.name + "' has no float " + what +
                             " (tensor '" + g.tensors[tensor].name + "')");
  }
  return f;
}

// Convolution as one GEMM per group (core/common/float_gemm.h): the group's weights [cout_g x K]
// times the im2col matrix [K x positions] (K = cin_g x kh x kw, virtual zero padding), plus the
// bias. Two tasks on up to `threads` threads, each with its own im2col rows in `scratch`: the
// two halves of the groups, or for one group of 64 positions or more the two halves of the
// positions. Every output is the same ordered sum whichever task computes it.
void conv(const Graph& g, const Node& n, const float* wt, const Floats& in, Floats& out,
          std::vector<Floats>& scratch, int threads) {
  const Dims is(g.tensors[n.inputs[0]].shape), os(g.tensors[n.outputs[0]].shape);
  const Floats* bias = n.bias >= 0 ? &params(g, n, n.bias, "bias") : nullptr;
  const int64_t cin_g = is.c / n.groups, cout_g = os.c / n.groups;
  const int64_t kh = n.kernel_h, kw = n.kernel_w, k = cin_g * kh * kw, p = os.plane();
  const int64_t groups = n.groups, split = groups == 1 && p >= 64 ? (p / 2 + 3) / 4 * 4 : p;
  const int tasks = groups > 1 || split < p ? 2 : 1;
  scratch.resize(size_t(tasks));
  parallel_for(tasks, threads, [&](int t) {
    const int64_t g0 = groups * t / tasks, g1 = groups > 1 ? groups * (t + 1) / tasks : 1;
    const int64_t p0 = groups > 1 || t == 0 ? 0 : split, p1 = groups > 1 || t == 1 ? p : split;
    // The im2col rows of the output rows [y0, y1) that hold positions [p0, p1).
    const int64_t y0 = p0 / os.w, y1 = (p1 - 1) / os.w + 1, width = (y1 - y0) * os.w;
    Floats& col = scratch[size_t(t)];
    col.resize(size_t(k * width));
    for (int64_t grp = groups > 1 ? g0 : 0; grp < g1; ++grp) {
      for (int64_t ci = 0; ci < cin_g; ++ci) {
        const float* plane = &in[(grp * cin_g + ci) * is.plane()];
        for (int64_t ky = 0; ky < kh; ++ky) {
          for (int64_t kx = 0; kx < kw; ++kx) {
            float* dst = &col[size_t(((ci * kh + ky) * kw + kx) * width)];
            const int64_t first = kx * n.dilation_w - n.pad_left;
            const WindowSpan span(is.w, first, n.stride_w, os.w);
            for (int64_t oy = y0; oy < y1; ++oy) {
              const int64_t iy = oy * n.stride_h - n.pad_top + ky * n.dilation_h;
              float* row = dst + (oy - y0) * os.w;
              if (iy < 0 || iy >= is.h) {
                std::fill(row, row + os.w, 0.0f);
                continue;
              }
              window_row(plane + iy * is.w, first, int64_t(n.stride_w), span, row, os.w);
            }
          }
        }
      }
      float* o = &out[size_t(grp * cout_g * p + p0)];
      gemm_f32(cout_g, p1 - p0, k, &wt[grp * cout_g * k], k, &col[size_t(p0 - y0 * os.w)], width, o, p);
      if (bias) {
        for (int64_t co = 0; co < cout_g; ++co) {
          const float b0 = (*bias)[size_t(grp * cout_g + co)];
          for (int64_t i = 0; i < p1 - p0; ++i) o[co * p + i] += b0;
        }
      }
    }
  });
}

void fully_connected(const Graph& g, const Node& n, const float* wt, const Floats& in, Floats& out) {
  const int64_t k = int64_t(in.size()), features = int64_t(out.size());
  gemm_f32(features, 1, k, wt, k, in.data(), 1, out.data(), 1);
  if (n.bias >= 0) {
    const Floats& b = params(g, n, n.bias, "bias");
    for (int64_t o = 0; o < features; ++o) out[size_t(o)] += b[size_t(o)];
  }
}

void pool(const Graph& g, const Node& n, const Floats& in, Floats& out) {
  const Dims is(g.tensors[n.inputs[0]].shape), os(g.tensors[n.outputs[0]].shape);
  const bool global = n.op == OpType::kGlobalAvgPool;
  const int64_t kh = global ? is.h : n.kernel_h, kw = global ? is.w : n.kernel_w;
  const int64_t sh = global ? 1 : n.stride_h, sw = global ? 1 : n.stride_w;
  const int64_t pt = global ? 0 : n.pad_top, pl = global ? 0 : n.pad_left;
  const int64_t pb = global ? 0 : n.pad_bottom, pr = global ? 0 : n.pad_right;
  for (int64_t c = 0; c < os.c; ++c) {
    const float* plane = &in[c * is.plane()];
    for (int64_t oy = 0; oy < os.h; ++oy) {
      for (int64_t ox = 0; ox < os.w; ++ox) {
        const int64_t y0 = oy * sh - pt, x0 = ox * sw - pl;
        double sum = 0;
        int64_t count = 0;
        float best = -std::numeric_limits<float>::infinity();
        for (int64_t iy = std::max<int64_t>(y0, 0); iy < std::min(y0 + kh, is.h); ++iy) {
          for (int64_t ix = std::max<int64_t>(x0, 0); ix < std::min(x0 + kw, is.w); ++ix) {
            sum += plane[iy * is.w + ix];
            best = std::max(best, plane[iy * is.w + ix]);
            ++count;
          }
        }
        float v = 0;
        if (n.op == OpType::kMaxPool) {
          v = count ? best : 0.0f;
        } else {
          const int64_t divisor =
              n.count_include_pad && !global
                  ? (std::min(y0 + kh, is.h + pb) - y0) * (std::min(x0 + kw, is.w + pr) - x0)
                  : count;
          v = divisor > 0 ? float(sum / double(divisor)) : 0.0f;
        }
        out[(c * os.h + oy) * os.w + ox] = v;
      }
    }
  }
}

void binary(const Graph& g, const Node& n, const Floats& a, const Floats& b, Floats& out) {
  const Dims as(g.tensors[n.inputs[0]].shape);
  const TensorShape& bs = g.tensors[n.inputs[1]].shape;
  const bool scalar = bs.elements() == 1;
  const bool per_channel = !scalar && bs.h == 1 && bs.w == 1 && as.plane() != 1;
  for (int64_t i = 0; i < int64_t(a.size()); ++i) {
    const float y = scalar ? b[0] : per_channel ? b[i / as.plane()] : b[i];
    out[i] = n.op == OpType::kAdd ? a[i] + y : a[i] * y;
  }
}

// Softmax over each group of C / groups channels of every position; a causal softmax lets row y
// see the first y + 1 channels of its group (the others are 0), as tb/reference.cpp.
void softmax(const Graph& g, const Node& n, const Floats& in, Floats& out) {
  const Dims s(g.tensors[n.inputs[0]].shape);
  const int64_t per = s.c / n.groups;
  for (int64_t p = 0; p < s.plane(); ++p) {
    const int64_t visible = n.causal ? std::min(per, p / s.w + 1) : per;
    for (int64_t g0 = 0; g0 < s.c; g0 += per) {
      float mx = -std::numeric_limits<float>::infinity();
      for (int64_t c = 0; c < visible; ++c) mx = std::max(mx, in[(g0 + c) * s.plane() + p]);
      double sum = 0;
      for (int64_t c = 0; c < visible; ++c) sum += std::exp(double(in[(g0 + c) * s.plane() + p] - mx));
      for (int64_t c = 0; c < per; ++c) {
        out[(g0 + c) * s.plane() + p] =
            c < visible ? float(std::exp(double(in[(g0 + c) * s.plane() + p] - mx)) / sum) : 0.0f;
      }
    }
  }
}

// MatMul of two activations, group by group, as tb/reference.cpp:
// out[g N + j][p] = sum over k in order of A[g K + k][p] x B(g, k, j).
void matmul(const Graph& g, const Node& n, const Floats& a, const Floats& b, Floats& out) {
  const Dims as(g.tensors[n.inputs[0]].shape), bs(g.tensors[n.inputs[1]].shape),
      os(g.tensors[n.outputs[0]].shape);
  const int64_t k_len = as.c / n.groups, n_len = os.c / n.groups;
  for (int64_t grp = 0; grp < n.groups; ++grp) {
    for (int64_t j = 0; j < n_len; ++j) {
      float* o = &out[size_t((grp * n_len + j) * os.plane())];
      for (int64_t k = 0; k < k_len; ++k) {
        const float y = n.transpose_b ? b[(grp * k_len + k) * bs.plane() + j]
                                      : b[(grp * n_len + j) * bs.plane() + k];
        const float* x = &a[size_t((grp * k_len + k) * as.plane())];
        for (int64_t p = 0; p < as.plane(); ++p) o[p] += x[p] * y;
      }
    }
  }
}

// LayerNorm of every position over the channels, (x - mean) / sqrt(var + epsilon) (population
// variance, ONNX's epsilon; 0 when the values are all equal and epsilon is 0), x gamma + beta.
void layernorm(const Graph& g, const Node& n, const float* gamma, const Floats& in, Floats& out) {
  const Dims s(g.tensors[n.inputs[0]].shape);
  const Floats* beta = n.bias >= 0 ? &params(g, n, n.bias, "bias") : nullptr;
  for (int64_t p = 0; p < s.plane(); ++p) {
    double sum = 0, sum_sq = 0;
    for (int64_t c = 0; c < s.c; ++c) sum += in[c * s.plane() + p];
    const double mean = sum / double(s.c);
    for (int64_t c = 0; c < s.c; ++c) {
      const double d = in[c * s.plane() + p] - mean;
      sum_sq += d * d;
    }
    const double sd = std::sqrt(sum_sq / double(s.c) + n.epsilon);
    for (int64_t c = 0; c < s.c; ++c) {
      const double y = sd > 0 ? (in[c * s.plane() + p] - mean) / sd : 0.0;
      out[c * s.plane() + p] = float(y * gamma[c] + (beta ? (*beta)[size_t(c)] : 0.0f));
    }
  }
}

// InstanceNorm of every channel over its positions, (x - mean) / sqrt(var + epsilon) (population
// variance, ONNX's epsilon), x gamma + beta (one image: for_each_image runs the batch).
void instancenorm(const Graph& g, const Node& n, const float* gamma, const Floats& in,
                  Floats& out) {
  const Dims s(g.tensors[n.inputs[0]].shape);
  const Floats* beta = n.bias >= 0 ? &params(g, n, n.bias, "bias") : nullptr;
  for (int64_t c = 0; c < s.c; ++c) {
    const float* x = &in[size_t(c * s.plane())];
    double sum = 0, sum_sq = 0;
    for (int64_t p = 0; p < s.plane(); ++p) sum += x[p];
    const double mean = sum / double(s.plane());
    for (int64_t p = 0; p < s.plane(); ++p) sum_sq += (x[p] - mean) * (x[p] - mean);
    const double sd = std::sqrt(sum_sq / double(s.plane()) + n.epsilon);
    const double b = beta ? (*beta)[size_t(c)] : 0.0;
    for (int64_t p = 0; p < s.plane(); ++p) {
      out[size_t(c * s.plane() + p)] = float((sd > 0 ? (x[p] - mean) / sd : 0.0) * gamma[c] + b);
    }
  }
}

// GELU in its erf form: x Phi(x) = x (1 + erf(x / sqrt 2)) / 2.
void gelu(const Floats& in, Floats& out) {
  for (size_t i = 0; i < in.size(); ++i) {
    out[i] = float(0.5 * in[i] * (1.0 + std::erf(in[i] / std::sqrt(2.0))));
  }
}

}  // namespace

const float* float_weights(const Tensor& w, std::vector<float>& scratch) {
  if (!w.float_data.empty()) return w.float_data.data();
  if (w.data.empty() || w.channel_scales.empty()) return nullptr;
  const size_t out_c = w.channel_scales.size(), per = w.data.size() / out_c;
  scratch.resize(w.data.size());
  for (size_t o = 0; o < out_c; ++o) {
    const double s = w.channel_scales[o];
    for (size_t i = o * per; i < (o + 1) * per; ++i) scratch[i] = float(w.data[i] * s);
  }
  return scratch.data();
}

int default_float_threads() { return default_threads(); }

FloatReference::FloatReference(const Graph& g, std::vector<std::pair<float, float>> clip_bounds,
                               int threads)
    : g_(g),
      clip_bounds_(std::move(clip_bounds)),
      threads_(threads > 0 ? threads : default_float_threads()),
      values_(g.tensors.size()),
      pre_(g.nodes.size()) {}

void FloatReference::set_input(int tensor, std::vector<float> values) {
  const Tensor& t = g_.tensors.at(tensor);
  if (int64_t(values.size()) != t.shape.elements()) {
    throw std::runtime_error("float reference: input '" + t.name + "' needs " +
                             std::to_string(t.shape.elements()) + " values, got " +
                             std::to_string(values.size()));
  }
  values_[tensor] = std::move(values);
}

void FloatReference::run(const ProgressFn& progress) {
  for (size_t k = 0; k < g_.nodes.size(); ++k) {
    run_node(g_.nodes[k]);
    report_progress(progress, k + 1, g_.nodes.size());
  }
}

const float* FloatReference::weights_of(const Node& n) {
  const Tensor& w = g_.tensors.at(n.weights);
  const float* f = float_weights(w, weights_);
  if (f == nullptr) {
    throw std::runtime_error("float reference: node '" + n.name + "' has no float weights (tensor '" +
                             w.name + "')");
  }
  return f;
}

float FloatReference::activate(const Node& n, size_t node_index, float x) const {
  const auto hard_sigmoid = [](float v) { return std::clamp(v / 6.0f + 0.5f, 0.0f, 1.0f); };
  switch (n.activation) {
    case Activation::kNone:
      return x;
    case Activation::kRelu:
      return std::max(x, 0.0f);
    case Activation::kRelu6:
      return std::clamp(x, 0.0f, 6.0f);
    case Activation::kClip: {
      const auto& b = clip_bounds_.at(node_index);
      return std::clamp(x, b.first, b.second);
    }
    case Activation::kSigmoid:
      return 1.0f / (1.0f + std::exp(-x));
    case Activation::kHardSigmoid:
      return hard_sigmoid(x);
    case Activation::kHardSwish:
      return x * hard_sigmoid(x);
    case Activation::kSilu:
      return x / (1.0f + std::exp(-x));
  }
  return x;
}

void FloatReference::compute(const Node& n, const std::vector<const Floats*>& in,
                             std::vector<Floats>& out) {
  switch (n.op) {
    case OpType::kConv:
      conv(g_, n, node_weights_, *in[0], out[0], columns_, threads_);
      break;
    case OpType::kFullyConnected:
      fully_connected(g_, n, node_weights_, *in[0], out[0]);
      break;
    case OpType::kMaxPool:
    case OpType::kAvgPool:
    case OpType::kGlobalAvgPool:
      pool(g_, n, *in[0], out[0]);
      break;
    case OpType::kAdd:
    case OpType::kMul:
      binary(g_, n, *in[0], *in[1], out[0]);
      break;
    case OpType::kActivation:
      out[0] = *in[0];
      if (!n.negative_slope.empty()) {  // LeakyRelu / PRelu: slope x below 0, per channel
        const TensorShape& s = g_.tensors[n.inputs[0]].shape;
        const size_t plane = size_t(s.h * s.w);
        for (size_t i = 0; i < out[0].size(); ++i) {
          float& v = out[0][i];
          if (v < 0) v = float(v * n.slope_of(int64_t(i / plane) % s.c));
        }
      }
      break;
    case OpType::kSoftmax:
      softmax(g_, n, *in[0], out[0]);
      break;
    case OpType::kMatMul:
      matmul(g_, n, *in[0], *in[1], out[0]);
      break;
    case OpType::kLayerNorm:
      layernorm(g_, n, node_weights_, *in[0], out[0]);
      break;
    case OpType::kGelu:
      gelu(*in[0], out[0]);
      break;
    case OpType::kInstanceNorm:
      instancenorm(g_, n, node_weights_, *in[0], out[0]);
      break;
    case OpType::kConcat:
    case OpType::kReshape:
    case OpType::kSplit:
    case OpType::kSlice:
    case OpType::kChannelShuffle:
    case OpType::kGather:
    case OpType::kPad:
      break;  // moved by move_values
  }
}

void FloatReference::run_node(const Node& n) {
  std::vector<const Floats*> in;
  for (int t : n.inputs) {
    if (values_[t].empty() && g_.tensors[t].shape.elements() > 0) {
      throw std::runtime_error("float reference: node '" + n.name + "' reads tensor '" +
                               g_.tensors[t].name + "' before it has a value");
    }
    in.push_back(&values_[t]);
  }
  // The float weights once per node (batch images share them).
  const bool weighted =
      n.op == OpType::kConv || n.op == OpType::kFullyConnected || is_norm(n.op);
  node_weights_ = weighted ? weights_of(n) : nullptr;
  std::vector<Floats> out;
  for (int t : n.outputs) out.emplace_back(size_t(g_.tensors[t].shape.elements()), 0.0f);
  for_each_image(g_, n, in, out, [&](const std::vector<const Floats*>& in_image,
                                      std::vector<Floats>& out_image) {
    if (!move_values(g_, n, in_image, out_image)) compute(n, in_image, out_image);
  });
  if (n.output_factor != 1.0) {  // a scalar Mul / Div the importer folded into this node
    for (float& v : out[0]) v = float(v * n.output_factor);
  }
  if (keep_pre_ && is_lookup(n.activation)) pre_[size_t(&n - g_.nodes.data())] = out[0];
  // The rectifiers as loops of their own (vectorised), the same values as activate().
  if (n.activation == Activation::kRelu) {
    for (float& v : out[0]) v = std::max(v, 0.0f);
  } else if (n.activation == Activation::kRelu6) {
    for (float& v : out[0]) v = std::clamp(v, 0.0f, 6.0f);
  } else if (n.activation != Activation::kNone) {
    const size_t index = size_t(&n - g_.nodes.data());
    for (float& v : out[0]) v = activate(n, index, v);
  }
  for (size_t k = 0; k < out.size(); ++k) values_[n.outputs[k]] = std::move(out[k]);
}

}  // namespace strider
