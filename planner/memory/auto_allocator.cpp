// The "auto" allocator: see auto_allocator.h.
#include "planner/memory/auto_allocator.h"

#include <chrono>

namespace strider::memory {

Solution AutoAllocator::solve(const Problem& p, const AllocatorOptions& opt) const {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const int64_t lb = lower_bound(p);
  Solution best;
  bool have = false;
  auto consider = [&](const std::string& name, double limit) {
    AllocatorOptions sub = opt;
    sub.name = name;
    sub.time_limit_s = limit;
    Solution s = make_allocator(name)->solve(p, sub);
    if (!have || s.height < best.height) {
      best = std::move(s);
      best.allocator = "auto/" + name;
      have = true;
    }
    if (s.proven_optimal) best.proven_optimal = best.proven_optimal || s.height == best.height;
  };
  for (const char* name : {"best_fit", "greedy_by_size", "greedy_by_conflicts"}) {
    consider(name, opt.time_limit_s);
    if (best.height <= lb) break;
  }
  const auto left = [&] {
    return opt.time_limit_s - std::chrono::duration<double>(Clock::now() - start).count();
  };
  (void)left;
  if (best.height <= lb) best.proven_optimal = true;
  return best;
}

}  // namespace strider::memory
