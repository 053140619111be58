// The offline greedy gap placer: see gap_placer.h.
#include "planner/memory/gap_placer.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace strider::memory {

int64_t align_offset(int64_t value, int64_t alignment) {
  if (alignment <= 1) return value;
  return (value + alignment - 1) / alignment * alignment;
}

GapPlacer::GapPlacer(const Problem& p) : p_(p) {
  std::vector<int64_t> times;
  times.reserve(2 * p.buffers.size());
  for (const Buffer& b : p.buffers) {
    times.push_back(b.lower);
    times.push_back(b.upper);
  }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  slots_ = std::max<int>(1, static_cast<int>(times.size()) - 1);
  const size_t n = p.buffers.size();
  first_slot_.resize(n);
  end_slot_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    first_slot_[i] = static_cast<int>(
        std::lower_bound(times.begin(), times.end(), p.buffers[i].lower) - times.begin());
    end_slot_[i] = static_cast<int>(
        std::lower_bound(times.begin(), times.end(), p.buffers[i].upper) - times.begin());
  }
  tree_.resize(4 * static_cast<size_t>(slots_));
  offset_.assign(n, 0);
}

void GapPlacer::add(std::vector<Interval>* set, Interval iv) {
  // Merge iv with every interval it overlaps or touches; the set stays sorted and disjoint.
  auto first = std::lower_bound(set->begin(), set->end(), iv.first,
                                [](const Interval& x, int64_t v) { return x.second < v; });
  auto last = first;
  while (last != set->end() && last->first <= iv.second) {
    iv.first = std::min(iv.first, last->first);
    iv.second = std::max(iv.second, last->second);
    ++last;
  }
  if (first == last) {
    set->insert(first, iv);
  } else {
    *first = iv;
    set->erase(first + 1, last);
  }
}

void GapPlacer::insert(int node, int lo, int hi, int a, int b, Interval iv) {
  if (b <= lo || hi <= a) return;
  Node& t = tree_[node];
  if (t.sub.empty()) touched_.push_back(node);
  add(&t.sub, iv);
  if (a <= lo && hi <= b) {
    add(&t.here, iv);
    return;
  }
  int mid = (lo + hi) / 2;
  insert(2 * node, lo, mid, a, b, iv);
  insert(2 * node + 1, mid, hi, a, b, iv);
}

void GapPlacer::collect(int node, int lo, int hi, int a, int b) {
  if (b <= lo || hi <= a) return;
  const Node& t = tree_[node];
  if (t.sub.empty()) return;
  if (a <= lo && hi <= b) {
    runs_.emplace_back(t.sub.data(), t.sub.data() + t.sub.size());
    return;
  }
  if (!t.here.empty()) runs_.emplace_back(t.here.data(), t.here.data() + t.here.size());
  int mid = (lo + hi) / 2;
  collect(2 * node, lo, mid, a, b);
  collect(2 * node + 1, mid, hi, a, b);
}

void GapPlacer::reset() {
  for (int node : touched_) {
    tree_[node].sub.clear();
    tree_[node].here.clear();
  }
  touched_.clear();
  height_ = 0;
  free_height_ = 0;
  stacked_ = 0;
}

bool GapPlacer::clashes(int id, int64_t offset) {
  runs_.clear();
  if (end_slot_[id] > first_slot_[id]) collect(1, 0, slots_, first_slot_[id], end_slot_[id]);
  const int64_t end = offset + p_.buffers[id].size;
  for (const auto& [first, last] : runs_) {
    // The first interval of the run ending after `offset` is the only candidate.
    const Interval* it = std::lower_bound(
        first, last, offset, [](const Interval& x, int64_t v) { return x.second <= v; });
    if (it != last && it->first < end) return true;
  }
  return false;
}

int64_t GapPlacer::choose(int id, GapPolicy policy) {
  const Buffer& b = p_.buffers[id];
  runs_.clear();
  if (end_slot_[id] > first_slot_[id]) collect(1, 0, slots_, first_slot_[id], end_slot_[id]);
  // Walk the union of the collected runs (each sorted and disjoint) in address order with a
  // k-way merge on interval starts; the gaps of the union are where the buffer may go.
  heap_.clear();
  for (size_t r = 0; r < runs_.size(); ++r) heap_.emplace_back(runs_[r].first->first, r);
  const auto greater = [](const std::pair<int64_t, size_t>& x,
                          const std::pair<int64_t, size_t>& y) { return x > y; };
  std::make_heap(heap_.begin(), heap_.end(), greater);
  int64_t best = -1;
  int64_t best_gap = std::numeric_limits<int64_t>::max();
  int64_t cursor = 0;  // lowest address above every interval seen so far
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), greater);
    const size_t r = heap_.back().second;
    const Interval iv = *runs_[r].first++;
    if (runs_[r].first != runs_[r].second) {
      heap_.back().first = runs_[r].first->first;
      std::push_heap(heap_.begin(), heap_.end(), greater);
    } else {
      heap_.pop_back();
    }
    if (iv.first > cursor) {
      const int64_t start = align_offset(cursor, b.alignment);
      if (start + b.size <= iv.first) {
        if (policy == GapPolicy::kFirstFit) return start;
        const int64_t gap = iv.first - cursor;
        if (gap < best_gap) {
          best_gap = gap;
          best = start;
        }
      }
    }
    cursor = std::max(cursor, iv.second);
  }
  return best >= 0 ? best : align_offset(cursor, b.alignment);
}

std::vector<int64_t> GapPlacer::place(const std::vector<int>& order, GapPolicy policy) {
  reset();
  const int n = static_cast<int>(p_.buffers.size());
  std::vector<char> done(n, 0);
  auto commit = [&](int id, int64_t off) {
    offset_[id] = off;
    done[id] = 1;
    const int64_t size = p_.buffers[id].size;
    height_ = std::max(height_, off + size);
    if (end_slot_[id] > first_slot_[id] && size > 0) {
      insert(1, 0, slots_, first_slot_[id], end_slot_[id], {off, off + size});
    }
  };
  std::vector<int> fixed;
  for (int id = 0; id < n; ++id) {
    const Buffer& b = p_.buffers[id];
    if (!b.fixed_offset) continue;
    if (b.size > 0 && clashes(id, *b.fixed_offset)) {
      // Name the two buffers (a linear scan, only on this error path).
      for (int j : fixed) {
        const Buffer& c = p_.buffers[j];
        if (c.lower < b.upper && b.lower < c.upper && *c.fixed_offset < *b.fixed_offset + b.size &&
            *b.fixed_offset < *c.fixed_offset + c.size && c.size > 0) {
          throw std::runtime_error("fixed buffers '" + c.id + "' and '" + b.id +
                                   "' overlap in address and lifetime");
        }
      }
    }
    fixed.push_back(id);
    commit(id, *b.fixed_offset);
  }
  for (int id : order) {
    if (done[id]) continue;
    if (deadline_ && deadline_->passed()) {
      // Out of time: on top of everything, with no more gap queries (nor tree updates).
      const int64_t off = align_offset(height_, p_.buffers[id].alignment);
      offset_[id] = off;
      done[id] = 1;
      height_ = std::max(height_, off + p_.buffers[id].size);
      ++stacked_;
    } else {
      commit(id, choose(id, policy));
    }
    free_height_ = std::max(free_height_, offset_[id] + p_.buffers[id].size);
  }
  for (int id = 0; id < n; ++id) {
    if (!done[id]) throw std::logic_error("GapPlacer: order misses a buffer");
  }
  return offset_;
}

}  // namespace strider::memory
