// The L2 layout of a lowering: the activation plan, weight staging as scratch buffers in the
// holes it leaves, and (only when activations must spill to DRAM) row-band buffers at the top.
//
// Each layer with weights asks for one scratch buffer of two staging slots (double buffering),
// live from the step of the previous layer with weights (its weights prefetch while that layer
// and the weightless steps after it compute; place_staging) to its own; a layer DRAM-bound on its
// own weights may get more slots, live from further back (deep_prefetch.cpp); it is latency-critical,
// so it prefers the L2 fast region. When the holes are not enough the
// scratch planner grows the heap; the activations are then planned into less room (spilling if
// they must) until activations and scratch fit together.
#include <algorithm>
#include <stdexcept>

#include "core/common/ceil_div.h"
#include "planner/lower/lowerer.h"
#include "planner/memory/scratch_planner.h"

namespace strider {
namespace {

constexpr uint32_t kMaxBatchBandSlots = 4;
constexpr uint32_t kOutBandSlots = 2;
constexpr uint32_t kPsumSlots = 2;
constexpr int kLeadRounds = 4;        // placements trying the longer leads where they fit

}  // namespace

// The smallest band buffer any compute op could need: the input one output row reads with the
// smallest channel block the op can take, or one output row of one channel.
uint64_t Lowerer::min_band_bytes(bool input, std::string* worst, bool partial_sums) const {
  uint64_t need = 0;
  for (const Node& n : g_.nodes) {
    if (moves_no_compute(n) || moves_by_dma(n)) continue;
    const uint64_t before = need;
    const uint32_t c1 = channel_local(n) || partial_sums ? 1 : weight_block(n);
    if (input) {
      const Tensor& in = g_.tensors[n.inputs[0]];
      const uint32_t out_h = static_cast<uint32_t>(g_.tensors[n.result()].shape.h);
      for (uint32_t r = 0; r < out_h; ++r) {  // rows near the padding need fewer input rows
        uint32_t y0, y1, i0, i1;
        input_rows(n, r, r + 1, &y0, &y1);
        input_channels(n, 0, c1, &i0, &i1);
        if (partial_sums && n.op == OpType::kConv && n.groups == 1) i1 = i0 + 1;  // one channel
        need = std::max<uint64_t>(need, uint64_t(i1 - i0) * (y1 - y0) * in.shape.w);
      }
    } else {
      need = std::max<uint64_t>(need, uint64_t(g_.tensors[n.result()].shape.w));
    }
    if (need > before && worst) *worst = n.name;
  }
  return align_up(need, arch_.l2.alignment_bytes);
}

// In-band slots with a batch: one per image up to kMaxBatchBandSlots, holding one band of each
// image of a group at once so that a weight block is staged once for the group
// (banded_lowering.cpp, images_grouped). Measured on resnet50 (seed arch): at batch 8, 4 slots
// read 40.6 MB of DRAM per image and 8 slots 35.6 MB but take half the L2 room from the
// activations and run 0.3 % more cycles.
uint32_t Lowerer::batch_band_slots(const Graph& g) {
  uint32_t images = 1;
  for (int t : g.inputs) images = std::max<uint32_t>(images, uint32_t(g.tensors[t].shape.n));
  return std::max<uint32_t>(2, std::min<uint32_t>(images, kMaxBatchBandSlots));
}

// Reserves the row-band buffers at the top of L2; returns their bytes. `room` is what is left for
// activations and staging without them. When bands holding one output row of every input channel
// would leave the activations less than a sixteenth of the room, convolutions split their input
// channels into blocks with int32 partial sums instead, and a partial-sum buffer is reserved too.
uint64_t Lowerer::reserve_bands(uint64_t room, bool partial_sums) {
  // Below the fused global pools' partial sums (gap_fusion.cpp), at the very top.
  const uint64_t align = arch_.l2.alignment_bytes, l2 = arch_.l2.size_bytes - gap_region_bytes_;
  const uint64_t share = align_up(room / 16, align);
  std::string worst;
  uint64_t in_need = min_band_bytes(true, &worst, false);
  const uint64_t out_need = min_band_bytes(false, nullptr, false);
  in_bands_.slot_bytes = std::max(share, in_need);
  out_bands_.slot_bytes = std::max(share, out_need);
  psums_ = SlotRing();
  if (partial_sums ||
      in_bands_.slot_bytes * in_band_slots_ + out_bands_.slot_bytes * kOutBandSlots + share > room) {
    in_need = min_band_bytes(true, &worst, true);
    in_bands_.slot_bytes = std::max(share, in_need);
    psums_.slot_bytes = std::max(share, 4 * out_need);
    psums_.last_user.assign(kPsumSlots, -1);
  }
  const uint64_t bands = in_bands_.slot_bytes * in_band_slots_ +
                         out_bands_.slot_bytes * kOutBandSlots + psums_.slot_bytes * kPsumSlots;
  if (bands >= room) {
    throw std::runtime_error("L2 of " + std::to_string(l2) + " bytes is too small: row-band buffers (" +
                             std::to_string(bands) + " bytes; node '" + worst + "' reads " +
                             std::to_string(in_need) +
                             " bytes of input per output row) leave no room for activations");
  }
  in_bands_.base = l2 - bands;
  out_bands_.base = in_bands_.base + in_bands_.slot_bytes * in_band_slots_;
  psums_.base = out_bands_.base + out_bands_.slot_bytes * kOutBandSlots;
  in_bands_.last_user.assign(in_band_slots_, -1);
  out_bands_.last_user.assign(kOutBandSlots, -1);
  return bands;
}

// Places every layer's staging slots in the holes of layout_, growing the heap above (or below)
// the activations only where the holes are not enough. When the result fits [0, heap), sets
// node_staging_, the plan rows and the growth figures and returns 0; else returns the bytes over.
uint64_t Lowerer::place_staging(const std::vector<int>& order, uint64_t heap) {
  const uint64_t align = arch_.l2.alignment_bytes;
  memory::Problem acts;
  memory::Solution plan;
  for (const PlannedBuffer& b : layout_.buffers) {
    memory::Buffer buf;
    buf.id = b.tensor;
    buf.lower = b.first;
    buf.upper = b.last + 1;
    buf.size = static_cast<int64_t>(b.size);
    buf.alignment = static_cast<int64_t>(align);
    acts.buffers.push_back(buf);
    plan.offsets.push_back(static_cast<int64_t>(b.offset));
    plan.height = std::max<int64_t>(plan.height, int64_t(b.offset + b.size));
  }
  // Each layer's slots live from the step of the layer with weights before it (at most
  // kMaxLeadSteps back; at least the previous step), so its first weights prefetch while that
  // layer and the weightless steps between them (pools, adds, the muls of a squeeze-excitation)
  // run, where L2 has room for them.
  std::vector<memory::ScratchRequest> reqs, near;
  std::vector<int> req_node;  // per request: its node (a deep prefetch's extra slots: the same)
  int64_t prev_weighted = -1;
  for (size_t s = 0; s < order.size(); ++s) {
    const Node& n = g_.nodes[order[s]];
    if (n.weights < 0) continue;
    memory::ScratchRequest r;
    r.id = "staging:" + n.name;
    r.step = s > 0 ? int64_t(s) - 1 : 0;
    r.steps = s > 0 ? 2 : 1;
    if (dw_reader_[size_t(order[s])] >= 0) ++r.steps;  // a fused pair's P: through C's step too
    r.size = static_cast<int64_t>(staging_bytes(n));
    r.latency_critical = true;
    r.alignment = static_cast<int64_t>(align);
    near.push_back(r);
    const int64_t from = std::min<int64_t>(
        r.step, std::max<int64_t>({prev_weighted, int64_t(s) - kMaxLeadSteps, 0}));
    r.steps += r.step - from;
    r.step = from;
    reqs.push_back(r);
    req_node.push_back(order[s]);
    prev_weighted = int64_t(s);
  }
  memory::ScratchOptions opt;
  opt.fast_bytes = static_cast<int64_t>(arch_.l2.fast_region_bytes);
  memory::ScratchPlacement p = memory::place_scratch(acts, plan, plan.height, reqs, opt);
  // Where the slots do not fit beside the activations, the layers whose slots landed outside the
  // activations' heap take the one-step lead, for a few rounds; then the one-step lead everywhere
  // if that needs less.
  for (int round = 0; round < kLeadRounds && uint64_t(p.heap_bytes) > heap; ++round) {
    bool reverted = false;
    for (size_t i = 0; i < reqs.size(); ++i) {
      const bool grown = p.offsets[i] < p.grow_bottom ||
                         p.offsets[i] + reqs[i].size > p.grow_bottom + plan.height;
      if (grown && reqs[i].step != near[i].step) reqs[i] = near[i], reverted = true;
    }
    if (!reverted) break;
    p = memory::place_scratch(acts, plan, plan.height, reqs, opt);
  }
  if (uint64_t(p.heap_bytes) > heap) {
    memory::ScratchPlacement q = memory::place_scratch(acts, plan, plan.height, near, opt);
    if (q.heap_bytes < p.heap_bytes) {
      p = std::move(q);
      reqs = near;
    }
  }
  if (uint64_t(p.heap_bytes) > heap) return uint64_t(p.heap_bytes) - heap;
  plan_prefetch(order, heap, acts, plan, opt, reqs, req_node, p);  // deep_prefetch.cpp
  // Growth at the bottom moved every activation in L2 up by grow_bottom.
  const uint64_t shift = uint64_t(p.grow_bottom);
  for (size_t t = 0; t < layout_.tensor_addr.size(); ++t) {
    if (!layout_.tensor_spilled[t] && g_.tensors[t].kind == TensorKind::kActivation) {
      layout_.tensor_addr[t] += shift;
    }
  }
  for (PlannedBuffer& b : out_.plan) b.offset += shift;
  for (ConcatCopy& c : layout_.copies) {
    if (!layout_.tensor_spilled[g_.nodes[c.node].outputs[0]]) c.dst_addr += shift;
  }
  node_staging_.assign(g_.nodes.size(), SlotRing());
  uint64_t height = uint64_t(plan.height);
  for (size_t i = 0; i < reqs.size(); ++i) {
    SlotRing& ring = node_staging_[req_node[i]];
    if (is_extra_slot(reqs[i])) {  // a deep prefetch's slot of its own, after the ring's first
      if (ring.slot_addr.empty()) {
        for (uint32_t s = 0; s < ring.last_user.size(); ++s) {
          ring.slot_addr.push_back(ring.base + s * ring.slot_bytes);
        }
      }
      ring.slot_addr.push_back(uint64_t(p.offsets[i]));
      ring.slot_first.push_back(reqs[i].step);
      ring.last_user.push_back(-1);
      ring.ahead = uint32_t(ring.last_user.size());
      height = std::max(height, uint64_t(p.offsets[i] + reqs[i].size));
      out_.plan.push_back({reqs[i].id, "scratch", uint64_t(p.offsets[i]), uint64_t(reqs[i].size),
                           reqs[i].step, reqs[i].step + reqs[i].steps - 1});
      continue;
    }
    ring.base = uint64_t(p.offsets[i]);
    ring.slot_bytes = staging_bytes(g_.nodes[size_t(req_node[i])]) / kStagingSlots;
    ring.last_user.assign(size_t(uint64_t(reqs[i].size) / ring.slot_bytes), -1);
    ring.slot_first.assign(ring.last_user.size(), reqs[i].step);
    if (node_prefetch_[size_t(req_node[i])] >= 0) ring.ahead = uint32_t(ring.last_user.size());
    ring.lead_steps = uint32_t(reqs[i].steps - 1);
    // A fused pair's C is lowered in its producer's step, one before its own; its P's ring lives
    // through C's step too.
    const size_t rn = size_t(req_node[i]);
    if ((dw_lowered_[rn] || dw_reader_[rn] >= 0) && ring.lead_steps > 0) --ring.lead_steps;
    height = std::max(height, ring.base + uint64_t(reqs[i].size));
    out_.plan.push_back({reqs[i].id, "scratch", ring.base, uint64_t(reqs[i].size), reqs[i].step,
                         reqs[i].step + reqs[i].steps - 1});
  }
  out_.staging_bytes = uint64_t(p.grow_top + p.grow_bottom);
  out_.fast_region_bytes = uint64_t(p.fast_bytes_critical);
  return 0;
}

uint64_t Lowerer::staging_bytes(const Node& n) const {
  return slot_bytes(n, weight_block(n)) * kStagingSlots;
}

uint64_t Lowerer::slot_bytes(const Node& n, uint64_t channels) const {
  const uint64_t align = arch_.l2.alignment_bytes;
  const TensorShape& w = g_.tensors[n.weights].shape;
  return align_up(channels * uint64_t(w.elements() / w.n), align) + align_up(channels * 4, align);
}

std::runtime_error Lowerer::staging_error(const std::vector<int>& order, uint64_t bands) const {
  const uint64_t l2 = arch_.l2.size_bytes;
  const Node* worst = nullptr;
  uint64_t need = 0;
  for (int i : order) {
    const Node& n = g_.nodes[i];
    if (n.weights >= 0 && staging_bytes(n) > need) need = staging_bytes(n), worst = &n;
  }
  std::string what = "L2 of " + std::to_string(l2) + " bytes cannot hold the weight staging";
  if (worst) {
    const uint32_t ch = weight_block(*worst);
    what += ": the largest, layer '" + worst->name + "', needs " + std::to_string(need) +
            " bytes (" + std::to_string(kStagingSlots) + " slots of " +
            std::to_string(need / kStagingSlots) + " bytes, each the weights and biases of " +
            std::to_string(ch) + (ch == 1 ? " output channel" : " output channels") + ") and " +
            std::to_string(l2 - bands) + " bytes are left beside " + std::to_string(bands) +
            " bytes of row-band and partial-sum buffers";
  }
  return std::runtime_error(what);
}

// Depthwise fusion (depthwise_fusion.cpp): the plan without it; where that spills the tensor of
// a pair that can run fused, the plan with those pairs (each pair's T in DRAM, never moved, and
// the tensors live in either of its two steps live in both, plan_activations' `joined`: P's
// input is read while C writes its output), again without the pairs the new plan spills P's input
// of; the faster by plan_cycles is kept (the earlier on a tie).
void Lowerer::plan_memory(const std::vector<int>& order) {
  dw_pairs_.clear();
  plan_layout(order);
  std::vector<DwPair> pairs = dw_candidates(order);
  if (pairs.empty()) return;
  const uint64_t plain = plan_cycles(order);
  for (int round = 0; round < 4 && !pairs.empty(); ++round) {
    dw_pairs_ = pairs;
    plan_layout(order);
    pairs.clear();
    for (const DwPair& q : dw_pairs_) {
      if (dw_legal(g_.nodes[size_t(q.p)], g_.nodes[size_t(q.c)], q.step)) pairs.push_back(q);
    }
    if (pairs.size() == dw_pairs_.size()) break;
  }
  if (pairs.size() == dw_pairs_.size() && !pairs.empty() && plan_cycles(order) < plain) return;
  dw_pairs_.clear();
  plan_layout(order);
}

void Lowerer::plan_layout(const std::vector<int>& order) {
  // The fused global pools' partial sums take the top of L2 (gap_fusion.cpp), whatever spills.
  gap_region_bytes_ = gap_region_bytes();
  gap_region_addr_ = arch_.l2.size_bytes - gap_region_bytes_;
  const uint64_t align = arch_.l2.alignment_bytes, l2 = gap_region_addr_;
  uint64_t heap = l2, cap = l2, bands = 0;
  dw_reader_.assign(g_.nodes.size(), -1);
  dw_lowered_.assign(g_.nodes.size(), 0);
  std::vector<StepRange> joined;
  std::vector<int> to_dram;
  for (const DwPair& q : dw_pairs_) {
    dw_reader_[size_t(q.p)] = q.c;
    dw_lowered_[size_t(q.c)] = 1;
    joined.push_back({q.step, q.step + 1});
    to_dram.push_back(g_.nodes[size_t(q.p)].outputs[0]);
  }
  if (!dw_pairs_.empty()) {  // the pairs' tensors go through the in-band buffers
    bands = reserve_bands(l2, false);
    heap = cap = l2 - bands;
  }
  for (int attempt = 0;; ++attempt) {
    if (attempt > 256) throw std::runtime_error("L2 layout did not converge");
    try {
      layout_ =
          plan_activations(g_, order, align, cap, opt_, arch_.l2, bands ? kDramActivationsBase : 0,
                           opt_.image_segments, arch_.lowering.skew_planes,
                           arch_.lowering.shuffle_layout, to_dram, joined);
    } catch (const std::runtime_error&) {
      if (bands) throw;
      // Not everything fits: reserve band buffers at the top of L2 and spill to DRAM.
      bands = reserve_bands(l2, false);
      heap = cap = l2 - bands;
      continue;
    }
    out_.plan = layout_.buffers;
    const uint64_t lacking = place_staging(order, heap);
    if (lacking == 0) break;
    // Give the activations less room (below what they took) by what the staging lacked,
    // spilling if they must.
    const uint64_t over = std::max<uint64_t>(align_up(lacking, align), align);
    cap = std::min<uint64_t>(cap, layout_.peak_bytes);
    if (over >= cap) {
      // Without room for the staging, smaller bands (input-channel blocks) are the last resort.
      if (bands && !psums_.last_user.empty()) {
        throw staging_error(order, bands);
      }
      bands = reserve_bands(l2, bands != 0);
      heap = cap = l2 - bands;
      continue;
    }
    cap -= over;
  }
  out_.tensor_addr = layout_.tensor_addr;
  out_.tensor_spilled = layout_.tensor_spilled;
  out_.tensor_channel_stride = layout_.tensor_channel_stride;
  out_.tensor_in_bands.assign(g_.tensors.size(), false);
  for (const DwPair& q : dw_pairs_)
    out_.tensor_in_bands[size_t(g_.nodes[size_t(q.p)].outputs[0])] = true;
  out_.allocator = layout_.allocator;
  out_.arena_bytes = layout_.peak_bytes;
  out_.lower_bound_bytes = layout_.lower_bound_bytes;
  out_.proven_optimal = layout_.proven_optimal;
  out_.band_bytes = bands;
  // The band buffers are live up to the last step that may use them (deep_prefetch.cpp: a later
  // prefetch ring may take their room).
  const int64_t last = std::max<int64_t>(0, last_band_step(order));
  for (uint32_t s = 0; s < in_bands_.last_user.size(); ++s) {
    out_.plan.push_back({"in_band" + std::to_string(s), "scratch", in_bands_.addr(s),
                         in_bands_.slot_bytes, 0, last});
  }
  for (uint32_t s = 0; s < out_bands_.last_user.size(); ++s) {
    out_.plan.push_back({"out_band" + std::to_string(s), "scratch", out_bands_.addr(s),
                         out_bands_.slot_bytes, 0, last});
  }
  for (uint32_t s = 0; s < psums_.last_user.size(); ++s) {
    out_.plan.push_back({"psum" + std::to_string(s), "scratch", psums_.addr(s), psums_.slot_bytes,
                         0, last});
  }
  if (gap_region_bytes_ > 0) {
    out_.plan.push_back({"gap_partials", "scratch", gap_region_addr_, gap_region_bytes_, 0,
                         int64_t(order.size()) - 1});
  }
}

}  // namespace strider
