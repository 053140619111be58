#include "planner/quant/calibrator.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>

#include "core/common/hash.h"
#include "core/common/parallel_for.h"
#include "planner/quant/bias_correction.h"
#include "planner/quant/fidelity.h"
#include "planner/quant/clip_threshold.h"
#include "planner/quant/float_reference.h"
#include "planner/quant/quant_scales.h"
#include "core/contract/quant.h"
#include "core/contract/vector_math.h"

namespace strider {
namespace {

constexpr double kNominalRms = 32.0;      // materialise_parameters' input RMS
// The smallest softmax-input scale at which a masked logit (-128) has an integer exp of exactly
// 0 (core/contract/vector_math.h exp_q15: 0 once d s log2(e) < -16, d <= -128), with 2^-20 of
// margin for the multiplier's rounding to Q24.
constexpr double kMaskedScale = (1.0 + 1.0 / (1 << 20)) / (8 * 1.4426950408889634);

// Union-find over tensor ids with an optional fixed scale per set.
class ScaleGroups {
 public:
  ScaleGroups(const Graph& g) : g_(g), parent_(g.tensors.size()), fixed_(g.tensors.size(), 0.0) {
    std::iota(parent_.begin(), parent_.end(), 0);
  }
  int find(int t) {
    while (parent_[t] != t) t = parent_[t] = parent_[parent_[t]];
    return t;
  }
  void join(int a, int b) {
    a = find(a);
    b = find(b);
    if (a == b) return;
    parent_[b] = a;
    if (fixed_[b] != 0.0) fix(a, fixed_[b]);
  }
  void fix(int t, double scale) {
    const int r = find(t);
    if (fixed_[r] != 0.0 && fixed_[r] != scale) {
      throw std::runtime_error("calibration: tensor '" + g_.tensors[t].name +
                               "' would need two scales (" + std::to_string(fixed_[r]) + " and " +
                               std::to_string(scale) + ") from the ops around it");
    }
    fixed_[r] = scale;
  }
  double fixed(int t) { return fixed_[find(t)]; }

 private:
  const Graph& g_;
  std::vector<int> parent_;
  std::vector<double> fixed_;
};

// LayerNorm's (and InstanceNorm's) gamma and beta: one scale for the whole gamma, as the vector unit requantises
// y x gamma + beta (y at kLayerNormScale) with one multiplier. Float gamma: max |gamma| / 127; random int8
// gamma: 1 / rms, so the float gamma has RMS 1. A beta without float data is int32 x the
// accumulator scale gamma_scale / 16.
void prepare_layernorm(Graph* g, const Node& n) {
  Tensor& w = g->tensors[n.weights];
  double s = 1.0 / 127.0;
  if (!w.float_data.empty()) {
    float max_abs = 0;
    for (float v : w.float_data) max_abs = std::max(max_abs, std::fabs(v));
    if (max_abs > 0) s = double(max_abs) / 127.0;
    w.data.resize(w.float_data.size());
    for (size_t i = 0; i < w.data.size(); ++i) w.data[i] = saturate8(round_away(w.float_data[i] / s));
  } else {
    int64_t sum_sq = 0;
    for (int8_t v : w.data) sum_sq += int32_t(v) * v;
    const double rms = w.data.empty() ? 0.0 : std::sqrt(double(sum_sq) / double(w.data.size()));
    if (rms > 0) s = 1.0 / rms;
  }
  w.scale = s;
  w.channel_scales.assign(size_t(std::max<int64_t>(w.shape.n, 1)), s);
  if (n.bias < 0) return;
  Tensor& b = g->tensors[n.bias];
  if (b.float_data.empty()) {
    b.float_data.resize(b.bias.size());
    for (size_t i = 0; i < b.bias.size(); ++i) b.float_data[i] = float(b.bias[i] * s * kLayerNormScale);
  }
}

// Step 1: float weights and biases, and weight scales, one per output channel (shape.n rows of
// the weight tensor).
void prepare_parameters(Graph* g) {
  for (const Node& n : g->nodes) {
    if (n.weights < 0) continue;
    if (is_norm(n.op)) {
      prepare_layernorm(g, n);
      continue;
    }
    Tensor& w = g->tensors[n.weights];
    const size_t out_c = size_t(std::max<int64_t>(w.shape.n, 1));
    const size_t per = w.shape.elements() > 0 ? size_t(w.shape.elements()) / out_c : 0;
    if (w.channel_scales.size() == out_c && !w.float_data.empty()) {
      // The model's own quantisation (ONNX DequantizeLinear): int8 values and scales kept.
    } else if (!w.float_data.empty()) {
      w.channel_scales.assign(out_c, 1.0 / 127.0);
      w.data.resize(w.float_data.size());
      for (size_t o = 0; o < out_c; ++o) {
        const float* f = &w.float_data[o * per];
        float max_abs = 0;
        for (size_t i = 0; i < per; ++i) max_abs = std::max(max_abs, std::fabs(f[i]));
        const double s = max_abs > 0 ? double(max_abs) / 127.0 : 1.0 / 127.0;
        w.channel_scales[o] = s;
        for (size_t i = 0; i < per; ++i) w.data[o * per + i] = saturate8(round_away(f[i] / s));
      }
      w.scale = *std::max_element(w.channel_scales.begin(), w.channel_scales.end());
    } else {
      // Random (materialised) int8 weights: the He-style scale sqrt(2 / K) / rms(int8) per
      // output channel, so every channel of the float network has the same variance.
      w.channel_scales.assign(out_c, 1.0 / 127.0);
      const double k = double(reduction_length(*g, n));
      // Variance-preserving gain: 2 before a rectifier (He), 1 for a linear layer (LeCun).
      const bool rectified = n.activation == Activation::kRelu ||
                             n.activation == Activation::kRelu6 || n.activation == Activation::kClip;
      const double gain = rectified ? 2.0 : 1.0;
      // No float copy: float_weights() (float_reference.h) derives int8 x scale when needed.
      for (size_t o = 0; o < out_c; ++o) {
        int64_t sum_sq = 0;  // exact, so the same double as summing in double
        for (size_t i = 0; i < per; ++i) sum_sq += int32_t(w.data[o * per + i]) * w.data[o * per + i];
        const double rms = per ? std::sqrt(double(sum_sq) / double(per)) : 0.0;
        w.channel_scales[o] = rms > 0 ? std::sqrt(gain / k) / rms : 1.0 / 127.0;
      }
      w.scale = *std::max_element(w.channel_scales.begin(), w.channel_scales.end());
    }
    if (n.bias < 0) continue;
    Tensor& b = g->tensors[n.bias];
    if (b.float_data.empty()) {
      b.float_data.resize(b.bias.size());
      for (size_t i = 0; i < b.bias.size(); ++i) {
        b.float_data[i] = float(b.bias[i] * w.channel_scales[std::min(i, out_c - 1)] / kNominalRms);
      }
    }
  }
}

// Step 3: the groups and fixed scales the datapath imposes.
void constrain(const Graph& g, ScaleGroups& groups) {
  const double unit_u8 = 1.0 / 255;  // an unsigned sigmoid output (mark_unsigned_activations)
  for (const Node& n : g.nodes) {
    const int out = n.outputs.empty() ? -1 : n.outputs[0];
    switch (n.op) {
      case OpType::kReshape:
      case OpType::kSplit:
      case OpType::kSlice:
      case OpType::kChannelShuffle:
      case OpType::kGather:
      case OpType::kPad:
      case OpType::kConcat:
        for (int i : n.inputs) groups.join(n.inputs[0], i);
        for (int o : n.outputs) groups.join(n.inputs[0], o);
        continue;
      case OpType::kSoftmax:  // both scales free: exp reads the input scale, the probability at
      case OpType::kGelu:     // 1/127 (GELU: x Phi(x) at the input scale) is requantised
        continue;
      case OpType::kGlobalAvgPool:  // requantises its sum: its output has a scale of its own
        break;
      case OpType::kMaxPool:  // no requantisation: the output at the input's scale, or with a
      case OpType::kAvgPool:  // lookup activation the table reads the input's scale
        if (!is_lookup(n.activation)) groups.join(n.inputs[0], out);
        break;
      default:
        break;
    }
    if (n.activation == Activation::kSigmoid || n.activation == Activation::kHardSigmoid) {
      groups.fix(out, g.tensors[size_t(out)].is_unsigned ? unit_u8 : kUnitScale);
    }
  }
}

// The scale each group takes from the model (0: none): the largest imported scale of its
// members, unless the datapath fixes the group's scale. Every imported scale that differs from
// its group's is reported as a warning of `g`.
std::vector<double> imported_group_scales(Graph* g, ScaleGroups& groups,
                                          const std::vector<double>& imported) {
  std::vector<double> scale(g->tensors.size(), 0.0);
  std::vector<int> holder(g->tensors.size(), -1);  // the member the group's scale comes from
  for (size_t t = 0; t < g->tensors.size(); ++t) {
    const size_t r = size_t(groups.find(int(t)));
    if (imported[t] > scale[r]) {
      scale[r] = imported[t];
      holder[r] = int(t);
    }
  }
  for (size_t t = 0; t < g->tensors.size(); ++t) {
    const size_t r = size_t(groups.find(int(t)));
    const double fixed = groups.fixed(int(t));
    if (imported[t] == 0.0 || imported[t] == (fixed != 0.0 ? fixed : scale[r])) continue;
    const std::string why = fixed != 0.0 ? "the integer datapath fixes it (a sigmoid's output unit)"
                                         : "it shares one scale with '" +
                                               g->tensors[size_t(holder[r])].name +
                                               "' (concat, pool, view) and the largest is kept";
    g->warnings.push_back("calibration: tensor '" + g->tensors[t].name + "' takes scale " +
                          std::to_string(fixed != 0.0 ? fixed : scale[r]) +
                          " instead of the model's " + std::to_string(imported[t]) + ": " + why);
  }
  return scale;
}

// Unsigned activations (uint8, zero point 0; core/contract/quant.h): a scale group becomes
// unsigned when every member is produced by a node whose fused activation leaves no negative
// value (ReLU, ReLU6, sigmoid, hard-sigmoid, a Clip from >= 0), by a view / pool of a member or
// by a global average pool of an unsigned tensor,
// no member is a graph input or has an imported scale, no member is read by a max / average pool
// with a lookup activation (its table is indexed by the int8 input), and every reader is a conv,
// fc, pool, add, mul, activation or view (the ops whose datapath reads uint8; a softmax,
// LayerNorm, GELU or MatMul input stays int8).
void mark_unsigned_activations(Graph* g, const std::vector<double>& imported,
                               const ClipBounds& clip_bounds) {
  ScaleGroups groups(*g);
  constrain(*g, groups);
  const size_t nt = g->tensors.size();
  std::vector<char> ok(nt, 1);  // per group root
  const auto refuse = [&](int t) { ok[size_t(groups.find(t))] = 0; };
  std::vector<char> produced(nt, 0);
  std::vector<std::pair<int, int>> averages;  // global average pools: (input, output)
  for (size_t i = 0; i < g->nodes.size(); ++i) {
    const Node& n = g->nodes[i];
    const bool view = n.op == OpType::kReshape || n.op == OpType::kSplit || n.op == OpType::kSlice ||
                      n.op == OpType::kChannelShuffle || n.op == OpType::kGather ||
                      n.op == OpType::kPad || n.op == OpType::kConcat;
    const bool pool = n.op == OpType::kMaxPool || n.op == OpType::kAvgPool ||
                      n.op == OpType::kGlobalAvgPool;
    const bool reads_u8 = view || pool || n.op == OpType::kConv ||
                          n.op == OpType::kFullyConnected || n.op == OpType::kAdd ||
                          n.op == OpType::kMul || n.op == OpType::kActivation;
    for (int t : n.inputs) {
      if (g->tensors[size_t(t)].kind == TensorKind::kActivation && !reads_u8) refuse(t);
    }
    if (pool && n.op != OpType::kGlobalAvgPool && is_lookup(n.activation)) refuse(n.inputs[0]);
    const Activation a = n.activation;
    const bool non_negative = a == Activation::kRelu || a == Activation::kRelu6 ||
                              a == Activation::kSigmoid || a == Activation::kHardSigmoid ||
                              (a == Activation::kClip && clip_bounds[i].first >= 0);
    if (n.op == OpType::kGlobalAvgPool && !is_lookup(a)) {  // decided below
      for (int t : n.outputs) produced[size_t(t)] = 1;
      averages.emplace_back(n.inputs[0], n.outputs[0]);
      continue;
    }
    for (int t : n.outputs) {
      produced[size_t(t)] = 1;
      const bool shares_input_group = (view || (pool && !is_lookup(a))) && !n.inputs.empty() &&
                                      groups.find(t) == groups.find(n.inputs[0]);
      if (!(non_negative && n.op != OpType::kSoftmax && n.op != OpType::kMatMul &&
            !is_norm(n.op) && n.op != OpType::kGelu) &&
          !shares_input_group) {
        refuse(t);
      }
    }
  }
  for (size_t t = 0; t < nt; ++t) {
    if (g->tensors[t].kind != TensorKind::kActivation || !produced[t] || imported[t] != 0.0) {
      refuse(int(t));
    }
  }
  for (int t : g->inputs) refuse(t);
  // A global average of uint8 values is >= 0 (in graph order: a pool of a pool sees the first's).
  for (const auto& [in, out] : averages) {
    if (!ok[size_t(groups.find(in))]) refuse(out);
  }
  for (size_t t = 0; t < nt; ++t) {
    if (g->tensors[t].kind == TensorKind::kActivation && ok[size_t(groups.find(int(t)))]) {
      g->tensors[t].is_unsigned = true;
    }
  }
}

// Pooled tensors: a global average pool's output and every tensor computed from pooled tensors
// alone (the fc / activation / view layers after it: a classifier head, a squeeze-excitation's
// fc1 and fc2; not the excitation's Mul, which also reads the feature map), in graph order.
// Each holds C values per image against a feature map's C x H x W, so the range the
// calibration images give it is a small sample of its extremes, which held-out images exceed.
std::vector<char> pooled_tensors(const Graph& g) {
  std::vector<char> pooled(g.tensors.size(), 0);
  for (const Node& n : g.nodes) {
    bool from_pooled = n.op == OpType::kGlobalAvgPool;
    if (!from_pooled) {
      int read = 0, pooled_read = 0;
      for (int t : n.inputs) {
        if (g.tensors[size_t(t)].kind != TensorKind::kActivation) continue;
        ++read;
        pooled_read += pooled[size_t(t)];
      }
      from_pooled = read > 0 && pooled_read == read;
    }
    if (!from_pooled) continue;
    for (int t : n.outputs) pooled[size_t(t)] = 1;
  }
  return pooled;
}

}  // namespace

double choose_threshold(std::vector<float> sample, double max, const CalibrationOptions& opt,
                        int levels) {
  if (sample.empty() || !(max > 0) || opt.method == "minmax") return max;
  if (opt.method == "percentile") {
    const size_t n = sample.size();
    const size_t rank = size_t(std::ceil(opt.percentile / 100.0 * double(n)));
    const size_t k = std::clamp<size_t>(rank, 1, n) - 1;
    std::nth_element(sample.begin(), sample.begin() + ptrdiff_t(k), sample.end());
    return std::min(max, double(sample[k]));
  }
  if (opt.method == "entropy") return entropy_threshold(sample, max, levels);
  return best_threshold(std::move(sample), max);
}

std::vector<float> calibration_image(const Tensor& t, uint64_t seed, int index) {
  SplitMix64 rng(seed ^ fnv1a64(t.name) ^ (0x51ed27u * uint64_t(index + 1)));
  const int64_t c = t.shape.c * t.shape.n, h = t.shape.h, w = t.shape.w;
  std::vector<float> img(size_t(c * h * w));
  constexpr double kPi = 3.14159265358979323846;
  for (int64_t ch = 0; ch < c; ++ch) {
    double fy[4], fx[4], ph[4], amp[4];
    for (int k = 0; k < 4; ++k) {
      fy[k] = (0.5 + 3.5 * rng.unit()) * 2 * kPi / double(std::max<int64_t>(h, 1));
      fx[k] = (0.5 + 3.5 * rng.unit()) * 2 * kPi / double(std::max<int64_t>(w, 1));
      ph[k] = 2 * kPi * rng.unit();
      amp[k] = 0.5 + rng.unit();
    }
    float* p = &img[size_t(ch * h * w)];
    double sum = 0, sum_sq = 0;
    for (int64_t y = 0; y < h; ++y) {
      for (int64_t x = 0; x < w; ++x) {
        double v = 0.5 * (rng.unit() - 0.5);
        for (int k = 0; k < 4; ++k) v += amp[k] * std::cos(fy[k] * y + fx[k] * x + ph[k]);
        p[y * w + x] = float(v);
        sum += v;
        sum_sq += v * v;
      }
    }
    const double count = double(h * w), mean = sum / count;
    const double sd = std::sqrt(std::max(sum_sq / count - mean * mean, 1e-12));
    for (int64_t i = 0; i < h * w; ++i) p[i] = float((p[i] - mean) / sd);
  }
  return img;
}

ClipBounds calibrate(Graph* g, const CalibrationOptions& opt) {
  // Activation scales the model gave (ONNX QuantizeLinear): 0 where it gave none.
  std::vector<double> imported(g->tensors.size(), 0.0);
  for (size_t t = 0; t < g->tensors.size(); ++t) {
    if (g->tensors[t].kind == TensorKind::kActivation) imported[t] = g->tensors[t].scale;
  }
  prepare_parameters(g);
  const std::vector<std::pair<float, float>> clip_bounds = real_clip_bounds(*g);
  if (opt.unsigned_activations) mark_unsigned_activations(g, imported, clip_bounds);
  ScaleGroups groups(*g);
  constrain(*g, groups);
  // Softmax inputs (and their group): a value kMaskedLogit or more below zero is an additive mask
  // (Swin's -100), not a logit: it neither sets the scale nor enters the threshold's sample, and
  // saturates to -128 (exp of it is below 2^-16 at any scale the unmasked logits set).
  std::vector<char> logits(g->tensors.size(), 0);
  for (const Node& n : g->nodes) {
    if (n.op == OpType::kSoftmax) logits[size_t(groups.find(n.inputs[0]))] = 1;
  }
  std::vector<char> masked(g->tensors.size(), 0);  // per tensor, found once (not per value)
  for (size_t t = 0; t < masked.size(); ++t) masked[t] = logits[size_t(groups.find(int(t)))];
  const auto counts = [&](size_t t, float v) { return !(masked[t] && v <= -kMaskedLogit); };
  std::vector<double> max_abs(g->tensors.size(), 0.0);
  std::vector<char> has_mask(g->tensors.size(), 0);  // per group: a masked value was seen
  std::vector<std::vector<float>> first;
  const std::vector<double> group_imported = imported_group_scales(g, groups, imported);
  // Each free group's threshold from a sample of at most ~64k values of its members over all
  // images (each image its share).
  const int images = opt.inputs.empty() ? std::max(opt.images, 1) : int(opt.inputs.size());
  std::vector<std::vector<float>> samples(g->tensors.size());
  std::vector<uint64_t> group_values(g->tensors.size(), 0);
  for (size_t t = 0; t < g->tensors.size(); ++t) {
    if (g->tensors[t].kind == TensorKind::kActivation)
      group_values[groups.find(int(t))] += uint64_t(g->tensors[t].shape.elements());
  }
  const uint64_t per_image = std::max<uint64_t>(1024, 65536 / uint64_t(images));
  {  // Each sample's size, at most, reserved (no reallocation while the images are sampled).
    std::vector<uint64_t> sampled(g->tensors.size(), 0);
    for (size_t t = 0; t < g->tensors.size(); ++t) {
      const int r = groups.find(int(t));
      if (g->tensors[t].kind != TensorKind::kActivation || groups.fixed(int(t)) != 0.0 ||
          group_imported[size_t(r)] != 0.0) {
        continue;
      }
      const uint64_t stride = std::max<uint64_t>(1, group_values[size_t(r)] / per_image);
      sampled[size_t(r)] += (uint64_t(g->tensors[t].shape.elements()) + stride - 1) / stride;
    }
    for (size_t r = 0; r < sampled.size(); ++r) samples[r].reserve(sampled[r] * uint64_t(images));
  }
  // Lookup-activation nodes that requantise (not a max / average pool): each one's pre-activation
  // max |x| and sample, per node, as a tensor's.
  std::vector<double> pre_max(g->nodes.size(), 0.0);
  std::vector<std::vector<float>> pre_samples(g->nodes.size());
  BiasCorrection correction(*g);  // after step 1: the int8 weights are set
  const auto calibrated_table = [&](const Node& n) {
    return is_lookup(n.activation) && n.op != OpType::kMaxPool && n.op != OpType::kAvgPool;
  };
  for (int image = 0; image < images; ++image) {
    FloatReference ref(*g, clip_bounds);
    ref.keep_pre_activations(true);
    // A graph input with float values of its own is a constant (Swin's attention mask).
    for (size_t k = 0; k < g->inputs.size(); ++k) {
      const int t = g->inputs[k];
      const Tensor& x = g->tensors[t];
      if (k == 0 && !opt.inputs.empty()) {
        ref.set_input(t, opt.inputs[size_t(image)]);
      } else {
        ref.set_input(t, x.float_data.empty() ? calibration_image(x, opt.seed, image) : x.float_data);
      }
    }
    const uint64_t layers = g->nodes.size();
    ref.run([&](uint64_t k, uint64_t) {
      report_progress(opt.progress, uint64_t(image) * layers + k, uint64_t(images) * layers);
    });
    for (size_t t = 0; t < g->tensors.size(); ++t) {
      float m = 0;  // float max: the plain loop vectorises
      if (!masked[t]) {
        for (float v : ref.value(int(t))) m = std::max(m, std::fabs(v));
      } else {
        for (float v : ref.value(int(t))) {
          if (counts(t, v)) {
            m = std::max(m, std::fabs(v));
          } else {
            has_mask[size_t(groups.find(int(t)))] = 1;
          }
        }
      }
      max_abs[t] = std::max(max_abs[t], double(m));
      if (g->tensors[t].kind != TensorKind::kActivation) continue;
      const int r = groups.find(int(t));
      if (groups.fixed(int(t)) != 0.0 || group_imported[size_t(r)] != 0.0) continue;
      const std::vector<float>& v = ref.value(int(t));
      const uint64_t stride = std::max<uint64_t>(1, group_values[size_t(r)] / per_image);
      for (size_t i = 0; i < v.size(); i += stride) {
        if (counts(t, v[i])) samples[size_t(r)].push_back(std::fabs(v[i]));
      }
    }
    for (size_t i = 0; i < g->nodes.size(); ++i) {
      if (!calibrated_table(g->nodes[i])) continue;
      const std::vector<float>& v = ref.pre_activation(i);
      float m = 0;
      for (float x : v) m = std::max(m, std::fabs(x));
      pre_max[i] = std::max(pre_max[i], double(m));
      const uint64_t stride = std::max<uint64_t>(1, uint64_t(v.size()) / per_image);
      for (size_t k = 0; k < v.size(); k += stride) pre_samples[i].push_back(std::fabs(v[k]));
    }
    if (opt.bias_correction) correction.add(ref.values());
    if (image == 0) first = std::move(ref.values());
  }
  // Each table's input scale: the threshold the method chooses over the pre-activation, / 127
  // (an int8 index), as a table scale (multiplier / 2^shift) the requantisation then targets;
  // a table computed from pooled tensors alone takes the output headroom (below).
  const std::vector<char> pooled = pooled_tensors(*g);
  for (size_t i = 0; i < g->nodes.size(); ++i) {
    if (!calibrated_table(g->nodes[i])) continue;
    const Node& n = g->nodes[i];
    const bool pooled_table = !n.outputs.empty() && pooled[size_t(n.outputs[0])];
    const double t = choose_threshold(std::move(pre_samples[i]), pre_max[i], opt, 127) *
                     (pooled_table ? opt.output_headroom : 1.0);
    g->nodes[i].lut.in = quantize_multiplier(t > 0 ? t / 127 : kLutFixedScale);
  }
  std::vector<double> group_max(g->tensors.size(), 0.0);
  for (size_t t = 0; t < g->tensors.size(); ++t) {
    if (g->tensors[t].kind != TensorKind::kActivation) continue;
    double& m = group_max[groups.find(int(t))];
    m = std::max(m, max_abs[t]);
  }
  std::vector<char> holds_output(g->tensors.size(), 0);
  for (int t : g->outputs) holds_output[size_t(groups.find(t))] = 1;
  // The pooled tensors (a global average pool's output, the features a classifier reads, and
  // the fc layers after it) take the headroom too: a held-out image whose pooled features
  // exceed every calibration image's would clip them. mobilenet_v3_small's classifier.0 (an fc
  // with a hard-swish after the pool) reached 1.6x its calibration range on held-out
  // photographs (docs/planner.md).
  for (size_t t = 0; t < g->tensors.size(); ++t) {
    if (pooled[t]) holds_output[size_t(groups.find(int(t)))] = 1;
  }
  // The groups' thresholds, each from its own sample (on default_threads(): the same values on
  // any), at the first member's levels.
  std::vector<int> sampled_groups, levels;
  std::vector<double> threshold(g->tensors.size(), 0.0);
  std::vector<char> listed(g->tensors.size(), 0);
  for (size_t t = 0; t < g->tensors.size(); ++t) {
    const int r = groups.find(int(t));
    if (g->tensors[t].kind != TensorKind::kActivation || samples[r].empty() || listed[r]) continue;
    listed[r] = 1;
    sampled_groups.push_back(r);
    levels.push_back(g->tensors[t].is_unsigned ? 255 : 127);
  }
  parallel_for(int(sampled_groups.size()), default_threads(), [&](int i) {
    const size_t r = size_t(sampled_groups[size_t(i)]);
    threshold[r] = choose_threshold(std::move(samples[r]), group_max[r], opt, levels[size_t(i)]);
  });
  for (size_t t = 0; t < g->tensors.size(); ++t) {
    Tensor& x = g->tensors[t];
    if (x.kind != TensorKind::kActivation) continue;
    const int r = groups.find(int(t));
    if (listed[r]) {
      listed[r] = 0;
      group_max[r] = threshold[r];
      if (holds_output[size_t(r)]) group_max[r] *= opt.output_headroom;
      // A masked logit saturates to -128; its exp must vanish, not weigh e^(-128 s) against the
      // row's largest: at s > 1 / (8 log2 e) the integer exp (exp_q15) of a difference of -128
      // or less is exactly 0 (-128 s log2 e < -16). swin_t's shifted blocks: logits within
      // +-2 gave s = 2 / 127, a masked pair weighed e^-2 and the softmax read 4.8 dB.
      if (has_mask[size_t(r)]) group_max[r] = std::max(group_max[r], 127 * kMaskedScale);
    }
    const double fixed = groups.fixed(int(t)), m = group_max[r];
    x.scale = fixed != 0.0                       ? fixed
              : group_imported[size_t(r)] != 0.0 ? group_imported[size_t(r)]
              : m > 0                            ? m / (x.is_unsigned ? 255.0 : 127.0)
                                                 : kLutFixedScale;
    x.float_data = std::move(first[t]);
  }
  bool corrected = false;  // a layer's bias moved (not with materialised weights alone)
  if (opt.bias_correction) {
    std::vector<std::vector<double>> shifts = correction.shifts();
    for (size_t i = 0; i < g->nodes.size(); ++i) {
      if (shifts[i].empty()) continue;
      g->tensors[size_t(g->nodes[i].bias)].bias_shift = std::move(shifts[i]);
      corrected = true;
    }
  }
  apply_scales(g);
  for (int t : g->inputs) {
    Tensor& x = g->tensors[t];
    x.data.resize(x.float_data.size());
    for (size_t i = 0; i < x.data.size(); ++i)
      x.data[i] = saturate8(round_away(x.float_data[i] / x.scale));
  }
  std::ostringstream method;
  method << opt.method;
  if (opt.method == "percentile") method << " " << opt.percentile;
  if (opt.output_headroom != 1.0) method << ", output headroom " << opt.output_headroom;
  if (corrected) method << ", bias correction";
  g->calibration_method = method.str();
  return clip_bounds;
}

}  // namespace strider
