// Tests of parameter materialisation: deterministic weights and the requantisation choice,
// checked through the shared integer rules of core/contract/quant.h.
#include <gtest/gtest.h>

#include <cmath>

#include "planner/import/yaml_network.h"
#include "planner/ir/graph.h"
#include "core/contract/quant.h"
#include "tests/planner/import_test_util.h"

namespace strider {
namespace {

const std::string kTiny = std::string(STRIDER_SOURCE_DIR) + "/configs/networks/tiny_cnn.yaml";

TEST(IrParameters, DeterministicPerSeedAndPerName) {
  Graph a = import_yaml_network(kTiny);
  Graph b = import_yaml_network(kTiny);
  Graph c = import_yaml_network(kTiny);
  materialise_parameters(&a, 7);
  materialise_parameters(&b, 7);
  materialise_parameters(&c, 8);
  int differing = 0;
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    EXPECT_EQ(a.tensors[i].data, b.tensors[i].data) << a.tensors[i].name;
    EXPECT_EQ(a.tensors[i].bias, b.tensors[i].bias) << a.tensors[i].name;
    if (a.tensors[i].kind == TensorKind::kWeight) {
      EXPECT_EQ(static_cast<int64_t>(a.tensors[i].data.size()), a.tensors[i].shape.elements());
      differing += a.tensors[i].data != c.tensors[i].data;
      for (int8_t v : a.tensors[i].data) ASSERT_GE(v, -127);
    }
  }
  EXPECT_EQ(differing, 6);  // every weight tensor changes with the seed
  // A tensor's values depend only on seed and name (the stream is the same, its length is the
  // tensor's size): renaming conv1's weights to conv2a's gives conv2a's first 16*27 values.
  Graph d = import_yaml_network(kTiny);
  std::swap(d.tensors[d.nodes[0].weights].name, d.tensors[d.nodes[2].weights].name);
  materialise_parameters(&d, 7);
  const auto& conv2a = a.tensors[a.nodes[2].weights].data;
  EXPECT_EQ(d.tensors[d.nodes[0].weights].data,
            std::vector<int8_t>(conv2a.begin(), conv2a.begin() + 16 * 27));
  EXPECT_EQ(d.tensors[node_named(d, "fc").weights].data,
            a.tensors[node_named(a, "fc").weights].data);
  // Existing data is kept.
  Graph e = import_yaml_network(kTiny);
  e.tensors[e.nodes[0].weights].data.assign(16 * 27, 3);
  materialise_parameters(&e, 7);
  EXPECT_EQ(e.tensors[e.nodes[0].weights].data, std::vector<int8_t>(16 * 27, 3));
}

TEST(IrParameters, RequantFromReductionLengthAndWeightRms) {
  Graph g = import_yaml_network(kTiny);
  // conv2b: 1x1 over 16 channels, K = 16. Weights all 64: rms 64, accumulator rms
  // sqrt(16) * 64 * 32 = 8192, scale 32 / 8192 = 2^-8 = 16384 / 2^22.
  const Node& conv2b = node_named(g, "conv2b");
  g.tensors[conv2b.weights].data.assign(16 * 16, 64);
  materialise_parameters(&g, 1);
  EXPECT_EQ(node_named(g, "conv2b").requant_multiplier, 16384);
  EXPECT_EQ(node_named(g, "conv2b").requant_shift, 22);
  // Bias bound: accumulator rms / 4 = 2048.
  for (int32_t b : g.tensors[conv2b.bias].bias) {
    EXPECT_LE(std::abs(b), 2048);
  }
  // Random weights: multiplier in [2^14, 2^15) and multiplier / 2^shift within one part in
  // 2^14 of 1 / (sqrt(K) * rms(W)).
  for (const Node& n : g.nodes) {
    if (n.weights < 0) continue;
    EXPECT_GE(n.requant_multiplier, 16384) << n.name;
    EXPECT_LT(n.requant_multiplier, 32768) << n.name;
    const auto& w = g.tensors[n.weights].data;
    double sq = 0;
    for (int8_t v : w) sq += double(v) * v;
    const double want =
        1.0 / (std::sqrt(double(reduction_length(g, n))) * std::sqrt(sq / w.size()));
    const double got = n.requant_multiplier / std::ldexp(1.0, n.requant_shift);
    EXPECT_NEAR(got / want, 1.0, 1.0 / 16384) << n.name;
  }
}

TEST(IrParameters, OutputsUseTheRangeWithoutSaturating) {
  // Run conv2a (3x3x16, K = 144) on pseudo-random inputs of rms ~32 and check the requantised
  // outputs: rms between 16 and 64 and under 1% saturated.
  Graph g = import_yaml_network(kTiny);
  materialise_parameters(&g, 42);
  const Node& n = node_named(g, "conv2a");
  const auto& w = g.tensors[n.weights].data;
  const auto& bias = g.tensors[n.bias].bias;
  const int64_t k = reduction_length(g, n);
  uint64_t state = 12345;
  int saturated = 0, total = 0;
  double sq = 0;
  for (int sample = 0; sample < 200; ++sample) {
    std::vector<int> x(static_cast<size_t>(k));
    for (int& v : x) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      v = static_cast<int>((state >> 33) % 111) - 55;  // uniform [-55, 55], rms 32.0
    }
    for (int oc = 0; oc < 16; ++oc) {
      int64_t acc = bias[oc];
      for (int64_t i = 0; i < k; ++i) acc += int64_t(w[oc * k + i]) * x[i];
      const int32_t q = round_shift(acc * n.requant_multiplier, n.requant_shift);
      saturated += q > 127 || q < -128;
      sq += double(q) * q;
      ++total;
    }
  }
  const double rms = std::sqrt(sq / total);
  EXPECT_GT(rms, 16.0);
  EXPECT_LT(rms, 64.0);
  EXPECT_LT(saturated, total / 100);
}

}  // namespace
}  // namespace strider
