#include "model/dram/dram.h"

#include <algorithm>

#include "model/common/clock_domain.h"

namespace strider {

Dram::Dram(const DramConfig& cfg, StatRegistry& stats)
    : cfg_(cfg),
      open_row_(cfg.banks, -1),
      read_bytes_(stats.add("dram.read_bytes", "bytes read from DRAM")),
      write_bytes_(stats.add("dram.write_bytes", "bytes written to DRAM")),
      busy_cycles_(stats.add("dram.busy_cycles", "cycles the DRAM data bus was transferring")),
      misses_(stats.add("dram.row_misses", "row-buffer misses (row_buffer model only)")) {}

uint64_t Dram::row_misses(uint64_t addr, uint64_t bytes) {
  if (!cfg_.row_buffer || bytes == 0) return 0;
  uint64_t misses = 0;
  for (uint64_t row = addr / cfg_.row_bytes; row <= (addr + bytes - 1) / cfg_.row_bytes; ++row) {
    int64_t& open = open_row_[row % cfg_.banks];
    if (open != static_cast<int64_t>(row)) {
      ++misses;
      open = static_cast<int64_t>(row);
    }
  }
  return misses;
}

Access Dram::access(int port, uint64_t addr, uint64_t bytes, uint64_t now) {
  Access a;
  a.start = std::max(now, bus_free_);
  a.stall = a.start - now;
  uint64_t misses = row_misses(addr, bytes);
  // Bus time: the transfer at bytes_per_cycle plus one row activation per miss.
  uint64_t busy = ceil_div(bytes, cfg_.bytes_per_cycle) + misses * cfg_.row_miss_cycles;
  bus_free_ = a.start + busy;
  a.end = a.start + cfg_.latency_cycles + busy;
  busy_cycles_ += busy;
  misses_ += misses;
  (port == kWrite ? write_bytes_ : read_bytes_) += bytes;
  return a;
}

}  // namespace strider
