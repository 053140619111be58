// The search allocator: see search_allocator.h.
#include "planner/memory/search_allocator.h"

#include <algorithm>
#include <chrono>

#include "planner/memory/window_refiner.h"

namespace strider::memory {
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Runs the refiner on `s` with what is left of `limit`.
void refine(const Problem& p, const AllocatorOptions& opt, Clock::time_point start, Solution* s) {
  const int64_t lb = lower_bound(p);
  const double left = opt.time_limit_s - since(start);
  if (s->height <= lb || left <= 0 || s->offsets.size() != p.buffers.size()) return;
  s->height = WindowRefiner(p).refine(&s->offsets, left, opt.seed);
  s->proven_optimal = s->height <= lb;
}

}  // namespace

Solution SearchAllocator::solve(const Problem& p, const AllocatorOptions& opt) const {
  const auto start = Clock::now();
  OrderSearch search(p, opt.time_limit_s * kOrderShare, opt.seed);
  search.seeds();
  search.squeaky_wheel();
  Solution s = search.solution(name());
  refine(p, opt, start, &s);
  return s;
}

Solution SearchAllocator::seed(const Problem& p, const AllocatorOptions& opt) const {
  OrderSearch search(p, opt.time_limit_s, opt.seed);
  search.seeds();
  return search.solution(name());
}

Solution SearchAllocator::improve(const Problem& p, const AllocatorOptions& opt,
                                  const Solution& start_plan) const {
  const auto start = Clock::now();
  OrderSearch search(p, opt.time_limit_s * kOrderShare, opt.seed);
  search.try_plan(start_plan.offsets);
  search.squeaky_wheel();
  Solution s = search.solution(name());
  if (s.height > start_plan.height) {  // cannot happen (first fit in offset order); a guard
    s.offsets = start_plan.offsets;
    s.height = start_plan.height;
  }
  refine(p, opt, start, &s);
  return s;
}

}  // namespace strider::memory
