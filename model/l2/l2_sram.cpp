#include "model/l2/l2_sram.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "model/common/clock_domain.h"

namespace strider {

L2Sram::L2Sram(const L2Config& cfg, bool functional, StatRegistry& stats)
    : cfg_(cfg),
      data_(functional ? cfg.size_bytes : 0),
      bank_free_(cfg.banks, 0),
      port_bytes_{&stats.add("l2.dma_bytes", "bytes moved through the L2 DMA port"),
                  &stats.add("l2.load_bytes", "bytes read through the L2 load port"),
                  &stats.add("l2.store_bytes", "bytes written through the L2 store port")},
      conflict_cycles_(stats.add("l2.conflict_cycles", "cycles lost to L2 bank conflicts")) {}

Access L2Sram::access(int port, uint64_t addr, uint64_t bytes, uint64_t now) {
  Access a;
  uint64_t start = std::max(now, port_free_[port]);
  uint64_t port_time = ceil_div(bytes, cfg_.port_bytes_per_cycle);
  // Share of each bank: whole rounds over all banks, then the remainder from the first bank.
  const uint64_t width = cfg_.bank_width_bytes, banks = cfg_.banks;
  const uint64_t first_word = addr / width;
  const uint64_t words = ceil_div(addr % width + bytes, width);
  uint64_t finish = start + port_time;
  for (uint64_t i = 0; i < std::min<uint64_t>(banks, words); ++i) {
    uint64_t bank = (first_word + i) % banks;
    uint64_t share = words / banks + (i < words % banks ? 1 : 0);
    uint64_t bank_start = std::max(start, bank_free_[bank]);
    bank_free_[bank] = bank_start + share;
    finish = std::max(finish, bank_free_[bank]);
  }
  port_free_[port] = finish;
  a.start = start;
  a.stall = finish - (now + port_time);
  a.end = finish + latency(addr);
  conflict_cycles_ += finish - (start + port_time);
  *port_bytes_[port] += bytes;
  return a;
}

void L2Sram::read(uint64_t addr, int8_t* dst, uint64_t n) const {
  if (addr + n > data_.size()) {
    throw std::out_of_range("L2 read of " + std::to_string(n) + " bytes at " +
                            std::to_string(addr) + " beyond the functional store");
  }
  std::copy(data_.begin() + addr, data_.begin() + addr + n, dst);
}

void L2Sram::write(uint64_t addr, const int8_t* src, uint64_t n) {
  if (addr + n > data_.size()) {
    throw std::out_of_range("L2 write of " + std::to_string(n) + " bytes at " +
                            std::to_string(addr) + " beyond the functional store");
  }
  std::copy(src, src + n, data_.begin() + addr);
}

}  // namespace strider
