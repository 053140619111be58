// One scratch-planning pass: see scratch_pass.h and the rules in scratch_planner.h.
#include "planner/memory/scratch_pass.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "planner/memory/scratch_areas.h"

namespace strider::memory {
namespace {

struct Spot {
  int64_t offset = 0;
  bool found = false;
};

class Pass {
 public:
  Pass(const Problem& activations, const Solution& plan, int64_t heap_top,
       const std::vector<ScratchRequest>& requests, const ScratchOptions& options,
       int64_t base_alignment)
      : requests_(requests),
        options_(options),
        base_alignment_(base_alignment),
        areas_(activations, plan.offsets, heap_top, steps_of(requests)) {
    result_.offsets.assign(requests.size(), 0);
    result_.sizes.assign(requests.size(), 0);
  }

  ScratchPassResult run() {
    // Group by step in execution order; within a step fixed first (largest first), then variable
    // (largest minimum first); stable so that ties keep the input order.
    std::map<int64_t, std::vector<size_t>> by_step;
    for (size_t i = 0; i < requests_.size(); ++i) by_step[requests_[i].step].push_back(i);
    for (auto& [step, group] : by_step) {
      std::stable_sort(group.begin(), group.end(), [&](size_t a, size_t b) {
        const ScratchRequest& x = requests_[a];
        const ScratchRequest& y = requests_[b];
        if (x.variable != y.variable) return !x.variable;
        if (!x.variable) return x.size > y.size;
        return x.min_size > y.min_size;
      });
      std::vector<size_t> variable;
      for (size_t i : group) {
        if (requests_[i].variable) {
          variable.push_back(i);
        } else {
          place_fixed(i, requests_[i].size);
        }
      }
      if (!variable.empty()) place_variable(step, variable);
    }
    result_.bottom = areas_.bottom();
    result_.top = areas_.top();
    result_.fragmentation = areas_.fragmentation();
    return result_;
  }

 private:
  static std::vector<int64_t> steps_of(const std::vector<ScratchRequest>& requests) {
    std::set<int64_t> steps;
    for (const ScratchRequest& r : requests) {
      for (int64_t s = r.step; s < r.step + r.steps; ++s) steps.insert(s);
    }
    return {steps.begin(), steps.end()};
  }

  // Offset of `size` bytes at `alignment` inside `a` on the given side, if it fits.
  static Spot fit(const Area& a, int64_t size, int64_t alignment, bool top) {
    const int64_t off = top ? align_down(a.hi - size, alignment) : align_up(a.lo, alignment);
    if (off < a.lo || off + size > a.hi) return {};
    return {off, true};
  }

  bool side_is_top(const Area& a) const {
    switch (options_.side) {
      case ScratchSide::kTop:
        return true;
      case ScratchSide::kBottom:
        return false;
      case ScratchSide::kEdge:
        break;
    }
    return a.lo == areas_.bottom() && a.hi != areas_.top();
  }

  // The smallest area holding `size` (ties: lowest address), or nullopt.
  static std::optional<Area> smallest_fit(const std::vector<Area>& areas, int64_t size,
                                          int64_t alignment) {
    std::optional<Area> best;
    for (const Area& a : areas) {
      if (!fit(a, size, alignment, false).found) continue;
      if (!best || a.size() < best->size()) best = a;
    }
    return best;
  }

  Spot stacked(size_t index, int64_t size, const std::vector<Area>& areas) const {
    const ScratchRequest& r = requests_[index];
    for (auto it = placed_.rbegin(); it != placed_.rend(); ++it) {
      const ScratchRequest& sibling = requests_[*it];
      if (sibling.step != r.step) continue;
      const int64_t end = result_.offsets[*it] + result_.sizes[*it];
      for (const Area& a : areas) {
        if (a.lo != end) continue;
        const Spot s = fit(a, size, r.alignment, false);
        if (s.found) return s;
      }
    }
    return {};
  }

  Spot fast(const ScratchRequest& r, int64_t size, const std::vector<Area>& areas) const {
    const int64_t f_lo = 0;
    const int64_t f_hi = options_.fast_bytes;
    std::optional<Area> best;
    std::optional<Area> best_whole;
    for (const Area& a : areas) {
      const Area part{std::max(a.lo, f_lo), std::min(a.hi, f_hi)};
      if (part.lo >= part.hi || !fit(part, size, r.alignment, false).found) continue;
      if (!best || part.size() < best->size()) {
        best = part;
        best_whole = a;
      }
    }
    if (!best) return {};
    bool top = false;
    if (best->lo == best_whole->lo && best->hi == best_whole->hi) {
      top = side_is_top(*best_whole);
    } else if (best->lo != best_whole->lo && best->hi == best_whole->hi) {
      top = true;
    }
    return fit(*best, size, r.alignment, top);
  }

  void place_fixed(size_t index, int64_t size) {
    const ScratchRequest& r = requests_[index];
    const int64_t first = r.step;
    const int64_t last = r.step + r.steps;
    const std::vector<Area> areas = areas_.free_areas(first, last);
    Spot spot;
    if (r.may_stack && options_.stacking) spot = stacked(index, size, areas);
    if (!spot.found && r.latency_critical && options_.fast_bytes > 0) spot = fast(r, size, areas);
    if (!spot.found) {
      if (const std::optional<Area> a = smallest_fit(areas, size, r.alignment)) {
        spot = fit(*a, size, r.alignment, side_is_top(*a));
      }
    }
    if (!spot.found) spot = grow(r, size, areas);
    areas_.take(first, last, spot.offset, spot.offset + size);
    result_.offsets[index] = spot.offset;
    result_.sizes[index] = size;
    placed_.push_back(index);
  }

  // Grows the heap by only the missing bytes at the chosen edge and returns the offset there.
  Spot grow(const ScratchRequest& r, int64_t size, const std::vector<Area>& areas) {
    const int64_t top = areas_.top();
    const int64_t bottom = areas_.bottom();
    // Top: the free area ending at the top (if any) counts.
    int64_t top_start = top;
    if (!areas.empty() && areas.back().hi == top) top_start = areas.back().lo;
    const int64_t top_off = align_up(top_start, r.alignment);
    const int64_t top_growth = top_off + size - top;
    // Bottom: the free area starting at the bottom (if any) counts.
    int64_t bottom_end = bottom;
    if (!areas.empty() && areas.front().lo == bottom) bottom_end = areas.front().hi;
    const int64_t bottom_off = align_down(bottom_end - size, r.alignment);
    const int64_t bottom_growth = align_up(bottom - bottom_off, base_alignment_);
    bool use_top = true;
    switch (options_.grow) {
      case ScratchGrow::kTop:
        use_top = true;
        break;
      case ScratchGrow::kBottom:
        use_top = false;
        break;
      case ScratchGrow::kCheaper:
        use_top = top_growth <= bottom_growth;
        break;
    }
    ++result_.growth_events;
    if (use_top) {
      areas_.grow_top(top + top_growth);
      return {top_off, true};
    }
    areas_.grow_bottom(bottom - bottom_growth);
    return {bottom_off, true};
  }

  void place_variable(int64_t step, std::vector<size_t> pending) {
    std::vector<size_t> dropped;
    std::vector<Area> areas = areas_.free_areas(step, step + 1);
    std::stable_sort(areas.begin(), areas.end(),
                     [](const Area& a, const Area& b) { return a.size() > b.size(); });
    while (!pending.empty()) {
      std::vector<std::pair<int64_t, int64_t>> spots(pending.size(), {areas_.bottom(), 0});
      std::optional<size_t> short_of_min;
      if (!areas.empty()) {
        const size_t m = areas.size();
        std::vector<std::vector<size_t>> members(m);  // positions in `pending` per area
        for (size_t i = 0; i < pending.size(); ++i) members[i % m].push_back(i);
        for (size_t j = 0; j < m; ++j) {
          const size_t n = members[j].size();
          if (n == 0) continue;
          const int64_t share = areas[j].size() / static_cast<int64_t>(n);
          for (size_t t = 0; t < n; ++t) {
            const size_t i = members[j][t];
            const ScratchRequest& r = requests_[pending[i]];
            const int64_t start = areas[j].lo + static_cast<int64_t>(t) * share;
            const int64_t end = t + 1 == n ? areas[j].hi : start + share;
            const int64_t off = std::min(align_up(start, r.alignment), end);
            spots[i] = {off, end - off};
          }
        }
      }
      for (size_t i = 0; i < pending.size() && !short_of_min; ++i) {
        if (spots[i].second < requests_[pending[i]].min_size) short_of_min = i;
      }
      if (short_of_min) {
        dropped.push_back(pending[*short_of_min]);
        pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(*short_of_min));
        continue;
      }
      for (size_t i = 0; i < pending.size(); ++i) {
        const auto [off, size] = spots[i];
        areas_.take(step, step + 1, off, off + size);
        result_.offsets[pending[i]] = off;
        result_.sizes[pending[i]] = size;
        placed_.push_back(pending[i]);
      }
      pending.clear();
    }
    for (size_t index : dropped) place_fixed(index, requests_[index].min_size);
  }

  const std::vector<ScratchRequest>& requests_;
  const ScratchOptions& options_;
  const int64_t base_alignment_;
  ScratchAreas areas_;
  ScratchPassResult result_;
  std::vector<size_t> placed_;  // request indices in placement order
};

}  // namespace

ScratchPassResult run_scratch_pass(const Problem& activations, const Solution& plan,
                                   int64_t heap_top, const std::vector<ScratchRequest>& requests,
                                   const ScratchOptions& options, int64_t base_alignment) {
  return Pass(activations, plan, heap_top, requests, options, base_alignment).run();
}

}  // namespace strider::memory
