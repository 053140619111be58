// Lower bound of a memory-planning problem: see problem.h.
#include "planner/memory/problem.h"

#include <algorithm>
#include <tuple>

namespace strider::memory {
namespace {

// Sweep over (time, delta) events; at equal times the releases (negative deltas) come first,
// because a buffer whose upper is t no longer overlaps one whose lower is t.
PeakLiveSet sweep(const Problem& p) {
  std::vector<std::tuple<int64_t, int64_t, int>> events;  // time, delta bytes, delta count
  events.reserve(2 * p.buffers.size());
  for (const Buffer& b : p.buffers) {
    if (b.upper <= b.lower) continue;
    events.emplace_back(b.lower, b.size, 1);
    events.emplace_back(b.upper, -b.size, -1);
  }
  std::sort(events.begin(), events.end(), [](const auto& a, const auto& b) {
    if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(a) < std::get<0>(b);
    return std::get<2>(a) < std::get<2>(b);  // releases first
  });
  PeakLiveSet best;
  int64_t live = 0;
  int64_t count = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    live += std::get<1>(events[i]);
    count += std::get<2>(events[i]);
    const bool last_at_time = i + 1 == events.size() || std::get<0>(events[i + 1]) != std::get<0>(events[i]);
    if (last_at_time && live > best.bytes) {
      best.bytes = live;
      best.time = std::get<0>(events[i]);
      best.buffers = static_cast<size_t>(count);
    }
  }
  return best;
}

}  // namespace

int64_t lower_bound(const Problem& p) { return sweep(p).bytes; }

PeakLiveSet peak_live_set(const Problem& p) { return sweep(p); }

}  // namespace strider::memory
