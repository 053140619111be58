// WindowRefiner: large-neighbourhood search on a finished plan. Each step picks a buffer that
// ends above the lower bound and a random time window around its lifetime; the k highest buffers
// meeting the window (k random, at most kMaxFree) are re-planned by a short OrderSearch while
// every other buffer that overlaps them in time stays where it is (a fixed obstacle). The new
// placement is kept when the plan's height, then its total overshoot above the lower bound, is
// not worse. Small subproblems make each step cheap even on traces with 60,000 buffers.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/memory/problem.h"

namespace strider::memory {

class WindowRefiner {
 public:
  static constexpr size_t kMaxFree = 256;

  explicit WindowRefiner(const Problem& p) : p_(p) {}

  // Improves the valid plan `offsets` in place for at most `time_limit_s` or until it reaches
  // the lower bound. Returns the new height.
  int64_t refine(std::vector<int64_t>* offsets, double time_limit_s, uint64_t seed) const;

 private:
  const Problem& p_;
};

}  // namespace strider::memory
