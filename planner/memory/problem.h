// A static memory-planning problem: buffers with half-open lifetimes [lower, upper) and sizes, to
// be given offsets so that buffers whose lifetimes overlap never overlap in address. Also the
// solution type and the lower bound (max over time of the total size of live buffers).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace strider::memory {

struct Buffer {
  std::string id;
  int64_t lower = 0;   // first step the buffer is live
  int64_t upper = 0;   // first step it is no longer live (exclusive)
  int64_t size = 0;    // bytes
  int64_t alignment = 1;
  std::optional<int64_t> fixed_offset;  // pre-placed buffer
};

struct Problem {
  std::vector<Buffer> buffers;
  int64_t capacity = 0;  // 0: unbounded
};

struct Solution {
  std::vector<int64_t> offsets;  // one per buffer, same order as Problem::buffers
  int64_t height = 0;            // max over buffers of offset + size
  std::string allocator;         // name of the allocator that produced it
  bool proven_optimal = false;   // height is known to be minimal
  // Buffers the allocator placed on top of everything, without a gap search, once its time
  // limit had passed (its fallback: a valid plan at once, usually a taller one).
  size_t stacked = 0;
  double seconds = 0;
};

// Max over time of the total size of live buffers.
int64_t lower_bound(const Problem& p);

// The first time at which the live bytes reach lower_bound(p), with the number of buffers and
// bytes live then (all zero for an empty problem).
struct PeakLiveSet {
  int64_t time = 0;
  int64_t bytes = 0;
  size_t buffers = 0;
};
PeakLiveSet peak_live_set(const Problem& p);

}  // namespace strider::memory
