// ScratchAreas: the free areas of the heap at each schedule step that owns scratch buffers, once
// the activation offsets are fixed. An area is a half-open address range [lo, hi) that no
// activation (and no scratch placed so far) uses at that step; the heap is [bottom, top), where
// bottom starts at 0 and goes negative when the heap grows downwards. The lists are updated after
// every placement (take) and every growth (grow_top / grow_bottom extend the edge area of every
// step, or add one). Used by the scratch planner (scratch_planner.h).
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "planner/memory/problem.h"

namespace strider::memory {

struct Area {
  int64_t lo = 0;
  int64_t hi = 0;
  int64_t size() const { return hi - lo; }
};

class ScratchAreas {
 public:
  // Free areas at each of `steps` (sorted, unique) given the activation buffers and their offsets,
  // within the heap [0, heap_top).
  ScratchAreas(const Problem& activations, const std::vector<int64_t>& offsets, int64_t heap_top,
               const std::vector<int64_t>& steps);

  int64_t bottom() const { return bottom_; }
  int64_t top() const { return top_; }

  // The areas free at every step of [first, last) (the intersection), in address order.
  std::vector<Area> free_areas(int64_t first, int64_t last) const;
  // Marks [lo, hi) used at every step of [first, last); the range must be free there.
  void take(int64_t first, int64_t last, int64_t lo, int64_t hi);
  // Moves the heap top up to `new_top` / the bottom down to `new_bottom`, at every step.
  void grow_top(int64_t new_top);
  void grow_bottom(int64_t new_bottom);

  // Sum over the steps of the free bytes outside the step's largest free area (0 when each step's
  // free space is one area).
  int64_t fragmentation() const;

 private:
  std::map<int64_t, int64_t>& at(int64_t step);
  const std::map<int64_t, int64_t>& at(int64_t step) const;

  std::map<int64_t, std::map<int64_t, int64_t>> by_step_;  // step -> (lo -> hi)
  int64_t bottom_ = 0;
  int64_t top_ = 0;
};

// Alignment arithmetic valid for negative addresses too (alignment >= 1).
int64_t align_down(int64_t x, int64_t alignment);
int64_t align_up(int64_t x, int64_t alignment);

}  // namespace strider::memory
