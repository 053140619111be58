// The exact allocator: see exact_allocator.h. It normalises the problem (exact/exact_instance.h),
// starts from the better of the two greedy plans, and hands the search to the portfolio of
// static orders (exact/search_portfolio.h), which tightens the height toward the lower bound.
#include "planner/memory/exact_allocator.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "planner/memory/exact/exact_instance.h"
#include "planner/memory/exact/search_portfolio.h"
#include "planner/memory/greedy_allocator.h"

namespace strider::memory {
namespace {

using exact::ExactInstance;
using exact::SearchPortfolio;
using Clock = std::chrono::steady_clock;

// The search runs one task per static order; more threads than that would idle.
int search_threads() {
  const unsigned hw = std::thread::hardware_concurrency();
  return static_cast<int>(std::clamp(hw, 1u, 3u));
}

}  // namespace

std::unique_ptr<Allocator> make_exact_allocator() { return std::make_unique<ExactAllocator>(); }

Solution ExactAllocator::solve(const Problem& p, const AllocatorOptions& opt) const {
  const auto t0 = Clock::now();
  const auto deadline =
      t0 + std::chrono::duration_cast<Clock::duration>(
               std::chrono::duration<double>(std::clamp(opt.time_limit_s, 0.0, 1e7)));
  const ExactInstance inst(p);
  const int n = inst.num_buffers();
  const int64_t unit = inst.unit();
  const int64_t lb_units = inst.lower_bound_units();

  // The better greedy plan is the starting point, and the answer when nothing can be searched.
  // Each greedy pass gets a quarter of the time left, so the two and the search share one limit.
  Solution start;
  for (const GreedyOrder order : {GreedyOrder::kSize, GreedyOrder::kConflicts}) {
    AllocatorOptions share = opt;
    share.time_limit_s =
        std::max(0.0, std::chrono::duration<double>(deadline - Clock::now()).count()) / 4;
    Solution g = GreedyAllocator(order).solve(p, share);
    if (start.offsets.empty() || g.height < start.height) start = std::move(g);
  }
  start.allocator = name();
  start.proven_optimal = start.height <= lb_units * unit;
  if (!inst.searchable() || n == 0 || start.proven_optimal) {
    start.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return start;
  }
  // In units when the greedy offsets lie on the unit grid (they do whenever every buffer rests on
  // another or on 0); otherwise the search starts without a plan.
  std::vector<int64_t> best(n, 0);
  bool on_grid = true;
  for (int b = 0; b < n; ++b) {
    const int64_t o = start.offsets[inst.original_index(b)];
    on_grid = on_grid && o % unit == 0;
    best[b] = o / unit;
  }
  int64_t hi = SearchPortfolio::kNone;
  if (on_grid) {
    hi = lb_units;
    for (int b = 0; b < n; ++b) hi = std::max(hi, best[b] + inst.size(b));
  }
  const int64_t capacity = p.capacity > 0 ? p.capacity / unit : SearchPortfolio::kNone;
  SearchPortfolio portfolio(inst, lb_units, hi, std::move(best), capacity, search_threads());
  portfolio.run(deadline);
  if (portfolio.hi() == SearchPortfolio::kNone) {  // no plan on the grid and no dive in time
    start.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return start;
  }

  Solution sol;
  sol.allocator = name();
  sol.offsets = inst.preset_offsets();
  for (int b = 0; b < n; ++b) sol.offsets[inst.original_index(b)] = portfolio.best()[b] * unit;
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    sol.height = std::max(sol.height, sol.offsets[i] + p.buffers[i].size);
  }
  sol.proven_optimal = portfolio.lo() >= portfolio.hi();
  sol.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return sol;
}

}  // namespace strider::memory
