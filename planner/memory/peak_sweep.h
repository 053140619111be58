// PeakSweep: a fast O(n log n) decoder used by the search allocator. The buffers live at the
// time of the lower bound's peak are stacked from 0 in a chosen order, so that moment is packed
// without a hole; then two independent sweeps run outward from the peak, one forward in time and
// one backward, each freeing buffers as they die and giving each new buffer the smallest free
// block that holds it (best fit, else on top). Problems with fixed offsets are not handled (the
// search skips this decoder for them).
#pragma once

#include <cstdint>
#include <vector>

#include "planner/memory/problem.h"

namespace strider::memory {

class PeakSweep {
 public:
  explicit PeakSweep(const Problem& p);

  // Offsets when the peak buffers are stacked by increasing `stack_key` (ties: index) and new
  // buffers that start at the same time are placed by decreasing size.
  std::vector<int64_t> decode(const std::vector<double>& stack_key);
  int64_t height() const { return height_; }
  int64_t peak_time() const { return peak_time_; }

 private:
  const Problem& p_;
  int64_t peak_time_ = 0;
  std::vector<int> peak_;  // buffers live at peak_time_
  // Per side (0: forward, 1: backward) the events in processing order: (buffer, is_alloc).
  std::vector<std::pair<int, bool>> events_[2];
  int64_t height_ = 0;
};

}  // namespace strider::memory
