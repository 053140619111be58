// See search_portfolio.h.
#include "planner/memory/exact/search_portfolio.h"

#include <algorithm>
#include <utility>

#include "core/common/parallel_for.h"

namespace strider::memory::exact {
namespace {

// Static preorders (see PackingSearch), best first on the benchmark suites.
const char* const kOrders[] = {"TWA", "TAW", "WAT"};
constexpr int kOrderCount = 3;
constexpr int64_t kFirstBudget = 1000;

}  // namespace

SearchPortfolio::SearchPortfolio(const ExactInstance& inst, int64_t lo, int64_t hi,
                                 std::vector<int64_t> best, int64_t capacity, int threads)
    : inst_(inst),
      lo_(lo),
      hi_(hi),
      best_(std::move(best)),
      capacity_(capacity),
      threads_(std::max(1, threads)),
      stop_(new std::atomic<bool>[kOrderCount]),
      task_nodes_(kOrderCount, 0) {
  for (const char* order : kOrders) searches_.push_back(std::make_unique<PackingSearch>(inst, order));
  for (int i = 0; i < kOrderCount; ++i) stop_[i] = false;
}

int64_t SearchPortfolio::height_of(const std::vector<int64_t>& offsets) const {
  int64_t h = inst_.lower_bound_units();  // covers the buffers that are not searched
  for (int b = 0; b < inst_.num_buffers(); ++b) h = std::max(h, offsets[b] + inst_.size(b));
  return h;
}

void SearchPortfolio::merge(std::vector<Task>& tasks) {
  for (Task& t : tasks) {
    lo_ = std::max(lo_, t.lo);
    if (t.improved && t.hi < hi_) {
      hi_ = t.hi;
      best_ = std::move(t.offsets);
    }
  }
  lo_ = std::min(lo_, hi_);
}

SearchPortfolio::Task SearchPortfolio::run_task(int i, int64_t budget, Clock::time_point deadline) {
  using Outcome = PackingSearch::Outcome;
  PackingSearch& search = *searches_[i];
  struct Counted {  // counts the nodes of every run of this task
    PackingSearch& s;
    int64_t& nodes;
    PackingSearch::Outcome run(int64_t cap, int64_t budget, Clock::time_point deadline,
                               const std::atomic<bool>* stop) {
      const PackingSearch::Outcome r = s.run(cap, budget, deadline, stop);
      nodes += s.nodes();
      return r;
    }
    const std::vector<int64_t>& offsets() const { return s.offsets(); }
  } s{search, task_nodes_[i]};
  Task t{lo_, hi_, false, {}};
  auto record = [&] {
    const int64_t h = height_of(s.offsets());
    if (h < t.hi) {
      t.hi = h;
      t.offsets = s.offsets();
      t.improved = true;
    }
  };
  Outcome r = Outcome::kAborted;
  if (t.hi > capacity_ && capacity_ > t.lo && capacity_ != kNone) {
    r = s.run(capacity_, budget, deadline, &stop_[i]);
    if (r == Outcome::kFound) record();
    if (r == Outcome::kInfeasible) t.lo = capacity_ + 1;
    if (r == Outcome::kAborted) return t;  // fitting the capacity comes before all else
  }
  if (t.lo >= t.hi) return t;
  r = s.run(t.lo, budget, deadline, &stop_[i]);
  if (r == Outcome::kFound) {
    record();
    for (int j = i + 1; j < kOrderCount; ++j) stop_[j] = true;
    return t;
  }
  if (r == Outcome::kInfeasible) ++t.lo;
  // Descend through targets hi - ceil((hi - lo) / 2^k), k = 1, 2, ... up to hi - 1, a quarter
  // of the budget each: difficulty is far from monotone in the target height, so some bold
  // target often falls quickly. A packing restarts the sweep below it.
  const int64_t quarter = std::max<int64_t>(1, budget / 4);
  int k = 1;
  while (t.lo < t.hi - 1) {
    const int64_t gap = t.hi - t.lo;
    const int64_t step = k >= 62 ? 1 : std::max<int64_t>(1, (gap + (int64_t{1} << k) - 1) >> k);
    const int64_t target = t.hi - step;
    r = s.run(target, quarter, deadline, &stop_[i]);
    if (r == Outcome::kFound) {
      record();
      k = 1;
    } else if (r == Outcome::kInfeasible) {
      t.lo = target + 1;  // nothing at or below target exists
    } else if (step == 1) {
      break;
    } else {
      ++k;
    }
  }
  return t;
}

int64_t SearchPortfolio::nodes() const {
  int64_t total = 0;
  for (const int64_t n : task_nodes_) total += n;
  return total;
}

void SearchPortfolio::run(Clock::time_point deadline, int64_t max_budget) {
  // Greedy dives: the first leaf with no height limit never backtracks.
  std::vector<Task> tasks(kOrderCount);
  parallel_for(kOrderCount, threads_, [&](int i) {
    Task& t = tasks[i];
    t = {lo_, hi_, false, {}};
    if (searches_[i]->run(kNone, 0, deadline) == PackingSearch::Outcome::kFound) {
      const int64_t h = height_of(searches_[i]->offsets());
      if (h < t.hi) t = {lo_, h, true, searches_[i]->offsets()};
    }
  });
  merge(tasks);
  for (int64_t budget = kFirstBudget;
       lo_ < hi_ && Clock::now() < deadline && (max_budget <= 0 || budget <= max_budget);
       budget *= 2) {
    for (int i = 0; i < kOrderCount; ++i) stop_[i] = false;
    parallel_for(kOrderCount, threads_, [&](int i) { tasks[i] = run_task(i, budget, deadline); });
    merge(tasks);
  }
}

}  // namespace strider::memory::exact
