// core/common/float_gemm.h: every kernel this CPU runs gives, bit for bit, the sums of a plain loop
// that adds the rounded products in order s = 0 .. k-1 to a float starting at 0, for sizes that
// are not multiples of its 4-row blocks, 8-column vectors or 24-column blocks, with row strides
// wider than the rows; and splitting C by columns or rows changes no bit.
#include "core/common/float_gemm.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "core/common/hash.h"

namespace strider {
namespace {

struct Case {
  int64_t m, n, k, lda, ldb, ldc;
};

std::vector<float> random_floats(SplitMix64& rng, size_t count) {
  std::vector<float> v(count);
  for (float& x : v) x = float(rng.unit() * 2.0 - 1.0);
  return v;
}

// The definition, one element at a time.
void plain(const Case& t, const std::vector<float>& a, const std::vector<float>& b,
           std::vector<float>& c) {
  for (int64_t i = 0; i < t.m; ++i) {
    for (int64_t j = 0; j < t.n; ++j) {
      volatile float sum = 0.0f;  // no contraction, no reassociation
      for (int64_t s = 0; s < t.k; ++s) {
        volatile float p = a[i * t.lda + s] * b[s * t.ldb + j];
        sum = sum + p;
      }
      c[i * t.ldc + j] = sum;
    }
  }
}

std::vector<FloatGemmKernel> kernels() {
  std::vector<FloatGemmKernel> ks;
  for (FloatGemmKernel k : {FloatGemmKernel::kPortable, FloatGemmKernel::kAvx}) {
    if (float_gemm_kernel_available(k)) ks.push_back(k);
  }
  return ks;
}

bool same_bits(const std::vector<float>& x, const std::vector<float>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
}

TEST(FloatGemm, EveryKernelMatchesTheOrderedSumBitForBit) {
  SplitMix64 rng(18);
  const std::vector<Case> cases = {
      {1, 1, 1, 1, 1, 1},         {3, 5, 7, 7, 5, 5},          {4, 24, 4, 4, 24, 24},
      {5, 49, 9, 11, 50, 52},     {17, 130, 147, 150, 131, 133}, {64, 49, 576, 576, 49, 49},
      {2, 200, 1, 1, 200, 200},   {9, 16, 33, 40, 16, 17},      {31, 3, 1152, 1152, 3, 3},
      {6, 31, 1000, 1000, 31, 31},    {5, 24, 0, 1, 24, 24},         {7, 9, 513, 520, 9, 9},
  };
  for (const Case& t : cases) {
    const std::vector<float> a = random_floats(rng, size_t(t.m * t.lda));
    const std::vector<float> b = random_floats(rng, size_t(t.k * t.ldb));
    std::vector<float> want(size_t(t.m * t.ldc), -7.0f);
    plain(t, a, b, want);
    for (FloatGemmKernel kernel : kernels()) {
      std::vector<float> got(size_t(t.m * t.ldc), -7.0f);  // padding columns stay -7
      gemm_f32(kernel, t.m, t.n, t.k, a.data(), t.lda, b.data(), t.ldb, got.data(), t.ldc);
      ASSERT_TRUE(same_bits(got, want)) << "kernel " << int(kernel) << ", m " << t.m << " n "
                                        << t.n << " k " << t.k;
    }
  }
}

TEST(FloatGemm, SplittingCByColumnsOrRowsChangesNoBit) {
  SplitMix64 rng(7);
  const int64_t m = 13, n = 77, k = 300;
  const std::vector<float> a = random_floats(rng, size_t(m * k)), b = random_floats(rng, size_t(k * n));
  std::vector<float> whole(size_t(m * n)), split(size_t(m * n));
  gemm_f32(m, n, k, a.data(), k, b.data(), n, whole.data(), n);
  gemm_f32(m, 37, k, a.data(), k, b.data(), n, split.data(), n);        // columns [0, 37)
  gemm_f32(5, n - 37, k, a.data(), k, b.data() + 37, n, split.data() + 37, n);  // rows [0, 5)
  gemm_f32(m - 5, n - 37, k, a.data() + 5 * k, k, b.data() + 37, n, split.data() + 5 * n + 37, n);
  EXPECT_TRUE(same_bits(whole, split));
}

TEST(FloatGemm, SmallProductByHandAndUnavailableKernelThrows) {
  // [1 2; 3 4] x [5 6; 7 8] = [19 22; 43 50].
  const std::vector<float> a = {1, 2, 3, 4}, b = {5, 6, 7, 8};
  std::vector<float> c(4);
  gemm_f32(2, 2, 2, a.data(), 2, b.data(), 2, c.data(), 2);
  EXPECT_EQ(c, (std::vector<float>{19, 22, 43, 50}));
  if (!float_gemm_kernel_available(FloatGemmKernel::kAvx)) {
    EXPECT_THROW(gemm_f32(FloatGemmKernel::kAvx, 1, 1, 1, a.data(), 1, b.data(), 1, c.data(), 1),
                 std::logic_error);
  }
}

}  // namespace
}  // namespace strider
