// The "auto" allocator: see auto_allocator.h.
#include "planner/memory/auto_allocator.h"

#include <algorithm>
#include <chrono>

#include "planner/memory/exact_allocator.h"
#include "planner/memory/online_allocator.h"
#include "planner/memory/order_search.h"
#include "planner/memory/search_allocator.h"
#include "planner/memory/verifier.h"

namespace strider::memory {

Solution AutoAllocator::solve(const Problem& p, const AllocatorOptions& opt) const {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto remaining = [&] {
    return std::max(0.0,
                    opt.time_limit_s - std::chrono::duration<double>(Clock::now() - start).count());
  };
  const int64_t lb = lower_bound(p);
  Solution best;
  bool have = false;
  const auto finished = [&] { return have && (best.height <= lb || best.proven_optimal); };
  // Every candidate is verified here too, so a faulty sub-allocator can only be skipped.
  const auto consider = [&](Solution s) {
    if (!verify(p, s).empty()) return false;
    const std::string from = s.allocator;
    if (!have || s.height < best.height) {
      best = std::move(s);
      best.allocator = "auto/" + from;
      have = true;
    } else if (s.proven_optimal && s.height == best.height) {
      best.proven_optimal = true;
    }
    if (best.height <= lb) best.proven_optimal = true;
    return true;
  };
  // Each stage gets the time left (the online allocators poll it per buffer and finish on top).
  AllocatorOptions sub = opt;
  consider(OnlineAllocator(true).solve(p, sub));
  sub.time_limit_s = remaining();
  if (!finished() && remaining() > 0) consider(OnlineAllocator(false).solve(p, sub));
  if (finished() || remaining() <= 0) return best;

  OrderSearch search(p, remaining(), opt.seed);
  search.seeds();
  consider(search.solution("search"));
  if (finished()) return best;

  if (p.buffers.size() <= kAutoExactMaxBuffers && remaining() > 0) {
    sub.time_limit_s = remaining() / 2;
    Solution exact = ExactAllocator().solve(p, sub);
    // A better exact plan also becomes a starting point of the order search.
    if (consider(exact) && exact.height < search.best_height()) search.try_plan(exact.offsets);
    if (finished()) return best;
  }
  if (remaining() > 0) consider(SearchAllocator::finish(p, &search, remaining(), opt.seed));
  return best;
}

}  // namespace strider::memory
