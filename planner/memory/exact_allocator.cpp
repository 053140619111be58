// The exact allocator: see exact_allocator.h. The anytime schedule: a first packing from each
// static order's greedy dive (the search's first leaf with no height limit), then rounds of
// node-budgeted searches, doubling the budget each round, for each static order in turn: one at
// the best lower bound `lo` (a packing there is optimal; exhausting it raises `lo`), one at the
// capacity while the best height `hi` exceeds it, and then at `hi - 1` as long as packings are
// found (exhausting it proves `hi` optimal).
#include "planner/memory/exact_allocator.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "planner/memory/exact/exact_instance.h"
#include "planner/memory/exact/packing_search.h"
#include "planner/memory/greedy_allocator.h"

namespace strider::memory {
namespace {

using exact::ExactInstance;
using exact::PackingSearch;
using Clock = std::chrono::steady_clock;

constexpr int64_t kNoLimit = std::numeric_limits<int64_t>::max() / 4;
constexpr int64_t kFirstBudget = 1000;

// Static preorders tried in turn (see PackingSearch): W = lifetime length, A = size x lifetime,
// T = largest section total over the buffer's lifetime.
const char* const kOrders[] = {"WAT", "TAW", "TWA"};

int64_t height_units(const ExactInstance& inst, const std::vector<int64_t>& off) {
  int64_t h = 0;
  for (int b = 0; b < inst.num_buffers(); ++b) h = std::max(h, off[b] + inst.size(b));
  return h;
}

}  // namespace

std::unique_ptr<Allocator> make_exact_allocator() { return std::make_unique<ExactAllocator>(); }

Solution ExactAllocator::solve(const Problem& p, const AllocatorOptions& opt) const {
  const auto t0 = Clock::now();
  const auto deadline =
      t0 + std::chrono::duration_cast<Clock::duration>(
               std::chrono::duration<double>(std::max(0.0, opt.time_limit_s)));
  const ExactInstance inst(p);
  const int n = inst.num_buffers();
  const int64_t unit = inst.unit();
  // Heights below lo are impossible; hi is the best height found (units, searchable buffers).
  int64_t lo = inst.lower_bound_units();
  int64_t hi = kNoLimit;
  std::vector<int64_t> best(n, 0);

  // Start from the better greedy plan (when its offsets are whole units, as they are whenever
  // every buffer rests on another or on 0).
  Solution start;
  for (const GreedyOrder order : {GreedyOrder::kSize, GreedyOrder::kConflicts}) {
    Solution g = GreedyAllocator(order).solve(p, opt);
    if (start.offsets.empty() || g.height < start.height) start = std::move(g);
  }
  bool whole_units = true;
  for (int b = 0; b < n; ++b) {
    const int64_t o = start.offsets[inst.original_index(b)];
    whole_units = whole_units && o % unit == 0;
    best[b] = o / unit;
  }
  if (whole_units) hi = std::max(height_units(inst, best), inst.lower_bound_units());

  std::vector<PackingSearch> searches;
  if (inst.searchable()) {
    for (const char* order : kOrders) searches.emplace_back(inst, order);
  }
  auto record = [&](const PackingSearch& s) {
    const int64_t h = std::max(height_units(inst, s.offsets()), inst.lower_bound_units());
    if (h < hi) {
      hi = h;
      best = s.offsets();
    }
  };
  // Greedy dives: the first leaf with no height limit never backtracks.
  for (auto& s : searches) {
    if (s.run(kNoLimit, 0, deadline) == PackingSearch::Outcome::kFound) record(s);
  }
  if (hi == kNoLimit || searches.empty()) {
    // Nothing to search (or no dive in time, with a greedy plan off the unit grid): keep the
    // greedy plan as it is.
    start.allocator = name();
    start.proven_optimal = start.height <= inst.lower_bound_units() * unit;
    start.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return start;
  }
  // Capacity in units (rounded down): a packing within it is worth more than any other step.
  const int64_t cap_units = p.capacity > 0 ? p.capacity / unit : kNoLimit;
  for (int64_t budget = kFirstBudget; lo < hi && Clock::now() < deadline; budget *= 2) {
    for (auto& s : searches) {
      if (lo >= hi || Clock::now() >= deadline) break;
      auto r = s.run(lo, budget, deadline);
      if (r == PackingSearch::Outcome::kFound) {
        record(s);
        break;
      }
      if (r == PackingSearch::Outcome::kInfeasible) ++lo;
      if (hi > cap_units && cap_units > lo) {
        r = s.run(cap_units, budget, deadline);
        if (r == PackingSearch::Outcome::kFound) record(s);
        if (r == PackingSearch::Outcome::kInfeasible) lo = cap_units + 1;
      }
      while (lo < hi - 1) {
        r = s.run(hi - 1, budget, deadline);
        if (r == PackingSearch::Outcome::kFound) {
          record(s);
          continue;
        }
        if (r == PackingSearch::Outcome::kInfeasible) lo = hi;  // nothing below hi exists
        break;
      }
    }
  }

  Solution sol;
  sol.allocator = name();
  sol.offsets = inst.preset_offsets();
  for (int b = 0; b < n; ++b) sol.offsets[inst.original_index(b)] = best[b] * unit;
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    sol.height = std::max(sol.height, sol.offsets[i] + p.buffers[i].size);
  }
  sol.proven_optimal = lo >= hi;
  sol.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return sol;
}

}  // namespace strider::memory
