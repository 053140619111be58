// Greedy-by-size and greedy-by-conflicts allocators: see greedy_allocator.h.
#include "planner/memory/greedy_allocator.h"

#include <algorithm>
#include <numeric>

#include "planner/memory/gap_placer.h"

namespace strider::memory {

std::vector<int> order_by_size(const Problem& p) {
  std::vector<int> order(p.buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const Buffer& x = p.buffers[a];
    const Buffer& y = p.buffers[b];
    if (x.size != y.size) return x.size > y.size;
    return x.lower < y.lower;
  });
  return order;
}

std::vector<int64_t> conflict_counts(const Problem& p) {
  // Buffer j overlaps buffer i unless j.lower >= i.upper or j.upper <= i.lower (the two cases
  // are exclusive for non-empty lifetimes), so count = n - 1 - #(lower >= upper_i) -
  // #(upper <= lower_i), each a binary search in a sorted array.
  const size_t n = p.buffers.size();
  std::vector<int64_t> lowers(n), uppers(n);
  for (size_t i = 0; i < n; ++i) {
    lowers[i] = p.buffers[i].lower;
    uppers[i] = p.buffers[i].upper;
  }
  std::sort(lowers.begin(), lowers.end());
  std::sort(uppers.begin(), uppers.end());
  std::vector<int64_t> count(n);
  for (size_t i = 0; i < n; ++i) {
    const Buffer& b = p.buffers[i];
    int64_t after = lowers.end() - std::lower_bound(lowers.begin(), lowers.end(), b.upper);
    int64_t before = std::upper_bound(uppers.begin(), uppers.end(), b.lower) - uppers.begin();
    count[i] = static_cast<int64_t>(n) - 1 - after - before;
  }
  return count;
}

std::vector<int> order_by_conflicts(const Problem& p) {
  std::vector<int64_t> count = conflict_counts(p);
  std::vector<int> order(p.buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    if (count[a] != count[b]) return count[a] > count[b];
    return p.buffers[a].size > p.buffers[b].size;
  });
  return order;
}

std::string GreedyAllocator::name() const {
  return order_ == GreedyOrder::kSize ? "greedy_by_size" : "greedy_by_conflicts";
}

Solution GreedyAllocator::solve(const Problem& p, const AllocatorOptions& opt) const {
  Deadline deadline(opt.time_limit_s);
  GapPlacer placer(p);
  placer.set_deadline(&deadline);
  Solution s;
  s.offsets = placer.place(order_ == GreedyOrder::kSize ? order_by_size(p) : order_by_conflicts(p),
                           GapPolicy::kBestFit);
  s.height = placer.height();
  s.stacked = placer.stacked();
  s.allocator = name();
  return s;
}

}  // namespace strider::memory
