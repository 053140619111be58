// The naive allocator ("naive"): no reuse at all. Buffers get consecutive aligned offsets in
// problem order, above every fixed-offset buffer; the height is the sum of the (aligned) sizes.
// The baseline every other allocator is measured against.
#pragma once

#include <string>

#include "planner/memory/allocator.h"

namespace strider::memory {

class NaiveAllocator : public Allocator {
 public:
  std::string name() const override { return "naive"; }
  Solution solve(const Problem& p, const AllocatorOptions& opt) const override;
};

}  // namespace strider::memory
