// The search allocator ("search"): OrderSearch (order_search.h) seeds, then its squeaky-wheel
// search over placement orders for kOrderShare of the time, then the WindowRefiner's
// large-neighbourhood search on the best plan for the rest. Stops as soon as a plan reaches the
// lower bound (proven optimal) or the time limit passes. For a given seed the result depends only
// on how many steps the time limit allows (none when a seed reaches the lower bound).
#pragma once

#include <string>
#include <vector>

#include "planner/memory/allocator.h"
#include "planner/memory/order_search.h"

namespace strider::memory {

class SearchAllocator : public Allocator {
 public:
  static constexpr double kOrderShare = 0.85;

  std::string name() const override { return "search"; }
  Solution solve(const Problem& p, const AllocatorOptions& opt) const override;

  // The phases after the seeds, for callers that ran seeds() (and maybe added other plans with
  // try_plan()) themselves: the squeaky wheel for kOrderShare of `time_limit_s`, then the window
  // refiner for the rest. Returns the best plan, named "search".
  static Solution finish(const Problem& p, OrderSearch* search, double time_limit_s,
                         uint64_t seed);
};

}  // namespace strider::memory
