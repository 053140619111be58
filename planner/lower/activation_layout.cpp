#include "planner/lower/activation_layout.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "core/common/ceil_div.h"
#include "planner/memory/activation_problem.h"
#include "planner/memory/allocator.h"

namespace strider {
bool moves_no_compute(const Node& n) {
  return is_view_op(n.op) || n.op == OpType::kSplit || n.op == OpType::kSlice ||
         n.op == OpType::kConcat;
}

bool moves_by_dma(const Node& n) {
  return n.op == OpType::kChannelShuffle || n.op == OpType::kGather;
}

uint64_t skewed_plane_stride(uint64_t plane_bytes, const L2Config& l2) {
  const uint64_t width = l2.bank_width_bytes, span = width * l2.banks;
  if (width == 0 || span == 0) return plane_bytes;
  // Whole bank words, and an odd number of them round the span (with a power-of-two bank count
  // every plane k starts k words further round, visiting every bank); ends within span bytes.
  uint64_t p = (plane_bytes + width - 1) / width * width;
  while (std::gcd(p % span, span) != width) p += width;
  return p;
}

namespace {

// Skews the channel planes of the tensors only compute ops address (see plan_activations) and
// sizes their buffers to c planes of the skewed stride; returns every tensor's plane stride.
std::vector<uint64_t> skew_planes(const Graph& g, uint64_t alignment, const L2Config& l2,
                                  bool skew, memory::ActivationPlanInput* in) {
  const size_t nt = g.tensors.size();
  std::vector<uint64_t> stride(nt, 0);
  std::vector<int> members(in->problem.buffers.size(), 0);
  for (size_t t = 0; t < nt; ++t) {
    const TensorShape& s = g.tensors[t].shape;
    stride[t] = uint64_t(s.h) * uint64_t(s.w);
    if (in->tensor_buffer[t] >= 0) ++members[size_t(in->tensor_buffer[t])];
  }
  std::vector<char> fixed(nt, 0);  // addressed by something other than a compute op's planes
  for (int t : g.inputs) fixed[size_t(t)] = 1;
  for (int t : g.outputs) fixed[size_t(t)] = 1;
  for (const Node& n : g.nodes) {
    if (!moves_no_compute(n) && !moves_by_dma(n)) continue;
    for (int t : n.inputs) fixed[size_t(t)] = 1;
    for (int t : n.outputs) fixed[size_t(t)] = 1;
  }
  for (size_t t = 0; t < nt; ++t) {
    const Tensor& tensor = g.tensors[t];
    const int b = in->tensor_buffer[t];
    if (!skew || fixed[t] || b < 0 || members[size_t(b)] != 1 || tensor.shape.n != 1 ||
        uint64_t(tensor.bytes()) != uint64_t(tensor.shape.c) * stride[t]) {
      continue;
    }
    const uint64_t skewed = skewed_plane_stride(stride[t], l2);
    if (skewed == stride[t]) continue;
    stride[t] = skewed;
    in->problem.buffers[size_t(b)].size =
        int64_t(align_up(uint64_t(tensor.shape.c) * skewed, alignment));
  }
  return stride;
}

// Per alias group: 1 when it holds one image (see plan_activations), 2 when it does and holds a
// graph input or output. Sizes those groups to one image and stretches the others live during a
// segment over all of it.
std::vector<char> segment_groups(const Graph& g, const std::vector<int>& order,
                                 const std::vector<StepRange>& segments, uint64_t alignment,
                                 memory::ActivationPlanInput* in) {
  const size_t nt = g.tensors.size(), nb = in->problem.buffers.size();
  std::vector<char> one_image(nb, 0);
  if (segments.empty()) return one_image;
  std::vector<int> seg_of_step(order.size(), -1), step_of(g.nodes.size(), -1);
  for (size_t k = 0; k < segments.size(); ++k) {
    for (int64_t s = segments[k].first; s <= segments[k].last; ++s) {
      seg_of_step.at(size_t(s)) = int(k);
    }
  }
  for (size_t s = 0; s < order.size(); ++s) step_of[size_t(order[s])] = int(s);
  std::vector<int> group_seg(nb, -2);  // -2: no member yet, -1: not one segment's own
  auto join = [&](int b, int seg) {
    group_seg[b] = group_seg[b] == -2 || group_seg[b] == seg ? seg : -1;
  };
  const std::vector<int> producer = g.producers();
  const std::vector<std::vector<int>> consumers = g.consumers();
  for (size_t t = 0; t < nt; ++t) {
    const int b = in->tensor_buffer[t];
    if (b < 0) continue;
    // A graph input belongs to the segment of its consumers (each pass loads its image).
    const int first = producer[t] >= 0 ? producer[t] : consumers[t].empty() ? -1 : consumers[t][0];
    int seg = first < 0 || g.tensors[t].shape.n < 2 ? -1
                                                    : seg_of_step[size_t(step_of[size_t(first)])];
    for (int c : consumers[t]) seg = seg_of_step[size_t(step_of[size_t(c)])] == seg ? seg : -1;
    join(b, seg);
  }
  for (size_t b = 0; b < nb; ++b) {
    memory::Buffer& buf = in->problem.buffers[b];
    if (group_seg[b] >= 0) {
      const Tensor& root = g.tensors[size_t(in->buffer_root[b])];
      buf.size = int64_t(align_up(uint64_t(root.bytes() / root.shape.n), alignment));
      continue;
    }
    for (const StepRange& r : segments) {
      if (buf.lower <= r.last && buf.upper > r.first) {
        buf.lower = std::min<int64_t>(buf.lower, r.first);
        buf.upper = std::max<int64_t>(buf.upper, r.last + 1);
      }
    }
  }
  for (size_t b = 0; b < nb; ++b) one_image[b] = group_seg[b] >= 0;
  for (int t : g.inputs) one_image[size_t(in->tensor_buffer[size_t(t)])] *= 2;
  for (int t : g.outputs) {
    const int b = in->tensor_buffer[size_t(t)];
    if (one_image[size_t(b)] == 1) one_image[size_t(b)] = 2;
  }
  return one_image;
}

}  // namespace

ActivationLayout plan_activations(const Graph& g, const std::vector<int>& order, uint64_t alignment,
                                  uint64_t capacity, const LowerOptions& opt, const L2Config& l2,
                                  uint64_t spill_base, const std::vector<StepRange>& segments,
                                  bool skew, bool fold_shuffles, const std::vector<int>& to_dram,
                                  const std::vector<StepRange>& joined) {
  const size_t nt = g.tensors.size();
  // Alias groups (views, in-place concat inputs) and their lifetimes: the memory planner's.
  memory::ActivationPlanInput in =
      memory::build_activation_problem(g, order, static_cast<int64_t>(alignment), fold_shuffles);
  ActivationLayout out;
  out.tensor_channel_stride = skew_planes(g, alignment, l2, skew, &in);
  out.tensor_interleaved.assign(nt, 0);
  for (size_t t = 0; t < nt; ++t) {
    if (in.tensor_channel_stride[t] == 0) continue;
    out.tensor_channel_stride[t] = uint64_t(in.tensor_channel_stride[t]);
    out.tensor_interleaved[t] = 1;
  }
  out.shuffle_folded.assign(g.nodes.size(), 0);
  std::vector<char> one_image = segment_groups(g, order, segments, alignment, &in);
  for (memory::Buffer& buf : in.problem.buffers) {
    for (const StepRange& r : joined) {
      if (buf.lower <= r.last && buf.upper > r.first) {
        buf.lower = std::min<int64_t>(buf.lower, r.first);
        buf.upper = std::max<int64_t>(buf.upper, r.last + 1);
      }
    }
  }
  for (int idx : order) {
    const Node& n = g.nodes[idx];
    if (n.op != OpType::kConcat) continue;
    if (in.folded_shuffle[size_t(idx)] >= 0) {  // strided copies into the shuffle's output
      out.shuffle_folded[size_t(in.folded_shuffle[size_t(idx)])] = 1;
      for (size_t k = 0; k < n.inputs.size(); ++k) {
        if (in.concat_input_in_place[idx][k]) continue;
        out.copies.push_back({idx, n.inputs[k], uint64_t(in.concat_input_offset[idx][k]),
                              uint64_t(in.concat_input_stride[idx][k]),
                              in.concat_input_copy_step[idx][k]});
      }
      continue;
    }
    uint64_t off = 0;
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      if (!in.concat_input_in_place[idx][k]) out.copies.push_back({idx, n.inputs[k], off});
      // Within one image (a batch concatenates image by image: see Lowerer::lower_view).
      const Tensor& t = g.tensors[n.inputs[k]];
      off += static_cast<uint64_t>(t.bytes() / t.shape.n);
    }
  }
  const size_t nb = in.problem.buffers.size();
  auto bytes_of = [&](size_t b) { return uint64_t(in.problem.buffers[b].size); };
  const int64_t steps = static_cast<int64_t>(order.size());

  std::vector<bool> spilled(nb, false);
  for (int t : to_dram) {
    if (spill_base == 0) throw std::logic_error("activation plan: tensors to DRAM without a base");
    spilled.at(size_t(in.tensor_buffer.at(size_t(t)))) = true;
  }
  // Choosing what to spill uses a fast allocator; the requested one then plans the rest (and if it
  // packs worse, spilling goes on with it).
  memory::AllocatorOptions aopt;
  aopt.name = opt.allocator == "naive" ? "naive" : "greedy_by_size";
  aopt.time_limit_s = opt.time_limit_s;
  bool requested = aopt.name == opt.allocator;
  memory::Problem problem;
  std::vector<size_t> planned;  // group buffer of each problem buffer
  memory::Solution sol;
  for (;;) {
    problem = memory::Problem();
    planned.clear();
    for (size_t b = 0; b < nb; ++b) {
      if (spilled[b]) continue;
      planned.push_back(b);
      problem.buffers.push_back(in.problem.buffers[b]);
    }
    // The step with the most live bytes, and whether even the lower bound overflows.
    std::vector<uint64_t> live(std::max<int64_t>(steps, 1), 0);
    for (size_t b : planned) {
      const memory::Buffer& buf = in.problem.buffers[b];
      for (int64_t s = buf.lower; s < buf.upper; ++s) live[s] += bytes_of(b);
    }
    const int64_t peak = std::max_element(live.begin(), live.end()) - live.begin();
    bool fits = live[peak] <= capacity;
    if (fits) {
      sol = memory::allocate(problem, aopt);
      fits = uint64_t(sol.height) <= capacity;
      if (fits && !requested) {
        aopt.name = opt.allocator;
        requested = true;
        continue;
      }
    }
    if (fits) break;
    auto live_at_peak = [&](size_t b) {
      return in.problem.buffers[b].lower <= peak && peak < in.problem.buffers[b].upper;
    };
    int largest = -1;
    for (size_t b : planned) {
      if (live_at_peak(b) && (largest < 0 || bytes_of(b) > bytes_of(size_t(largest)))) {
        largest = int(b);
      }
    }
    if (largest < 0) throw std::runtime_error("activation plan: nothing live at the peak");
    if (spill_base == 0) {
      throw std::runtime_error(
          "activations of " + g.name + " need " +
          std::to_string(live[peak] > capacity ? live[peak] : uint64_t(sol.height)) +
          " bytes of L2 but " + std::to_string(capacity) + " are left after weight staging (step " +
          std::to_string(peak) + ", largest live tensor '" + in.problem.buffers[largest].id +
          "' of " + std::to_string(bytes_of(size_t(largest))) + " bytes)");
    }
    spilled[size_t(largest)] = true;
  }
  out.allocator = sol.allocator;
  out.peak_bytes = static_cast<uint64_t>(sol.height);
  out.lower_bound_bytes = static_cast<uint64_t>(memory::lower_bound(problem));
  out.proven_optimal = sol.proven_optimal;
  std::vector<uint64_t> group_addr(nb, 0);
  for (size_t i = 0; i < planned.size(); ++i) {
    group_addr[planned[i]] = uint64_t(sol.offsets[i]);
    const memory::Buffer& buf = problem.buffers[i];
    out.buffers.push_back({buf.id, "activation", uint64_t(sol.offsets[i]), uint64_t(buf.size),
                           buf.lower, buf.upper - 1});
  }
  uint64_t dram = spill_base;
  for (size_t b = 0; b < nb; ++b) {
    if (!spilled[b]) continue;
    group_addr[b] = dram;
    uint64_t bytes = bytes_of(b);
    if (one_image[b] == 2) {  // a graph input or output read or written in DRAM: every image
      const Tensor& root = g.tensors[size_t(in.buffer_root[b])];
      bytes = align_up(uint64_t(root.bytes()), alignment);
      one_image[b] = 0;
    }
    dram = align_up(dram + bytes, 4096);
  }
  out.tensor_addr.assign(nt, 0);
  out.tensor_spilled.assign(nt, false);
  out.tensor_per_image.assign(nt, false);
  for (size_t t = 0; t < nt; ++t) {
    const int b = in.tensor_buffer[t];
    if (b < 0) continue;
    out.tensor_addr[t] = group_addr[b] + uint64_t(in.tensor_offset_in_buffer[t]);
    out.tensor_spilled[t] = spilled[b];
    out.tensor_per_image[t] = one_image[b] != 0;
  }
  for (ConcatCopy& c : out.copies) c.dst_addr += out.tensor_addr[g.nodes[c.node].outputs[0]];
  return out;
}

}  // namespace strider
