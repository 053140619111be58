// FreeList: the free address space at one moment of a sweep over time, as coalesced free blocks
// below `top` plus everything from `top` up. Used by the online allocators (first_fit, best_fit)
// and by the search allocator's sweep decoder. All operations are O(log n) except first-fit,
// which walks the free blocks in address order.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <utility>

namespace strider::memory {

class FreeList {
 public:
  // Moves a candidate offset up past fixed obstacles: returns the lowest offset >= `offset`
  // (aligned) at which `size` bytes clash with no obstacle. Identity when there are none.
  using Adjust = std::function<int64_t(int64_t offset, int64_t size)>;

  int64_t top() const { return top_; }
  size_t block_count() const { return by_offset_.size(); }

  // The smallest free block (ties: lowest) that holds `size` bytes at `alignment`, else the
  // lowest place from top. Does not take it.
  int64_t find_best(int64_t size, int64_t alignment, const Adjust* adjust) const;
  // The lowest free place that holds `size` bytes at `alignment`.
  int64_t find_first(int64_t size, int64_t alignment, const Adjust* adjust) const;
  // The lowest place from top (no search of the free blocks).
  int64_t find_top(int64_t size, int64_t alignment, const Adjust* adjust) const;
  // The free block (offset, end) containing `offset`, or {-1, -1} (the region from top is not a
  // block).
  std::pair<int64_t, int64_t> block_at(int64_t offset) const;

  // Marks [offset, end) used; returns false (changing nothing) if part of it is not free.
  bool take(int64_t offset, int64_t end);
  // Marks [offset, end) free again, coalescing with neighbouring free space.
  void give(int64_t offset, int64_t end);

 private:
  void add_block(int64_t offset, int64_t end);
  void remove_block(std::map<int64_t, int64_t>::iterator it);
  static int64_t fit(int64_t offset, int64_t end, int64_t size, int64_t alignment,
                     const Adjust* adjust);

  std::map<int64_t, int64_t> by_offset_;          // offset -> end
  std::set<std::pair<int64_t, int64_t>> by_size_;  // (size, offset)
  int64_t top_ = 0;
};

}  // namespace strider::memory
