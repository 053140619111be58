// One pass of the scratch planner with fixed choices (side rule, stacking, growth side): the
// placement rules of scratch_planner.h, in activation-plan addresses (the bottom may be negative).
// place_scratch() validates the input, runs one or several passes and shifts the result.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/memory/problem.h"
#include "planner/memory/scratch_planner.h"

namespace strider::memory {

struct ScratchPassResult {
  std::vector<int64_t> offsets;  // per request, input order, activation-plan addresses
  std::vector<int64_t> sizes;
  int64_t bottom = 0;  // heap [bottom, top) after growth
  int64_t top = 0;
  int64_t fragmentation = 0;
  int64_t growth_events = 0;
};

// `base_alignment`: bottom growth is rounded up to a multiple of it. Input already validated.
ScratchPassResult run_scratch_pass(const Problem& activations, const Solution& plan,
                                   int64_t heap_top, const std::vector<ScratchRequest>& requests,
                                   const ScratchOptions& options, int64_t base_alignment);

}  // namespace strider::memory
