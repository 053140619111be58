// Online allocators: a sweep over time in schedule order (lower, then problem order) keeping the
// free address space as coalesced free blocks (FreeList). At each time the buffers that end are
// freed before the ones that start are placed.
//   first_fit  the lowest free block that holds the buffer, else on top
//   best_fit   the smallest free block that holds the buffer (ties: lowest), else on top
// Fixed-offset buffers are reserved at their lower time; the others avoid their address range
// whenever their lifetimes overlap.
#pragma once

#include <string>

#include "planner/memory/allocator.h"

namespace strider::memory {

class OnlineAllocator : public Allocator {
 public:
  explicit OnlineAllocator(bool best_fit) : best_fit_(best_fit) {}
  std::string name() const override { return best_fit_ ? "best_fit" : "first_fit"; }
  Solution solve(const Problem& p, const AllocatorOptions& opt) const override;

 private:
  bool best_fit_;
};

}  // namespace strider::memory
