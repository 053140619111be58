// Value-level helpers shared by the int8 reference (tb/reference) and the float reference
// (planner/quant/float_reference): how a node's operands are cut into images for a batch, and the
// ops that only move values (concat, reshape, split, slice, channel shuffle, gather, pad), which
// mean the same whatever the element type. Tensors are NCHW with each image's CHW block contiguous.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "planner/ir/graph.h"

namespace strider {

// Runs compute(in, out) on a node whose operands may hold a batch: once on the whole tensors when
// the output has one image, else image by image on slices of the batched operands, operands with
// N = 1 (weights-like or broadcast) passed whole. A reshape (the same values in the same order,
// e.g. a Flatten moving dims into the batch) runs once on the whole tensors; an operand whose
// batch is neither 1 nor the output's is an error naming the node.
template <typename T, typename Compute>
void for_each_image(const Graph& g, const Node& n, const std::vector<const std::vector<T>*>& in,
                    std::vector<std::vector<T>>& out, Compute&& compute) {
  const int64_t images = g.tensors[n.outputs[0]].shape.n;
  if (images <= 1 || n.op == OpType::kReshape) {
    compute(in, out);
    return;
  }
  std::vector<std::vector<T>> in_image(in.size()), out_image(out.size());
  std::vector<const std::vector<T>*> in_ptr(in.size());
  for (int64_t i = 0; i < images; ++i) {
    for (size_t k = 0; k < in.size(); ++k) {
      const TensorShape& s = g.tensors[n.inputs[k]].shape;
      if (s.n == 1) {
        in_ptr[k] = in[k];
        continue;
      }
      if (s.n != images) {
        throw std::runtime_error("node '" + n.name + "': operand " + std::to_string(k) +
                                 " has a batch of " + std::to_string(s.n) + ", the output " +
                                 std::to_string(images));
      }
      const int64_t per = s.elements() / s.n;
      in_image[k].assign(in[k]->begin() + i * per, in[k]->begin() + (i + 1) * per);
      in_ptr[k] = &in_image[k];
    }
    for (size_t k = 0; k < out.size(); ++k) out_image[k].assign(out[k].size() / size_t(images), T{});
    compute(in_ptr, out_image);
    for (size_t k = 0; k < out.size(); ++k) {
      std::copy(out_image[k].begin(), out_image[k].end(),
                out[k].begin() + i * int64_t(out_image[k].size()));
    }
  }
}

// Computes one image of a value-moving op into out (sized and zeroed by the caller); returns
// false for an op that computes values.
template <typename T>
bool move_values(const Graph& g, const Node& n, const std::vector<const std::vector<T>*>& in,
                 std::vector<std::vector<T>>& out) {
  const TensorShape& is = g.tensors[n.inputs[0]].shape;
  const int64_t plane = is.h * is.w;
  switch (n.op) {
    case OpType::kConcat: {
      auto at = out[0].begin();
      for (const std::vector<T>* b : in) at = std::copy(b->begin(), b->end(), at);
      return true;
    }
    case OpType::kReshape:
      out[0] = *in[0];
      return true;
    case OpType::kSplit:
    case OpType::kSlice:
      for (size_t k = 0; k < out.size(); ++k) {
        std::copy_n(in[0]->begin() + n.channel_begin.at(k) * plane, out[k].size(), out[k].begin());
      }
      return true;
    case OpType::kChannelShuffle: {
      // Output channel i x groups + k is input channel k x (C / groups) + i.
      const int64_t groups = n.shuffle_groups, per = is.c / groups;
      for (int64_t k = 0; k < groups; ++k) {
        for (int64_t i = 0; i < per; ++i) {
          std::copy_n(in[0]->begin() + (k * per + i) * plane, plane,
                      out[0].begin() + (i * groups + k) * plane);
        }
      }
      return true;
    }
    case OpType::kGather:
      for (const GatherBlock& b : n.gather) {
        for (int64_t r = 0; r < b.rows; ++r) {
          for (int64_t i = 0; i < b.row_len; ++i) {
            out[0][size_t(b.dst + r * b.dst_stride + i * b.dst_step)] =
                (*in[0])[size_t(b.src + r * b.src_stride + i)];
          }
        }
      }
      return true;
    case OpType::kPad: {
      const TensorShape& os = g.tensors[n.outputs[0]].shape;
      std::fill(out[0].begin(), out[0].end(), T{});
      for (int64_t c = 0; c < is.c; ++c) {
        for (int64_t y = 0; y < is.h; ++y) {
          std::copy_n(in[0]->begin() + (c * is.h + y) * is.w, is.w,
                      out[0].begin() + (c * os.h + y + n.pad_top) * os.w + n.pad_left);
        }
      }
      return true;
    }
    default:
      return false;
  }
}

}  // namespace strider
