// Online first-fit and best-fit allocators: see online_allocator.h.
#include "planner/memory/online_allocator.h"

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include "planner/memory/free_list.h"
#include "planner/memory/gap_placer.h"

namespace strider::memory {

Solution OnlineAllocator::solve(const Problem& p, const AllocatorOptions& opt) const {
  Deadline deadline(opt.time_limit_s);
  const size_t n = p.buffers.size();
  std::vector<size_t> fixed;
  for (size_t i = 0; i < n; ++i) {
    if (p.buffers[i].fixed_offset) fixed.push_back(i);
  }
  // Events (time, kind, index): kind 0 frees, kind 1 places, so an ending buffer's space is free
  // for one that starts at the same time.
  std::vector<std::tuple<int64_t, int, size_t>> events;
  events.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    events.emplace_back(p.buffers[i].lower, 1, i);
    events.emplace_back(p.buffers[i].upper, 0, i);
  }
  std::sort(events.begin(), events.end());

  Solution s;
  s.allocator = name();
  s.offsets.assign(n, 0);
  FreeList free_list;
  for (const auto& [time, kind, i] : events) {
    const Buffer& b = p.buffers[i];
    if (kind == 0) {
      free_list.give(s.offsets[i], s.offsets[i] + b.size);
      continue;
    }
    int64_t at;
    if (b.fixed_offset) {
      at = *b.fixed_offset;
    } else {
      // Step over fixed buffers whose lifetime overlaps this one (few in practice).
      FreeList::Adjust adjust = [&](int64_t offset, int64_t size) {
        bool moved = true;
        while (moved) {
          moved = false;
          for (size_t f : fixed) {
            const Buffer& x = p.buffers[f];
            if (x.lower < b.upper && b.lower < x.upper && *x.fixed_offset < offset + size &&
                offset < *x.fixed_offset + x.size && x.size > 0 && size > 0) {
              offset = align_offset(*x.fixed_offset + x.size, b.alignment);
              moved = true;
            }
          }
        }
        return offset;
      };
      const FreeList::Adjust* adj = fixed.empty() ? nullptr : &adjust;
      if (deadline.passed()) {  // out of time: from the top, without searching the free blocks
        at = free_list.find_top(b.size, b.alignment, adj);
        ++s.stacked;
      } else {
        at = best_fit_ ? free_list.find_best(b.size, b.alignment, adj)
                       : free_list.find_first(b.size, b.alignment, adj);
      }
    }
    if (!free_list.take(at, at + b.size)) {
      throw std::runtime_error("fixed buffer '" + b.id + "' at offset " + std::to_string(at) +
                               " overlaps another buffer live at time " + std::to_string(time));
    }
    s.offsets[i] = at;
    s.height = std::max(s.height, at + b.size);
  }
  return s;
}

}  // namespace strider::memory
