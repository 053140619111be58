// Input-channel blocks with int32 partial sums (see lowering.h): the last resort of the row-band
// lowering when one output row of a convolution's input does not fit an L2 band buffer.
#include <algorithm>
#include <stdexcept>

#include "planner/lower/lowerer.h"

namespace strider {

// A conv whose one output row of input does not fit a band buffer: its input channels are split
// into blocks that do, each tile accumulating int32 partial sums in an L2 psum buffer; the last
// block adds them up, requantises and writes the output. Band by band, channel block by block.
void Lowerer::lower_partial_sums(const Node& n, uint32_t layer, const OpDesc& base) {
  const int out_t = n.outputs[0];
  const bool out_spilled = layout_.tensor_spilled[out_t];
  const TensorRef in = base.input;
  const uint32_t out_c = base.output.c, out_h = base.output.h, out_w = base.output.w;
  auto rows_in = [&](uint32_t r0, uint32_t rows) {
    uint32_t y0, y1;
    input_rows(n, r0, r0 + rows, &y0, &y1);
    return uint64_t(std::max(y1, y0 + 1) - y0);
  };
  uint64_t widest = 0;  // input rows one output row reads, at most
  for (uint32_t r = 0; r < out_h; ++r) widest = std::max(widest, rows_in(r, 1));
  const uint32_t ib = static_cast<uint32_t>(
      std::min<uint64_t>(in.c, in_bands_.slot_bytes / (widest * in.w)));
  if (ib == 0) {
    throw std::runtime_error("node '" + n.name + "': one input channel of one output row needs " +
                             std::to_string(widest * in.w) + " bytes, more than the row-band buffer of " +
                             std::to_string(in_bands_.slot_bytes) + " bytes");
  }
  uint32_t cb = weight_block(n);
  auto fits = [&](uint32_t rows, uint32_t c) {
    if (uint64_t(c) * rows * out_w * 4 > psums_.slot_bytes) return false;
    if (out_spilled && uint64_t(c) * rows * out_w > out_bands_.slot_bytes) return false;
    if (n.residual.fused && layout_.tensor_spilled[n.inputs[1]] &&
        uint64_t(c) * rows * out_w > in_bands_.slot_bytes) {
      return false;
    }
    for (uint32_t r0 = 0; r0 < out_h; r0 += rows) {
      if (uint64_t(ib) * rows_in(r0, std::min(rows, out_h - r0)) * in.w > in_bands_.slot_bytes) return false;
    }
    return true;
  };
  while (cb > 1 && !fits(1, cb)) cb = (cb + 1) / 2;
  if (!fits(1, cb)) {
    throw std::runtime_error("node '" + n.name + "': one output row of one channel does not fit the "
                             "partial-sum buffer of " + std::to_string(psums_.slot_bytes) + " bytes");
  }
  uint32_t rows = band_rows(base);
  while (rows > 1 && !fits(rows, cb)) rows = (rows + 1) / 2;

  // The input is spilled: tiles wait for its producers through their fills (see fill_band).
  const std::vector<uint32_t> producers;
  std::vector<uint32_t> spills;
  uint32_t last = 0;
  for (uint32_t r0 = 0; r0 < out_h; r0 += rows) {
    const uint32_t r1 = std::min(out_h, r0 + rows);
    uint32_t y0, y1;
    input_rows(n, r0, r1, &y0, &y1);
    if (y1 == y0) y0 = std::min(y0, in.h - 1), y1 = y0 + 1;  // padding only: one row, unread
    for (uint32_t c0 = 0; c0 < out_c; c0 += cb) {
      const uint32_t c1 = std::min(out_c, c0 + cb);
      const uint32_t ps = psums_.take();
      TensorRef psum{MemSpace::kL2, psums_.addr(ps), c1 - c0, r1 - r0, out_w,
                     out_w * 4, (r1 - r0) * out_w * 4, 4};
      psum.first_channel = c0, psum.first_row = r0;
      std::vector<uint32_t> chain = psums_.war(ps);  // the previous user of the psum slot
      // A spilled output's band slot is taken by the chain's first block, so every block names
      // the L2 slot the last one writes (the blocks before it write partial sums only).
      uint32_t out_slot = UINT32_MAX;
      TensorRef out_ref;
      for (uint32_t i0 = 0; i0 < in.c; i0 += ib) {
        const uint32_t i1 = std::min(in.c, i0 + ib);
        const bool first = i0 == 0, final = i1 == in.c;
        Descriptor d = op_tile(n, layer, base, r0, r1, c0, c1);
        d.op.in_ch_begin = i0, d.op.in_ch_end = i1;
        d.op.psum_mode = (first ? 0 : OpDesc::kPsumRead) | (final ? 0 : OpDesc::kPsumWrite);
        d.op.psum = psum;
        d.deps = producers;
        d.deps.insert(d.deps.end(), chain.begin(), chain.end());
        // The input block's rows, filled into the next in-band slot.
        uint32_t slot;
        d.deps.push_back(fill_band(layer, in, last_desc_[n.inputs[0]], i0, i1, y0, y1, &d.op.input,
                                   &slot));
        if (out_spilled && first) {
          out_slot = band_output(d);
          out_ref = d.op.output;
        } else if (out_spilled) {
          d.op.output = out_ref;
        }
        const bool spill = final && out_spilled;
        // A fused residual Add applies to the final block's output only; its operand's tile is
        // filled like an input block when spilled.
        uint32_t post_slot = UINT32_MAX;
        if (!final) {
          d.op.post = PostOp();
        } else if (n.residual.fused && layout_.tensor_spilled[n.inputs[1]]) {
          d.deps.push_back(fill_band(layer, base.post.operand, last_desc_[n.inputs[1]], c0, c1,
                                     r0, r1, &d.op.post.operand, &post_slot));
        } else if (n.residual.fused) {
          const std::vector<uint32_t>& p = last_desc_[n.inputs[1]];
          d.deps.insert(d.deps.end(), p.begin(), p.end());
        }
        stage_weights(n, layer, c0, c1, d, i0, i1);
        last = emit_tile(std::move(d), layer);
        in_bands_.last_user[slot] = int(last);
        if (post_slot != UINT32_MAX) in_bands_.last_user[post_slot] = int(last);
        chain = {last};  // the next block reads these partial sums
        if (spill) {
          spills.push_back(spill_band(layer, ref(out_t), out_slot, c0, c1, r0, r1, last));
        }
      }
      psums_.last_user[ps] = int(last);
    }
  }
  spills.push_back(last);
  for (int t : n.outputs) last_desc_[t] = spills;
}

}  // namespace strider
