// Depthwise fused with its producer (part of Lowerer; docs/planner.md, "Depthwise fused with its
// producer"). Where the memory plan spills a tensor T written by one conv P and read only by the
// depthwise conv C of the next schedule step (groups == channels, a kernel over more than one
// row), P and C are lowered interleaved in row bands: per band of C's output rows and block of
// T's channels, P's tiles compute the rows of T that band reads (input_rows of C) into an in-band
// buffer of L2, then C's tiles read them there. T is never written to or read from DRAM and the
// activation plan never holds it (plan_activations' to_dram: its DRAM home is never touched).
//
// The halo (the k - s rows two bands of C both read) is recomputed by P, not kept: a P tile per
// band and channel block with no dependency between bands but through the two in-band slots, and
// no L2->L2 move. Keeping it would take a 2-D move of block x (k - s) rows per band onto the next
// slot's top (setup + bytes / DMA width on the DMA, the bytes twice on the L2 ports) in the chain
// P(band b) -> move -> C(band b + 1), and a P tile of the remaining rows; recomputing costs P's
// tile cycles for (k - s) more rows, which the band height below makes a small share: with blocks
// of 8 channels an in-band slot of L2 / 16 holds bands of 57 and more of T's 112-column rows, so
// mobilenet_v2 runs each pair in 2 bands: features.0 recomputes the 2 halo rows of features.1
// conv.0 (k 3, s 1) once, 1.8 % more MACs, features.2 conv.0 the 1 row of conv.1 (k 3, s 2), 0.9 %
// (layers.csv). dw_bands picks the block and band height: every block from the
// smaller of the two layers' weight blocks down by halves (while at least one accumulator group,
// or until one fits), each with the tallest band whose input rows fit an in-band slot (and C's
// output band an out-band slot when C's output spills); the cheapest by the closed-form tile cost
// (tile_cycles, as mapping_cost) summed over both layers' tiles.
//
// The choice (memory_layout.cpp, plan_memory): the plan with the pairs against the plan without,
// each costed per step as max(tiles, DRAM bytes at the DRAM's peak) (plan_cycles), a fused pair
// as one step of its band tiles and its DRAM bytes less T's write and read; the plan with the
// pairs is kept only when predicted faster. `lowering.fuse: false` fuses none.
//
// Legal (dw_legal): both convs with weights, neither with a fused max-pool or residual Add, P
// with one input that stays in L2 (a graph input included), C reading only T, T read by C alone
// and neither a graph input nor output, one image or both steps inside one image segment (each
// image's pass runs the pair), no partial sums. Both
// layers keep their own layer (report row, mapping row); their spans overlap.
#include <algorithm>

#include "core/arch/dram_bandwidth.h"
#include "core/common/ceil_div.h"
#include "core/timing/tile_work.h"
#include "planner/lower/lowerer.h"

namespace strider {

uint64_t Lowerer::tile_cycles(const OpDesc& base, uint32_t r0, uint32_t r1, uint32_t c0,
                              uint32_t c1) const {
  OpDesc t = base;
  t.row_begin = r0, t.row_end = r1;
  t.ch_begin = c0, t.ch_end = c1;
  const uint32_t port = arch_.l2.port_bytes_per_cycle;
  return strider::tile_cycles(compute_tile_work(t, arch_.l1, arch_.neurons, port), port);
}

bool Lowerer::dw_legal(const Node& p, const Node& c, int64_t step) const {
  if (!arch_.lowering.fuse || !psums_.last_user.empty()) return false;
  // A batch: both steps inside one image segment (each image's pass runs the pair for it).
  bool in_segment = false;
  for (const StepRange& r : opt_.image_segments) {
    if (r.first <= step && step <= r.last) {
      if (step + 1 > r.last) return false;
      in_segment = true;
    } else if (r.first <= step + 1 && step + 1 <= r.last) {
      return false;
    }
  }
  if (p.op != OpType::kConv || c.op != OpType::kConv || p.weights < 0 || c.weights < 0)
    return false;
  if (p.pool.fused || c.pool.fused || p.residual.fused || c.residual.fused) return false;
  if (p.inputs.size() != 1 || p.outputs.size() != 1 || c.inputs.size() != 1) return false;
  const int t = p.outputs[0];
  if (c.inputs[0] != t || is_input_[size_t(t)] || is_output_[size_t(t)]) return false;
  const TensorShape& ts = g_.tensors[size_t(t)].shape;
  if ((ts.n != 1 && !in_segment) || c.groups != ts.c ||
      int64_t(g_.tensors[size_t(c.outputs[0])].shape.c) != ts.c) {
    return false;
  }
  if (c.kernel_h < 2) return false;  // a window over more than one row of T
  if (!layout_.tensor_spilled[size_t(t)] || layout_.tensor_spilled[size_t(p.inputs[0])]) {
    return false;
  }
  const std::vector<std::vector<int>> readers = g_.consumers();
  const int ci = int(&c - g_.nodes.data());
  if (readers[size_t(t)] != std::vector<int>{ci}) return false;
  return dw_bands(p, c).block > 0;
}

std::vector<Lowerer::DwPair> Lowerer::dw_candidates(const std::vector<int>& order) const {
  std::vector<DwPair> pairs;
  for (size_t s = 0; s + 1 < order.size(); ++s) {
    const Node& p = g_.nodes[size_t(order[s])];
    const Node& c = g_.nodes[size_t(order[s + 1])];
    if (!dw_legal(p, c, int64_t(s))) continue;
    pairs.push_back({order[s], order[s + 1], int64_t(s)});
    ++s;  // a pair's C is no pair's P
  }
  return pairs;
}

Lowerer::DwBands Lowerer::dw_bands(const Node& p, const Node& c) const {
  const OpDesc pb = base_op(p, false), cb = base_op(c, false);
  const TensorShape& ts = g_.tensors[size_t(p.outputs[0])].shape;
  const uint32_t t_c = uint32_t(ts.c), t_w = uint32_t(ts.w);
  const uint32_t out_h = cb.output.h, out_w = cb.output.w;
  const bool out_spilled = layout_.tensor_spilled[size_t(c.result())];
  const uint32_t p_rows = band_rows(pb), c_rows = band_rows(cb);
  auto fits = [&](uint32_t rows, uint32_t block) {
    for (uint32_t r0 = 0; r0 < out_h; r0 += rows) {
      uint32_t y0, y1;
      input_rows(c, r0, std::min(out_h, r0 + rows), &y0, &y1);
      if (uint64_t(block) * (y1 - y0) * t_w > in_bands_.slot_bytes) return false;
    }
    const uint64_t out_band = uint64_t(block) * std::min(rows, c_rows) * out_w;
    return !out_spilled || out_band <= out_bands_.slot_bytes;
  };
  DwBands best;
  if (in_bands_.last_user.empty()) return best;
  const uint32_t unit = arch_.neurons.accumulators;
  for (uint32_t block = std::min(weight_block(p), weight_block(c));; block = (block + 1) / 2) {
    uint32_t rows = out_h;
    while (rows > 1 && !fits(rows, block)) --rows;
    if (fits(rows, block)) {
      uint64_t cycles = 0;
      for (uint32_t r0 = 0; r0 < out_h; r0 += rows) {
        const uint32_t r1 = std::min(out_h, r0 + rows);
        uint32_t y0, y1;
        input_rows(c, r0, r1, &y0, &y1);
        for (uint32_t c0 = 0; c0 < t_c; c0 += block) {
          const uint32_t c1 = std::min(t_c, c0 + block);
          for (uint32_t q = y0; q < y1; q += p_rows)
            cycles += tile_cycles(pb, q, std::min(y1, q + p_rows), c0, c1);
          for (uint32_t q = r0; q < r1; q += c_rows)
            cycles += tile_cycles(cb, q, std::min(r1, q + c_rows), c0, c1);
        }
      }
      if (best.block == 0 || cycles < best.cycles) best = {block, rows, cycles};
    }
    if (block == 1 || (best.block != 0 && (block + 1) / 2 < unit)) break;
  }
  return best;
}

uint64_t Lowerer::plan_cycles(const std::vector<int>& order) const {
  const auto dram = [&](uint64_t bytes) { return dram_peak_cycles(arch_, bytes); };
  uint64_t total = 0;
  for (size_t s = 0; s < order.size(); ++s) {
    const Node& n = g_.nodes[size_t(order[s])];
    const int c = dw_reader_[size_t(order[s])];
    if (c < 0) {
      total += std::max(step_cycles(n), dram(step_dram_bytes(n)));
      continue;
    }
    const Node& cn = g_.nodes[size_t(c)];
    const uint64_t t_bytes = uint64_t(g_.tensors[size_t(n.outputs[0])].bytes());
    const uint64_t bytes = step_dram_bytes(n) + step_dram_bytes(cn) - 2 * t_bytes;
    total += std::max(dw_bands(n, cn).cycles, dram(bytes));
    ++s;
  }
  return total;
}

void Lowerer::lower_dw_pair(const Node& p, uint32_t p_layer) {
  const size_t pi = size_t(&p - g_.nodes.data());
  const int ci = dw_reader_[pi];
  const Node& c = g_.nodes[size_t(ci)];
  // C's layer: added by the first pass of an image segment (or the only one), reused by the others.
  uint32_t c_layer = uint32_t(node_layer_[size_t(ci)]);
  if (node_layer_[size_t(ci)] < 0) {
    c_layer = add_layer(c.name, to_string(c.op));
    node_layer_[size_t(ci)] = int(c_layer);
    out_.layer_node[c_layer] = ci;
    out_.layers[c_layer].macs = static_cast<uint64_t>(node_macs(g_, c));
  }
  if (in_segment_) {  // this image's descriptors of C start here (as lower_step marks P's)
    out_.layer_image_first.resize(out_.layers.size());
    out_.layer_image_first[c_layer].push_back(uint32_t(out_.list.descriptors.size()));
    out_.layers[c_layer].batch_order = "image_segment";
  }
  // Each layer's staging ring, weights in DRAM and fill count, swapped in around its tiles.
  struct Staging {
    SlotRing ring;
    uint64_t w = 0, b = 0;
    uint32_t fills = 0;
  } ps{staging_, w_dram_, b_dram_, fills_}, cs{node_staging_[size_t(ci)], 0, 0, 0};
  std::tie(cs.w, cs.b) = place_weights(c);
  auto use = [&](Staging& s) { staging_ = s.ring, w_dram_ = s.w, b_dram_ = s.b, fills_ = s.fills; };
  auto keep = [&](Staging& s) { s.ring = staging_, s.fills = fills_; };
  // A layer whose every channel's weights fit one staging slot (mobilenet_v2's: 1.5 KB and less
  // against 32 KB) stages them once, and each tile reads its channels' part of the slot; else
  // each band stages its block (the tiles would wait for a weight fill each: DRAM latency).
  struct Staged {
    bool once = false, done = false;
    uint32_t slot = 0;
    std::vector<uint32_t> moves;
    TensorRef w, b;
  };
  const uint32_t all_c = uint32_t(g_.tensors[size_t(p.outputs[0])].shape.c);
  auto fits_once = [&](const Node& n, const SlotRing& ring) {
    const uint64_t align = arch_.l2.alignment_bytes;
    const uint64_t w = align_up(uint64_t(all_c) * weights_per_channel(n), align);
    return w + align_up(uint64_t(all_c) * 4, align) <= ring.slot_bytes;
  };
  Staged p_staged, c_staged;
  p_staged.once = fits_once(p, ps.ring);
  c_staged.once = fits_once(c, cs.ring);
  // Stages node n's weights for descriptor d's channels [c0, c1), or points d at the part of the
  // slot staged once.
  auto stage = [&](const Node& n, uint32_t layer, Descriptor& d, Staged& st, uint32_t c0,
                   uint32_t c1) {
    if (!st.once) {
      stage_weights(n, layer, c0, c1, d);
      return;
    }
    if (!st.done) {
      const size_t before = d.deps.size();
      stage_weights(n, layer, 0, all_c, d);
      st.moves.assign(d.deps.begin() + std::ptrdiff_t(before), d.deps.end());
      st.w = d.op.weights, st.b = d.op.bias;
      const size_t ring = staging_.last_user.size();
      st.slot = uint32_t((staging_.next + ring - 1) % ring);
      st.done = true;
    } else {
      d.deps.insert(d.deps.end(), st.moves.begin(), st.moves.end());
      staging_.last_user[st.slot] = -2 - static_cast<int>(st.slot);
    }
    d.op.weights = st.w, d.op.bias = st.b;
    d.op.weights.addr += uint64_t(c0) * st.w.channel_stride;
    d.op.bias.addr += uint64_t(c0) * st.b.channel_stride;
    d.op.weights.c = d.op.bias.c = c1 - c0;
  };

  const DwBands bands = dw_bands(p, c);
  const OpDesc pb = base_op(p), cb = base_op(c);
  // C's result (with a fused global pool whose result is never stored: written nowhere).
  const int t = p.outputs[0], out_t = c.result();
  const bool out_spilled = layout_.tensor_spilled[size_t(out_t)];
  const uint32_t t_c = pb.output.c, out_h = cb.output.h;
  const uint32_t p_rows = band_rows(pb), c_rows = band_rows(cb);
  const std::vector<uint32_t> producers = input_deps(p);
  std::vector<uint32_t> done, p_tiles;
  // C's spilled output band leaves after the next tile's staging (as lower_banded's spills).
  struct PendingSpill {
    bool present = false;
    uint32_t slot = 0, c0 = 0, c1 = 0, r0 = 0, r1 = 0, tile = 0;
  } spill;
  auto flush_spill = [&] {
    if (!spill.present) return;
    done.push_back(spill_band(c_layer, ref(out_t), spill.slot, spill.c0, spill.c1, spill.r0,
                              spill.r1, spill.tile));
    spill.present = false;
  };
  uint32_t last = 0;
  for (uint32_t r0 = 0; r0 < out_h; r0 += bands.rows) {
    const uint32_t r1 = std::min(out_h, r0 + bands.rows);
    uint32_t y0, y1;
    input_rows(c, r0, r1, &y0, &y1);
    for (uint32_t c0 = 0; c0 < t_c; c0 += bands.block) {
      const uint32_t c1 = std::min(t_c, c0 + bands.block);
      // T's rows [y0, y1) x channels [c0, c1) in the next in-band slot, after its last reader.
      const uint32_t slot = in_bands_.take();
      TensorRef band = pb.output;
      band.space = MemSpace::kL2;
      band.addr = in_bands_.addr(slot);
      band.first_channel = c0, band.channels = c1 - c0, band.first_row = y0, band.rows = y1 - y0;
      band.channel_stride = band.rows * band.row_stride;
      const std::vector<uint32_t> war = in_bands_.war(slot);
      std::vector<uint32_t> made;  // P's tiles of the band
      use(ps);
      for (uint32_t q = y0; q < y1; q += p_rows) {
        const uint32_t q1 = std::min(y1, q + p_rows);
        Descriptor d = op_tile(p, p_layer, pb, q, q1, c0, c1);
        d.deps = producers;
        d.deps.insert(d.deps.end(), war.begin(), war.end());
        row_deps(p, q, q1, &d.deps);  // a graph input loading in chunks
        d.op.output = band;
        stage(p, p_layer, d, p_staged, c0, c1);
        emit_gathers(&p, &d.deps);
        flush_spill();
        made.push_back(emit_tile(std::move(d), p_layer));
      }
      keep(ps);
      p_tiles.insert(p_tiles.end(), made.begin(), made.end());
      use(cs);
      bool first = true;
      uint32_t w_slot = 0;
      std::vector<uint32_t> staged;
      TensorRef staged_w, staged_b;
      for (uint32_t q = r0; q < r1; q += c_rows) {
        Descriptor e = op_tile(c, c_layer, cb, q, std::min(r1, q + c_rows), c0, c1);
        e.deps = made;
        e.op.input = band;
        const uint32_t out_slot = out_spilled ? band_output(e) : 0;
        if (c_staged.once) {
          stage(c, c_layer, e, c_staged, c0, c1);
        } else if (first) {
          const size_t before = e.deps.size();
          stage_weights(c, c_layer, c0, c1, e);
          staged.assign(e.deps.begin() + std::ptrdiff_t(before), e.deps.end());
          staged_w = e.op.weights, staged_b = e.op.bias;
          const size_t ring = staging_.last_user.size();
          w_slot = uint32_t((staging_.next + ring - 1) % ring);
          first = false;
        } else {
          e.op.weights = staged_w, e.op.bias = staged_b;
          e.deps.insert(e.deps.end(), staged.begin(), staged.end());
          staging_.last_user[w_slot] = -2 - static_cast<int>(w_slot);
        }
        flush_spill();
        last = emit_tile(std::move(e), c_layer);
        in_bands_.last_user[slot] = int(last);
        if (out_spilled)
          spill = PendingSpill{true, out_slot, c0, c1, q, std::min(r1, q + c_rows), last};
      }
      keep(cs);
    }
  }
  flush_spill();
  done.push_back(last);
  use(ps);  // the step's own node's ring, as lower_compute left it
  node_staging_[size_t(ci)] = cs.ring;
  last_desc_[size_t(t)] = p_tiles;
  for (int o : c.outputs) last_desc_[size_t(o)] = done;
}

}  // namespace strider
