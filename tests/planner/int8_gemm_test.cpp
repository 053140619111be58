// core/common/int8_gemm.h: every kernel this CPU runs gives, bit for bit, the int32 sums of a plain
// triple loop, on random int8 data and on the extremes (-128 everywhere, which the VNNI kernel's
// +128 offset and its row-sum correction must undo exactly), for sizes that are not multiples of
// its 4-row quads, 4-row blocks or 64-column panels (nor of the AVX2 kernel's row pairs, 3-row
// blocks and 8-column vectors of 24-column panels), with row strides wider than the rows and C holding
// values before (the product is added to them).
#include "core/common/int8_gemm.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "core/common/hash.h"

namespace strider {
namespace {

struct Case {
  int64_t m, n, k, lda, ldb, ldc;
};

std::vector<int8_t> random_bytes(SplitMix64& rng, size_t count) {
  std::vector<int8_t> v(count);
  for (int8_t& x : v) x = static_cast<int8_t>(rng.next() & 0xff);
  return v;
}

// C += A x B by the definition.
void plain(const Case& t, const std::vector<int8_t>& a, const std::vector<int8_t>& b,
           std::vector<int32_t>& c) {
  for (int64_t i = 0; i < t.m; ++i) {
    for (int64_t j = 0; j < t.n; ++j) {
      int32_t sum = 0;
      for (int64_t s = 0; s < t.k; ++s)
        sum += int32_t(a[i * t.lda + s]) * int32_t(b[s * t.ldb + j]);
      c[i * t.ldc + j] += sum;
    }
  }
}

std::vector<GemmKernel> kernels() {
  std::vector<GemmKernel> ks;
  for (GemmKernel k : {GemmKernel::kPortable, GemmKernel::kAvx2, GemmKernel::kAvx512Vnni}) {
    if (gemm_kernel_available(k)) ks.push_back(k);
  }
  return ks;
}

void check(const Case& t, const std::vector<int8_t>& a, const std::vector<int8_t>& b,
           const std::vector<int32_t>& c0) {
  std::vector<int32_t> want = c0;
  plain(t, a, b, want);
  for (GemmKernel kernel : kernels()) {
    std::vector<int32_t> got = c0;
    gemm_s8s32(kernel, t.m, t.n, t.k, a.data(), t.lda, b.data(), t.ldb, got.data(), t.ldc);
    ASSERT_EQ(got, want) << "kernel " << int(kernel) << ", m " << t.m << " n " << t.n << " k "
                         << t.k;
  }
}

TEST(Int8Gemm, RandomOddSizesAndStridesMatchPlainLoop) {
  SplitMix64 rng(18);
  const std::vector<Case> cases = {
      {1, 1, 1, 1, 1, 1},
      {3, 5, 7, 7, 5, 5},
      {4, 64, 4, 4, 64, 64},
      {5, 65, 9, 11, 70, 66},
      {17, 130, 147, 150, 131, 133},
      {64, 49, 576, 576, 49, 49},
      {2, 200, 1, 1, 200, 200},
      {9, 16, 33, 40, 16, 17},
      {31, 3, 1152, 1152, 3, 3},
  };
  for (const Case& t : cases) {
    const std::vector<int8_t> a = random_bytes(rng, size_t(t.m * t.lda));
    const std::vector<int8_t> b = random_bytes(rng, size_t(t.k * t.ldb));
    std::vector<int32_t> c(size_t(t.m * t.ldc));
    for (int32_t& x : c) x = int32_t(rng.next() % 2000001) - 1000000;
    check(t, a, b, c);
  }
}

TEST(Int8Gemm, ExtremesAreExact) {
  // Every product is (-128) x (-128) = 16384; k = 1001 of them sum to 16400384, and with A = -128,
  // B = 127 to -16272256. Zero weights (skipped by the portable kernel) add nothing.
  const Case t{6, 70, 1001, 1001, 70, 70};
  std::vector<int8_t> a(size_t(t.m * t.lda), int8_t(-128)), b(size_t(t.k * t.ldb), int8_t(-128));
  for (int64_t s = 0; s < t.k; ++s) b[s * t.ldb + 1] = 127;
  for (int64_t s = 0; s < t.k; ++s) a[5 * t.lda + s] = 0;
  const std::vector<int32_t> c0(size_t(t.m * t.ldc), 7);
  check(t, a, b, c0);
  for (GemmKernel kernel : kernels()) {
    std::vector<int32_t> c = c0;
    gemm_s8s32(kernel, t.m, t.n, t.k, a.data(), t.lda, b.data(), t.ldb, c.data(), t.ldc);
    EXPECT_EQ(c[0], 7 + 16400384);
    EXPECT_EQ(c[1], 7 - 16272256);
    EXPECT_EQ(c[5 * t.ldc + 3], 7);
  }
}

TEST(Int8Gemm, EmptyProductLeavesCAndUnavailableKernelThrows) {
  std::vector<int32_t> c = {1, 2};
  const int8_t x = 5;
  gemm_s8s32(GemmKernel::kPortable, 1, 2, 0, &x, 1, &x, 2, c.data(), 2);
  EXPECT_EQ(c, (std::vector<int32_t>{1, 2}));
  if (!gemm_kernel_available(GemmKernel::kAvx512Vnni)) {
    EXPECT_THROW(gemm_s8s32(GemmKernel::kAvx512Vnni, 1, 1, 1, &x, 1, &x, 1, c.data(), 1),
                 std::logic_error);
  }
}

}  // namespace
}  // namespace strider
