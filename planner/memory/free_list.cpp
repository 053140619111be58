// FreeList: see free_list.h.
#include "planner/memory/free_list.h"

#include <iterator>
#include <limits>

#include "planner/memory/gap_placer.h"

namespace strider::memory {

int64_t FreeList::fit(int64_t offset, int64_t end, int64_t size, int64_t alignment,
                      const Adjust* adjust) {
  int64_t at = align_offset(offset, alignment);
  if (adjust) at = (*adjust)(at, size);
  return at + size <= end ? at : -1;
}

int64_t FreeList::find_best(int64_t size, int64_t alignment, const Adjust* adjust) const {
  for (auto it = by_size_.lower_bound({size, std::numeric_limits<int64_t>::min()});
       it != by_size_.end(); ++it) {
    int64_t at = fit(it->second, it->second + it->first, size, alignment, adjust);
    if (at >= 0) return at;
  }
  return fit(top_, std::numeric_limits<int64_t>::max(), size, alignment, adjust);
}

int64_t FreeList::find_first(int64_t size, int64_t alignment, const Adjust* adjust) const {
  for (const auto& [offset, end] : by_offset_) {
    if (end - offset < size) continue;
    int64_t at = fit(offset, end, size, alignment, adjust);
    if (at >= 0) return at;
  }
  return fit(top_, std::numeric_limits<int64_t>::max(), size, alignment, adjust);
}

int64_t FreeList::find_top(int64_t size, int64_t alignment, const Adjust* adjust) const {
  return fit(top_, std::numeric_limits<int64_t>::max(), size, alignment, adjust);
}

std::pair<int64_t, int64_t> FreeList::block_at(int64_t offset) const {
  auto it = by_offset_.upper_bound(offset);
  if (it == by_offset_.begin()) return {-1, -1};
  --it;
  if (it->second <= offset) return {-1, -1};
  return *it;
}

void FreeList::add_block(int64_t offset, int64_t end) {
  if (end <= offset) return;
  by_offset_.emplace(offset, end);
  by_size_.emplace(end - offset, offset);
}

void FreeList::remove_block(std::map<int64_t, int64_t>::iterator it) {
  by_size_.erase({it->second - it->first, it->first});
  by_offset_.erase(it);
}

bool FreeList::take(int64_t offset, int64_t end) {
  if (end <= offset) return true;
  if (offset >= top_) {
    add_block(top_, offset);
    top_ = end;
    return true;
  }
  auto it = by_offset_.upper_bound(offset);
  if (it == by_offset_.begin()) return false;
  --it;
  const int64_t b_off = it->first, b_end = it->second;
  if (b_end < end || b_off > offset) return false;
  remove_block(it);
  add_block(b_off, offset);
  add_block(end, b_end);
  return true;
}

void FreeList::give(int64_t offset, int64_t end) {
  if (end <= offset) return;
  auto next = by_offset_.lower_bound(offset);
  if (next != by_offset_.end() && next->first == end) {
    end = next->second;
    auto dead = next++;
    remove_block(dead);
  }
  if (next != by_offset_.begin()) {
    auto prev = std::prev(next);
    if (prev->second == offset) {
      offset = prev->first;
      remove_block(prev);
    }
  }
  if (end >= top_) {
    top_ = offset;
    // A free block may now touch the new top.
    auto last = by_offset_.empty() ? by_offset_.end() : std::prev(by_offset_.end());
    if (last != by_offset_.end() && last->second == top_) {
      top_ = last->first;
      remove_block(last);
    }
    return;
  }
  add_block(offset, end);
}

}  // namespace strider::memory
