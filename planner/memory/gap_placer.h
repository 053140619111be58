// GapPlacer: the offline greedy placer shared by the order-based allocators (greedy_by_size,
// greedy_by_conflicts, search). Buffers are placed one at a time in a given order; each goes into
// a gap between the already placed buffers whose lifetimes overlap its own, or on top of them.
// The occupied addresses are kept in a segment tree over the compressed time axis: every node
// holds the merged union of the address intervals of the placed buffers that meet its time range
// (`sub`) and of those that cover it entirely (`here`). A query unions O(log T) such sets; as good
// packings are dense, the unions hold few intervals, so a placement costs about O(log^2 T)
// instead of the number of buffers live alongside it.
#pragma once

#include "planner/memory/deadline.h"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "planner/memory/problem.h"

namespace strider::memory {

enum class GapPolicy {
  kBestFit,   // the smallest gap that holds the buffer (TFLite), else on top
  kFirstFit,  // the lowest gap that holds the buffer, else on top
};

int64_t align_offset(int64_t value, int64_t alignment);

class GapPlacer {
 public:
  explicit GapPlacer(const Problem& p);

  // Places every buffer: fixed-offset buffers first (throws std::runtime_error naming both
  // buffers when two of them overlap), then the others in `order` (which must hold every
  // non-fixed buffer index exactly once; fixed indices in it are skipped). Returns the offsets.
  std::vector<int64_t> place(const std::vector<int>& order, GapPolicy policy);

  // Polls `d` (may be null) per buffer: once it passes, the buffers left are stacked on top of
  // everything placed (a valid plan, at once) instead of searched for a gap.
  void set_deadline(Deadline* d) { deadline_ = d; }

  // Height of the last place() result, and the same over the buffers without a fixed offset.
  int64_t height() const { return height_; }
  size_t stacked() const { return stacked_; }  // buffers of the last place() stacked on top
  int64_t free_height() const { return free_height_; }

 private:
  using Interval = std::pair<int64_t, int64_t>;  // [offset, end)
  struct Node {
    std::vector<Interval> sub;   // union over placed buffers meeting this node's time range
    std::vector<Interval> here;  // union over placed buffers covering this node's time range
  };
  static void add(std::vector<Interval>* set, Interval iv);
  void insert(int node, int lo, int hi, int a, int b, Interval iv);
  void collect(int node, int lo, int hi, int a, int b);
  void reset();
  int64_t choose(int id, GapPolicy policy);
  bool clashes(int id, int64_t offset);  // [offset, offset + size) meets a placed buffer

  const Problem& p_;
  Deadline* deadline_ = nullptr;
  size_t stacked_ = 0;
  int slots_ = 0;
  std::vector<int> first_slot_, end_slot_;  // per buffer, compressed [lower, upper)
  std::vector<Node> tree_;
  std::vector<int> touched_;                // nodes holding data, for a cheap reset
  std::vector<int64_t> offset_;
  std::vector<std::pair<const Interval*, const Interval*>> runs_;  // sorted runs to merge
  std::vector<std::pair<int64_t, size_t>> heap_;                    // (start, run) min-heap
  int64_t height_ = 0;
  int64_t free_height_ = 0;
};

}  // namespace strider::memory
