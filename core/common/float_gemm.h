// FloatGemm: the float matrix product behind the float reference's convolutions and
// fully-connected layers (planner/quant/float_reference.cpp):
//   C[m][n] = sum over s = 0 .. k-1 of A[m][s] x B[s][n]
// with every element summed in that order: a float accumulator starting at 0, each product
// rounded to float and then added (never a fused multiply-add). So every kernel, every blocking
// and every split of C between threads gives the same bits, on every CPU.
//
// Kernels: blocks of 4 rows x 24 columns of C held in registers while s runs over a slice of
// 256 (the next slice resumes from the float sums stored in C: the same bits); with AVX
// (8 floats per vector, mul then add) where the CPU has it, else a portable loop over the same
// blocks. Single-threaded; callers split C by columns or rows.
#pragma once

#include <cstdint>

namespace strider {

enum class FloatGemmKernel { kPortable, kAvx };

// Whether this CPU (and build) can run `k`.
bool float_gemm_kernel_available(FloatGemmKernel k);

// C = A x B (row strides lda, ldb, ldc in elements) with the fastest available kernel.
void gemm_f32(int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
              int64_t ldb, float* c, int64_t ldc);

// The same with a chosen kernel (tests compare every kernel against a plain loop). Throws
// std::logic_error when `kernel` is not available.
void gemm_f32(FloatGemmKernel kernel, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda,
              const float* b, int64_t ldb, float* c, int64_t ldc);

}  // namespace strider
