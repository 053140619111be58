// Row bands of a node with a tensor in DRAM (see lowering.h): tiles of output rows x output
// channels whose spilled inputs arrive through in-band buffers and whose spilled output leaves
// through out-band buffers. A node with weights runs its tiles in one of three loop orders (W its
// weights and biases, F the input fills of one image with the bands outer, B its row bands,
// K its channel blocks, N the images):
//
// - inputs_outer (images_outside with a batch): image after image, band after band; every weight
//   block is staged again per band of each image, an input band is filled once and read by every
//   channel block. DRAM bytes N x (B x W + F).
// - weights_outer (images_inside): channel block by channel block, the block staged once and
//   reused by every band of every image (the batch loop inside the weight block); an input band
//   is filled again for each block that reads it (a conv over all input channels) or once
//   (channel-local: depthwise, pooling). W + N x K x F, or W + N x F.
// - images_grouped (a batch, one input, not channel-local): band after band, a group of G images
//   (G the in-band slots) fills one band each, then each weight block is staged once for the
//   group. B x ceil(N / G) x W + N x F.
//
// By itself the lowering takes inputs_outer for one image and, for a batch, the order with the
// fewest DRAM bytes (output spills are the same in all; a spilled second operand or residual is
// refilled per tile, so inputs outer); the mapping search (mapper.h) may fix another
// (node_order_). LayerReport::batch_order records a batch's.
#include <algorithm>
#include <stdexcept>

#include "planner/lower/lowerer.h"

namespace strider {

const char* to_string(LoopOrder o) {
  switch (o) {
    case LoopOrder::kWeightsOuter:
      return "weights_outer";
    case LoopOrder::kGrouped:
      return "images_grouped";
    case LoopOrder::kInputsOuter:
      return "inputs_outer";
    default:
      return "default";
  }
}

namespace {

// LayerReport::batch_order's name of a batch's loop order.
const char* batch_name(LoopOrder o) {
  return o == LoopOrder::kWeightsOuter ? "images_inside"
         : o == LoopOrder::kGrouped    ? "images_grouped"
                                       : "images_outside";
}

}  // namespace

uint64_t Lowerer::band_input_bytes(const Node& n, uint32_t r0, uint32_t rows, uint32_t c0,
                                   uint32_t cb) const {
  uint32_t y0, y1, i0, i1;
  input_rows(n, r0, r0 + rows, &y0, &y1);
  input_channels(n, c0, c0 + cb, &i0, &i1);
  return uint64_t(i1 - i0) * (y1 - y0) * uint64_t(g_.tensors[n.inputs[0]].shape.w);
}

bool Lowerer::band_fits(const Node& n, uint32_t rows, uint32_t cb) const {
  const TensorShape& out = g_.tensors[n.result()].shape;
  const uint32_t out_c = uint32_t(out.c), out_h = uint32_t(out.h);
  const uint64_t out_band = uint64_t(cb) * rows * uint64_t(out.w);
  if (layout_.tensor_spilled[n.result()] && out_band > out_bands_.slot_bytes) return false;
  // A spilled second MatMul operand is filled per channel block: the part those outputs read.
  const bool b_spilled = n.op == OpType::kMatMul && layout_.tensor_spilled[n.inputs[1]];
  for (uint32_t c0 = 0; b_spilled && c0 < out_c; c0 += cb) {
    uint32_t i0, i1, y0, y1;
    matmul_b_range(n, c0, std::min(out_c, c0 + cb), &i0, &i1, &y0, &y1);
    const uint64_t b_w = uint64_t(g_.tensors[n.inputs[1]].shape.w);
    const uint64_t b_band = uint64_t(i1 - i0) * (y1 - y0) * b_w;
    if (b_band > in_bands_.slot_bytes) return false;
  }
  // A fused residual Add's spilled operand: the tile's rows and channels, filled per tile.
  if (n.residual.fused && layout_.tensor_spilled[n.inputs[1]] && out_band > in_bands_.slot_bytes) {
    return false;
  }
  const bool in_spilled = std::any_of(n.inputs.begin(), n.inputs.end(),
                                      [&](int t) { return bool(layout_.tensor_spilled[t]); });
  for (uint32_t r0 = 0; in_spilled && r0 < out_h; r0 += rows) {
    const uint64_t in_band = band_input_bytes(n, r0, std::min(rows, out_h - r0), 0, cb);
    if (in_band > in_bands_.slot_bytes) return false;
  }
  return true;
}

uint64_t Lowerer::banded_dram_bytes(const Node& n, uint32_t rows, uint32_t cb, uint32_t images,
                                    LoopOrder o) const {
  const TensorShape& out = g_.tensors[n.result()].shape;
  const uint32_t out_c = uint32_t(out.c), out_h = uint32_t(out.h);
  const uint64_t bands = (out_h + rows - 1) / rows, blocks = (out_c + cb - 1) / cb;
  uint64_t fill = 0;  // one image's input fills with the bands outer
  for (uint32_t r0 = 0; layout_.tensor_spilled[n.inputs[0]] && r0 < out_h; r0 += rows) {
    const uint32_t rb = std::min(rows, out_h - r0);
    if (!channel_local(n)) {
      fill += band_input_bytes(n, r0, rb, 0, cb);
    } else {
      for (uint32_t c0 = 0; c0 < out_c; c0 += cb)
        fill += band_input_bytes(n, r0, rb, c0, std::min(cb, out_c - c0));
    }
  }
  const uint64_t w = n.weights >= 0 ? uint64_t(out_c) * staged_bytes_per_channel(n) : 0;
  switch (o) {
    case LoopOrder::kWeightsOuter:
      return w + images * (channel_local(n) ? fill : blocks * fill);
    case LoopOrder::kGrouped: {
      const uint64_t group = std::max<uint64_t>(1, in_bands_.last_user.size());
      return bands * ((images + group - 1) / group) * w + images * fill;
    }
    default:
      return images * (bands * w + fill);
  }
}

bool Lowerer::banded_order_legal(const Node& n, uint32_t images, LoopOrder o) const {
  if (o == LoopOrder::kInputsOuter) return true;
  // A spilled second MatMul operand or fused residual Add operand is filled per tile.
  const bool b_spilled = (n.op == OpType::kMatMul || n.residual.fused) && n.inputs.size() > 1 &&
                         layout_.tensor_spilled[n.inputs[1]];
  if (n.weights < 0 || b_spilled) return false;
  if (o == LoopOrder::kWeightsOuter) return true;
  return o == LoopOrder::kGrouped && images > 1 && n.inputs.size() == 1 && !channel_local(n) &&
         in_bands_.last_user.size() > 1;
}

LoopOrder Lowerer::banded_default_order(const Node& n, uint32_t rows, uint32_t cb,
                                        uint32_t images) const {
  if (images < 2 || n.weights < 0) return LoopOrder::kInputsOuter;
  LoopOrder best = LoopOrder::kInputsOuter;
  uint64_t bytes = banded_dram_bytes(n, rows, cb, images, best);
  for (LoopOrder o : {LoopOrder::kWeightsOuter, LoopOrder::kGrouped}) {
    const uint64_t b =
        banded_order_legal(n, images, o) ? banded_dram_bytes(n, rows, cb, images, o) : UINT64_MAX;
    if (b < bytes) best = o, bytes = b;
  }
  return best;
}

void Lowerer::lower_banded(const Node& n, uint32_t layer, uint32_t images) {
  const OpDesc base0 = base_op(n);  // image 0: shapes and the tile plan are the same for each
  // The conv's result (a fused global pool's output, never spilled, is written in place).
  const int out_t = n.result();
  const bool out_spilled = layout_.tensor_spilled[out_t];
  const uint32_t out_c = base0.output.c, out_h = base0.output.h;
  auto in_bytes = [&](uint32_t r0, uint32_t rows, uint32_t c0, uint32_t cb) {
    return band_input_bytes(n, r0, rows, c0, cb);
  };
  // A spilled second MatMul operand, or a fused residual Add's operand, is filled per tile.
  const bool b_spilled =
      (n.op == OpType::kMatMul || n.residual.fused) && layout_.tensor_spilled[n.inputs[1]];
  auto fits = [&](uint32_t rows, uint32_t cb) { return band_fits(n, rows, cb); };
  uint32_t cb = n.weights >= 0 ? weight_block(n) : out_c;
  while (cb > 1 && !fits(1, cb)) cb = (cb + 1) / 2;
  if (!fits(1, cb) && n.op == OpType::kConv && n.groups == 1 && !psums_.last_user.empty() &&
      layout_.tensor_spilled[n.inputs[0]]) {
    std::vector<uint32_t> done;
    for (image_ = 0; image_ < images; ++image_) {  // image after image
      lower_partial_sums(n, layer, base_op(n));
      done.insert(done.end(), last_desc_[out_t].begin(), last_desc_[out_t].end());
    }
    for (int t : n.outputs) last_desc_[t] = done;
    if (images > 1 && n.weights >= 0)
      out_.layers[layer].batch_order = batch_name(LoopOrder::kInputsOuter);
    return;
  }
  if (!fits(1, cb)) {
    uint64_t need = 0;
    for (uint32_t r = 0; r < out_h; ++r) need = std::max(need, in_bytes(r, 1, 0, cb));
    throw std::runtime_error("node '" + n.name + "': one output row needs " + std::to_string(need) +
                             " bytes of input, more than the row-band buffer of " +
                             std::to_string(in_bands_.slot_bytes) + " bytes");
  }
  uint32_t rows = band_rows(n, base0);
  while (rows > 1 && !fits(rows, cb)) rows = (rows + 1) / 2;
  // A spilled output leaves as one piece per channel of each band (channel-planar): a band
  // narrower than a DMA burst makes each piece a burst of its own (Transformer_short's Embedding,
  // 512 rows x 1 column x 33,708 channels: one-byte pieces, 34.5 B moved per output byte). Then
  // fewer channels of more rows: the block halves until a band holds a burst per channel. (Not
  // when the mapping search fixed the node's block or rows.)
  const size_t idx = size_t(&n - g_.nodes.data());
  const bool searched = (idx < node_block_.size() && node_block_[idx] != 0) ||
                        (idx < node_rows_.size() && node_rows_[idx] != 0);
  const uint32_t out_w = std::max<uint32_t>(1, base0.output.w);
  const uint32_t burst_rows = std::min(out_h, (arch_.dma.burst_bytes + out_w - 1) / out_w);
  if (out_spilled && !searched && rows < burst_rows && band_rows(n, base0) >= burst_rows) {
    uint32_t narrow = cb;
    while (narrow > 1 && !fits(burst_rows, narrow)) narrow = (narrow + 1) / 2;
    if (fits(burst_rows, narrow)) {
      cb = narrow;
      rows = band_rows(n, base0);
      while (rows > burst_rows && !fits(rows, cb)) rows = std::max(burst_rows, (rows + 1) / 2);
    }
  }

  // The loop order (see the header): the search's, where this node can run it, else its own.
  LoopOrder order = idx < node_order_.size() ? node_order_[idx] : LoopOrder::kDefault;
  if (order == LoopOrder::kDefault || !banded_order_legal(n, images, order)) {
    order = banded_default_order(n, rows, cb, images);
  }
  if (images > 1 && n.weights >= 0) out_.layers[layer].batch_order = batch_name(order);
  const uint64_t group = in_bands_.last_user.size();

  // Tiles wait for the producers of spilled inputs through their fills (see fill_band).
  std::vector<uint32_t> producers, done;
  for (int t : n.inputs) {
    if (!layout_.tensor_spilled[t])
      producers.insert(producers.end(), last_desc_[t].begin(), last_desc_[t].end());
  }
  // Fills of each spilled input for the current band, shared by the channel blocks that need the
  // same input channels (all of them for a conv over every input channel).
  struct BandInput {
    uint32_t slot = UINT32_MAX;
    TensorRef ref;
    uint32_t fill = 0;
  };
  std::vector<std::vector<BandInput>> band_in(images, std::vector<BandInput>(n.inputs.size()));
  uint32_t last = 0;
  // A tile's spill is emitted after the next tile's fills and weight-staging moves: the DMA
  // issues its moves in order, and a spill waits for its tile, so emitted right after the tile it
  // would hold the next tile's fills and weights behind it and the tiles would wait for every
  // spill (mobilenet_v2's features.2 conv.0 ran compute + spill time, 181,198 cycles against a
  // 94,425-cycle DRAM bound). The out-band slots are two, so the next tile writes the other.
  struct PendingSpill {
    bool present = false;
    TensorRef home;  // the output of the tile's image
    uint32_t slot = 0, c0 = 0, c1 = 0, r0 = 0, r1 = 0, tile = 0;
  } spill;
  auto flush_spill = [&] {
    if (!spill.present) return;
    done.push_back(spill_band(layer, spill.home, spill.slot, spill.c0, spill.c1, spill.r0, spill.r1,
                              spill.tile));
    spill.present = false;
  };
  TensorRef staged_w, staged_b;  // the weights and biases of the last staged block
  // One tile of image image_ (base its tensors): rows [r0, r1) x channels [c0, c1); `stage`:
  // its weights go into a new staging slot, else it reads the slot `slot` staged for it.
  auto tile = [&](const OpDesc& base, uint32_t r0, uint32_t r1, uint32_t c0, uint32_t c1,
                  bool stage, uint32_t slot) {
    Descriptor d = op_tile(n, layer, base, r0, r1, c0, c1);
    d.deps = producers;
    row_deps(n, r0, r1, &d.deps);  // a graph input loading in chunks
    std::vector<uint32_t> used_slots;
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      const int t = n.inputs[k];
      if (!layout_.tensor_spilled[t]) continue;
      // A fused input scale is never spilled here (check_fused_scales refuses it).
      TensorRef& r = k == 0 ? d.op.input : n.residual.fused ? d.op.post.operand : d.op.input2;
      // With B refilled per tile, A is too: the two in-band slots alternate between them.
      const bool matmul_b = n.op == OpType::kMatMul && k == 1;
      BandInput& b = band_in[image_][k];
      if (b.slot == UINT32_MAX || channel_local(n) || b_spilled) {
        uint32_t y0, y1, i0, i1;
        input_rows(n, r0, r1, &y0, &y1);
        input_channels(n, c0, c1, &i0, &i1);
        if (matmul_b) matmul_b_range(n, c0, c1, &i0, &i1, &y0, &y1);
        if (k == 1 && n.residual.fused) y0 = r0, y1 = r1, i0 = c0, i1 = c1;  // the tile's own
        if (r.h == 1) y0 = 0, y1 = 1;                                        // broadcast operand
        if (r.c == 1) i0 = 0, i1 = 1;
        if (y1 == y0) {  // a band of padding only: fetch one row anyway (it is not read)
          y0 = std::min(y0, r.h - 1);
          y1 = y0 + 1;
        }
        b.fill = fill_band(layer, r, last_desc_[t], i0, i1, y0, y1, &b.ref, &b.slot);
      }
      r = b.ref;
      d.deps.push_back(b.fill);
      used_slots.push_back(b.slot);
    }
    const uint32_t out_slot = out_spilled ? band_output(d) : UINT32_MAX;
    if (n.weights >= 0 && stage) {
      stage_weights(n, layer, c0, c1, d);
      staged_w = d.op.weights, staged_b = d.op.bias;
    } else if (n.weights >= 0) {
      // A reader of an already staged slot: the slot's next writer waits for it too.
      d.op.weights = staged_w, d.op.bias = staged_b;
      staging_.last_user[slot] = -2 - static_cast<int>(slot);
    }
    flush_spill();  // the previous tile's spill, behind this tile's fills and staging moves
    last = emit_tile(std::move(d), layer);
    for (uint32_t s : used_slots) in_bands_.last_user[s] = int(last);
    if (out_spilled) spill = PendingSpill{true, ref(out_t), out_slot, c0, c1, r0, r1, last};
  };
  auto reset_bands = [&](uint32_t i) {
    for (BandInput& b : band_in[i]) b.slot = UINT32_MAX;
  };
  std::vector<OpDesc> image_base(images);
  for (image_ = 0; image_ < images; ++image_) image_base[image_] = image_ == 0 ? base0 : base_op(n);
  // Tiles of images [i0, i1) x rows [r0, r1) x channels [c0, c1) on one staged weight block.
  auto shared_block = [&](uint32_t i0, uint32_t i1, uint32_t r0, uint32_t r1, uint32_t c0,
                          uint32_t c1, bool reset) {
    bool stage = true;
    uint32_t slot = 0;
    for (image_ = i0; image_ < i1; ++image_) {
      for (uint32_t b0 = r0; b0 < r1; b0 += rows) {
        if (reset) reset_bands(image_);
        tile(image_base[image_], b0, std::min(r1, b0 + rows), c0, c1, stage, slot);
        if (stage &&
            n.weights >= 0) {  // the slot stage_weights just filled (the ring's previous one)
          const size_t ring = staging_.last_user.size();
          slot = uint32_t((staging_.next + ring - 1) % ring);
        }
        stage = false;
      }
    }
  };
  if (order == LoopOrder::kWeightsOuter) {
    for (uint32_t c0 = 0; c0 < out_c; c0 += cb)
      shared_block(0, images, 0, out_h, c0, std::min(out_c, c0 + cb), true);
  } else if (order == LoopOrder::kGrouped) {
    for (uint32_t r0 = 0; r0 < out_h; r0 += rows) {
      const uint32_t r1 = std::min(out_h, r0 + rows);
      for (uint32_t i0 = 0; i0 < images; i0 += uint32_t(group)) {
        const uint32_t i1 = std::min<uint32_t>(images, i0 + uint32_t(group));
        for (uint32_t i = i0; i < i1; ++i) reset_bands(i);
        for (uint32_t c0 = 0; c0 < out_c; c0 += cb)
          shared_block(i0, i1, r0, r1, c0, std::min(out_c, c0 + cb), false);
      }
    }
  } else {
    for (image_ = 0; image_ < images; ++image_) {
      for (uint32_t r0 = 0; r0 < out_h; r0 += rows) {
        reset_bands(image_);
        for (uint32_t c0 = 0; c0 < out_c; c0 += cb) {
          tile(image_base[image_], r0, std::min(out_h, r0 + rows), c0, std::min(out_c, c0 + cb),
               true, 0);
        }
      }
    }
  }
  // Consumers wait for the last tile and, for a spilled output, for every spill (DMA channels
  // finish out of order).
  flush_spill();
  done.push_back(last);
  for (int t : n.outputs) last_desc_[t] = done;
}

}  // namespace strider
