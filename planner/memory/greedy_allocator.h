// Order-based greedy allocators: sort the buffers by a key, then place them one by one with the
// GapPlacer (smallest gap that holds the buffer, else on top).
//   greedy_by_size       size descending, then earlier lower first (TFLite arena planner)
//   greedy_by_conflicts  number of lifetime conflicts descending, then size (TVM USMP)
#pragma once

#include <string>
#include <vector>

#include "planner/memory/allocator.h"

namespace strider::memory {

enum class GreedyOrder { kSize, kConflicts };

class GreedyAllocator : public Allocator {
 public:
  explicit GreedyAllocator(GreedyOrder order) : order_(order) {}
  std::string name() const override;
  Solution solve(const Problem& p, const AllocatorOptions& opt) const override;

 private:
  GreedyOrder order_;
};

// Buffer indices by size descending (ties: lower ascending, then index).
std::vector<int> order_by_size(const Problem& p);
// Buffer indices by conflict count descending (ties: size descending, then index).
std::vector<int> order_by_conflicts(const Problem& p);
// For each buffer, the number of other buffers whose lifetimes overlap its own.
std::vector<int64_t> conflict_counts(const Problem& p);

}  // namespace strider::memory
