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
  // Per node: 1 when it moves no data at all (views, concats with every input in place).
  std::vector<char> node_is_alias;
};

// Throws std::invalid_argument when `order` is not a permutation of the graph's nodes or
// `alignment` < 1, std::runtime_error naming the tensor when a view's channel range is outside
// its input.
ActivationPlanInput build_activation_problem(const Graph& g, const std::vector<int>& order,
                                             int64_t alignment);

// Address of every graph tensor in the planned arena: its buffer's offset plus its offset inside
// the buffer; -1 for tensors that are not planned (weights, biases, unused tensors).
std::vector<int64_t> activation_addresses(const ActivationPlanInput& in, const Solution& s);

}  // namespace strider::memory
