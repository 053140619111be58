// The ordering-search allocator: see search_allocator.h.
#include "planner/memory/search_allocator.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <numeric>
#include <random>

#include "planner/memory/gap_placer.h"
#include "planner/memory/greedy_allocator.h"
#include "planner/memory/peak_sweep.h"

namespace strider::memory {
namespace {

using Clock = std::chrono::steady_clock;

struct Candidate {
  std::vector<int> order;
  GapPolicy policy = GapPolicy::kBestFit;
  std::vector<int64_t> offsets;
  int64_t height = -1;
};

// Buffer indices sorted by `less`, stable.
template <typename Less>
std::vector<int> sorted_indices(size_t n, Less less) {
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), less);
  return order;
}

}  // namespace

std::vector<int64_t> peak_pressure(const Problem& p) {
  const size_t n = p.buffers.size();
  std::vector<int64_t> times;
  times.reserve(2 * n);
  for (const Buffer& b : p.buffers) {
    times.push_back(b.lower);
    times.push_back(b.upper);
  }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  const size_t slots = times.size();
  auto slot = [&](int64_t t) {
    return static_cast<size_t>(std::lower_bound(times.begin(), times.end(), t) - times.begin());
  };
  std::vector<int64_t> live(slots + 1, 0);
  for (const Buffer& b : p.buffers) {
    live[slot(b.lower)] += b.size;
    live[slot(b.upper)] -= b.size;
  }
  for (size_t s = 1; s < slots; ++s) live[s] += live[s - 1];
  // Sparse table for range maxima over slots.
  std::vector<std::vector<int64_t>> table{std::vector<int64_t>(live.begin(), live.begin() + slots)};
  for (size_t w = 1; 2 * w <= slots; w *= 2) {
    const std::vector<int64_t>& prev = table.back();
    std::vector<int64_t> next(slots - 2 * w + 1);
    for (size_t s = 0; s < next.size(); ++s) next[s] = std::max(prev[s], prev[s + w]);
    table.push_back(std::move(next));
  }
  std::vector<int64_t> pressure(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const size_t a = slot(p.buffers[i].lower), b = slot(p.buffers[i].upper);
    if (b <= a) continue;
    size_t level = 0;
    while ((size_t{2} << level) <= b - a) ++level;
    pressure[i] = std::max(table[level][a], table[level][b - (size_t{1} << level)]);
  }
  return pressure;
}

namespace {

// The search state shared by the phases: the decoder and the best plan so far.
class Search {
 public:
  Search(const Problem& p, const AllocatorOptions& opt)
      : p_(p), opt_(opt), start_(Clock::now()), lb_(lower_bound(p)), placer_(p) {}

  bool expired() const {
    return std::chrono::duration<double>(Clock::now() - start_).count() >= opt_.time_limit_s;
  }
  bool done() const { return best_.height >= 0 && best_.height <= lb_; }

  // Decodes `order`; keeps it when it beats the best plan.
  void try_order(std::vector<int> order, GapPolicy policy) {
    std::vector<int64_t> offsets = placer_.place(order, policy);
    if (best_.height < 0 || placer_.height() < best_.height) {
      best_.order = std::move(order);
      best_.policy = policy;
      best_.offsets = std::move(offsets);
      best_.height = placer_.height();
    }
  }

  // A plan becomes the order of its offsets, which first fit reproduces or lowers.
  void try_plan(const std::vector<int64_t>& offsets) {
    try_order(sorted_indices(offsets.size(),
                             [&](int a, int b) { return offsets[a] < offsets[b]; }),
              GapPolicy::kFirstFit);
  }

  void seeds();
  void squeaky_wheel();

  Solution solution(const std::string& name) const {
    Solution s;
    s.allocator = name;
    s.offsets = best_.offsets;
    s.offsets.resize(p_.buffers.size());
    s.height = std::max<int64_t>(best_.height, 0);
    s.proven_optimal = s.height <= lb_;
    return s;
  }

 private:
  const Problem& p_;
  const AllocatorOptions& opt_;
  const Clock::time_point start_;
  const int64_t lb_;
  GapPlacer placer_;
  Candidate best_;
};

void Search::seeds() {
  const size_t n = p_.buffers.size();
  const std::vector<Buffer>& bs = p_.buffers;
  const std::vector<int64_t> pressure = peak_pressure(p_);
  const auto by_pressure = [&](auto tie) {
    return sorted_indices(n, [&](int a, int b) {
      if (pressure[a] != pressure[b]) return pressure[a] > pressure[b];
      return tie(bs[a], bs[b]);
    });
  };
  // Each seed is built only when needed: the first one often reaches the lower bound.
  const std::vector<std::function<std::vector<int>()>> seeds = {
      [&] {
        return by_pressure([](const Buffer& x, const Buffer& y) {
          return x.upper - x.lower > y.upper - y.lower;
        });
      },
      [&] { return by_pressure([](const Buffer& x, const Buffer& y) { return x.lower < y.lower; }); },
      [&] { return by_pressure([](const Buffer& x, const Buffer& y) { return x.upper > y.upper; }); },
      [&] {
        return by_pressure([](const Buffer& x, const Buffer& y) {
          if (x.size != y.size) return x.size > y.size;
          return x.lower < y.lower;
        });
      },
      [&] { return order_by_size(p_); },
      [&] { return order_by_conflicts(p_); },
  };
  for (size_t k = 0; k < seeds.size() && !done() && (k == 0 || !expired()); ++k) {
    try_order(seeds[k](), GapPolicy::kBestFit);
  }
  bool has_fixed = false;
  for (const Buffer& b : bs) has_fixed = has_fixed || b.fixed_offset.has_value();
  if (done() || has_fixed || expired()) return;
  PeakSweep sweep(p_);
  std::vector<std::vector<double>> keys(4, std::vector<double>(n));
  for (size_t i = 0; i < n; ++i) {
    keys[0][i] = static_cast<double>(bs[i].lower);
    keys[1][i] = -static_cast<double>(bs[i].upper);
    keys[2][i] = -static_cast<double>(bs[i].upper - bs[i].lower);
    keys[3][i] = static_cast<double>(bs[i].size);
  }
  for (size_t k = 0; k < keys.size() && !done() && !expired(); ++k) {
    std::vector<int64_t> offsets = sweep.decode(keys[k]);
    if (sweep.height() < best_.height) try_plan(offsets);
  }
}

void Search::squeaky_wheel() {
  // Buffers above the lower bound move to a random earlier place in the order; after 50 tries
  // without a better plan the walk restarts from the best order.
  const size_t n = p_.buffers.size();
  if (n == 0 || best_.height < 0) return;
  std::mt19937_64 rng(opt_.seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<int> order = best_.order;
  std::vector<int64_t> offsets = best_.offsets;
  std::vector<double> key(n);
  std::vector<int> position(n);
  int since_best = 0;
  while (!done() && !expired()) {
    for (size_t k = 0; k < n; ++k) position[order[k]] = static_cast<int>(k);
    for (size_t i = 0; i < n; ++i) {
      key[i] = position[i];
      if (offsets[i] + p_.buffers[i].size > lb_) key[i] = position[i] * unit(rng) - 0.5;
    }
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return key[a] < key[b]; });
    offsets = placer_.place(order, best_.policy);
    if (placer_.height() < best_.height) {
      best_.order = order;
      best_.offsets = offsets;
      best_.height = placer_.height();
      since_best = 0;
    } else if (++since_best >= 50) {
      order = best_.order;
      offsets = best_.offsets;
      since_best = 0;
    }
  }
}

}  // namespace

Solution SearchAllocator::solve(const Problem& p, const AllocatorOptions& opt) const {
  Search search(p, opt);
  search.seeds();
  search.squeaky_wheel();
  return search.solution(name());
}

Solution SearchAllocator::seed(const Problem& p, const AllocatorOptions& opt) const {
  Search search(p, opt);
  search.seeds();
  return search.solution(name());
}

Solution SearchAllocator::improve(const Problem& p, const AllocatorOptions& opt,
                                  const Solution& start) const {
  Search search(p, opt);
  search.try_plan(start.offsets);
  search.squeaky_wheel();
  Solution s = search.solution(name());
  if (s.height > start.height) {  // cannot happen (first fit in offset order), kept as a guard
    s = start;
    s.allocator = name();
  }
  return s;
}

}  // namespace strider::memory
