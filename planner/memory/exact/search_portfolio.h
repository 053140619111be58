// The anytime minimisation schedule of the exact allocator: one PackingSearch per static
// preorder, run in rounds with a node budget that doubles each round. In a round every order
// gets a task, all starting from the bounds [lo, hi] known at the round's start: search at the
// capacity while hi is above it (nothing else until that search succeeds or fails), at lo (a
// packing there is optimal; exhausting the search proves lo + 1), then at
// hi - ceil((hi - lo) / 2^k) for k = 1, 2, ... down to hi - 1. Tasks run on up to `threads`
// threads and are merged in task order (lowest height, then lowest task), so the result depends
// only on the input, except where the deadline cuts a round short.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "planner/memory/exact/exact_instance.h"
#include "planner/memory/exact/packing_search.h"

namespace strider::memory::exact {

class SearchPortfolio {
 public:
  using Clock = std::chrono::steady_clock;

  // `lo`: a lower bound on the height (units); `hi`/`best`: the best packing known (units,
  // hi = kNone when there is none). `capacity`: units, or kNone.
  SearchPortfolio(const ExactInstance& inst, int64_t lo, int64_t hi, std::vector<int64_t> best,
                  int64_t capacity, int threads);

  static constexpr int64_t kNone = INT64_MAX / 4;

  // Runs greedy dives, then rounds until hi == lo, the deadline, or (when max_budget > 0) the
  // round whose per-search node budget would exceed max_budget.
  void run(Clock::time_point deadline, int64_t max_budget = 0);
  int64_t nodes() const;  // total search nodes so far

  int64_t lo() const { return lo_; }
  int64_t hi() const { return hi_; }
  const std::vector<int64_t>& best() const { return best_; }  // offsets in units

 private:
  struct Task {
    int64_t lo = 0;
    int64_t hi = 0;
    bool improved = false;
    std::vector<int64_t> offsets;
  };
  Task run_task(int i, int64_t budget, Clock::time_point deadline);
  void merge(std::vector<Task>& tasks);
  int64_t height_of(const std::vector<int64_t>& offsets) const;

  const ExactInstance& inst_;
  int64_t lo_;
  int64_t hi_;
  std::vector<int64_t> best_;
  int64_t capacity_;
  int threads_;
  std::vector<std::unique_ptr<PackingSearch>> searches_;
  std::unique_ptr<std::atomic<bool>[]> stop_;
  std::vector<int64_t> task_nodes_;  // per task, summed over its runs  // per task: a lower task found a packing at lo
};

}  // namespace strider::memory::exact
