#include "core/common/int8_gemm.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include "core/common/simd.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define STRIDER_GEMM_VNNI 1
#define STRIDER_VNNI_TARGET __attribute__((target("avx512f,avx512bw,avx512vnni")))
#else
#define STRIDER_GEMM_VNNI 0
#endif

namespace strider {
namespace {

// Each row of A streams over B in chunks of columns whose int32 sums stay in L1 (int8 x int8
// products fit int16 exactly); zero weights are skipped.
STRIDER_SIMD_CLONES
void gemm_portable(int64_t m, int64_t n, int64_t k, const int8_t* a, int64_t lda, const int8_t* b,
                   int64_t ldb, int32_t* c, int64_t ldc) {
  constexpr int64_t kChunk = 256;
  for (int64_t n0 = 0; n0 < n; n0 += kChunk) {
    const int64_t w = std::min(kChunk, n - n0);
    for (int64_t i = 0; i < m; ++i) {
      int32_t* row = c + i * ldc + n0;
      for (int64_t s = 0; s < k; ++s) {
        const int16_t x = a[i * lda + s];
        if (x == 0) continue;
        const int8_t* line = b + s * ldb + n0;
        for (int64_t j = 0; j < w; ++j) row[j] += int16_t(x * line[j]);
      }
    }
  }
}

#if STRIDER_GEMM_VNNI
#define STRIDER_AVX2_TARGET __attribute__((target("avx2")))
constexpr int64_t kAvx2Vectors = 3;                 // 8-column vectors per panel (24 columns)
constexpr int64_t kAvx2Cols = 8 * kAvx2Vectors;
constexpr int kAvx2Rows = 3;                        // rows of C per block (13 registers)

// Columns [n0, n0 + cols) of B (k x n, cols <= 8 v) into `out`: for row pair q, 8 v int32 of
// which lane j holds B[2q][n0 + j] (low int16) and B[2q + 1][n0 + j] (high int16), sign-extended.
// A row past k and columns past cols hold 0.
STRIDER_AVX2_TARGET
void pack_pairs(const int8_t* b, int64_t ldb, int64_t k, int64_t n0, int64_t cols, int64_t v,
                int32_t* out) {
  const int64_t pairs = (k + 1) / 2, width = 8 * v;
  for (int64_t q = 0; q < pairs; ++q) {
    const int8_t* r0 = b + 2 * q * ldb + n0;
    const int8_t* r1 = 2 * q + 1 < k ? r0 + ldb : nullptr;
    int32_t* dst = out + q * width;
    int64_t l = 0;
    for (; l + 8 <= cols; l += 8) {
      const __m128i x0 = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(r0 + l));
      const __m128i x1 = r1 ? _mm_loadl_epi64(reinterpret_cast<const __m128i*>(r1 + l))
                            : _mm_setzero_si128();
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + l),
                          _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(x0, x1)));
    }
    for (; l < width; ++l) {
      const int16_t lo = l < cols ? r0[l] : 0, hi = l < cols && r1 ? r1[l] : 0;
      dst[l] = int32_t(uint32_t(uint16_t(lo)) | (uint32_t(uint16_t(hi)) << 16));
    }
  }
}

// C[R rows][cols] += the rows of A (as int16 pairs, row stride `pairs`) times one packed panel
// of V vectors: vpmaddwd sums two int16 products into each int32 lane exactly. The last vector
// of C is read and written under `mask` (its lanes < cols), the others whole.
template <int R, int V>
STRIDER_AVX2_TARGET void block_pairs(const int32_t* a, int64_t pairs, const int32_t* panel,
                                     int32_t* c, int64_t ldc, __m256i mask) {
  __m256i acc[R][V];
  for (int r = 0; r < R; ++r) {
    for (int v = 0; v < V; ++v) acc[r][v] = _mm256_setzero_si256();
  }
  for (int64_t q = 0; q < pairs; ++q) {
    __m256i b[V];
    for (int v = 0; v < V; ++v)
      b[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(panel + (q * V + v) * 8));
    for (int r = 0; r < R; ++r) {
      const __m256i x = _mm256_set1_epi32(a[r * pairs + q]);
      for (int v = 0; v < V; ++v) acc[r][v] = _mm256_add_epi32(acc[r][v], _mm256_madd_epi16(b[v], x));
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int v = 0; v < V - 1; ++v) {
      __m256i* dst = reinterpret_cast<__m256i*>(c + r * ldc + 8 * v);
      _mm256_storeu_si256(dst, _mm256_add_epi32(_mm256_loadu_si256(dst), acc[r][v]));
    }
    int* last = reinterpret_cast<int*>(c + r * ldc + 8 * (V - 1));
    _mm256_maskstore_epi32(last, mask, _mm256_add_epi32(_mm256_maskload_epi32(last, mask), acc[r][V - 1]));
  }
}

template <int V>
STRIDER_AVX2_TARGET void rows_pairs(int64_t m, const int32_t* a, int64_t pairs,
                                    const int32_t* panel, int32_t* c, int64_t ldc, int64_t cols) {
  alignas(32) int32_t lanes[8];
  for (int l = 0; l < 8; ++l) lanes[l] = l < cols - 8 * (V - 1) ? -1 : 0;
  const __m256i mask = _mm256_load_si256(reinterpret_cast<const __m256i*>(lanes));
  for (int64_t i = 0; i < m; i += kAvx2Rows) {
    const int32_t* ar = a + i * pairs;
    int32_t* cr = c + i * ldc;
    switch (std::min<int64_t>(kAvx2Rows, m - i)) {
      case 3:
        block_pairs<3, V>(ar, pairs, panel, cr, ldc, mask);
        break;
      case 2:
        block_pairs<2, V>(ar, pairs, panel, cr, ldc, mask);
        break;
      default:
        block_pairs<1, V>(ar, pairs, panel, cr, ldc, mask);
        break;
    }
  }
}

// B is packed one panel of 24 columns at a time (the last panel in as few 8-column vectors as
// it needs) and every row block of A runs over it while it is in cache.
STRIDER_AVX2_TARGET
void gemm_avx2(int64_t m, int64_t n, int64_t k, const int8_t* a, int64_t lda, const int8_t* b,
               int64_t ldb, int32_t* c, int64_t ldc) {
  const int64_t pairs = (k + 1) / 2;
  // Row i of A sign-extended to int16 (a zero after an odd k): int32 q of the row is the pair
  // A[i][2q] (low half), A[i][2q + 1] (high half).
  std::vector<int32_t> pairs_a(size_t(m * pairs));
  std::vector<int16_t> row(size_t(2 * pairs), 0);  // row[k] of an odd k stays 0
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t s = 0; s < k; ++s) row[size_t(s)] = a[i * lda + s];
    std::memcpy(&pairs_a[size_t(i * pairs)], row.data(), size_t(pairs) * 4);
  }
  // Every lane of a panel is written by pack_pairs.
  const std::unique_ptr<int32_t[]> panel(new int32_t[size_t(pairs * kAvx2Cols)]);
  for (int64_t n0 = 0; n0 < n; n0 += kAvx2Cols) {
    const int64_t cols = std::min(kAvx2Cols, n - n0), v = (cols + 7) / 8;
    pack_pairs(b, ldb, k, n0, cols, v, panel.get());
    switch (v) {
      case 3:
        rows_pairs<3>(m, pairs_a.data(), pairs, panel.get(), c + n0, ldc, cols);
        break;
      case 2:
        rows_pairs<2>(m, pairs_a.data(), pairs, panel.get(), c + n0, ldc, cols);
        break;
      default:
        rows_pairs<1>(m, pairs_a.data(), pairs, panel.get(), c + n0, ldc, cols);
        break;
    }
  }
}

constexpr int64_t kPanel = 64;              // columns of B per panel (4 vectors of 16 lanes)
constexpr int64_t kQuadBytes = kPanel * 4;  // one panel's 4 rows of B, interleaved
constexpr int kRows = 4;                    // rows of C per block

// B (k x n) into panels of 64 columns: panel p, row quad q is 256 bytes holding, for column
// lane l, B[4q + j][64p + l] + 128 at byte 4l + j (uint8). Rows past k and columns past n hold
// 128 (int8 0): the matching A bytes are zero, the matching C columns are never stored.
STRIDER_VNNI_TARGET
void pack_b(const int8_t* b, int64_t ldb, int64_t k, int64_t n, uint8_t* out) {
  const int64_t quads = (k + 3) / 4, panels = (n + kPanel - 1) / kPanel;
  const __m128i offset = _mm_set1_epi8(char(0x80));
  for (int64_t p = 0; p < panels; ++p) {
    const int64_t n0 = p * kPanel, cols = std::min(kPanel, n - n0);
    for (int64_t q = 0; q < quads; ++q) {
      uint8_t* dst = out + (p * quads + q) * kQuadBytes;
      const int8_t* r[4];
      bool full_rows = true;
      for (int j = 0; j < 4; ++j) {
        r[j] = 4 * q + j < k ? b + (4 * q + j) * ldb + n0 : nullptr;
        full_rows = full_rows && r[j] != nullptr;
      }
      for (int64_t l0 = 0; l0 < kPanel; l0 += 16) {
        if (full_rows && l0 + 16 <= cols) {
          __m128i x[4];
          for (int j = 0; j < 4; ++j) {
            x[j] =
                _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r[j] + l0)), offset);
          }
          const __m128i lo01 = _mm_unpacklo_epi8(x[0], x[1]), hi01 = _mm_unpackhi_epi8(x[0], x[1]);
          const __m128i lo23 = _mm_unpacklo_epi8(x[2], x[3]), hi23 = _mm_unpackhi_epi8(x[2], x[3]);
          __m128i* d = reinterpret_cast<__m128i*>(dst + 4 * l0);
          _mm_storeu_si128(d + 0, _mm_unpacklo_epi16(lo01, lo23));
          _mm_storeu_si128(d + 1, _mm_unpackhi_epi16(lo01, lo23));
          _mm_storeu_si128(d + 2, _mm_unpacklo_epi16(hi01, hi23));
          _mm_storeu_si128(d + 3, _mm_unpackhi_epi16(hi01, hi23));
          continue;
        }
        for (int64_t l = l0; l < l0 + 16; ++l) {
          for (int j = 0; j < 4; ++j) {
            const int8_t v = r[j] != nullptr && l < cols ? r[j][l] : int8_t{0};
            dst[4 * l + j] = uint8_t(v ^ int8_t(0x80));
          }
        }
      }
    }
  }
}

// C[rows][cols] += the block's sums minus 128 x (row sum of A), over one panel. `a` holds the
// rows' quads as int32 (row stride `quads`).
template <int R>
STRIDER_VNNI_TARGET void block(const int32_t* a, int64_t quads, const uint8_t* panel,
                               const int32_t* correction, int32_t* c, int64_t ldc, int64_t cols) {
  __m512i acc[R][4];
  for (int r = 0; r < R; ++r) {
    for (int v = 0; v < 4; ++v) acc[r][v] = _mm512_setzero_si512();
  }
  for (int64_t q = 0; q < quads; ++q) {
    const uint8_t* bq = panel + q * kQuadBytes;
    const __m512i b0 = _mm512_loadu_si512(bq), b1 = _mm512_loadu_si512(bq + 64);
    const __m512i b2 = _mm512_loadu_si512(bq + 128), b3 = _mm512_loadu_si512(bq + 192);
    for (int r = 0; r < R; ++r) {
      const __m512i x = _mm512_set1_epi32(a[r * quads + q]);
      acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], b0, x);
      acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], b1, x);
      acc[r][2] = _mm512_dpbusd_epi32(acc[r][2], b2, x);
      acc[r][3] = _mm512_dpbusd_epi32(acc[r][3], b3, x);
    }
  }
  for (int r = 0; r < R; ++r) {
    const __m512i corr = _mm512_set1_epi32(correction[r]);
    for (int v = 0; v < 4 && 16 * v < cols; ++v) {
      const int64_t left = cols - 16 * v;
      const __mmask16 mask = left >= 16 ? __mmask16(0xffff) : __mmask16((1u << left) - 1);
      int32_t* dst = c + r * ldc + 16 * v;
      const __m512i sum =
          _mm512_sub_epi32(_mm512_add_epi32(_mm512_maskz_loadu_epi32(mask, dst), acc[r][v]), corr);
      _mm512_mask_storeu_epi32(dst, mask, sum);
    }
  }
}

STRIDER_VNNI_TARGET
void gemm_vnni(int64_t m, int64_t n, int64_t k, const int8_t* a, int64_t lda, const int8_t* b,
               int64_t ldb, int32_t* c, int64_t ldc) {
  const int64_t quads = (k + 3) / 4, panels = (n + kPanel - 1) / kPanel;
  // Every byte of the packed B is written by pack_b.
  const std::unique_ptr<uint8_t[]> packed(new uint8_t[size_t(panels * quads * kQuadBytes)]);
  pack_b(b, ldb, k, n, packed.get());
  std::vector<int32_t> quads_a(size_t(m * quads), 0), correction(static_cast<size_t>(m));
  for (int64_t i = 0; i < m; ++i) {
    uint32_t sum = 0;  // wraps like the accumulators
    for (int64_t s = 0; s < k; ++s) sum += uint32_t(int32_t(a[i * lda + s]));
    correction[i] = int32_t(sum * 128u);
    std::memcpy(&quads_a[i * quads], a + i * lda, size_t(k));
  }
  for (int64_t p = 0; p < panels; ++p) {
    const uint8_t* panel = packed.get() + p * quads * kQuadBytes;
    const int64_t n0 = p * kPanel, cols = std::min(kPanel, n - n0);
    for (int64_t i = 0; i < m; i += kRows) {
      const int32_t* ar = &quads_a[i * quads];
      int32_t* cr = c + i * ldc + n0;
      switch (std::min<int64_t>(kRows, m - i)) {
        case 4:
          block<4>(ar, quads, panel, &correction[i], cr, ldc, cols);
          break;
        case 3:
          block<3>(ar, quads, panel, &correction[i], cr, ldc, cols);
          break;
        case 2:
          block<2>(ar, quads, panel, &correction[i], cr, ldc, cols);
          break;
        default:
          block<1>(ar, quads, panel, &correction[i], cr, ldc, cols);
          break;
      }
    }
  }
}
#endif

}  // namespace

bool gemm_kernel_available(GemmKernel k) {
  switch (k) {
    case GemmKernel::kPortable:
      return true;
    case GemmKernel::kAvx2:
#if STRIDER_GEMM_VNNI
      return __builtin_cpu_supports("avx2");
#else
      return false;
#endif
    case GemmKernel::kAvx512Vnni:
#if STRIDER_GEMM_VNNI
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vnni");
#else
      return false;
#endif
  }
  return false;
}

GemmKernel best_gemm_kernel() {
  static const GemmKernel best = gemm_kernel_available(GemmKernel::kAvx512Vnni) ? GemmKernel::kAvx512Vnni
                                 : gemm_kernel_available(GemmKernel::kAvx2)     ? GemmKernel::kAvx2
                                                                                : GemmKernel::kPortable;
  return best;
}

void gemm_s8s32(int64_t m, int64_t n, int64_t k, const int8_t* a, int64_t lda, const int8_t* b,
                int64_t ldb, int32_t* c, int64_t ldc) {
  gemm_s8s32(best_gemm_kernel(), m, n, k, a, lda, b, ldb, c, ldc);
}

void gemm_s8s32(GemmKernel kernel, int64_t m, int64_t n, int64_t k, const int8_t* a, int64_t lda,
                const int8_t* b, int64_t ldb, int32_t* c, int64_t ldc) {
  if (m <= 0 || n <= 0 || k <= 0) return;
  if (!gemm_kernel_available(kernel))
    throw std::logic_error("gemm_s8s32: kernel not available on this CPU");
#if STRIDER_GEMM_VNNI
  if (kernel == GemmKernel::kAvx512Vnni) return gemm_vnni(m, n, k, a, lda, b, ldb, c, ldc);
  if (kernel == GemmKernel::kAvx2) return gemm_avx2(m, n, k, a, lda, b, ldb, c, ldc);
#endif
  gemm_portable(m, n, k, a, lda, b, ldb, c, ldc);
}

}  // namespace strider
