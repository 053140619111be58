// The search allocator: see search_allocator.h.
#include "planner/memory/search_allocator.h"

#include <chrono>

#include "planner/memory/window_refiner.h"

namespace strider::memory {

Solution SearchAllocator::finish(const Problem& p, OrderSearch* search, double time_limit_s,
                                 uint64_t seed) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  search->restart_clock(time_limit_s * kOrderShare);
  search->squeaky_wheel();
  Solution s = search->solution("search");
  const int64_t lb = lower_bound(p);
  const double left =
      time_limit_s - std::chrono::duration<double>(Clock::now() - start).count();
  if (s.height > lb && left > 0 && s.offsets.size() == p.buffers.size()) {
    s.height = WindowRefiner(p).refine(&s.offsets, left, seed);
    s.proven_optimal = s.height <= lb;
  }
  return s;
}

Solution SearchAllocator::solve(const Problem& p, const AllocatorOptions& opt) const {
  const auto start = std::chrono::steady_clock::now();
  OrderSearch search(p, opt.time_limit_s, opt.seed);
  search.seeds();
  const double left =
      opt.time_limit_s -
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return finish(p, &search, left, opt.seed);
}

}  // namespace strider::memory
