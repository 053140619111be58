// The naive allocator: see naive_allocator.h.
#include "planner/memory/naive_allocator.h"

#include <algorithm>

#include "planner/memory/gap_placer.h"

namespace strider::memory {

Solution NaiveAllocator::solve(const Problem& p, const AllocatorOptions&) const {
  Solution s;
  s.allocator = name();
  s.offsets.assign(p.buffers.size(), 0);
  int64_t next = 0;
  for (const Buffer& b : p.buffers) {
    if (b.fixed_offset) next = std::max(next, *b.fixed_offset + b.size);
  }
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    const Buffer& b = p.buffers[i];
    if (b.fixed_offset) {
      s.offsets[i] = *b.fixed_offset;
    } else {
      s.offsets[i] = align_offset(next, b.alignment);
      next = s.offsets[i] + b.size;
    }
    s.height = std::max(s.height, s.offsets[i] + b.size);
  }
  return s;
}

}  // namespace strider::memory
