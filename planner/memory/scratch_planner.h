// Scratch planner: places each layer's temporary scratch buffers (weight staging, partial sums,
// lookup tables) in the free areas the activation plan leaves at that layer's step, growing the
// heap only when no area fits. SystemC-free; the lowering calls place_scratch().
//
// Model. The activation plan (Problem + Solution) uses the heap [0, heap_top). A scratch request
// belongs to the layer at schedule step `step` and lives during steps [step, step + steps). For
// every step the free areas (gaps between live activations, below the lowest and above the
// highest, and growth added later) are kept in a list updated after every placement.
//
// Order. Requests are taken in execution order (by step, then input order); within a step the
// fixed-size requests go first, largest first (ties: input order), then the variable-size ones
// (largest minimum first, ties: input order).
//
// Fixed-size request of S bytes, first rule that applies:
//  1. stacking: when the request and ScratchOptions::stacking allow it, directly on top of a
//     scratch buffer of the same step already placed (at its end, aligned up), if the area that
//     starts there holds S bytes; the most recently placed such buffer first. This keeps a
//     layer's scratch contiguous even when a smaller area elsewhere would fit.
//  2. fast region: a latency-critical request takes the smallest area's part inside the fast
//     region [0, fast_bytes) that holds it (ties: lowest address); it sits on the side of that
//     part that is an edge of the whole area (the side rule below when both are, the bottom when
//     neither is). Requests that are not latency-critical ignore the fast region.
//  3. the smallest free area that holds it (ties: lowest address), on the side chosen by
//     ScratchOptions::side. kEdge (default): at the bottom of the area, except in the area that
//     touches the heap bottom (and not the top), where it goes at the top; so a remainder stays
//     at a heap edge, where a later growth can extend it. kBottom / kTop: always that side.
//  4. growth: the heap grows at its top or bottom by only the missing bytes: the free area already
//     at that edge counts. ScratchOptions::grow picks the side: kCheaper (default) the side that
//     needs fewer bytes (ties: top); kTop / kBottom always that side. Bottom growth is rounded up
//     to a multiple of the least common multiple of every alignment (activations and scratch), so
//     that shifting the plan up by it keeps every offset aligned.
//
// Variable-size requests of a step ("as much as you can give", at least min_size) share the areas
// left after the step's fixed requests: with k requests and m areas sorted by decreasing size
// (ties: lowest address), request i takes area i when k <= m, else area i mod m; an area given to
// n requests is cut into n equal parts (the last takes the rounding remainder), each part starting
// aligned up. A request whose part is below its minimum drops out of the sharing (the rest share
// again) and is placed as a fixed request of min_size afterwards (so it grows the heap when its
// minimum fits nowhere). Variable requests must have steps == 1; they do not look for the fast
// region.
//
// Output coordinates. When the heap grew at the bottom by grow_bottom bytes, every address is
// shifted up by grow_bottom so that all offsets are >= 0: scratch offsets, activation offsets
// (activation_offsets) and the fast region (fast_begin, fast_end) are reported shifted.
//
// Refinement. With ScratchOptions::refine set, the placement is repeated with every combination
// of side rule, stacking on/off and growth side (the given options first) and the best plan by the
// named criterion is kept (ties: the earlier one):
//   no_growth            least total growth, then least bottom growth, then least fragmentation
//   least_heap           least heap bytes, then least fragmentation, then fewest growth events
//   least_fragmentation  least fragmentation (free bytes outside each step's largest area, summed
//                        over the scratch steps), then least heap bytes
//   most_fast_bytes      most latency-critical bytes in the fast region, then least heap bytes
//
// The heap may end up larger than the L2 capacity (activations.capacity is not enforced here):
// the caller compares heap_bytes with what it has.
//
// Every result is checked by the independent verifier (verifier.h) over activations and scratch
// together; place_scratch throws std::logic_error if it fails (a planner bug) and
// std::invalid_argument for bad input, naming the request.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planner/memory/problem.h"

namespace strider::memory {

struct ScratchRequest {
  std::string id;
  int64_t step = 0;       // owning layer's schedule step
  int64_t size = 0;       // bytes, for a fixed-size request
  bool variable = false;  // "as much as you can give", at least min_size
  int64_t min_size = 0;
  bool latency_critical = false;  // prefers the fast region
  bool may_stack = false;         // may sit on top of a scratch buffer of the same step
  int64_t alignment = 1;
  int64_t steps = 1;  // lives during steps [step, step + steps); variable requests: 1
};

enum class ScratchSide { kEdge, kBottom, kTop };
enum class ScratchGrow { kCheaper, kTop, kBottom };
enum class ScratchCriterion { kNone, kNoGrowth, kLeastHeap, kLeastFragmentation, kMostFastBytes };

struct ScratchOptions {
  int64_t fast_bytes = 0;  // fast region [0, fast_bytes) in activation-plan addresses; 0: none
  ScratchSide side = ScratchSide::kEdge;
  bool stacking = true;  // honour ScratchRequest::may_stack
  ScratchGrow grow = ScratchGrow::kCheaper;
  ScratchCriterion refine = ScratchCriterion::kNone;
};

struct ScratchPlacement {
  std::vector<int64_t> offsets;  // per request, input order, output coordinates
  std::vector<int64_t> sizes;    // bytes given (the fixed size, or the variable share)
  std::vector<int64_t> activation_offsets;  // the activation plan shifted by grow_bottom
  int64_t grow_top = 0;
  int64_t grow_bottom = 0;
  int64_t heap_bytes = 0;  // heap_top + grow_top + grow_bottom
  int64_t fast_begin = 0;  // fast region in output coordinates
  int64_t fast_end = 0;
  // Scratch bytes inside the fast region, summed over the requests (requests of different steps
  // reuse the same addresses, so this can exceed the region's size); and of which latency-critical.
  int64_t fast_bytes_used = 0;
  int64_t fast_bytes_critical = 0;
  int64_t fragmentation = 0;        // see "least_fragmentation" above
  int64_t growth_events = 0;        // requests that grew the heap
  std::string variant;              // the choices that produced this plan, e.g. "edge/stack/cheaper"
  Problem combined;                 // activations + scratch (ids prefixed "scratch:")
  Solution combined_plan;           // verified
};

// Throws std::invalid_argument naming the valid names when `name` is unknown ("" is kNone).
ScratchCriterion scratch_criterion_from_name(const std::string& name);
std::string scratch_criterion_name(ScratchCriterion c);

ScratchPlacement place_scratch(const Problem& activations, const Solution& plan, int64_t heap_top,
                               const std::vector<ScratchRequest>& requests,
                               const ScratchOptions& options);

}  // namespace strider::memory
