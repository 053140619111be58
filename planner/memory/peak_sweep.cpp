// PeakSweep: see peak_sweep.h.
#include "planner/memory/peak_sweep.h"

#include <algorithm>
#include <numeric>
#include <tuple>

#include "planner/memory/free_list.h"
#include "planner/memory/gap_placer.h"

namespace strider::memory {

PeakSweep::PeakSweep(const Problem& p) : p_(p) {
  peak_time_ = peak_live_set(p).time;
  const int n = static_cast<int>(p.buffers.size());
  // Forward side: at each time, frees (upper == t) before placements (lower == t); placements
  // at one time by decreasing size. Backward side mirrors it: walking down, a buffer is placed
  // at its upper and freed at its lower.
  std::vector<std::tuple<int64_t, int, int64_t, int>> fwd, bwd;  // key, kind, -size, buffer
  for (int i = 0; i < n; ++i) {
    const Buffer& b = p.buffers[i];
    if (b.lower <= peak_time_ && peak_time_ < b.upper) {
      peak_.push_back(i);
      fwd.emplace_back(b.upper, 0, 0, i);
      bwd.emplace_back(-b.lower, 0, 0, i);
    } else if (b.lower > peak_time_) {
      fwd.emplace_back(b.lower, 1, -b.size, i);
      fwd.emplace_back(b.upper, 0, 0, i);
    } else {
      bwd.emplace_back(-b.upper, 1, -b.size, i);
      bwd.emplace_back(-b.lower, 0, 0, i);
    }
  }
  std::sort(fwd.begin(), fwd.end());
  std::sort(bwd.begin(), bwd.end());
  for (const auto& e : fwd) events_[0].emplace_back(std::get<3>(e), std::get<1>(e) == 1);
  for (const auto& e : bwd) events_[1].emplace_back(std::get<3>(e), std::get<1>(e) == 1);
}

std::vector<int64_t> PeakSweep::decode(const std::vector<double>& stack_key) {
  std::vector<int64_t> offset(p_.buffers.size(), 0);
  std::vector<int> stack = peak_;
  std::stable_sort(stack.begin(), stack.end(),
                   [&](int a, int b) { return stack_key[a] < stack_key[b]; });
  int64_t top = 0;
  for (int i : stack) {
    const Buffer& b = p_.buffers[i];
    const int64_t at = align_offset(top, b.alignment);
    offset[i] = at;
    top = at + b.size;
  }
  height_ = top;
  for (int side = 0; side < 2; ++side) {
    FreeList free_list;
    // Take the stack as used, leaving alignment holes free.
    for (int i : stack) free_list.take(offset[i], offset[i] + p_.buffers[i].size);
    for (const auto& [i, alloc] : events_[side]) {
      const Buffer& b = p_.buffers[i];
      if (!alloc) {
        free_list.give(offset[i], offset[i] + b.size);
        continue;
      }
      const int64_t at = free_list.find_best(b.size, b.alignment, nullptr);
      free_list.take(at, at + b.size);
      offset[i] = at;
      height_ = std::max(height_, at + b.size);
    }
  }
  return offset;
}

}  // namespace strider::memory
