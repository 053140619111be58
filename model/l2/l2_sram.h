// L2Sram ("BaSRAM"): the banked on-chip SRAM, at transaction granularity.
//
// Models: three ports (DMA, load, store), each moving at most `l2.port_bytes_per_cycle`; `l2.banks`
// banks interleaved every `l2.bank_width_bytes`, each moving one bank word per cycle. A
// transaction spreads its bytes over the banks by address; each bank serves its share after the
// transactions already reserved on it, so concurrent ports that together exceed the banks'
// bandwidth lose cycles (bank conflicts). Access latency depends on the region: addresses below
// `l2.fast_region_bytes` take `l2.fast_latency_cycles`, the rest `l2.latency_cycles`.
// Cycles: port time = ceil(bytes / port_bytes_per_cycle) from max(now, port free);
//         bank b finishes at max(start, bank b free) + ceil(bytes on b / bank_width);
//         end = latency + max(start + port time, latest bank finish); stall = end - latency -
//         (now + port time).
// Stats: l2.<port>_bytes, l2.conflict_cycles.
#pragma once

#include <array>
#include <vector>

#include "model/common/stats.h"
#include "model/common/timed_memory.h"
#include "core/arch/arch_config.h"

namespace strider {

class L2Sram : public TimedMemory {
 public:
  enum Port { kDma = 0, kLoad = 1, kStore = 2, kPorts = 3 };
  L2Sram(const L2Config& cfg, bool functional, StatRegistry& stats);
  Access access(int port, uint64_t addr, uint64_t bytes, uint64_t now) override;
  void read(uint64_t addr, int8_t* dst, uint64_t n) const override;
  void write(uint64_t addr, const int8_t* src, uint64_t n) override;
  uint32_t latency(uint64_t addr) const override {
    return addr < cfg_.fast_region_bytes ? cfg_.fast_latency_cycles : cfg_.latency_cycles;
  }

 private:
  const L2Config& cfg_;
  std::vector<int8_t> data_;  // functional backing store (empty in timing-only runs)
  std::array<uint64_t, kPorts> port_free_{};
  std::vector<uint64_t> bank_free_;
  std::array<uint64_t*, kPorts> port_bytes_;
  uint64_t& conflict_cycles_;
};

}  // namespace strider
