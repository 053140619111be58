// The vector unit's integer functions (strider/vector_math.h) against floating point.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

#include "strider/vector_math.h"

namespace strider {
namespace {

TEST(VectorMath, ExpQ15WithinTwoTenthousandths) {
  EXPECT_EQ(exp_q15(0), 32768);  // 2^0 exactly
  // d = -16: t = -16 x 5909 = -94,544 -> i = -2, f = 36,528. Horner over f / 2^16: 5206 -> 2,901
  // + 14,712 = 17,613 -> 9,817 + 45,617 = 55,434 -> 30,897; (65,536 + 30,897) / 2 = 48,216 (2^f
  // in Q15), >> 2 = 12,054 (exp(-1) x 2^15 = 12,054.6).
  EXPECT_EQ(exp_q15(-16), 12054);
  for (int d = -255; d <= 0; ++d) {
    const double want = std::exp(d / 16.0) * 32768.0;
    EXPECT_NEAR(exp_q15(d), want, 0.0002 * want + 1.0) << d;
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
  for (int x = -128; x <= 127; ++x) {
    const double r = x / 16.0, want = 16.0 * r * 0.5 * (1.0 + std::erf(r / std::sqrt(2.0)));
    EXPECT_NEAR(gelu(int8_t(x)), want, 0.51) << x;  // rounding of an int8 result
  }
  EXPECT_EQ(gelu(0), 0);
  EXPECT_EQ(gelu(127), 127);  // Phi(7.9) rounds to 1
}

TEST(VectorMath, SoftmaxProbAndLayerNormValue) {
  EXPECT_EQ(softmax_prob(32768, 32768), 127);
  EXPECT_EQ(softmax_prob(16384, 32768), 64);  // 63.5 rounds up
  EXPECT_EQ(softmax_prob(0, 32768), 0);
  EXPECT_EQ(layernorm_value(10, 20), 8);    // 160 / 20
  EXPECT_EQ(layernorm_value(-7, 4), -28);   // -112 / 4
  EXPECT_EQ(layernorm_value(1, 32), 1);     // 0.5 rounds away from zero
  EXPECT_EQ(layernorm_value(-1, 32), -1);
  EXPECT_EQ(layernorm_value(5, 0), 0);      // a constant row
}

}  // namespace
}  // namespace strider
