// See exact_instance.h.
#include "planner/memory/exact/exact_instance.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace strider::memory::exact {
namespace {

int64_t align_up(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

std::string name_of(const Buffer& b, size_t i) {
  return "buffer '" + b.id + "' (row " + std::to_string(i) + ")";
}

void check_buffer(const Buffer& b, size_t i) {
  if (b.size < 0) throw std::runtime_error(name_of(b, i) + ": size must be >= 0");
  if (b.upper < b.lower) {
    throw std::runtime_error(name_of(b, i) + ": upper " + std::to_string(b.upper) +
                             " is below lower " + std::to_string(b.lower));
  }
  if (b.alignment < 1) throw std::runtime_error(name_of(b, i) + ": alignment must be >= 1");
  if (b.fixed_offset) {
    if (*b.fixed_offset < 0) throw std::runtime_error(name_of(b, i) + ": fixed offset is negative");
    if (*b.fixed_offset % b.alignment != 0) {
      throw std::runtime_error(name_of(b, i) + ": fixed offset " +
                               std::to_string(*b.fixed_offset) + " is not a multiple of alignment " +
                               std::to_string(b.alignment));
    }
  }
}

bool live(const Buffer& b) { return b.size > 0 && b.lower < b.upper; }

}  // namespace

ExactInstance::ExactInstance(const Problem& p, int max_buffers, size_t max_entries) {
  const auto& bufs = p.buffers;
  const size_t n_all = bufs.size();
  // The unit divides every size and fixed offset, and each alignment either divides it (then
  // every multiple of the unit is aligned) or is a multiple of it (then alignment is counted in
  // units); canonical offsets, tops of other buffers rounded up to an alignment, stay on the grid.
  int64_t g = 0;
  for (size_t i = 0; i < n_all; ++i) {
    const Buffer& b = bufs[i];
    check_buffer(b, i);
    g = std::gcd(g, b.size);
    if (b.fixed_offset) g = std::gcd(g, *b.fixed_offset);
  }
  for (bool changed = true; changed && g > 0;) {
    changed = false;
    for (const Buffer& b : bufs) {
      if (g % b.alignment != 0 && b.alignment % g != 0) {
        g = std::gcd(g, b.alignment);
        changed = true;
      }
    }
  }
  unit_ = g > 0 ? g : 1;

  // Fixed buffers must not overlap each other.
  std::vector<size_t> fixed;
  for (size_t i = 0; i < n_all; ++i) {
    if (bufs[i].fixed_offset && live(bufs[i])) fixed.push_back(i);
  }
  for (size_t x = 0; x < fixed.size(); ++x) {
    for (size_t y = x + 1; y < fixed.size(); ++y) {
      const Buffer& a = bufs[fixed[x]];
      const Buffer& b = bufs[fixed[y]];
      if (a.lower < b.upper && b.lower < a.upper && *a.fixed_offset < *b.fixed_offset + b.size &&
          *b.fixed_offset < *a.fixed_offset + a.size) {
        throw std::runtime_error("fixed offsets overlap: " + name_of(a, fixed[x]) + " and " +
                                 name_of(b, fixed[y]));
      }
    }
  }

  preset_.assign(n_all, -1);
  for (size_t i = 0; i < n_all; ++i) {
    const Buffer& b = bufs[i];
    if (b.fixed_offset) {
      preset_[i] = *b.fixed_offset;
      lower_bound_ = std::max(lower_bound_, (*b.fixed_offset + b.size) / unit_);
    } else if (!live(b)) {
      preset_[i] = 0;
      lower_bound_ = std::max(lower_bound_, b.size / unit_);
    } else {
      original_.push_back(static_cast<int>(i));
    }
  }
  const int n = static_cast<int>(original_.size());

  // Lower bound over time (all live buffers, fixed included).
  std::vector<std::pair<int64_t, int64_t>> events;  // (time, +size / -size), ends first
  for (const Buffer& b : bufs) {
    if (!live(b)) continue;
    events.emplace_back(b.lower, b.size / unit_);
    events.emplace_back(b.upper, -(b.size / unit_));
  }
  std::sort(events.begin(), events.end());
  int64_t load = 0;
  for (const auto& e : events) {
    load += e.second;
    lower_bound_ = std::max(lower_bound_, load);
  }

  if (n > max_buffers) {
    searchable_ = false;
    original_.clear();
    return;
  }
  // Sections over the searchable buffers.
  std::vector<int64_t> times;
  for (int b = 0; b < n; ++b) {
    times.push_back(bufs[original_[b]].lower);
    times.push_back(bufs[original_[b]].upper);
  }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  num_sections_ = times.empty() ? 0 : static_cast<int>(times.size()) - 1;
  auto index_of = [&](int64_t t) {
    return static_cast<int>(std::lower_bound(times.begin(), times.end(), t) - times.begin());
  };
  size_.resize(n);
  align_.resize(n);
  length_.resize(n);
  sec_lo_.resize(n);
  sec_hi_.resize(n);
  section_total_.assign(num_sections_, 0);
  std::vector<int> count(num_sections_ + 1, 0);
  for (int b = 0; b < n; ++b) {
    const Buffer& src = bufs[original_[b]];
    size_[b] = src.size / unit_;
    align_[b] = std::max<int64_t>(1, src.alignment / unit_);
    length_[b] = src.upper - src.lower;
    sec_lo_[b] = index_of(src.lower);
    sec_hi_[b] = index_of(src.upper);
    for (int s = sec_lo_[b]; s < sec_hi_[b]; ++s) {
      section_total_[s] += size_[b];
      ++count[s];
    }
  }
  // Memberships, and (bounding the overlap pairs) the live count where each buffer starts.
  size_t memberships = 0;
  size_t overlap_bound = 0;
  for (int s = 0; s < num_sections_; ++s) memberships += static_cast<size_t>(count[s]);
  for (int b = 0; b < n; ++b) overlap_bound += 2 * static_cast<size_t>(count[sec_lo_[b]]);
  if (memberships > max_entries || overlap_bound > max_entries) {
    searchable_ = false;
    original_.clear();
    size_.clear();
    num_sections_ = 0;
    return;
  }
  member_start_.assign(num_sections_ + 1, 0);
  for (int s = 0; s < num_sections_; ++s) member_start_[s + 1] = member_start_[s] + count[s];
  member_.resize(member_start_[num_sections_]);
  std::vector<int> fill(member_start_.begin(), member_start_.end() - 1);
  for (int b = 0; b < n; ++b) {
    for (int s = sec_lo_[b]; s < sec_hi_[b]; ++s) member_[fill[s]++] = b;
  }

  // Time-overlap lists by a sweep in order of first section.
  std::vector<int> by_lo(n);
  std::iota(by_lo.begin(), by_lo.end(), 0);
  std::stable_sort(by_lo.begin(), by_lo.end(),
                   [&](int a, int b) { return sec_lo_[a] < sec_lo_[b]; });
  std::vector<std::vector<int>> adj(n);
  std::vector<int> active;
  for (int b : by_lo) {
    size_t keep = 0;
    for (int a : active) {
      if (sec_hi_[a] > sec_lo_[b]) active[keep++] = a;
    }
    active.resize(keep);
    for (int a : active) {
      adj[a].push_back(b);
      adj[b].push_back(a);
    }
    active.push_back(b);
  }
  overlap_start_.assign(n + 1, 0);
  for (int b = 0; b < n; ++b) {
    std::sort(adj[b].begin(), adj[b].end());
    overlap_start_[b + 1] = overlap_start_[b] + static_cast<int>(adj[b].size());
  }
  overlap_.reserve(overlap_start_[n]);
  for (int b = 0; b < n; ++b) overlap_.insert(overlap_.end(), adj[b].begin(), adj[b].end());

  // Obstacles: fixed buffers overlapping in time, sorted by offset.
  obstacle_start_.assign(n + 1, 0);
  for (int b = 0; b < n; ++b) {
    const Buffer& src = bufs[original_[b]];
    std::vector<Obstacle> obs;
    for (size_t f : fixed) {
      const Buffer& fb = bufs[f];
      if (fb.lower < src.upper && src.lower < fb.upper) {
        obs.push_back({*fb.fixed_offset / unit_, (*fb.fixed_offset + fb.size) / unit_});
      }
    }
    std::sort(obs.begin(), obs.end(),
              [](const Obstacle& x, const Obstacle& y) { return x.offset < y.offset; });
    obstacle_.insert(obstacle_.end(), obs.begin(), obs.end());
    obstacle_start_[b + 1] = static_cast<int>(obstacle_.size());
  }
}

int64_t ExactInstance::first_fit(int b, int64_t from) const {
  const int64_t a = align_[b];
  int64_t p = a > 1 ? align_up(from, a) : from;
  for (const Obstacle* o = obstacles_begin(b); o != obstacles_end(b); ++o) {
    if (o->top <= p) continue;
    if (o->offset >= p + size_[b]) break;
    p = a > 1 ? align_up(o->top, a) : o->top;
  }
  return p;
}

}  // namespace strider::memory::exact
