// OrderSearch: see order_search.h.
#include "planner/memory/order_search.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <random>

#include "planner/memory/greedy_allocator.h"
#include "planner/memory/peak_sweep.h"

namespace strider::memory {
namespace {

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

OrderSearch::OrderSearch(const Problem& p, double time_limit_s, uint64_t seed)
    : p_(p),
      start_(Clock::now()),
      time_limit_s_(time_limit_s),
      seed_(seed),
      lb_(lower_bound(p)),
      placer_(p),
      deadline_(time_limit_s) {
  placer_.set_deadline(&deadline_);
}

bool OrderSearch::expired() const {
  return std::chrono::duration<double>(Clock::now() - start_).count() >= time_limit_s_;
}

void OrderSearch::restart_clock(double time_limit_s) {
  start_ = Clock::now();
  time_limit_s_ = time_limit_s;
  deadline_ = Deadline(time_limit_s);
}

OrderSearch::Candidate OrderSearch::decode(std::vector<int> order, GapPolicy policy) {
  Candidate c;
  c.offsets = placer_.place(order, policy);
  c.order = std::move(order);
  c.policy = policy;
  c.height = placer_.height();
  c.score = placer_.free_height();
  c.stacked = placer_.stacked();
  return c;
}

void OrderSearch::try_order(std::vector<int> order, GapPolicy policy) {
  Candidate c = decode(std::move(order), policy);
  if (best_.score < 0 || c.score < best_.score) best_ = c;
  starts_.push_back(std::move(c));
}

void OrderSearch::try_plan(const std::vector<int64_t>& offsets) {
  try_order(sorted_indices(offsets.size(), [&](int a, int b) { return offsets[a] < offsets[b]; }),
            GapPolicy::kFirstFit);
}

Solution OrderSearch::solution(const std::string& name) const {
  Solution s;
  s.allocator = name;
  s.offsets = best_.offsets;
  s.offsets.resize(p_.buffers.size());
  s.height = std::max<int64_t>(best_.height, 0);
  s.proven_optimal = s.height <= lb_;
  s.stacked = best_.stacked;
  return s;
}

void OrderSearch::seeds() {
  const size_t n = p_.buffers.size();
  const std::vector<Buffer>& bs = p_.buffers;
  const std::vector<int64_t> pressure = peak_pressure(p_);
  const auto by_pressure = [&](auto tie) {
    return sorted_indices(n, [&](int a, int b) {
      if (pressure[a] != pressure[b]) return pressure[a] > pressure[b];
      return tie(bs[a], bs[b]);
    });
  };
  const auto by_band = [&](double width) {
    const double band = std::max(1.0, width * static_cast<double>(lb_));
    return sorted_indices(n, [&](int a, int b) {
      const double ba = std::floor(static_cast<double>(pressure[a]) / band);
      const double bb = std::floor(static_cast<double>(pressure[b]) / band);
      if (ba != bb) return ba > bb;
      return bs[a].upper - bs[a].lower > bs[b].upper - bs[b].lower;
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
      // Pressure in bands of 1, 3 and 10 % of the lower bound, longer lifetimes first in a band:
      // lets long buffers near (not only at) the worst moments go first.
      [&] { return by_band(0.01); },
      [&] { return by_band(0.03); },
      [&] { return by_band(0.10); },
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
    if (sweep.height() < best_.score) try_plan(offsets);
  }
}

void OrderSearch::squeaky_wheel() {
  // Chains start from the kChains lowest seeds and take turns. In each step the buffers that end
  // above the lower bound (each with probability kMoveShare) move earlier in the chain's order,
  // to a random place between kMoveKeep and 1 times their position, and the order is decoded
  // again. A chain that finds no better plan in kPatience steps goes back to its own best order.
  // (Measured on the idealloc traces: large moves of every such buffer do best on S_1, and still
  // reach 0.00-0.04 % on resnet50; small moves of a few stall on S_1.)
  constexpr size_t kChains = 5;
  constexpr double kMoveKeep = 0.0;
  constexpr double kMoveShare = 1.0;
  constexpr int kPatience = 20;
  const size_t n = p_.buffers.size();
  if (n == 0 || starts_.empty()) return;
  std::stable_sort(starts_.begin(), starts_.end(),
                   [](const Candidate& a, const Candidate& b) { return a.score < b.score; });
  struct Chain {
    Candidate current, own_best;
    int since_best = 0;
  };
  std::vector<Chain> chains;
  for (size_t k = 0; k < starts_.size() && chains.size() < kChains; ++k) {
    chains.push_back({starts_[k], starts_[k], 0});
  }
  starts_.clear();
  std::mt19937_64 rng(seed_);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> key(n);
  std::vector<int> position(n);
  for (size_t turn = 0; !done() && !expired(); ++turn) {
    Chain& c = chains[turn % chains.size()];
    std::vector<int> order = c.current.order;
    for (size_t k = 0; k < n; ++k) position[order[k]] = static_cast<int>(k);
    for (size_t i = 0; i < n; ++i) {
      key[i] = position[i];
      if (c.current.offsets[i] + p_.buffers[i].size > lb_ && !p_.buffers[i].fixed_offset &&
          unit(rng) < kMoveShare) {
        key[i] = position[i] * (kMoveKeep + (1 - kMoveKeep) * unit(rng)) - 0.5;
      }
    }
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return key[a] < key[b]; });
    c.current = decode(std::move(order), c.current.policy);
    if (c.current.score < c.own_best.score) {
      c.own_best = c.current;
      c.since_best = 0;
      if (c.current.score < best_.score) best_ = c.current;
    } else if (++c.since_best >= kPatience) {
      c.current = c.own_best;
      c.since_best = 0;
    }
  }
}

}  // namespace strider::memory
