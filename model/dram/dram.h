// Dram: an LPDDR4-class memory seen at transaction granularity.
//
// Models: one shared data bus of `dram.bytes_per_cycle` (requests queue for it in arrival order),
// a first-data latency `dram.latency_cycles`, and optionally a bank/row-buffer model
// (`dram.row_buffer`): each `dram.row_bytes` chunk a transfer touches whose row is not open in its
// bank costs `dram.row_miss_cycles` more bus time.
// Cycles: start = max(now, bus free); busy = ceil(bytes / bytes_per_cycle) + row misses;
//         end = start + latency + busy; stall = start - now.
// Stats: dram.read_bytes, dram.write_bytes, dram.busy_cycles, dram.row_misses.
#pragma once

#include <vector>

#include "model/common/stats.h"
#include "model/common/timed_memory.h"
#include "core/arch/arch_config.h"

namespace strider {

class Dram : public TimedMemory {
 public:
  enum Port { kRead = 0, kWrite = 1 };
  Dram(const DramConfig& cfg, StatRegistry& stats);
  Access access(int port, uint64_t addr, uint64_t bytes, uint64_t now) override;
  uint32_t latency(uint64_t) const override { return cfg_.latency_cycles; }
  void read(uint64_t addr, int8_t* dst, uint64_t n) const override { store_.read(addr, dst, n); }
  void write(uint64_t addr, const int8_t* src, uint64_t n) override { store_.write(addr, src, n); }

 private:
  uint64_t row_misses(uint64_t addr, uint64_t bytes);
  const DramConfig& cfg_;
  BackingStore store_;
  uint64_t bus_free_ = 0;
  std::vector<int64_t> open_row_;
  uint64_t& read_bytes_;
  uint64_t& write_bytes_;
  uint64_t& busy_cycles_;
  uint64_t& misses_;
};

}  // namespace strider
