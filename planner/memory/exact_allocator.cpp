// The exact allocator: see exact_allocator.h. The anytime schedule: a first packing from each
// static order's greedy dive (the search's first leaf with no height limit), then rounds of
// node-budgeted searches, doubling the budget each round: one at the best lower bound `lo`
// (a packing there is optimal; exhausting it raises `lo`) and one at `hi - 1` (a packing there
// lowers `hi`; exhausting it proves `hi` optimal), for each static order in turn.
#include "planner/memory/exact_allocator.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "planner/memory/exact/exact_instance.h"
#include "planner/memory/exact/packing_search.h"

namespace strider::memory {
namespace {

using exact::ExactInstance;
using exact::PackingSearch;
using Clock = std::chrono::steady_clock;

constexpr int64_t kNoLimit = std::numeric_limits<int64_t>::max() / 4;
constexpr int64_t kFirstBudget = 1000;

// Static orders (all descending, ties by index): W = lifetime length, A = size x lifetime,
// T = largest section total over the buffer's lifetime.
std::vector<std::vector<int>> static_ranks(const ExactInstance& inst) {
  const int n = inst.num_buffers();
  std::vector<int64_t> w(n), a(n), t(n);
  for (int b = 0; b < n; ++b) {
    w[b] = inst.lifetime_length(b);
    a[b] = inst.size(b) * inst.lifetime_length(b);
    for (int s = inst.section_lo(b); s < inst.section_hi(b); ++s) {
      t[b] = std::max(t[b], inst.section_total(s));
    }
  }
  const std::vector<std::vector<const std::vector<int64_t>*>> keys = {
      {&w, &a, &t}, {&t, &a, &w}, {&t, &w, &a}};
  std::vector<std::vector<int>> ranks;
  for (const auto& key : keys) {
    std::vector<int> order(n);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
      for (const auto* k : key) {
        if ((*k)[x] != (*k)[y]) return (*k)[x] > (*k)[y];
      }
      return false;
    });
    std::vector<int> rank(n);
    for (int i = 0; i < n; ++i) rank[order[i]] = i;
    ranks.push_back(std::move(rank));
  }
  return ranks;
}

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

  std::vector<PackingSearch> searches;
  for (auto& rank : static_ranks(inst)) searches.emplace_back(inst, std::move(rank));
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
  if (hi == kNoLimit) hi = lo;  // no searchable buffer, or out of time before the first dive
  if (n == 0) lo = hi;
  for (int64_t budget = kFirstBudget; lo < hi && Clock::now() < deadline; budget *= 2) {
    for (auto& s : searches) {
      if (lo >= hi) break;
      auto r = s.run(lo, budget, deadline);
      if (r == PackingSearch::Outcome::kFound) {
        record(s);
        break;
      }
      if (r == PackingSearch::Outcome::kInfeasible) ++lo;
      while (lo < hi - 1) {
        r = s.run(hi - 1, budget, deadline);
        if (r == PackingSearch::Outcome::kFound) {
          record(s);
          continue;
        }
        if (r == PackingSearch::Outcome::kInfeasible) lo = hi;  // nothing below hi exists
        break;
      }
      if (Clock::now() >= deadline) break;
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
