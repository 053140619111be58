// Free heap areas per step for the scratch planner: see scratch_areas.h.
#include "planner/memory/scratch_areas.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace strider::memory {

int64_t align_down(int64_t x, int64_t alignment) {
  if (alignment <= 1) return x;
  int64_t r = x % alignment;
  if (r < 0) r += alignment;
  return x - r;
}

int64_t align_up(int64_t x, int64_t alignment) {
  if (alignment <= 1) return x;
  return align_down(x + alignment - 1, alignment);
}

ScratchAreas::ScratchAreas(const Problem& activations, const std::vector<int64_t>& offsets,
                           int64_t heap_top, const std::vector<int64_t>& steps)
    : top_(heap_top) {
  for (int64_t step : steps) {
    // Live activation ranges at this step, merged in address order; the gaps are free.
    std::vector<std::pair<int64_t, int64_t>> used;
    for (size_t i = 0; i < activations.buffers.size(); ++i) {
      const Buffer& b = activations.buffers[i];
      if (b.size > 0 && b.lower <= step && step < b.upper) {
        used.emplace_back(offsets[i], offsets[i] + b.size);
      }
    }
    std::sort(used.begin(), used.end());
    std::map<int64_t, int64_t>& free = by_step_[step];
    int64_t cursor = 0;
    for (const auto& [lo, hi] : used) {
      if (lo > cursor) free.emplace(cursor, lo);
      cursor = std::max(cursor, hi);
    }
    if (cursor < heap_top) free.emplace(cursor, heap_top);
  }
}

std::map<int64_t, int64_t>& ScratchAreas::at(int64_t step) {
  auto it = by_step_.find(step);
  if (it == by_step_.end()) {
    throw std::logic_error("scratch planner: no free-area list for step " + std::to_string(step));
  }
  return it->second;
}

const std::map<int64_t, int64_t>& ScratchAreas::at(int64_t step) const {
  auto it = by_step_.find(step);
  if (it == by_step_.end()) {
    throw std::logic_error("scratch planner: no free-area list for step " + std::to_string(step));
  }
  return it->second;
}

std::vector<Area> ScratchAreas::free_areas(int64_t first, int64_t last) const {
  std::vector<Area> result;
  if (first >= last) return result;
  for (const auto& [lo, hi] : at(first)) result.push_back({lo, hi});
  for (int64_t step = first + 1; step < last && !result.empty(); ++step) {
    // Intersect two sorted lists of disjoint ranges.
    const std::map<int64_t, int64_t>& other = at(step);
    std::vector<Area> next;
    auto it = other.begin();
    for (const Area& a : result) {
      while (it != other.end() && it->second <= a.lo) ++it;
      for (auto jt = it; jt != other.end() && jt->first < a.hi; ++jt) {
        const int64_t lo = std::max(a.lo, jt->first);
        const int64_t hi = std::min(a.hi, jt->second);
        if (lo < hi) next.push_back({lo, hi});
      }
    }
    result = std::move(next);
  }
  return result;
}

void ScratchAreas::take(int64_t first, int64_t last, int64_t lo, int64_t hi) {
  if (lo >= hi) return;
  for (int64_t step = first; step < last; ++step) {
    std::map<int64_t, int64_t>& free = at(step);
    auto it = free.upper_bound(lo);
    if (it == free.begin() || std::prev(it)->second < hi) {
      throw std::logic_error("scratch planner: [" + std::to_string(lo) + ", " +
                             std::to_string(hi) + ") is not free at step " +
                             std::to_string(step));
    }
    --it;
    const int64_t area_lo = it->first;
    const int64_t area_hi = it->second;
    free.erase(it);
    if (area_lo < lo) free.emplace(area_lo, lo);
    if (hi < area_hi) free.emplace(hi, area_hi);
  }
}

void ScratchAreas::grow_top(int64_t new_top) {
  if (new_top <= top_) return;
  for (auto& [step, free] : by_step_) {
    if (!free.empty() && free.rbegin()->second == top_) {
      free.rbegin()->second = new_top;
    } else {
      free.emplace(top_, new_top);
    }
  }
  top_ = new_top;
}

void ScratchAreas::grow_bottom(int64_t new_bottom) {
  if (new_bottom >= bottom_) return;
  for (auto& [step, free] : by_step_) {
    int64_t hi = bottom_;
    if (!free.empty() && free.begin()->first == bottom_) {
      hi = free.begin()->second;
      free.erase(free.begin());
    }
    free.emplace(new_bottom, hi);
  }
  bottom_ = new_bottom;
}

int64_t ScratchAreas::fragmentation() const {
  int64_t total = 0;
  for (const auto& [step, free] : by_step_) {
    int64_t bytes = 0;
    int64_t largest = 0;
    for (const auto& [lo, hi] : free) {
      bytes += hi - lo;
      largest = std::max(largest, hi - lo);
    }
    total += bytes - largest;
  }
  return total;
}

}  // namespace strider::memory
