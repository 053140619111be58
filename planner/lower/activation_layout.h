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
  // 0: one contiguous copy; else (a concat folded into a channel shuffle's layout) bytes between
  // the copied planes in the output, one plane of h x w per channel.
  uint64_t dst_stride = 0;
  // The schedule step after whose node the copy is made (its source is ready and the output's
  // buffer live); -1: at the concat's own step, once the ops before it retired.
  int64_t step = -1;
};

struct ActivationLayout {
  std::vector<uint64_t> tensor_addr;     // per graph tensor (0 for weights and biases)
  std::vector<bool> tensor_spilled;      // per graph tensor: lives in DRAM (tensor_addr is there)
  // Per graph tensor: holds one image of a batch, reused by each image in turn (a tensor made
  // and read only inside one image segment); else it holds every image (N x C x H x W).
  std::vector<bool> tensor_per_image;
  // Per graph tensor: bytes between its channel planes, h x w unless skewed (plane_strides).
  std::vector<uint64_t> tensor_channel_stride;
  // Per graph tensor: a strided view of a channel shuffle's output (an input of a concat folded
  // into the shuffle's layout, memory/activation_problem.h): its planes are groups apart.
  std::vector<char> tensor_interleaved;
  // Per node: a channel shuffle folded with its concat into the layout (moves no data).
  std::vector<char> shuffle_folded;
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

// Bytes between the channel planes of an h x w plane in L2 banked as `l2` (banks x
// bank_width_bytes interleave): a plane whose size shares more than one bank word with the bank
// span (12,544 = 98 x 128 B on 16 banks of 8 B) starts every plane on the same few banks, so a
// gather of one piece per plane (the load unit's row pieces, a channels-mapping column, the
// store of a 1x1 output) piles onto those banks; the stride is padded to the next size that
// shares exactly one word (12,552: plane k starts k words further round the banks).
uint64_t skewed_plane_stride(uint64_t plane_bytes, const L2Config& l2);

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
//
// A tensor whose planes only the compute ops address (through TensorRef::channel_stride: one
// image, its own alias group, neither a graph input or output nor read or written by a view,
// concat or DMA op) gets skewed_plane_stride(h x w) with `l2`'s banks when that differs and
// `skew` is set (`lowering.skew_planes`); its buffer holds c planes of that stride, so the plan,
// its verifier and lower bound count the pad. `fold_shuffles` (`lowering.shuffle_layout`): fold a
// concat into the channel shuffle that reads it (memory/activation_problem.h).
//
// `to_dram`: tensors placed in DRAM whatever the room (from `spill_base`, which must then be
// non-zero): the tensors a producer and its depthwise reader pass through a band buffer
// (planner/lower/depthwise_fusion.cpp), never held whole. `joined`: step ranges lowered as one
// (such a pair's two steps): every alias group live in one of a range's steps lives in all.
ActivationLayout plan_activations(const Graph& g, const std::vector<int>& order, uint64_t alignment,
                                  uint64_t capacity, const LowerOptions& opt, const L2Config& l2,
                                  uint64_t spill_base = 0,
                                  const std::vector<StepRange>& segments = {}, bool skew = true,
                                  bool fold_shuffles = true, const std::vector<int>& to_dram = {},
                                  const std::vector<StepRange>& joined = {});

}  // namespace strider
