// The "auto" allocator: the best plan of several allocators within the time limit.
//  1. the online allocators best_fit and first_fit (O(n log n));
//  2. the search allocator's seeds (peak-pressure orders, greedy by size and by conflicts, peak
//     sweeps), so auto is never above greedy_by_size or greedy_by_conflicts;
//  3. the exact search, on problems of at most kAutoExactMaxBuffers buffers, with half of the
//     remaining time;
//  4. the search allocator's later phases (squeaky wheel from the lowest seeds and the exact
//     plan, then the window refiner), with the rest.
// Every candidate plan is verified before it is kept (an invalid one is skipped). It stops as soon
// as a plan reaches the lower bound or is proven optimal. The Solution names
// the allocator that produced the kept plan as "auto/<name>".
#pragma once

#include <cstddef>
#include <string>

#include "planner/memory/allocator.h"

namespace strider::memory {

constexpr size_t kAutoExactMaxBuffers = 2000;

class AutoAllocator : public Allocator {
 public:
  std::string name() const override { return "auto"; }
  Solution solve(const Problem& p, const AllocatorOptions& opt) const override;
};

}  // namespace strider::memory
