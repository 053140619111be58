// The vector unit's integer functions (core/contract/vector_math.h) against floating point.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

#include "core/contract/vector_math.h"

namespace strider {
namespace {

TEST(VectorMath, ExpQ15WithinTwoTenthousandths) {
  EXPECT_EQ(softmax_input_multiplier(1.0 / 16), kNominalSoftmaxMultiplier);  // 1,512,775.395
  EXPECT_EQ(exp_q15(0, kNominalSoftmaxMultiplier), 32768);  // 2^0 exactly
  // d = -16 at s = 1/16: t = -16 x 1,512,775 = -24,204,400 (Q24) -> i = -2, t + 2^25 =
  // 9,350,032, f = 9,350,032 >> 8 = 36,523 (Q16). Horner over f / 2^16: 5206 -> 2,901 + 14,712
  // = 17,613 -> 9,815 + 45,617 = 55,432 -> 30,891; (65,536 + 30,891) / 2 = 48,213 (2^f in Q15),
  // >> 2 = 12,053 (exp(-1) x 2^15 = 12,054.6).
  EXPECT_EQ(exp_q15(-16, kNominalSoftmaxMultiplier), 12053);
  // The same real difference at s = 1/4: L = round(2^24 log2(e) / 4) = 6,051,102, t = -4 L =
  // -24,204,408, f = 9,350,024 >> 8 = 36,523 again: the same 12,053.
  EXPECT_EQ(softmax_input_multiplier(0.25), 6051102);
  EXPECT_EQ(exp_q15(-4, 6051102), 12053);
  for (double s : {1.0 / 16, 1.0 / 64, 0.25, 1.0}) {
    const int32_t l = softmax_input_multiplier(s);
    for (int d = -255; d <= 0; ++d) {
      const double want = std::exp(d * s) * 32768.0;
      EXPECT_NEAR(exp_q15(d, l), want, 0.0002 * want + 1.0) << d << " at scale " << s;
    }
  }
}

TEST(VectorMath, IsqrtIsTheFloorOfTheSquareRoot) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 10000; ++i) {
    const uint64_t v = rng() >> (rng() % 40);
    const uint64_t r = isqrt(v);
    EXPECT_LE(r * r, v);
    EXPECT_GT((r + 1) * (r + 1), v);
  }
  EXPECT_EQ(isqrt(0), 0u);
  EXPECT_EQ(isqrt(99), 9u);
  EXPECT_EQ(isqrt(100), 10u);
}

TEST(VectorMath, ErfAndGeluNearTheirRealValues) {
  for (int64_t z = 0; z <= 6 * 65536; z += 97) {
    EXPECT_NEAR(erf_q16(z), std::erf(z / 65536.0) * 65536.0, 0.0006 * 65536) << z;
  }
  EXPECT_EQ(erf_q16(int64_t{4} << 16), 65536);  // 2^32 / q^4 < 1 from z = 4 on (the clamp)
  EXPECT_EQ(erf_q16(int64_t{1} << 40), 65536);  // clamped: no 64-bit overflow
  EXPECT_EQ(gelu_input_multiplier(1.0 / 16), kNominalGeluMultiplier);  // 741,455.2
  for (int x = -128; x <= 127; ++x) {  // 1/16 in and out: requantisation (1, 0)
    const double r = x / 16.0, want = 16.0 * r * 0.5 * (1.0 + std::erf(r / std::sqrt(2.0)));
    EXPECT_NEAR(gelu(int8_t(x), kNominalGeluMultiplier, 1, 0), want, 0.51) << x;  // int8 rounding
  }
  EXPECT_EQ(gelu(0, kNominalGeluMultiplier, 1, 0), 0);
  EXPECT_EQ(gelu(127, kNominalGeluMultiplier, 1, 0), 127);  // Phi(7.9) rounds to 1
  // Input at 1/4, output at 1/8: G = round(2^24 / (4 sqrt 2)) = 2,965,821, requantisation 2 =
  // 16384 / 2^13. x = 8 (2.0): z = 8 G >> 8 = 92,681 (sqrt 2 in Q16), erf_q16 = 62,579 (erf(sqrt
  // 2) = 0.9545 = 62,554 / 2^16), v = 8 x (65,536 + 62,579) = 1,024,920, x 16384 / 2^30 = 15.64
  // -> 16 (gelu(2) = 1.9545 = 15.64 / 8).
  const int32_t g = gelu_input_multiplier(0.25);
  EXPECT_EQ(g, 2965821);
  EXPECT_EQ(gelu(8, g, 16384, 13), 16);
  for (int x = -128; x <= 127; ++x) {
    const double r = x / 4.0, want = 8.0 * r * 0.5 * (1.0 + std::erf(r / std::sqrt(2.0)));
    EXPECT_NEAR(gelu(int8_t(x), g, 16384, 13), std::clamp(want, -128.0, 127.0), 0.51 + 0.0006 * 2 * std::fabs(r) * 8) << x;
  }
}

TEST(VectorMath, SoftmaxProbAndLayerNormValue) {
  EXPECT_EQ(softmax_prob(32768, 32768), 127);
  EXPECT_EQ(softmax_prob(16384, 32768), 64);  // 63.5 rounds up
  EXPECT_EQ(softmax_prob(0, 32768), 0);
  // uint8 probabilities at 1/255: (floor(510 e m / sum) + 2^s) >> (s + 1).
  EXPECT_EQ(softmax_prob_u8(32768, 32768, 1, 0), 255);  // 510 + 1 >> 1
  EXPECT_EQ(softmax_prob_u8(16384, 32768, 1, 0), 128);  // 127.5 rounds up
  // exp(-1) against 1 + exp(-1): 510 x 12053 / 44821 = 137.1 -> (137 + 1) >> 1 = 69
  // (255 x 0.2689 = 68.6).
  EXPECT_EQ(softmax_prob_u8(12053, 32768 + 12053, 1, 0), 69);
  // Requantised by 16384 / 2^10 = 16: 510 x 100 x 16384 / 65536 = 12,750; (12,750 + 1024) >> 11
  // = 6 (255 x 100 / 65536 x 16 = 6.2).
  EXPECT_EQ(softmax_prob_u8(100, 65536, 16384, 10), 6);
  EXPECT_EQ(softmax_prob_u8(32768, 32768, 3, 0), 255);  // saturates at 255
  EXPECT_EQ(layernorm_value(10, 20), 128);    // 2560 / 20 (y at 1/256)
  EXPECT_EQ(layernorm_value(-7, 4), -448);    // -1792 / 4
  EXPECT_EQ(layernorm_value(1, 512), 1);      // 0.5 rounds away from zero
  EXPECT_EQ(layernorm_value(-1, 512), -1);
  EXPECT_EQ(layernorm_value(1, 513), 0);      // 0.499
  EXPECT_EQ(layernorm_value(5, 0), 0);        // a constant row
}

}  // namespace
}  // namespace strider
