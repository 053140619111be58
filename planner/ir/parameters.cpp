// Graph IR parameters: deterministic pseudo-random weights and biases for graphs imported without
// data, the per-node requantisation choice, and the reference output stage (requantise +
// activation) that models and reference checks share.
//
// Weights: uniform int8 in [-127, 127] from splitmix64 seeded with seed XOR FNV-1a(tensor name),
// so a tensor's values do not depend on the order or presence of other tensors.
// Requantisation: inputs are assumed to have an RMS of kNominalRms (32); an output element's
// accumulator then has RMS sqrt(K) * rms(W) * 32 for reduction length K, and the scale
// multiplier / 2^shift = 1 / (sqrt(K) * rms(W)) brings it back to RMS 32, a quarter of the int8
// range, so outputs spread over the range without saturating on average. The multiplier is kept
// in [2^14, 2^15) for precision. Biases: uniform in +-(accumulator RMS / 4).
#include <cmath>
#include <limits>

#include "planner/ir/graph.h"

namespace strider {
namespace {

constexpr double kNominalRms = 32.0;

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  return h;
}

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi] (the modulo bias is irrelevant for test data).
  int64_t uniform(int64_t lo, int64_t hi) {
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    return lo + static_cast<int64_t>(next() % span);
  }

 private:
  uint64_t state_;
};

void fill_weights(Tensor* t, uint64_t seed) {
  SplitMix64 rng(seed ^ fnv1a(t->name));
  t->data.resize(static_cast<size_t>(t->shape.elements()));
  for (int8_t& v : t->data) v = static_cast<int8_t>(rng.uniform(-127, 127));
}

void fill_bias(Tensor* t, uint64_t seed, int64_t bound) {
  SplitMix64 rng(seed ^ fnv1a(t->name));
  t->bias.resize(static_cast<size_t>(t->shape.elements()));
  for (int32_t& v : t->bias) v = static_cast<int32_t>(rng.uniform(-bound, bound));
}

double weight_rms(const Tensor& w) {
  if (w.data.empty()) return 0.0;
  int64_t sum_sq = 0;
  for (int8_t v : w.data) sum_sq += static_cast<int64_t>(v) * v;
  return std::sqrt(static_cast<double>(sum_sq) / static_cast<double>(w.data.size()));
}

// multiplier in [2^14, 2^15) and shift with multiplier / 2^shift ~= scale.
void choose_requant(double scale, Node* n) {
  if (!(scale > 0.0) || !std::isfinite(scale)) scale = 1.0;
  int exponent = 0;
  const double mantissa = std::frexp(scale, &exponent);  // scale = mantissa * 2^exponent
  int64_t multiplier = std::llround(mantissa * 32768.0);
  int shift = 15 - exponent;
  if (multiplier == 32768) {
    multiplier = 16384;
    --shift;
  }
  while (shift < 0 && multiplier < (int64_t{1} << 30)) {
    multiplier <<= 1;
    ++shift;
  }
  if (shift < 0) shift = 0;
  while (shift > 62) {
    multiplier >>= 1;
    --shift;
  }
  n->requant_multiplier = static_cast<int32_t>(multiplier < 1 ? 1 : multiplier);
  n->requant_shift = shift;
}

}  // namespace

void materialise_parameters(Graph* g, uint64_t seed) {
  for (Node& n : g->nodes) {
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
  // Weight or bias tensors not attached to a conv / fc node (none today) still get data.
  for (Tensor& t : g->tensors) {
    if (t.kind == TensorKind::kWeight && t.data.empty()) fill_weights(&t, seed);
    if (t.kind == TensorKind::kBias && t.bias.empty()) fill_bias(&t, seed, 1024);
  }
}

int32_t requantise(int64_t acc, int32_t multiplier, int32_t shift) {
  // |acc| < 2^32 and |multiplier| < 2^31 keep the product inside 64 bits.
  const int64_t product = acc * static_cast<int64_t>(multiplier);
  int64_t magnitude = product < 0 ? -product : product;
  if (shift > 0) magnitude = (magnitude + (int64_t{1} << (shift - 1))) >> shift;
  const int64_t v = product < 0 ? -magnitude : magnitude;
  if (v > std::numeric_limits<int32_t>::max()) return std::numeric_limits<int32_t>::max();
  if (v < std::numeric_limits<int32_t>::min()) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(v);
}

namespace {

int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

// Integer division rounded half away from zero (den > 0).
int64_t div_round(int64_t num, int64_t den) {
  return num >= 0 ? (num + den / 2) / den : -((-num + den / 2) / den);
}

}  // namespace

int8_t apply_activation(int32_t value, const Node& n) {
  const int64_t v = value;
  const int64_t s = kActivationScale;
  int64_t r = v;
  switch (n.activation) {
    case Activation::kNone: break;
    case Activation::kRelu: r = v < 0 ? 0 : v; break;
    case Activation::kRelu6: r = clamp64(v, 0, 6 * s); break;
    case Activation::kClip: r = clamp64(v, n.clip_min, n.clip_max); break;
    case Activation::kSigmoid:
      r = std::llround(static_cast<double>(s) / (1.0 + std::exp(-static_cast<double>(v) / s)));
      break;
    case Activation::kHardSigmoid:  // relu6(x + 3) / 6 in units of 1/s
      r = div_round(clamp64(v + 3 * s, 0, 6 * s), 6);
      break;
    case Activation::kHardSwish:  // x * relu6(x + 3) / 6 in units of 1/s
      r = div_round(v * clamp64(v + 3 * s, 0, 6 * s), 6 * s);
      break;
  }
  return static_cast<int8_t>(clamp64(r, -128, 127));
}

}  // namespace strider
