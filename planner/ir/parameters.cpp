// Graph IR parameters: deterministic pseudo-random weights and biases for graphs imported without
// data, and the per-node requantisation choice.
//
// Weights: uniform int8 in [-127, 127] from splitmix64 seeded with seed XOR FNV-1a(tensor name),
// so a tensor's values do not depend on the order or presence of other tensors (they are
// filled on up to 2 threads).
// Requantisation: inputs are assumed to have an RMS of kNominalRms (32); an output element's
// accumulator then has RMS sqrt(K) * rms(W) * 32 for reduction length K, and the scale
// multiplier / 2^shift = 1 / (sqrt(K) * rms(W)) brings it back to RMS 32, a quarter of the int8
// range, so outputs spread over the range without saturating on average. The multiplier is kept
// in [2^14, 2^15) for precision. Biases: uniform in +-(accumulator RMS / 4). Softmax and GELU
// read their input at the nominal scale 1/16 (core/contract/vector_math.h); a softmax read only by
// MatMuls writes uint8 probabilities.
#include <algorithm>
#include <cmath>
#include <vector>

#include "core/common/hash.h"
#include "core/common/parallel_for.h"
#include "planner/ir/graph.h"
#include "core/contract/quant.h"
#include "core/contract/vector_math.h"

namespace strider {
namespace {

constexpr double kNominalRms = 32.0;

void fill_weights(Tensor* t, uint64_t seed) {
  SplitMix64 rng(seed ^ fnv1a64(t->name, kFnv1aWeightSeedBasis));
  t->data.resize(static_cast<size_t>(t->shape.elements()));
  for (int8_t& v : t->data) v = static_cast<int8_t>(rng.uniform(-127, 127));
}

void fill_bias(Tensor* t, uint64_t seed, int64_t bound) {
  SplitMix64 rng(seed ^ fnv1a64(t->name, kFnv1aWeightSeedBasis));
  t->bias.resize(static_cast<size_t>(t->shape.elements()));
  for (int32_t& v : t->bias) v = static_cast<int32_t>(rng.uniform(-bound, bound));
}

double weight_rms(const Tensor& w) {
  if (w.data.empty()) return 0.0;
  int64_t sum_sq = 0;
  for (int8_t v : w.data) sum_sq += static_cast<int64_t>(v) * v;
  return std::sqrt(static_cast<double>(sum_sq) / static_cast<double>(w.data.size()));
}

// Sets the node's requantisation to the multiplier / 2^shift nearest `scale`.
void choose_requant(double scale, Node* n) {
  const Requant r = quantize_multiplier(scale);
  n->requant_multiplier = r.multiplier;
  n->requant_shift = r.shift;
}

// A softmax's probabilities are uint8 when every reader is a MatMul taking them as its first
// operand (the neuron array multiplies uint8 x int8 there); a graph output or any other reader
// keeps them int8.
void mark_unsigned_probabilities(Graph* g) {
  std::vector<int> readers(g->tensors.size(), 0), matmul_a(g->tensors.size(), 0);
  for (const Node& n : g->nodes) {
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      ++readers[size_t(n.inputs[k])];
      if (k == 0 && n.op == OpType::kMatMul) ++matmul_a[size_t(n.inputs[k])];
    }
  }
  for (int t : g->outputs) ++readers[size_t(t)];
  for (const Node& n : g->nodes) {
    if (n.op != OpType::kSoftmax) continue;
    const size_t t = size_t(n.outputs[0]);
    g->tensors[t].is_unsigned = readers[t] > 0 && readers[t] == matmul_a[t];
  }
}

}  // namespace

void materialise_parameters(Graph* g, uint64_t seed) {
  mark_unsigned_probabilities(g);
  // The weights first, each tensor from its own seed, on up to 2 threads (the same bytes on any).
  std::vector<int> unfilled;
  for (const Node& n : g->nodes) {
    const bool weighted =
        n.op == OpType::kConv || n.op == OpType::kFullyConnected || is_norm(n.op);
    if (weighted && n.weights >= 0 && g->tensors.at(n.weights).data.empty() &&
        std::find(unfilled.begin(), unfilled.end(), n.weights) == unfilled.end()) {
      unfilled.push_back(n.weights);
    }
  }
  parallel_for(int(unfilled.size()), default_threads(), [&](int i) { fill_weights(&g->tensors[unfilled[i]], seed); });
  for (Node& n : g->nodes) {
    if (n.input_multiplier == 0 && n.op == OpType::kSoftmax) n.input_multiplier = kNominalSoftmaxMultiplier;
    if (n.input_multiplier == 0 && n.op == OpType::kGelu) n.input_multiplier = kNominalGeluMultiplier;
    if (is_norm(n.op) && n.input_multiplier == 0 && !n.inputs.empty()) {
      // The epsilon at the nominal input scale 1/16 (calibration sets it at the calibrated one).
      n.input_multiplier = layernorm_epsilon_code(norm_length(*g, n), n.epsilon, 1.0 / 16);
    }
    if (n.input2_multiplier == 0 && n.op == OpType::kAdd) n.input2_multiplier = n.requant_multiplier;
    if (n.op == OpType::kMatMul) {
      const double k = static_cast<double>(reduction_length(*g, n));
      choose_requant(1.0 / (std::sqrt(k) * kNominalRms), &n);
      continue;
    }
    if (is_norm(n.op) && n.weights >= 0) {
      Tensor& w = g->tensors.at(n.weights);
      if (w.data.empty()) fill_weights(&w, seed);
      // The normalised value has RMS 1, 2^kLayerNormFracBits in the integer LayerNorm.
      const double acc_rms = double(1 << kLayerNormFracBits) * weight_rms(w);
      if (n.bias >= 0 && g->tensors.at(n.bias).bias.empty()) {
        fill_bias(&g->tensors.at(n.bias), seed, static_cast<int64_t>(acc_rms / 4.0));
      }
      choose_requant(acc_rms > 0.0 ? kNominalRms / acc_rms : 1.0, &n);
      continue;
    }
    if (n.op != OpType::kConv && n.op != OpType::kFullyConnected) continue;
    if (n.weights < 0) continue;
    Tensor& w = g->tensors.at(n.weights);
    if (w.data.empty()) fill_weights(&w, seed);
    const double k = static_cast<double>(reduction_length(*g, n));
    const double rms = weight_rms(w);
    const double acc_rms = std::sqrt(k) * rms * kNominalRms;
    if (n.bias >= 0) {
      Tensor& b = g->tensors.at(n.bias);
      if (b.bias.empty()) fill_bias(&b, seed, static_cast<int64_t>(acc_rms / 4.0));
    }
    choose_requant(acc_rms > 0.0 ? kNominalRms / acc_rms : 1.0, &n);
  }
  for (Node& n : g->nodes) {  // inputs and outputs at one nominal scale: slope x 1
    if (!n.negative_slope.empty() && n.channel_requant.empty() && !n.inputs.empty()) {
      set_negative_requant(&n, double(n.requant_multiplier) / std::ldexp(1.0, n.requant_shift),
                           g->tensors.at(n.inputs[0]).shape.c);
    }
  }
  // Weight or bias tensors not attached to a conv / fc node (none today) still get data.
  for (Tensor& t : g->tensors) {
    if (t.kind == TensorKind::kWeight && t.data.empty()) fill_weights(&t, seed);
    if (t.kind == TensorKind::kBias && t.bias.empty()) fill_bias(&t, seed, 1024);
  }
}

void set_negative_requant(Node* n, double scale, int64_t channels) {
  n->channel_requant.clear();
  for (int64_t c = 0; c < channels; ++c) {
    const double f = scale * n->slope_of(c);
    Requant r{0, 0};
    if (f != 0) {
      r = quantize_multiplier(std::fabs(f));
      if (f < 0) r.multiplier = -r.multiplier;
    }
    n->channel_requant.push_back(r);
  }
}

}  // namespace strider
