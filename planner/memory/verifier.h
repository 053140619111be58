// The independent plan verifier: its own code path (a sweep over time events with an ordered set
// of address intervals), shared with no allocator.
#pragma once

#include <string>
#include <vector>

#include "planner/memory/problem.h"

namespace strider::memory {

// Every violation, as readable text naming the buffer ids: overlapping live buffers, offsets
// out of [0, capacity), misalignment, fixed offsets not honoured, wrong height. Empty when valid.
std::vector<std::string> verify(const Problem& p, const Solution& s);

}  // namespace strider::memory
