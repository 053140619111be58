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
  static constexpr double kOrderShare = 0.7;

  std::string name() const override { return "search"; }
  Solution solve(const Problem& p, const AllocatorOptions& opt) const override;
  // The seeds only (stops at the first that reaches the lower bound).
  Solution seed(const Problem& p, const AllocatorOptions& opt) const;
  // The searches starting from `start` (any valid plan of p, e.g. from another allocator);
  // never returns a higher plan than it.
  Solution improve(const Problem& p, const AllocatorOptions& opt, const Solution& start) const;
};

}  // namespace strider::memory
