// The DRAM's peak bandwidth in accelerator cycles, for the per-layer and whole-run bounds: the
// flat pipe's `dram.bytes_per_cycle`, or the JEDEC preset's channels x burst bytes per nBL DRAM
// cycles converted to the accelerator clock (LPDDR4-3200 x32 at 1 GHz: 12.8 B/cycle).
#pragma once

#include <cmath>
#include <cstdint>

#include "core/arch/arch_config.h"

namespace strider {

// Accelerator cycles to move `bytes` at the DRAM's peak bandwidth, rounded up.
inline uint64_t dram_peak_cycles(const ArchConfig& a, uint64_t bytes) {
  if (a.dram.model != "jedec") {
    return (bytes + a.dram.bytes_per_cycle - 1) / a.dram.bytes_per_cycle;
  }
  const DramSpec& s = a.dram.spec;
  // bytes x nBL / (channels x burst bytes) DRAM cycles of tCK ps, at frequency_mhz.
  const long double v = static_cast<long double>(bytes) * s.burst_cycles() * s.tck_ps *
                        a.clock.frequency_mhz /
                        (static_cast<long double>(s.channels) * s.burst_bytes() * 1e6L);
  const long double r = std::round(v);
  return static_cast<uint64_t>(std::fabs(v - r) < 1e-6L ? r : std::ceil(v));
}

}  // namespace strider
