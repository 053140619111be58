// WindowRefiner: see window_refiner.h.
#include "planner/memory/window_refiner.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <random>

#include "planner/memory/order_search.h"

namespace strider::memory {
namespace {

struct Score {
  int64_t height = 0;
  int64_t overshoot = 0;  // sum over buffers of how far they end above the lower bound
  bool operator<=(const Score& o) const {
    return height < o.height || (height == o.height && overshoot <= o.overshoot);
  }
};

Score score(const Problem& p, const std::vector<int64_t>& offsets, int64_t lb) {
  Score s;
  for (size_t i = 0; i < offsets.size(); ++i) {
    const int64_t end = offsets[i] + p.buffers[i].size;
    s.height = std::max(s.height, end);
    if (end > lb) s.overshoot += end - lb;
  }
  return s;
}

}  // namespace

int64_t WindowRefiner::refine(std::vector<int64_t>* offsets, double time_limit_s,
                              uint64_t seed) const {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  const size_t n = p_.buffers.size();
  const int64_t lb = lower_bound(p_);
  std::vector<int64_t>& off = *offsets;
  Score current = score(p_, off, lb);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<int> tops, chosen;
  std::vector<char> in_window(n, 0);
  for (uint64_t step = 0; current.height > lb && elapsed() < time_limit_s; ++step) {
    tops.clear();
    for (size_t i = 0; i < n; ++i) {
      if (off[i] + p_.buffers[i].size > lb && !p_.buffers[i].fixed_offset) {
        tops.push_back(static_cast<int>(i));
      }
    }
    if (tops.empty()) break;  // only fixed buffers stick out
    const Buffer& c = p_.buffers[tops[rng() % tops.size()]];
    const int64_t len = c.upper - c.lower;
    const int64_t ext = static_cast<int64_t>(unit(rng) * 2.0 * static_cast<double>(len));
    const int64_t wl = c.lower - ext, wu = c.upper + ext;
    // Free buffers: meeting the window in time without reaching far beyond it; the k highest
    // (k random in [kMaxFree / 8, kMaxFree]), so the band below the top adapts to the traffic.
    // Half of the steps also free long-lived buffers (a wider subproblem, often what it takes).
    const int64_t reach = rng() % 2 ? wu - wl : std::numeric_limits<int64_t>::max() / 4;
    chosen.clear();
    for (size_t i = 0; i < n; ++i) {
      const Buffer& b = p_.buffers[i];
      if (!b.fixed_offset && b.lower < wu && b.upper > wl && b.lower >= wl - reach &&
          b.upper <= wu + reach) {
        chosen.push_back(static_cast<int>(i));
      }
    }
    const size_t k = kMaxFree / 8 + rng() % (kMaxFree - kMaxFree / 8 + 1);
    if (chosen.size() > k) {
      std::nth_element(chosen.begin(), chosen.begin() + static_cast<std::ptrdiff_t>(k),
                       chosen.end(), [&](int a, int b) {
                         const int64_t ea = off[a] + p_.buffers[a].size;
                         const int64_t eb = off[b] + p_.buffers[b].size;
                         return ea != eb ? ea > eb : a < b;
                       });
      chosen.resize(k);
      std::sort(chosen.begin(), chosen.end());
    }
    int64_t span_lo = wu, span_hi = wl;
    for (int i : chosen) {
      in_window[i] = 1;
      span_lo = std::min(span_lo, p_.buffers[i].lower);
      span_hi = std::max(span_hi, p_.buffers[i].upper);
    }
    // The subproblem: the chosen buffers free, every other buffer they could meet fixed.
    Problem sub;
    std::vector<int> map;  // sub index -> problem index
    std::vector<int64_t> sub_off;
    for (int i : chosen) {
      sub.buffers.push_back(p_.buffers[i]);
      map.push_back(i);
      sub_off.push_back(off[i]);
    }
    for (size_t i = 0; i < n; ++i) {
      const Buffer& b = p_.buffers[i];
      if (in_window[i] || b.upper <= span_lo || b.lower >= span_hi) continue;
      Buffer fixed = b;
      fixed.fixed_offset = off[i];
      sub.buffers.push_back(std::move(fixed));
      map.push_back(static_cast<int>(i));
      sub_off.push_back(off[i]);
    }
    for (int i : chosen) in_window[i] = 0;
    // About four decodes' worth of time per step (a decode costs ~5 us per buffer).
    const double budget = std::min(time_limit_s - elapsed(),
                                   std::max(0.05, 2e-5 * static_cast<double>(sub.buffers.size())));
    if (budget <= 0) break;
    OrderSearch search(sub, budget, seed + step);
    search.try_plan(sub_off);
    if (!search.done()) search.seeds();
    if (!search.done()) search.squeaky_wheel();
    const std::vector<int64_t>& result = search.best_offsets();
    std::vector<int64_t> saved(chosen.size());
    for (size_t k = 0; k < chosen.size(); ++k) {
      saved[k] = off[map[k]];
      off[map[k]] = result[k];
    }
    const Score next = score(p_, off, lb);
    if (next <= current) {
      current = next;
    } else {
      for (size_t k = 0; k < chosen.size(); ++k) off[map[k]] = saved[k];
    }
  }
  return current.height;
}

}  // namespace strider::memory
