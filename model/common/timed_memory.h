// TimedMemory: the narrow memory interface DMA, load and store units use to reach DRAM and L2.
// access() reserves the resource for one transaction and returns when it starts and ends (in
// cycles) and how many cycles it lost to other requesters; it never advances SystemC time, the
// caller waits once. read()/write() move real bytes in functional mode.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace strider {

struct Access {
  uint64_t start = 0;     // cycle the transfer began
  uint64_t end = 0;       // cycle the last byte is delivered
  uint64_t stall = 0;     // cycles lost to contention (queueing, bank conflicts)
  uint64_t conflict = 0;  // of which bank conflicts: cycles past the port's own transfer time
  uint64_t bursts = 0;    // DRAM (jedec model): bursts the request took
  uint64_t row_hits = 0;  // DRAM (jedec model): of those, bursts whose row was already open
};

// An access pattern: `repeats` times, `count` pieces of `bytes` each, piece i at
// addr + i x stride (a row piece: count 1; a channel-plane gather or a strided store: one piece
// per channel at the channel stride). The repeats are charged like the first (same banks).
struct AccessPattern {
  uint64_t addr = 0, bytes = 0, count = 1, stride = 0, repeats = 1;
  uint64_t total_bytes() const { return bytes * count * repeats; }
};

class TimedMemory {
 public:
  virtual ~TimedMemory() = default;
  virtual Access access(int port, uint64_t addr, uint64_t bytes, uint64_t now) = 0;
  // A patterned access; memories without banks charge its bytes as one contiguous range.
  virtual Access access_pattern(int port, const AccessPattern& p, uint64_t now) {
    return access(port, p.addr, p.total_bytes(), now);
  }
  virtual uint32_t latency(uint64_t addr) const = 0;  // access latency at `addr`, in cycles
  virtual void read(uint64_t addr, int8_t* dst, uint64_t n) const = 0;
  virtual void write(uint64_t addr, const int8_t* src, uint64_t n) = 0;
};

// Sparse functional backing store in 64 KiB pages; unwritten bytes read as zero.
class BackingStore {
 public:
  void read(uint64_t addr, int8_t* dst, uint64_t n) const;
  void write(uint64_t addr, const int8_t* src, uint64_t n);

 private:
  static constexpr uint64_t kPage = 1 << 16;
  std::unordered_map<uint64_t, std::vector<int8_t>> pages_;
};

}  // namespace strider
