// The "auto" allocator: runs the fast allocators (best_fit, greedy_by_size, greedy_by_conflicts),
// then, while time is left and the best height is above the lower bound, the exact search and the
// ordering search, and keeps the lowest plan (ties: the first found). The returned Solution names
// the allocator that produced it as "auto/<name>".
#pragma once

#include <string>

#include "planner/memory/allocator.h"

namespace strider::memory {

class AutoAllocator : public Allocator {
 public:
  std::string name() const override { return "auto"; }
  Solution solve(const Problem& p, const AllocatorOptions& opt) const override;
};

}  // namespace strider::memory
