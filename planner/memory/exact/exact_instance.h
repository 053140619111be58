// The exact solver's view of a Problem: sizes, alignments and fixed offsets divided by their
// common unit, time cut into sections (maximal intervals between lifetime end points), each
// searchable buffer's section span, the time-overlap graph, and the per-section live totals.
// Buffers of size 0 or empty lifetime, and pre-placed (fixed) buffers, are not searched: fixed
// ones act as obstacles, the rest are put at offset 0 (or their fixed offset).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planner/memory/problem.h"

namespace strider::memory::exact {

// A pre-placed buffer that searchable buffers must avoid, in units.
struct Obstacle {
  int64_t offset = 0;
  int64_t top = 0;
};

class ExactInstance {
 public:
  // Throws std::runtime_error naming the buffer on invalid input (negative size, upper < lower,
  // alignment < 1, misaligned or overlapping fixed offsets). When the problem is too large to
  // search (more than `max_buffers` searchable buffers, or more than `max_entries` section
  // memberships or time overlaps), only the unit, the lower bound and the preset offsets are
  // computed and searchable() is false.
  explicit ExactInstance(const Problem& p, int max_buffers = 2000, size_t max_entries = 8000000);

  bool searchable() const { return searchable_; }

  int64_t unit() const { return unit_; }
  int num_buffers() const { return static_cast<int>(size_.size()); }  // searchable ones
  int num_sections() const { return num_sections_; }
  int original_index(int b) const { return original_[b]; }
  int64_t size(int b) const { return size_[b]; }
  int64_t alignment(int b) const { return align_[b]; }
  int64_t lifetime_length(int b) const { return length_[b]; }
  int section_lo(int b) const { return sec_lo_[b]; }
  int section_hi(int b) const { return sec_hi_[b]; }  // exclusive

  // CSR lists.
  const int* overlaps_begin(int b) const { return overlap_.data() + overlap_start_[b]; }
  const int* overlaps_end(int b) const { return overlap_.data() + overlap_start_[b + 1]; }
  const int* members_begin(int s) const { return member_.data() + member_start_[s]; }
  const int* members_end(int s) const { return member_.data() + member_start_[s + 1]; }
  const Obstacle* obstacles_begin(int b) const { return obstacle_.data() + obstacle_start_[b]; }
  const Obstacle* obstacles_end(int b) const { return obstacle_.data() + obstacle_start_[b + 1]; }
  bool has_obstacles() const { return !obstacle_.empty(); }

  // Total size (units) of searchable buffers live in section s.
  int64_t section_total(int s) const { return section_total_[s]; }
  // Lowest offset >= `from` (units) where buffer b fits its alignment and avoids obstacles.
  int64_t first_fit(int b, int64_t from) const;

  // A lower bound on the height in units: max over time of live sizes (fixed buffers included),
  // the tops of fixed buffers and the sizes of buffers that are not searched.
  int64_t lower_bound_units() const { return lower_bound_; }
  // Offsets (bytes) of the buffers that are not searched, indexed like Problem::buffers (-1 for
  // searchable ones).
  const std::vector<int64_t>& preset_offsets() const { return preset_; }
  // Sum over the time-overlap lists (a measure of the search's memory needs).
  size_t overlap_entries() const { return overlap_.size(); }

 private:
  bool searchable_ = true;
  int64_t unit_ = 1;
  int num_sections_ = 0;
  std::vector<int> original_;
  std::vector<int64_t> size_, align_, length_;
  std::vector<int> sec_lo_, sec_hi_;
  std::vector<int> overlap_start_, overlap_;
  std::vector<int> member_start_, member_;
  std::vector<int> obstacle_start_;
  std::vector<Obstacle> obstacle_;
  std::vector<int64_t> section_total_;
  std::vector<int64_t> preset_;
  int64_t lower_bound_ = 0;
};

}  // namespace strider::memory::exact
