// Int8Gemm: the integer matrix product behind functional mode's convolutions (the neurons' tiles
// in model/neuron/tile_compute.cpp and the whole layers of tb/reference.cpp):
//   C[m][n] += sum over k of A[m][k] x B[k][n]
// with int8 A (M x K, the kernels: one row per output channel) and B (K x N, the window lines:
// one row per kernel slot, one column per output position) into int32 C, exactly (the int32
// sum of the products, as a plain loop computes it; requantisation is the caller's next step).
//
// Kernels: on a CPU with AVX-512 VNNI, B is packed in panels of 64 columns x 4 rows and each
// 4 x 64 block of C accumulates with vpdpbusd, which multiplies unsigned by signed bytes: B is
// offset by +128 into uint8 and 128 x (row sum of A) is subtracted afterwards, so the result is
// the same int32 sum (vpdpbusd does not saturate). On an AVX2 CPU without VNNI, B is packed in
// panels of 24 columns holding pairs of rows as sign-extended int16 and each 3 x 24 block of C
// accumulates with vpmaddwd (two int16 products summed into an int32 lane, exactly). Elsewhere a
// portable loop (GCC clones, core/common/simd.h) streams each row of A over B. Single-threaded,
// deterministic: every kernel gives the same int32 sums.
#pragma once

#include <cstdint>

namespace strider {

enum class GemmKernel { kPortable, kAvx2, kAvx512Vnni };

// Whether this CPU (and build) can run `k`.
bool gemm_kernel_available(GemmKernel k);

// The fastest available kernel.
GemmKernel best_gemm_kernel();

// C += A x B (row strides lda, ldb, ldc in elements) with the fastest available kernel.
void gemm_s8s32(int64_t m, int64_t n, int64_t k, const int8_t* a, int64_t lda, const int8_t* b,
                int64_t ldb, int32_t* c, int64_t ldc);

// The same with a chosen kernel (tests compare every kernel against a plain loop). Throws
// std::logic_error when `kernel` is not available.
void gemm_s8s32(GemmKernel kernel, int64_t m, int64_t n, int64_t k, const int8_t* a, int64_t lda,
                const int8_t* b, int64_t ldb, int32_t* c, int64_t ldc);

}  // namespace strider
