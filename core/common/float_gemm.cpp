#include "core/common/float_gemm.h"

#include <algorithm>
#include <stdexcept>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define STRIDER_FLOAT_GEMM_AVX 1
// AVX without FMA: the compiler cannot fuse a product into its sum.
#define STRIDER_AVX_TARGET __attribute__((target("avx")))
#else
#define STRIDER_FLOAT_GEMM_AVX 0
#endif

namespace strider {
namespace {

constexpr int kRows = 4;   // rows of C per block
constexpr int kCols = 24;  // columns of C per block
constexpr int64_t kSlice = 256;  // values of s per pass over a block of C

// One block of R rows x cols (<= 24) columns: the sums in registers (or a local array the
// compiler vectorises), s in order.
template <int R>
void block_portable(const float* a, int64_t lda, const float* b, int64_t ldb, int64_t k,
                    float* c, int64_t ldc, int64_t cols, bool resume) {
  float acc[R][kCols] = {};
  if (resume) {
    for (int r = 0; r < R; ++r) std::copy(c + r * ldc, c + r * ldc + cols, acc[r]);
  }
  for (int64_t s = 0; s < k; ++s) {
    const float* row = b + s * ldb;
    for (int r = 0; r < R; ++r) {
      const float w = a[r * lda + s];
      for (int64_t j = 0; j < cols; ++j) {
        const float p = w * row[j];
        acc[r][j] += p;
      }
    }
  }
  for (int r = 0; r < R; ++r) std::copy(acc[r], acc[r] + cols, c + r * ldc);
}

#if STRIDER_FLOAT_GEMM_AVX
// The last of the V vectors is loaded and stored under `mask` (its lanes < cols), the others whole.
template <int R, int V>
STRIDER_AVX_TARGET void block_avx(const float* a, int64_t lda, const float* b, int64_t ldb,
                                  int64_t k, float* c, int64_t ldc, __m256i mask, bool resume) {
  __m256 acc[R][V];
  for (int r = 0; r < R; ++r) {
    for (int v = 0; v < V - 1; ++v) acc[r][v] = resume ? _mm256_loadu_ps(c + r * ldc + 8 * v) : _mm256_setzero_ps();
    acc[r][V - 1] = resume ? _mm256_maskload_ps(c + r * ldc + 8 * (V - 1), mask) : _mm256_setzero_ps();
  }
  for (int64_t s = 0; s < k; ++s) {
    __m256 x[V];
    for (int v = 0; v < V - 1; ++v) x[v] = _mm256_loadu_ps(b + s * ldb + 8 * v);
    x[V - 1] = _mm256_maskload_ps(b + s * ldb + 8 * (V - 1), mask);
    for (int r = 0; r < R; ++r) {
      const __m256 w = _mm256_broadcast_ss(a + r * lda + s);
      for (int v = 0; v < V; ++v) acc[r][v] = _mm256_add_ps(acc[r][v], _mm256_mul_ps(w, x[v]));
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int v = 0; v < V - 1; ++v) _mm256_storeu_ps(c + r * ldc + 8 * v, acc[r][v]);
    _mm256_maskstore_ps(c + r * ldc + 8 * (V - 1), mask, acc[r][V - 1]);
  }
}

template <int V>
STRIDER_AVX_TARGET void rows_avx(int64_t m, const float* a, int64_t lda, const float* b,
                                 int64_t ldb, int64_t k, float* c, int64_t ldc, int64_t cols,
                                 bool resume) {
  const int64_t last = cols - 8 * (V - 1);  // lanes of the last vector, 1 to 8
  alignas(32) int32_t lanes[8];
  for (int l = 0; l < 8; ++l) lanes[l] = l < last ? -1 : 0;
  const __m256i mask = _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes));
  for (int64_t i = 0; i < m; i += kRows) {
    const float* ar = a + i * lda;
    float* cr = c + i * ldc;
    switch (std::min<int64_t>(kRows, m - i)) {
      case 4:
        block_avx<4, V>(ar, lda, b, ldb, k, cr, ldc, mask, resume);
        break;
      case 3:
        block_avx<3, V>(ar, lda, b, ldb, k, cr, ldc, mask, resume);
        break;
      case 2:
        block_avx<2, V>(ar, lda, b, ldb, k, cr, ldc, mask, resume);
        break;
      default:
        block_avx<1, V>(ar, lda, b, ldb, k, cr, ldc, mask, resume);
        break;
    }
  }
}
#endif

void rows_portable(int64_t m, const float* a, int64_t lda, const float* b, int64_t ldb, int64_t k,
                   float* c, int64_t ldc, int64_t cols, bool resume) {
  for (int64_t i = 0; i < m; i += kRows) {
    const float* ar = a + i * lda;
    float* cr = c + i * ldc;
    switch (std::min<int64_t>(kRows, m - i)) {
      case 4:
        block_portable<4>(ar, lda, b, ldb, k, cr, ldc, cols, resume);
        break;
      case 3:
        block_portable<3>(ar, lda, b, ldb, k, cr, ldc, cols, resume);
        break;
      case 2:
        block_portable<2>(ar, lda, b, ldb, k, cr, ldc, cols, resume);
        break;
      default:
        block_portable<1>(ar, lda, b, ldb, k, cr, ldc, cols, resume);
        break;
    }
  }
}

}  // namespace

bool float_gemm_kernel_available(FloatGemmKernel k) {
  switch (k) {
    case FloatGemmKernel::kPortable:
      return true;
    case FloatGemmKernel::kAvx:
#if STRIDER_FLOAT_GEMM_AVX
      return __builtin_cpu_supports("avx");
#else
      return false;
#endif
  }
  return false;
}

void gemm_f32(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
              int64_t ldb, float* c, int64_t ldc) {
  static const FloatGemmKernel best = float_gemm_kernel_available(FloatGemmKernel::kAvx)
                                          ? FloatGemmKernel::kAvx
                                          : FloatGemmKernel::kPortable;
  gemm_f32(best, m, n, k, a, lda, b, ldb, c, ldc);
}

void gemm_f32(FloatGemmKernel kernel, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
              const float* b, int64_t ldb, float* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  if (!float_gemm_kernel_available(kernel))
    throw std::logic_error("gemm_f32: kernel not available on this CPU");
  // Column blocks of 24, the sum over s in slices of kSlice (the block of B stays in the L1
  // cache while every row block runs over it): a slice after the first resumes from the float
  // sums stored in C, which changes no bit of them.
  for (int64_t n0 = 0; n0 < n; n0 += kCols) {
    const int64_t cols = std::min<int64_t>(kCols, n - n0);
    for (int64_t s0 = 0; s0 < k || s0 == 0; s0 += kSlice) {
      const int64_t len = std::min<int64_t>(kSlice, k - s0);
      const bool resume = s0 > 0;
      const float* as = a + s0;
      const float* bs = b + s0 * ldb + n0;
#if STRIDER_FLOAT_GEMM_AVX
      if (kernel == FloatGemmKernel::kAvx) {
        switch ((cols + 7) / 8) {
          case 3:
            rows_avx<3>(m, as, lda, bs, ldb, len, c + n0, ldc, cols, resume);
            break;
          case 2:
            rows_avx<2>(m, as, lda, bs, ldb, len, c + n0, ldc, cols, resume);
            break;
          default:
            rows_avx<1>(m, as, lda, bs, ldb, len, c + n0, ldc, cols, resume);
            break;
        }
        continue;
      }
#endif
      rows_portable(m, as, lda, bs, ldb, len, c + n0, ldc, cols, resume);
    }
  }
}

}  // namespace strider
