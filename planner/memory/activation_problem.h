// Activation planning input: turns a scheduled Graph into a memory-planning Problem with one
// Buffer per alias group, plus where each activation tensor sits inside its group's buffer.
//
// Alias groups (no data is moved for them):
//  - views: a reshape (flatten, squeeze, identity, dropout) output is its input's memory; a split
//    or slice output is the channel range [begin, end) of its input, at byte offset
//    begin * h * w * element_bytes inside it (planar CHW, batch 1).
//  - in-place concat: input k of a channel concat is produced straight into the output buffer at
//    the sum of the sizes of inputs < k, when that input (a) is not a graph input, (b) is not yet
//    part of another tensor's memory (not a view of another tensor unless it covers it entirely
//    at offset 0, not already placed into an earlier concat, not an earlier input of this same
//    concat) and (c) the batch is 1. Other inputs are copied by the concat.
//  - channel shuffle as a layout: a channel concat whose output only a ChannelShuffle of g >= 2
//    groups reads (one image, not a graph output), with every input inside one of the g groups
//    of C / g channels, is folded into the shuffle's output S: the concat output is S's memory
//    (it is never materialised) and input channel j of an input starting at concat channel s
//    (group k = s / per) is S's channel (s - k * per + j) * g + k, so the input is a strided
//    view of S at byte (k + (s - k * per) * g) * plane with g * plane bytes between its planes
//    (tensor_channel_stride). It is produced there in place when it is a tensor of its own
//    (nothing aliased into it, not a view), made by an op that computes it and read, besides
//    the concat, only by such ops (they address planes through TensorRef::channel_stride), and
//    is neither a graph input nor a graph output; other inputs are copied plane by plane. The
//    concat and the shuffle then move no data (node_is_alias); a split of S into halves is an
//    ordinary view (every g-th plane of S is one input's, S itself is dense). A copied input may
//    be copied from the step after its producer's (concat_input_copy_step), so S's buffer is
//    live from there.
// Concats claim their inputs in schedule order, so when a tensor feeds two concats only the first
// one to run gets it in place — except along a chain (DenseNet: each layer concatenates the
// block's input and every feature before it): when a concat's leading inputs lie back to back
// from byte 0 of one buffer that holds exactly them (the previous concat's output), that buffer
// becomes this output's prefix, so the whole chain is one buffer and nothing is copied.
//
// Lifetimes in schedule steps (step i runs order[i]): a buffer is live from the step of the first
// producer of any tensor of its group (graph inputs: their first use, as they are loaded just
// before) to the last step consuming any of them, inclusive, so upper = last + 1; a tensor nobody
// reads (e.g. a graph output, stored to DRAM when produced) dies after its producer's step, so
// models run in series can share memory. Sizes are rounded up to `alignment`.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/ir/graph.h"
#include "planner/memory/problem.h"

namespace strider::memory {

struct ActivationPlanInput {
  Problem problem;                              // one buffer per alias group, id = root tensor
  std::vector<int> buffer_root;                 // per buffer: the tensor whose memory it is
  std::vector<int> tensor_buffer;               // per graph tensor: buffer index, -1 if none
  std::vector<int64_t> tensor_offset_in_buffer; // per graph tensor: byte offset in its buffer
  // Per node: for a concat, one flag per input (1 = produced in place, no copy needed); empty for
  // other ops.
  std::vector<std::vector<char>> concat_input_in_place;
  // Per node: 1 when it moves no data at all (views, concats with every input in place, a
  // channel shuffle folded into its concat's layout).
  std::vector<char> node_is_alias;
  // Per node: for a concat folded into the channel shuffle that reads it, that shuffle node;
  // for the shuffle, its concat; -1 otherwise.
  std::vector<int> folded_shuffle;
  // Per node: for a folded concat, per input: byte offset of its first plane from the
  // concat output's (= the shuffle output's) address, and bytes between its planes there.
  std::vector<std::vector<int64_t>> concat_input_offset, concat_input_stride;
  // Per node: for a folded concat, per input copied into it: the step from which the copy may
  // run (the step after its source's producer, so it runs under the other inputs' compute; the
  // concat's own step for a graph input). The shuffle output's buffer is live from the earliest.
  std::vector<std::vector<int>> concat_input_copy_step;
  // Per graph tensor: bytes between its channel planes when an input produced in place into a
  // folded concat (strided view of the shuffle output); 0: dense (h x w x element bytes).
  std::vector<int64_t> tensor_channel_stride;
};

// Throws std::invalid_argument when `order` is not a permutation of the graph's nodes or
// `alignment` < 1, std::runtime_error naming the tensor when a view's channel range is outside
// its input.
// `fold_shuffles` (lowering.shuffle_layout): fold concats into the channel shuffle reading them.
ActivationPlanInput build_activation_problem(const Graph& g, const std::vector<int>& order,
                                             int64_t alignment, bool fold_shuffles = true);

// Address of every graph tensor in the planned arena: its buffer's offset plus its offset inside
// the buffer; -1 for tensors that are not planned (weights, biases, unused tensors).
std::vector<int64_t> activation_addresses(const ActivationPlanInput& in, const Solution& s);

}  // namespace strider::memory
