// Streamed graph input and output (issue 30, helper "streamio"): the row bands of the layer that
// reads a graph input first, and the band-by-band store of the run's last graph output.
//
// A graph input of at least 32 KiB read first by a conv or pool loads in row chunks
// (lowering.cpp, load_input), each emitted just before the first tile that reads its rows. With
// whole-height tiles (a strided stem over 112 output columns) the first tile waited for the whole
// image (a 224 x 224 RGB image: 150,528 B, 12,473 cycles on LPDDR4-3200). Cut into row bands, the
// first band's tile starts once its rows (halo included) are in, at the price of more tiles (each
// with its own first fill and run tails). A graph output is stored after its producer; the run's
// last one, when its producer has row bands of its own, may instead be stored band by band
// behind the tiles that write each band.
//
// stream_cut picks the band height of a first reader, and for the run's last graph output whether
// to store it by bands, by a closed-form schedule of the layer (the mapper's tile cost, mapper.h):
// the input rows band k reads arrive at dram_peak_cycles of the input (in chunks of at least an
// eighth of its rows) and weight bytes loaded up to it, plus the DMA setup and the DRAM time of
// the band stores that started before; tile k starts at max(the previous tile's end, that
// arrival) and takes mapper_tile_cycles less the first fill it overlaps with the previous tile's
// last computes (as the mapper nets auto's tiles); band k's store starts at max(its last tile's
// end, the previous store's end), one store of the whole output at the last tile's end, each
// taking the DMA setup plus its bytes at the DRAM's peak. The layer ends with its last tile or its
// last store. Candidates: for a first reader, ceil(H / b) for b up to kMaxStreamBands below the
// height it has (the search's or auto's); for the last output, band stores at the producer's own
// height (never beside a streamed input: each store holds a DMA channel for its DRAM latency,
// which the input's chunks then wait for). One replaces the layer's own cut (its height, one
// store after it) only when its predicted end is more than kMinGain (1 %) earlier —
// deterministic, no simulation. A producer is not cut lower for its output's sake: on the bundled
// networks the extra tiles cost more than the store tail they hide (tiny_fpn_det's box2: +466
// cycles of tiles for 319 of store), and on small single-conv tests the closed form, blind to
// the split's L2 bank and port effects, got it wrong (ScaleSim's one-bank Conv3: 2,820 -> 3,659).
#include <algorithm>
#include <utility>
#include <vector>

#include "core/arch/dram_bandwidth.h"
#include "core/timing/tile_work.h"
#include "planner/lower/lowerer.h"
#include "planner/lower/mapper.h"

namespace strider {

uint64_t Lowerer::stream_cycles(const Node& n, const OpDesc& base, uint32_t rows, uint32_t block,
                                bool weights_once, bool stream_in, OutputStore store) const {
  const uint32_t out_h = base.output.h, out_c = base.output.c;
  const uint64_t setup = arch_.dma.setup_cycles;
  const uint64_t in_row = stream_in ? uint64_t(base.input.c) * base.input.w : 0;
  // The weights count with a streamed input only (otherwise they prefetch under the layer before).
  const uint64_t w_block = stream_in && n.weights >= 0 ? staged_bytes_per_channel(n) : 0;
  uint64_t loaded = 0, end = 0, store_end = 0, prev_last = 0;
  uint32_t in_rows = 0;
  const auto chunked = chunked_.find(n.inputs[0]);
  const uint32_t per_chunk = chunked == chunked_.end() ? 1 : chunked->second.rows_per_chunk;
  std::vector<std::pair<uint64_t, uint64_t>> stores;  // band stores so far: start, DRAM cycles
  bool first = true;
  for (uint32_t r0 = 0; r0 < out_h; r0 += rows) {
    const uint32_t r1 = std::min(out_h, r0 + rows);
    uint32_t y0 = 0, y1 = 0;
    input_rows(n, r0, r1, &y0, &y1);
    if (stream_in && y1 > in_rows) {  // the next chunk: at least rows_per_chunk rows (emit_chunks)
      const uint32_t to = std::min(base.input.h, std::max(y1, in_rows + per_chunk));
      loaded += (to - in_rows) * in_row, in_rows = to;
    }
    for (uint32_t c0 = 0; c0 < out_c; c0 += block) {
      const uint32_t c1 = std::min(out_c, c0 + block);
      if (!weights_once || r0 == 0) loaded += (c1 - c0) * w_block;
      const Descriptor d = op_tile(n, 0, base, r0, r1, c0, c1);
      const TileWork w =
          compute_tile_work(d.op, arch_.l1, arch_.neurons, arch_.l2.port_bytes_per_cycle);
      // The loads share the DRAM with the band stores that start before they end.
      uint64_t arrival = setup + dram_peak_cycles(arch_, loaded);
      for (const auto& [at, dram] : stores) arrival += at < arrival ? dram : 0;
      uint64_t cycles = mapper_tile_cycles(arch_.l2, d.op, w);
      if (!first && end >= arrival) cycles -= std::min(w.first_fill_write_cycles, prev_last);
      end = std::max(end, arrival) + cycles;
      prev_last = w.last_fill_compute_cycles, first = false;
    }
    if (store == OutputStore::kBands) {
      const uint64_t dram = dram_peak_cycles(arch_, uint64_t(out_c) * (r1 - r0) * base.output.w);
      stores.emplace_back(std::max(store_end, end), dram);
      store_end = std::max(store_end, end) + setup + dram;
    }
  }
  if (store == OutputStore::kAfter) {
    store_end = end + setup + dram_peak_cycles(arch_, uint64_t(out_c) * out_h * base.output.w);
  }
  return std::max(end, store_end);
}

Lowerer::StreamCut Lowerer::stream_cut(const Node& n, const OpDesc& base, uint32_t rows,
                                       uint32_t block, bool weights_once, bool stream_in,
                                       bool timed_output) const {
  const uint32_t out_h = base.output.h;
  const OutputStore after = timed_output ? OutputStore::kAfter : OutputStore::kNone;
  StreamCut best{rows, false};
  const uint64_t current = stream_cycles(n, base, rows, block, weights_once, stream_in, after);
  uint64_t best_cycles = current;
  auto consider = [&](uint32_t r, bool bands) {
    const uint64_t c = stream_cycles(n, base, r, block, weights_once, stream_in,
                                     bands ? OutputStore::kBands : after);
    if (c < best_cycles && double(c) < double(current) * (1 - kMinGain)) {
      best = StreamCut{r, bands}, best_cycles = c;
    }
  };
  // Band stores only where no input load streams beside them: each holds a DMA channel for its
  // DRAM latency too, which the loads' chunks then wait for (the 8 x 64 x 64 conv of
  // ChunkedInput.FirstTileStartsOnTheFirstRows: 3,876 cycles with band stores, 3,697 without).
  const bool band_stores = timed_output && !stream_in;
  if (band_stores && rows < out_h) consider(rows, true);
  for (uint32_t b = 2; b <= std::min(out_h, kMaxStreamBands); ++b) {
    const uint32_t r = (out_h + b - 1) / b;
    if (r >= rows || (b > 2 && r == (out_h + b - 2) / (b - 1))) continue;  // taller, or seen
    if (stream_in) consider(r, false);
  }
  return best;
}

// The stores of graph output `t`'s rows [r0, r1), every channel: one 2-D move (a channel's rows
// are contiguous in L2 and in DRAM), after `deps` (the tiles that wrote them).
void Lowerer::store_rows(int t, uint32_t r0, uint32_t r1, std::vector<uint32_t> deps) {
  StreamedOutput& s = streamed_.at(t);
  const TensorRef r = ref(t);
  const uint64_t off = uint64_t(r0) * r.w, row_bytes = uint64_t(r1 - r0) * r.w;
  const bool whole = r0 == 0 && r1 == r.h && r.channel_stride == uint64_t(r.h) * r.w;
  s.stores.push_back(move(s.layer, MemSpace::kL2, r.addr + off, MemSpace::kDram, s.dram + off,
                          whole ? 1 : r.c, uint32_t(whole ? r.c * row_bytes : row_bytes),
                          whole ? 0 : r.channel_stride, whole ? 0 : r.h * r.w, std::move(deps)));
}

}  // namespace strider
