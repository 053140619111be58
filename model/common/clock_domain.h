// Clock domain: converts between SystemC time and accelerator cycles. Every unit computes its
// latencies in cycles and converts once, so all timing is in whole cycles of one clock.
#pragma once

#include <systemc>

#include <cstdint>

#include "core/common/ceil_div.h"

namespace strider {

class ClockDomain {
 public:
  explicit ClockDomain(double frequency_mhz)
      : period_(1000.0 / frequency_mhz, sc_core::SC_NS) {}
  sc_core::sc_time period() const { return period_; }
  sc_core::sc_time cycles(uint64_t n) const { return period_ * static_cast<double>(n); }
  uint64_t to_cycles(const sc_core::sc_time& t) const {
    return static_cast<uint64_t>(t / period_ + 0.5);
  }
  uint64_t now() const { return to_cycles(sc_core::sc_time_stamp()); }
  // Waits until absolute cycle `c` (no-op when it has passed). Callable from SC_THREADs only.
  void wait_until(uint64_t c) const {
    uint64_t n = now();
    if (c > n) sc_core::wait(cycles(c - n));
  }

 private:
  sc_core::sc_time period_;
};

}  // namespace strider
