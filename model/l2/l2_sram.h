// L2Sram ("BaSRAM"): the banked on-chip SRAM, at transaction granularity.
//
// Models: three ports (DMA, load, store), each moving at most `l2.port_bytes_per_cycle`; `l2.banks`
// banks interleaved every `l2.bank_width_bytes` (a bank word), each serving one word per cycle.
// Every access carries its address pattern (AccessPattern: pieces at a stride, repeated): each
// piece touches the words from its first byte to its last, so a channel-plane gather of 8 B
// pieces at a plane stride that is a multiple of banks x width lands every piece on one bank and
// serialises, where the same bytes contiguous spread over all banks. Each bank serves its share
// in the idle cycles its calendar has left from the access's start on: a port reserves its
// accesses when it issues them, often ahead of time (the load unit queues a tile's row pieces back
// to back), and a later access of another port interleaves with those reservations where the
// bank is free instead of queueing behind the last of them (two ports streaming contiguous bytes
// at 64 B/cycle each use 16 of the 16 words a cycle the banks serve), so only concurrent ports
// that together exceed the banks' bandwidth lose cycles. Access latency depends on the region:
// addresses below `l2.fast_region_bytes` take `l2.fast_latency_cycles`, the rest
// `l2.latency_cycles`. Cycles: port time = ceil(bytes / port_bytes_per_cycle) for one piece (pieces
// back to back are
//         one), ceil(words x width / port_bytes_per_cycle) for several (the port moves
//         port / width words a cycle);
//         bank b finishes when its words on b have filled the first idle cycles >= start;
//         end = latency + max(start + port time, latest bank finish);
//         conflict = max(start + port time, latest bank finish) - (start + port time);
//         stall = end - latency - (now + port time).
// Closed form: a strided pattern's pieces repeat their bank and word offset every
// banks x width / gcd(stride, banks x width) pieces, so per-bank words are counted over one
// period (at most banks x width pieces) and multiplied, never per byte. A bank's calendar keeps
// its busy intervals after a floor (every cycle before it counts as busy); intervals older than
// kCalendarLag cycles before an access, or beyond the kCalendarIntervals newest, fold into the
// floor, which only ever delays an access, never frees a busy cycle. The calendars allocate
// nothing once warm: a bank's intervals and the merge scratch keep their capacity (at most
// kCalendarIntervals + one access's pieces), so the hot path only moves intervals in place.
// Stats: l2.<port>_bytes, l2.conflict_cycles, l2.bank_conflict_cycles.<port>.
#pragma once

#include <array>
#include <vector>

#include "core/arch/arch_config.h"
#include "model/common/stats.h"
#include "model/common/timed_memory.h"

namespace strider {

class L2Sram : public TimedMemory {
 public:
  enum Port { kDma = 0, kLoad = 1, kStore = 2, kPorts = 3 };
  L2Sram(const L2Config& cfg, bool functional, StatRegistry& stats);
  Access access(int port, uint64_t addr, uint64_t bytes, uint64_t now) override;
  Access access_pattern(int port, const AccessPattern& p, uint64_t now) override;
  // Words of the pattern's first repeat on each bank (the closed form above).
  static void bank_words(const L2Config& cfg, const AccessPattern& p, std::vector<uint64_t>& words);
  void read(uint64_t addr, int8_t* dst, uint64_t n) const override;
  void write(uint64_t addr, const int8_t* src, uint64_t n) override;
  uint32_t latency(uint64_t addr) const override {
    return addr < cfg_.fast_region_bytes ? cfg_.fast_latency_cycles : cfg_.latency_cycles;
  }

 private:
  // Busy cycles of one bank: [floor, ...) minus the gaps between `busy` (sorted, disjoint [s, e)).
  struct Calendar {
    uint64_t floor = 0;
    std::vector<std::pair<uint64_t, uint64_t>> busy;
  };
  static constexpr uint64_t kCalendarLag = 4096;
  static constexpr size_t kCalendarIntervals = 256;
  // Places `words` cycles on `c` in its first idle cycles from `start`; returns the last one + 1.
  // `scratch` is reused storage (swapped with c.busy when the placed cycles are merged in).
  static uint64_t reserve(Calendar& c, uint64_t start, uint64_t words,
                          std::vector<std::pair<uint64_t, uint64_t>>& scratch);

  const L2Config& cfg_;
  std::vector<int8_t> data_;  // functional backing store (empty in timing-only runs)
  std::array<uint64_t, kPorts> port_free_{};
  std::vector<Calendar> banks_;
  std::vector<uint64_t> words_;  // per bank: words of the current access
  std::vector<std::pair<uint64_t, uint64_t>> scratch_;  // reserve()'s merge buffer
  std::array<uint64_t*, kPorts> port_bytes_;
  uint64_t& conflict_cycles_;
  std::array<uint64_t*, kPorts> bank_conflicts_;
};

}  // namespace strider
