// Integer division rounded up: the one spelling of ceil(a / b) for cycles, bursts, blocks and
// bands across the planner, the timing model, the SystemC model and the reports.
#pragma once

#include <cstdint>

namespace strider {

constexpr uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

}  // namespace strider
