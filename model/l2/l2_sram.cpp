#include "model/l2/l2_sram.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "core/timing/l2_banks.h"
#include "model/common/clock_domain.h"

namespace strider {

L2Sram::L2Sram(const L2Config& cfg, bool functional, StatRegistry& stats)
    : cfg_(cfg),
      data_(functional ? cfg.size_bytes : 0),
      banks_(cfg.banks),
      port_bytes_{&stats.add("l2.dma_bytes", "bytes moved through the L2 DMA port"),
                  &stats.add("l2.load_bytes", "bytes read through the L2 load port"),
                  &stats.add("l2.store_bytes", "bytes written through the L2 store port")},
      conflict_cycles_(stats.add("l2.conflict_cycles", "cycles lost to L2 bank conflicts")),
      bank_conflicts_{
          &stats.add("l2.bank_conflict_cycles.dma", "DMA-port cycles lost to L2 bank conflicts"),
          &stats.add("l2.bank_conflict_cycles.load", "load-port cycles lost to L2 bank conflicts"),
          &stats.add("l2.bank_conflict_cycles.store",
                     "store-port cycles lost to L2 bank conflicts")} {}

void L2Sram::bank_words(const L2Config& cfg, const AccessPattern& p, std::vector<uint64_t>& words) {
  l2_bank_words(cfg, p.addr, p.bytes, p.count, p.stride, words);  // core/timing/l2_banks.h
}

Access L2Sram::access(int port, uint64_t addr, uint64_t bytes, uint64_t now) {
  AccessPattern p;
  p.addr = addr;
  p.bytes = bytes;
  return access_pattern(port, p, now);
}

Access L2Sram::access_pattern(int port, const AccessPattern& pattern, uint64_t now) {
  // Pieces back to back are one range (e.g. one element per channel of a 1x1 output).
  AccessPattern p = pattern;
  if (p.count > 1 && p.stride == p.bytes) p.bytes *= p.count, p.count = 1;
  Access a;
  const uint64_t start = std::max(now, port_free_[port]);
  std::vector<uint64_t>& words = words_;
  bank_words(cfg_, p, words);
  uint64_t total_words = 0;
  for (uint64_t& w : words) total_words += w *= p.repeats;
  // One piece streams at the port's byte rate; several move as whole bank words.
  const uint64_t port_time =
      p.count == 1 ? ceil_div(p.total_bytes(), cfg_.port_bytes_per_cycle)
                   : ceil_div(total_words * cfg_.bank_width_bytes, cfg_.port_bytes_per_cycle);
  uint64_t finish = start + port_time;
  for (uint64_t bank = 0; bank < words.size(); ++bank) {
    if (words[bank] == 0) continue;
    Calendar& c = banks_[bank];
    // Fold what lies far behind this access, or beyond the newest intervals, into the floor.
    size_t old = 0;
    while (old < c.busy.size() && (c.busy[old].second + kCalendarLag <= start ||
                                   c.busy.size() - old > kCalendarIntervals)) {
      c.floor = std::max(c.floor, c.busy[old++].second);
    }
    c.busy.erase(c.busy.begin(), c.busy.begin() + old);
    finish = std::max(finish, reserve(c, start, words[bank], scratch_));
  }
  port_free_[port] = finish;
  a.start = start;
  a.stall = finish - (now + port_time);
  a.conflict = finish - (start + port_time);
  a.end = finish + latency(p.addr);
  conflict_cycles_ += a.conflict;
  *bank_conflicts_[port] += a.conflict;
  *port_bytes_[port] += p.total_bytes();
  return a;
}

uint64_t L2Sram::reserve(Calendar& c, uint64_t start, uint64_t words,
                        std::vector<std::pair<uint64_t, uint64_t>>& scratch) {
  uint64_t t = std::max(start, c.floor);
  // Nothing reserved after t (the usual case): the words follow at once.
  if (c.busy.empty() || c.busy.back().second <= t) {
    if (!c.busy.empty() && c.busy.back().second == t) {
      c.busy.back().second = t + words;
    } else {
      c.busy.push_back({t, t + words});
    }
    return t + words;
  }
  // The intervals before the first one ending after t stay as they are; from there on, the
  // calendar is rebuilt into `scratch` with the words placed in its gaps, joining intervals that
  // touch (a placed piece starts at t or at an interval's end and ends at the next one's start or
  // where the words run out).
  const auto first = std::upper_bound(c.busy.begin(), c.busy.end(), t,
                                      [](uint64_t v, const std::pair<uint64_t, uint64_t>& b) {
                                        return v < b.second;
                                      });
  scratch.assign(c.busy.begin(), first);
  auto add = [&scratch](uint64_t s, uint64_t e) {
    if (!scratch.empty() && scratch.back().second >= s) {
      scratch.back().second = std::max(scratch.back().second, e);
    } else {
      scratch.push_back({s, e});
    }
  };
  uint64_t last = t;
  auto it = first;
  for (; words > 0 && it != c.busy.end(); ++it) {
    if (it->first > t) {
      const uint64_t n = std::min(words, it->first - t);
      add(t, t + n);
      last = t + n;
      words -= n;
    }
    add(it->first, it->second);
    t = std::max(t, it->second);
  }
  if (words > 0) add(t, t + words), last = t + words;
  for (; it != c.busy.end(); ++it) add(it->first, it->second);
  c.busy.swap(scratch);
  return last;
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
