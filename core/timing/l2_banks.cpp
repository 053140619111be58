// L2 bank words (see l2_banks.h).
#include "core/timing/l2_banks.h"

#include <algorithm>
#include <numeric>

#include "core/common/ceil_div.h"

namespace strider {

void l2_bank_words(const L2Config& l2, uint64_t addr, uint64_t bytes, uint64_t count,
                   uint64_t stride, std::vector<uint64_t>& words) {
  const uint64_t width = l2.bank_width_bytes, banks = l2.banks, span = width * banks;
  words.assign(banks, 0);
  // Adds `times` x the words of one piece at `a`: whole rounds over every bank, then the
  // remainder from the piece's first bank.
  auto piece = [&](uint64_t a, uint64_t times) {
    const uint64_t first = a / width, n = ceil_div(a % width + bytes, width);
    for (uint64_t i = 0; i < std::min(banks, n); ++i) {
      words[(first + i) % banks] += times * (n / banks + (i < n % banks ? 1 : 0));
    }
  };
  if (count == 0) return;
  const uint64_t s = stride % span;
  const uint64_t period = std::min(count, s == 0 ? 1 : span / std::gcd(s, span));
  for (uint64_t i = 0; i < period; ++i) {
    // Pieces i, i + period, ... start at the same word offset on the same bank.
    piece(addr + i * stride, count / period + (i < count % period ? 1 : 0));
  }
}

namespace {

// Pieces back to back are one range (as the L2 model joins them); false for an empty access.
bool joined(L2Pattern* p) {
  if (p->count == 0 || p->repeats == 0 || p->bytes == 0) return false;
  if (p->count > 1 && p->stride == p->bytes) p->bytes *= p->count, p->count = 1;
  return true;
}

// The port time of `p` (joined) whose words per bank, one repeat, are `words`.
uint64_t port_cycles(const L2Config& l2, const L2Pattern& p, const std::vector<uint64_t>& words) {
  uint64_t total = 0;
  for (uint64_t w : words) total += w * p.repeats;
  return p.count == 1 ? ceil_div(p.bytes * p.repeats, l2.port_bytes_per_cycle)
                      : ceil_div(total * l2.bank_width_bytes, l2.port_bytes_per_cycle);
}

}  // namespace

uint64_t l2_shared_cycles(const L2Config& l2, const std::vector<L2Pattern>& accesses) {
  std::vector<uint64_t> bank(l2.banks, 0), words;
  uint64_t cycles = 0;
  for (L2Pattern p : accesses) {
    if (!joined(&p)) continue;
    l2_bank_words(l2, p.addr, p.bytes, p.count, p.stride, words);
    cycles = std::max(cycles, port_cycles(l2, p, words));
    for (size_t b = 0; b < words.size(); ++b) bank[b] += words[b] * p.repeats;
  }
  for (uint64_t w : bank) cycles = std::max(cycles, w);
  return cycles;
}

uint64_t l2_conflict_cycles(const L2Config& l2, uint64_t addr, uint64_t bytes, uint64_t count,
                            uint64_t stride, uint64_t repeats) {
  L2Pattern p{addr, bytes, count, stride, repeats};
  if (!joined(&p)) return 0;
  std::vector<uint64_t> words;
  l2_bank_words(l2, p.addr, p.bytes, p.count, p.stride, words);
  uint64_t busiest = 0;
  for (uint64_t w : words) busiest = std::max(busiest, w * p.repeats);
  const uint64_t port = port_cycles(l2, p, words);
  return busiest > port ? busiest - port : 0;
}

}  // namespace strider
