// L2 bank words (see l2_banks.h).
#include "core/timing/l2_banks.h"

#include <algorithm>
#include <numeric>

namespace strider {
namespace {

uint64_t cdiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

}  // namespace

void l2_bank_words(const L2Config& l2, uint64_t addr, uint64_t bytes, uint64_t count,
                   uint64_t stride, std::vector<uint64_t>& words) {
  const uint64_t width = l2.bank_width_bytes, banks = l2.banks, span = width * banks;
  words.assign(banks, 0);
  // Adds `times` x the words of one piece at `a`: whole rounds over every bank, then the
  // remainder from the piece's first bank.
  auto piece = [&](uint64_t a, uint64_t times) {
    const uint64_t first = a / width, n = cdiv(a % width + bytes, width);
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

uint64_t l2_conflict_cycles(const L2Config& l2, uint64_t addr, uint64_t bytes, uint64_t count,
                            uint64_t stride, uint64_t repeats) {
  if (count == 0 || repeats == 0 || bytes == 0) return 0;
  if (count > 1 && stride == bytes) bytes *= count, count = 1;
  std::vector<uint64_t> words;
  l2_bank_words(l2, addr, bytes, count, stride, words);
  uint64_t total = 0, busiest = 0;
  for (uint64_t w : words) total += w * repeats, busiest = std::max(busiest, w * repeats);
  const uint64_t port = count == 1 ? cdiv(bytes * repeats, l2.port_bytes_per_cycle)
                                   : cdiv(total * l2.bank_width_bytes, l2.port_bytes_per_cycle);
  return busiest > port ? busiest - port : 0;
}

}  // namespace strider
