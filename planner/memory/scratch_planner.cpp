// Scratch planner entry point: validation, refinement over pass variants, shift to non-negative
// addresses and verification. The placement rules live in scratch_pass.cpp; see scratch_planner.h.
#include "planner/memory/scratch_planner.h"

#include <algorithm>
#include <iterator>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "planner/memory/scratch_pass.h"
#include "planner/memory/verifier.h"

namespace strider::memory {
namespace {

constexpr const char* kCriterionNames[] = {"", "no_growth", "least_heap", "least_fragmentation",
                                           "most_fast_bytes"};

std::string who(const ScratchRequest& r, size_t index) {
  return "scratch request " + std::to_string(index) + " '" + r.id + "'";
}

void validate(const Problem& activations, const Solution& plan, int64_t heap_top,
              const std::vector<ScratchRequest>& requests) {
  if (heap_top < 0) {
    throw std::invalid_argument("scratch planner: heap top " + std::to_string(heap_top) +
                                " is negative");
  }
  if (plan.offsets.size() != activations.buffers.size()) {
    throw std::invalid_argument("scratch planner: activation plan has " +
                                std::to_string(plan.offsets.size()) + " offsets for " +
                                std::to_string(activations.buffers.size()) + " buffers");
  }
  for (size_t i = 0; i < activations.buffers.size(); ++i) {
    const Buffer& b = activations.buffers[i];
    if (plan.offsets[i] < 0 || plan.offsets[i] + b.size > heap_top) {
      throw std::invalid_argument("scratch planner: activation '" + b.id + "' at [" +
                                  std::to_string(plan.offsets[i]) + ", " +
                                  std::to_string(plan.offsets[i] + b.size) +
                                  ") is outside the heap [0, " + std::to_string(heap_top) + ")");
    }
  }
  const std::vector<std::string> errors = verify(activations, plan);
  if (!errors.empty()) {
    throw std::invalid_argument("scratch planner: the activation plan is invalid: " +
                                errors.front());
  }
  for (size_t i = 0; i < requests.size(); ++i) {
    const ScratchRequest& r = requests[i];
    auto fail = [&](const std::string& what) {
      throw std::invalid_argument("scratch planner: " + who(r, i) + ": " + what);
    };
    if (r.step < 0) fail("step " + std::to_string(r.step) + " is negative");
    if (r.steps < 1) fail("steps " + std::to_string(r.steps) + " must be >= 1");
    if (r.alignment < 1) fail("alignment " + std::to_string(r.alignment) + " must be >= 1");
    if (r.variable) {
      if (r.min_size < 0) fail("min_size " + std::to_string(r.min_size) + " is negative");
      if (r.steps != 1) fail("a variable-size request must live one step, not " +
                             std::to_string(r.steps));
    } else if (r.size <= 0) {
      fail("fixed size " + std::to_string(r.size) + " must be > 0");
    }
  }
}

int64_t base_alignment(const Problem& activations, const std::vector<ScratchRequest>& requests) {
  int64_t l = 1;
  for (const Buffer& b : activations.buffers) l = std::lcm(l, std::max<int64_t>(1, b.alignment));
  for (const ScratchRequest& r : requests) l = std::lcm(l, r.alignment);
  return l;
}

struct Variant {
  ScratchSide side;
  bool stacking;
  ScratchGrow grow;
};

std::string variant_name(const Variant& v) {
  const char* side = v.side == ScratchSide::kEdge ? "edge" : v.side == ScratchSide::kTop ? "top"
                                                                                        : "bottom";
  const char* grow = v.grow == ScratchGrow::kCheaper ? "cheaper"
                     : v.grow == ScratchGrow::kTop   ? "grow_top"
                                                     : "grow_bottom";
  return std::string(side) + (v.stacking ? "/stack/" : "/no_stack/") + grow;
}

// The given choices first, then every other combination in a fixed order.
std::vector<Variant> variants(const ScratchOptions& o) {
  std::vector<Variant> out{{o.side, o.stacking, o.grow}};
  if (o.refine == ScratchCriterion::kNone) return out;
  for (ScratchSide side : {ScratchSide::kEdge, ScratchSide::kBottom, ScratchSide::kTop}) {
    for (bool stacking : {true, false}) {
      for (ScratchGrow grow : {ScratchGrow::kCheaper, ScratchGrow::kTop, ScratchGrow::kBottom}) {
        if (side == o.side && stacking == o.stacking && grow == o.grow) continue;
        out.push_back({side, stacking, grow});
      }
    }
  }
  return out;
}

ScratchPlacement finish(const Problem& activations, const Solution& plan, int64_t heap_top,
                        const std::vector<ScratchRequest>& requests, const ScratchOptions& options,
                        const ScratchPassResult& pass, const std::string& variant) {
  ScratchPlacement out;
  const int64_t shift = -pass.bottom;
  out.variant = variant;
  out.grow_bottom = shift;
  out.grow_top = pass.top - heap_top;
  out.heap_bytes = pass.top - pass.bottom;
  out.fast_begin = options.fast_bytes > 0 ? shift : 0;
  out.fast_end = options.fast_bytes > 0 ? shift + options.fast_bytes : 0;
  out.fragmentation = pass.fragmentation;
  out.growth_events = pass.growth_events;
  out.sizes = pass.sizes;
  for (int64_t off : pass.offsets) out.offsets.push_back(off + shift);
  for (int64_t off : plan.offsets) out.activation_offsets.push_back(off + shift);
  for (size_t i = 0; i < requests.size(); ++i) {
    const int64_t lo = std::max(out.offsets[i], out.fast_begin);
    const int64_t hi = std::min(out.offsets[i] + out.sizes[i], out.fast_end);
    if (lo < hi) {
      out.fast_bytes_used += hi - lo;
      if (requests[i].latency_critical) out.fast_bytes_critical += hi - lo;
    }
  }

  // Activations and scratch together, checked by the independent verifier.
  out.combined.buffers = activations.buffers;
  for (Buffer& b : out.combined.buffers) {
    if (b.fixed_offset) *b.fixed_offset += shift;
  }
  out.combined_plan.offsets = out.activation_offsets;
  for (size_t i = 0; i < requests.size(); ++i) {
    const ScratchRequest& r = requests[i];
    Buffer b;
    b.id = "scratch:" + r.id;
    b.lower = r.step;
    b.upper = r.step + r.steps;
    b.size = out.sizes[i];
    b.alignment = r.alignment;
    out.combined.buffers.push_back(b);
    out.combined_plan.offsets.push_back(out.offsets[i]);
  }
  for (size_t i = 0; i < out.combined.buffers.size(); ++i) {
    out.combined_plan.height = std::max(
        out.combined_plan.height, out.combined_plan.offsets[i] + out.combined.buffers[i].size);
  }
  out.combined_plan.allocator = plan.allocator + "+scratch";
  const std::vector<std::string> errors = verify(out.combined, out.combined_plan);
  if (!errors.empty()) {
    throw std::logic_error("scratch planner (" + variant + ") produced an invalid plan: " +
                           errors.front());
  }
  return out;
}

// Smaller is better.
std::tuple<int64_t, int64_t, int64_t> score(const ScratchPlacement& p, ScratchCriterion c) {
  switch (c) {
    case ScratchCriterion::kNone:
      return {0, 0, 0};
    case ScratchCriterion::kNoGrowth:
      return {p.grow_top + p.grow_bottom, p.grow_bottom, p.fragmentation};
    case ScratchCriterion::kLeastHeap:
      return {p.heap_bytes, p.fragmentation, p.growth_events};
    case ScratchCriterion::kLeastFragmentation:
      return {p.fragmentation, p.heap_bytes, 0};
    case ScratchCriterion::kMostFastBytes:
      return {-p.fast_bytes_critical, p.heap_bytes, 0};
  }
  return {0, 0, 0};
}

}  // namespace

ScratchCriterion scratch_criterion_from_name(const std::string& name) {
  for (size_t i = 0; i < std::size(kCriterionNames); ++i) {
    if (name == kCriterionNames[i]) return static_cast<ScratchCriterion>(i);
  }
  throw std::invalid_argument("unknown scratch refinement criterion '" + name +
                              "'; expected one of: no_growth, least_heap, least_fragmentation, "
                              "most_fast_bytes (or empty for none)");
}

std::string scratch_criterion_name(ScratchCriterion c) {
  return kCriterionNames[static_cast<size_t>(c)];
}

ScratchPlacement place_scratch(const Problem& activations, const Solution& plan, int64_t heap_top,
                               const std::vector<ScratchRequest>& requests,
                               const ScratchOptions& options) {
  validate(activations, plan, heap_top, requests);
  if (options.fast_bytes < 0) {
    throw std::invalid_argument("scratch planner: fast_bytes " +
                                std::to_string(options.fast_bytes) + " is negative");
  }
  const int64_t base = base_alignment(activations, requests);
  std::optional<ScratchPlacement> best;
  for (const Variant& v : variants(options)) {
    ScratchOptions o = options;
    o.side = v.side;
    o.stacking = v.stacking;
    o.grow = v.grow;
    const ScratchPassResult pass = run_scratch_pass(activations, plan, heap_top, requests, o, base);
    ScratchPlacement p = finish(activations, plan, heap_top, requests, o, pass, variant_name(v));
    if (!best || score(p, options.refine) < score(*best, options.refine)) best = std::move(p);
  }
  return std::move(*best);
}

}  // namespace strider::memory
