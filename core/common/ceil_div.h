// Integer division rounded up — the one spelling of ceil(a / b) for cycles, bursts, blocks and
// bands across the planner, the timing model, the SystemC model and the reports — and a size
// rounded up to a multiple (an L2 alignment).
#pragma once

#include <cstdint>

namespace strider {

constexpr uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
constexpr uint64_t align_up(uint64_t v, uint64_t a) { return ceil_div(v, a) * a; }

}  // namespace strider
