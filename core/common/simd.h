// STRIDER_SIMD_CLONES: marks a hot integer loop function for GCC function multi-versioning, so
// the auto-vectoriser also emits AVX2 (x86-64-v3) and AVX-512 (x86-64-v4) versions picked at load
// time by the CPU, while the binary still runs on any x86-64 (the build sets no -march).
// Results are identical in every version: the loops are exact integer arithmetic.
#pragma once

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define STRIDER_SIMD_CLONES [[gnu::target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")]]
#else
#define STRIDER_SIMD_CLONES
#endif
