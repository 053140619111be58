// Weights and biases: where a layer's parameters live in DRAM (stored once per distinct blob),
// how many output channels a tile's weight block holds, and the moves that stage a block into
// the next slot of the layer's staging ring (memory_layout.cpp places the rings; a deep prefetch,
// deep_prefetch.cpp, may have emitted a fill during an earlier step).
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "core/common/ceil_div.h"
#include "core/common/hash.h"
#include "planner/lower/lowerer.h"

namespace strider {
namespace {

// A blob's content hash for store_blob's index: 8 bytes a step, each mixed down into the low bits
// the index's buckets use (the byte-wise FNV-1a took 0.03 s per lowering of resnet50's 25 MB).
// Equal bytes hash equal; store_blob compares the bytes of equal hashes.
uint64_t blob_hash(const std::vector<int8_t>& bytes) {
  uint64_t h = kFnv1aBasis ^ bytes.size();
  size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, bytes.data() + i, 8);
    h = (h ^ w) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 32;
  }
  return fnv1a64_bytes(bytes.data() + i, bytes.size() - i, h);
}

}  // namespace

uint64_t Lowerer::weights_per_channel(const Node& n) const {
  const TensorShape& s = g_.tensors[n.weights].shape;
  return uint64_t(s.elements() / s.n);
}

// Output channels per tile. A conv's block fills one weight-staging slot
// (`lowering.weight_slot_bytes`, default L2 / 32) in whole units of the mapping — groups of
// `accumulators` channels (positions) or runs of `neurons.count` channels (channels, im2col). One
// unit may take up to twice the slot budget; beyond that (small L2, large kernels) the block is a
// partial unit, which leaves accumulators or neurons idle (`auto` weighs it). Larger slots would
// only save tiles but take L2 from the activations.
uint32_t Lowerer::weight_block(const Node& n) const {
  const size_t i = &n - g_.nodes.data();
  if (i < node_block_.size() && node_block_[i] != 0) return node_block_[i];
  return weight_block(n, node_mapping_[i]);
}

uint32_t Lowerer::weight_block(const Node& n, Mapping m) const {
  const uint32_t out_c = static_cast<uint32_t>(g_.tensors[n.outputs[0]].shape.c);
  if (n.op == OpType::kConv && !gemm_as_conv(n)) {
    const uint64_t per = weights_per_channel(n);
    const uint64_t slot = weight_slot_bytes(arch_);
    const uint64_t fit = slot / per;
    const uint64_t unit = m != Mapping::kPositions ? arch_.neurons.count : arch_.neurons.accumulators;
    uint64_t block = fit >= unit ? fit / unit * unit : 2 * slot / per >= unit ? unit : fit;
    // A fused max-pool's row buffer holds the open pooled rows of every channel of a positions
    // tile (planner/lower/pool_fusion.cpp).
    if (n.pool.fused && m == Mapping::kPositions) block = std::min(block, pool_block_cap(n));
    return static_cast<uint32_t>(std::clamp<uint64_t>(block, 1, out_c));
  }
  // An fc, and a conv lowered as one (gemm_as_conv): one run of neurons, a slot within L2 / 16.
  if (n.op == OpType::kFullyConnected || n.op == OpType::kConv) {
    const uint64_t cap = std::max<uint64_t>(1, (arch_.l2.size_bytes / 16) / weights_per_channel(n));
    return static_cast<uint32_t>(std::min<uint64_t>({cap, arch_.neurons.count, out_c}));
  }
  return out_c;
}

// A layer's weights and biases in DRAM. Identical parameters (same bytes, found by content hash
// and then compared) are stored once, across the layers of one network and across networks.
uint64_t Lowerer::store_blob(std::vector<int8_t> bytes) {
  const uint64_t h = blob_hash(bytes);
  out_.weights_total_bytes += bytes.size();
  auto range = blob_index_.equal_range(h);
  for (auto it = range.first; it != range.second; ++it) {
    if (out_.dram.blobs[it->second].bytes == bytes) return out_.dram.blobs[it->second].addr;
  }
  const uint64_t addr = next_weight_addr_;
  out_.weights_stored_bytes += bytes.size();
  next_weight_addr_ = align_up(addr + bytes.size(), 64);
  blob_index_.emplace(h, out_.dram.blobs.size());
  out_.dram.blobs.push_back({addr, std::move(bytes)});
  return addr;
}

std::pair<uint64_t, uint64_t> Lowerer::place_weights(const Node& n) {
  const uint32_t out_c = static_cast<uint32_t>(g_.tensors[n.outputs[0]].shape.c);
  const uint64_t w = store_blob(g_.tensors[n.weights].data);
  std::vector<int8_t> bias(uint64_t(out_c) * 4, 0);
  if (n.bias >= 0) {
    const std::vector<int32_t>& b = g_.tensors[n.bias].bias;
    for (size_t i = 0; i < b.size() && i < out_c; ++i) {
      for (int k = 0; k < 4; ++k) bias[4 * i + k] = int8_t((uint32_t(b[i]) >> (8 * k)) & 0xff);
    }
  }
  return {w, store_blob(std::move(bias))};
}

// Weight and bias moves of channels [c0, c1) into the next staging slot; the tile waits for both.
// A fill a deep prefetch emitted during an earlier step (emit_prefetches) is only named.
void Lowerer::stage_weights(const Node& n, uint32_t layer, uint32_t c0, uint32_t c1, Descriptor& d,
                            uint32_t i0, uint32_t i1) {
  const uint64_t per = weights_per_channel(n);
  const uint64_t kernel = uint64_t(n.kernel_h) * n.kernel_w;
  const uint64_t block = i1 ? (i1 - i0) * kernel : per;
  const uint32_t ch = c1 - c0, slot = staging_.take(), fill = fills_++;
  const uint64_t w_l2 = staging_.addr(slot);
  const uint64_t b_l2 = w_l2 + align_up(ch * block, arch_.l2.alignment_bytes);
  const int pf = node_prefetch_.empty() ? -1 : node_prefetch_[size_t(&n - g_.nodes.data())];
  if (pf >= 0 && fill < prefetches_[size_t(pf)].moves.size()) {
    const DeepPrefetch& p = prefetches_[size_t(pf)];
    if (p.channels[fill] != std::make_pair(c0, c1) || i1 != 0) {
      throw std::logic_error("node '" + n.name + "': weight fill " + std::to_string(fill) +
                             " (channels " + std::to_string(c0) + ".." + std::to_string(c1) +
                             ") is not the one its deep prefetch loaded");
    }
    d.deps.push_back(p.moves[fill].first);
    d.deps.push_back(p.moves[fill].second);
  } else {
    // The slot was last read by this layer's earlier tile; before that, its memory may have held
    // data of any step before the ring's lead steps (the weights prefetch during them; inside an
    // image segment, during the previous step only).
    std::vector<uint32_t> war = staging_.war(slot);
    // (A fused depthwise is lowered in its producer's step: its slots, live from that step,
    // wait for the step before it.)
    int64_t lead = int64_t(staging_.lead_steps);
    if (in_segment_) lead = dw_lowered_[size_t(&n - g_.nodes.data())] ? 0 : 1;
    // The first step of the slot's memory as the ring's (a deep prefetch's late slot: its own).
    int64_t first = current_step_ - lead;
    if (slot >= kStagingSlots && slot < staging_.slot_first.size())
      first = staging_.slot_first[slot];
    if (staging_.last_user[slot] < 0 && first >= 1) {
      for (uint32_t id : step_fence_[size_t(first - 1)]) war.push_back(id);
      band_war(w_l2, staging_.slot_bytes, &war);
    }
    const auto ids = weight_moves(n, layer, c0, c1, i0, i1, w_l2, w_dram_, b_dram_, war, false);
    d.deps.push_back(ids.first);
    d.deps.push_back(ids.second);
  }
  // Deep prefetches of later layers take their share of this step's DMA time between this
  // layer's fills, which wait for their slots: emitted after the step (emit_prefetches' default),
  // the DMA, which takes its loads in list order, would run them only once this layer's last fill
  // has been issued.
  emit_prefetches(double(c1) / double(g_.tensors[size_t(n.outputs[0])].shape.c));
  d.op.weights = TensorRef{MemSpace::kL2, w_l2, ch, static_cast<uint32_t>(n.kernel_h),
                           static_cast<uint32_t>(block / n.kernel_h), 0, 0, 1};
  d.op.weights.row_stride = d.op.weights.w;
  d.op.weights.channel_stride = static_cast<uint32_t>(block);
  d.op.bias = TensorRef{MemSpace::kL2, b_l2, ch, 1, 1, 4, 4, 4};
  staging_.last_user[slot] = -2 - static_cast<int>(slot);  // set to the tile's id once emitted
}

std::pair<uint32_t, uint32_t> Lowerer::weight_moves(const Node& n, uint32_t layer, uint32_t c0,
                                                    uint32_t c1, uint32_t i0, uint32_t i1,
                                                    uint64_t w_l2, uint64_t w_dram, uint64_t b_dram,
                                                    const std::vector<uint32_t>& deps,
                                                    bool background) {
  const uint64_t per = weights_per_channel(n);
  const uint64_t kernel = uint64_t(n.kernel_h) * n.kernel_w;
  // An input-channel block takes a slice of every output channel's kernels: a 2-D move.
  const uint64_t block = i1 ? (i1 - i0) * kernel : per, skip = i1 ? i0 * kernel : 0;
  const uint32_t ch = c1 - c0;
  const uint64_t b_l2 = w_l2 + align_up(ch * block, arch_.l2.alignment_bytes);
  Descriptor w =
      move_desc(layer, MemSpace::kDram, w_dram + c0 * per + skip, MemSpace::kL2, w_l2,
                block == per ? 1 : ch, static_cast<uint32_t>(block == per ? ch * per : block),
                static_cast<uint32_t>(block == per ? 0 : per),
                static_cast<uint32_t>(block == per ? 0 : block), deps);
  Descriptor b = move_desc(layer, MemSpace::kDram, b_dram + uint64_t(c0) * 4, MemSpace::kL2, b_l2,
                           1, ch * 4, 0, 0, deps);
  w.move.background = b.move.background = background;
  out_.layers[layer].weight_bytes += ch * block + uint64_t(ch) * 4;
  const uint32_t w_id = emit(std::move(w));
  return {w_id, emit(std::move(b))};
}

}  // namespace strider
