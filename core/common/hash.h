// The hashes and the pseudo-random generator used across Strider, written once.
// FNV-1a 64-bit (offset basis 14695981039346656037, prime 1099511628211) names content:
// the arch fingerprint, identical weight blobs, per-tensor seeds. SplitMix64 (Steele, Lea and
// Flood 2014) turns a seed into a deterministic stream of test data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace strider {

constexpr uint64_t kFnv1aBasis = 14695981039346656037ull;
constexpr uint64_t kFnv1aPrime = 1099511628211ull;
// The basis with its last digit missing that the generated weights were seeded with from the
// start; kept for those seeds so every generated tensor (and every golden figure) stays the same.
constexpr uint64_t kFnv1aWeightSeedBasis = 1469598103934665603ull;

// FNV-1a over `size` bytes, continuing from `h`.
inline uint64_t fnv1a64_bytes(const void* data, size_t size, uint64_t h = kFnv1aBasis) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) h = (h ^ p[i]) * kFnv1aPrime;
  return h;
}
inline uint64_t fnv1a64(const std::string& s, uint64_t h = kFnv1aBasis) {
  return fnv1a64_bytes(s.data(), s.size(), h);
}

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1): the top 53 bits.
  double unit() { return double(next() >> 11) / double(uint64_t{1} << 53); }
  // Uniform in [lo, hi] (the modulo bias is irrelevant for test data).
  int64_t uniform(int64_t lo, int64_t hi) {
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    return lo + static_cast<int64_t>(next() % span);
  }

 private:
  uint64_t state_;
};

}  // namespace strider
