// The ordering-search allocator ("search"). A plan is encoded as a placement order decoded by the
// GapPlacer (best fit or first fit over the gaps left by the buffers whose lifetimes overlap).
//  1. Seeds: orders by peak pressure (the largest live total during a buffer's lifetime: buffers
//     that meet the worst moments first, so the peak is packed without holes) with several tie
//     breaks, greedy by size and by conflicts, and the PeakSweep decoder with several stacking
//     orders (a sweep plan becomes an order by offset, which first fit reproduces or improves).
//  2. Squeaky-wheel search from the best seed: decode, take the buffers that end above the lower
//     bound, move each to a random earlier place in the order, decode again; restart from the
//     best order now and then.
// Stops as soon as a plan reaches the lower bound (proven optimal) or the time limit passes.
// Deterministic for a given seed when it reaches the lower bound, and otherwise up to the number
// of iterations the time limit allows.
#pragma once

#include <string>
#include <vector>

#include "planner/memory/allocator.h"

namespace strider::memory {

class SearchAllocator : public Allocator {
 public:
  std::string name() const override { return "search"; }
  // Seeds, then the squeaky-wheel search from the best seed.
  Solution solve(const Problem& p, const AllocatorOptions& opt) const override;
  // The seeds only (stops at the first that reaches the lower bound).
  Solution seed(const Problem& p, const AllocatorOptions& opt) const;
  // The squeaky-wheel search starting from `start` (any valid plan of p, e.g. from another
  // allocator), never returning a higher plan than it.
  Solution improve(const Problem& p, const AllocatorOptions& opt, const Solution& start) const;
};

// Per buffer: the maximum over its lifetime of the total size of live buffers.
std::vector<int64_t> peak_pressure(const Problem& p);

}  // namespace strider::memory
