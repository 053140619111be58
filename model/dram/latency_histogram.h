// LatencyHistogram: a bounded histogram of latencies (in cycles) that answers percentiles with a
// known resolution, so a run's p99 read latency needs constant memory however many requests it
// makes. Bins: one per cycle below 2^kExactBits (1024), then each power-of-two range [2^k,
// 2^(k+1)) split into 2^kSubBits (256) equal bins, up to 2^64: 1024 + 54 x 256 bins. A
// percentile is the nearest-rank value's bin reported by its upper end (capped at the largest
// value seen): exact below 1024 cycles, at most 1/256 (0.4 %) above the exact value beyond.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace strider {

class LatencyHistogram {
 public:
  static constexpr int kExactBits = 10, kSubBits = 8;
  LatencyHistogram() : bins_(kExact + (64 - kExactBits) * kSub, 0) {}

  void add(uint64_t v) {
    ++bins_[bin(v)];
    ++count_;
    if (v > max_) max_ = v;
  }
  uint64_t count() const { return count_; }
  // The nearest-rank percentile p (0 < p <= 100): the smallest bin upper end that at least
  // p % of the values do not exceed; 0 when empty.
  uint64_t percentile(uint32_t p) const {
    if (count_ == 0) return 0;
    const uint64_t rank = (count_ * p + 99) / 100;  // 1-based, ceil(count x p / 100)
    uint64_t seen = 0;
    for (size_t i = 0; i < bins_.size(); ++i) {
      seen += bins_[i];
      if (seen >= rank) return upper(i) < max_ ? upper(i) : max_;
    }
    return max_;
  }

  // Bin of value v and the largest value bin i holds.
  static size_t bin(uint64_t v) {
    if (v < kExact) return static_cast<size_t>(v);
    int k = 63;
    while (!(v >> k)) --k;  // 2^k <= v < 2^(k+1), k >= kExactBits
    const uint64_t sub = (v - (uint64_t(1) << k)) >> (k - kSubBits);
    return size_t(kExact + (k - kExactBits) * kSub + sub);
  }
  static uint64_t upper(size_t i) {
    if (i < kExact) return static_cast<uint64_t>(i);
    const int k = int((i - kExact) / kSub) + kExactBits;
    const uint64_t sub = (i - kExact) % kSub;
    const uint64_t width = uint64_t(1) << (k - kSubBits);
    return (uint64_t(1) << k) + (sub + 1) * width - 1;
  }

 private:
  static constexpr uint64_t kExact = uint64_t(1) << kExactBits, kSub = uint64_t(1) << kSubBits;
  std::vector<uint64_t> bins_;
  uint64_t count_ = 0, max_ = 0;
};

}  // namespace strider
