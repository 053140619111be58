// The exact allocator ("exact"): an anytime branch-and-bound search over canonical packings.
// It starts from a greedy height, then tightens the height toward the lower bound, proving
// optimality when the search for one less than the best height is exhausted. Honours
// AllocatorOptions::time_limit_s and returns the best plan found so far when time runs out.
#pragma once

#include <memory>
#include <string>

#include "planner/memory/allocator.h"

namespace strider::memory {

class ExactAllocator : public Allocator {
 public:
  std::string name() const override { return "exact"; }
  Solution solve(const Problem& p, const AllocatorOptions& opt) const override;
};

std::unique_ptr<Allocator> make_exact_allocator();

}  // namespace strider::memory
