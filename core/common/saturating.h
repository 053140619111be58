// Saturating unsigned arithmetic: a sum or product that does not fit in 64 bits is UINT64_MAX
// ("more than anything"), never a wrapped small number. Used wherever user-given counts, sizes
// and cycle budgets are combined (resource limits, the watchdog deadline, descriptor validation).
#pragma once

#include <cstdint>
#include <limits>

namespace strider {

constexpr uint64_t kSaturated = std::numeric_limits<uint64_t>::max();

inline uint64_t saturating_mul(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? kSaturated : r;
}

inline uint64_t saturating_add(uint64_t a, uint64_t b) {
  return a > kSaturated - b ? kSaturated : a + b;
}

}  // namespace strider
