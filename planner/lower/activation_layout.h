// ActivationLayout: the address of every activation tensor (in L2, or in DRAM when spilled), from
// the memory planner's alias groups and lifetimes (memory/activation_problem.h: views and in-place
// concat inputs share one buffer) planned by the chosen allocator for a schedule.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planner/ir/graph.h"
#include "planner/lower/lowering.h"

namespace strider {

// A concat input that could not be produced in place: copied into the output after it is made.
struct ConcatCopy {
  int node = -1;          // the concat node
  int tensor = -1;        // the input tensor
  uint64_t dst_addr = 0;  // where it goes inside the concat output
};

struct ActivationLayout {
  std::vector<uint64_t> tensor_addr;     // per graph tensor (0 for weights and biases)
  std::vector<bool> tensor_spilled;      // per graph tensor: lives in DRAM (tensor_addr is there)
  // Per graph tensor: holds one image of a batch, reused by each image in turn (a tensor made
  // and read only inside one image segment); else it holds every image (N x C x H x W).
  std::vector<bool> tensor_per_image;
  std::vector<PlannedBuffer> buffers;    // one per alias group
  std::vector<ConcatCopy> copies;
  std::string allocator;
  uint64_t peak_bytes = 0;
  uint64_t lower_bound_bytes = 0;
  bool proven_optimal = false;
};

// True for the nodes that compute nothing: views (reshape, flatten, split, slice) and concats
// (whose inputs are produced in place, or copied).
bool moves_no_compute(const Node& n);
// Ops the DMA executes as L2 moves (channel shuffle, gather): no compute tiles, no weights.
bool moves_by_dma(const Node& n);

// Plans the activations of `g` for `order` into [0, capacity) with `alignment`. When they do not
// fit and `spill_base` is non-zero, alias groups are moved to DRAM (from `spill_base` up), the
// largest group live at the step of most live bytes first, until the rest fits; without
// `spill_base` a plan that does not fit is an error naming the capacity, the plan's peak and the
// largest tensor live at the peak.
//
// `segments` (schedule steps, inclusive; see LowerOptions::image_segments) run image after image:
// an alias group made (or, a graph input, first read) and read only inside one segment holds one
// image (tensor_per_image); every other group live during a segment stays live over
// all of it (each image's pass reads the segment's inputs and writes its outputs).
ActivationLayout plan_activations(const Graph& g, const std::vector<int>& order, uint64_t alignment,
                                  uint64_t capacity, const LowerOptions& opt,
                                  uint64_t spill_base = 0,
                                  const std::vector<StepRange>& segments = {});

}  // namespace strider
