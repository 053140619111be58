// Per-layer mapping (arch.lowering.mapping; core/timing/tile_work.h describes them): `positions`
// for every window and element-wise op, `channels` where it applies (1x1 unpadded convolutions with
// groups 1 incl. strided, global pooling; fully-connected layers always), `im2col` the channels
// mapping for k>1 convolutions with groups 1 (the others as `auto`), `auto` the cheaper of
// positions and channels by the closed-form cost of the layer's tiles as the lowering would cut
// them (row bands of band_rows x channel blocks of weight_block): the sum over tiles of max(fill
// pipeline, L2 load-port bytes / port bytes per cycle); ties keep `positions`, the seed's mapping.
// Then, for a k>1 convolution with groups 1, `im2col` when the mapper's tile cost
// (mapper_tile_cycles: the same with the ports' bank conflicts and the shared-bank term) of the
// im2col tiles is more than kMinGain below that of the choice so far: im2col gathers its window
// rows as one piece per input channel and kernel row, whose bank conflicts the plain port term
// does not see (googlenet's conv3, 64 -> 192 channels 3x3 at 56 x 56, runs im2col at its compute
// bound; densenet121's 128 -> 32 3x3s fill half the neurons and stay in positions).
// A GEMM written as a convolution (a 1x1 unpadded conv whose output is one position, as SCALE-Sim
// topologies write a matrix-vector product) is lowered like a fully-connected layer: `channels`
// under every setting, since `positions` would run it on one neuron of `neurons.count` (issue 27:
// SCALE-Sim's `os` dataflow sets `positions`, and such a row ran 3.7x slower than its GEMM row).
#include <algorithm>

#include "core/timing/tile_work.h"
#include "planner/lower/lowerer.h"
#include "planner/lower/mapper.h"

namespace strider {

uint64_t Lowerer::mapping_cost(const Node& n, Mapping m, bool banks) const {
  OpDesc op = base_op(n, false);
  op.mapping = m;
  const uint32_t block = weight_block(n, m), rows = band_rows(op);
  uint64_t cost = 0;
  const uint32_t port = arch_.l2.port_bytes_per_cycle;
  for (uint32_t r0 = 0; r0 < op.output.h; r0 += rows) {
    for (uint32_t c0 = 0; c0 < op.output.c; c0 += block) {
      OpDesc t = op;
      t.row_begin = r0, t.row_end = std::min(op.output.h, r0 + rows);
      t.ch_begin = c0, t.ch_end = std::min(op.output.c, c0 + block);
      const TileWork w = compute_tile_work(t, arch_.l1, arch_.neurons, port);
      cost += banks ? mapper_tile_cycles(arch_.l2, t, w) : strider::tile_cycles(w, port);
    }
  }
  return cost;
}

bool Lowerer::gemm_as_conv(const Node& n) const {
  if (n.op != OpType::kConv) return false;
  const TensorShape& out = g_.tensors[n.result()].shape;
  return out.h == 1 && out.w == 1 && channels_mapping_applies(base_op(n, false));
}

void Lowerer::choose_mappings() {
  node_mapping_.assign(g_.nodes.size(), Mapping::kPositions);
  const std::string& want = arch_.lowering.mapping;
  out_.search_from_im2col = want == "search" && opt_.search_from_im2col;
  for (const Node& n : g_.nodes) {
    if (moves_no_compute(n) || moves_by_dma(n)) continue;
    const size_t i = &n - g_.nodes.data();
    if (n.op == OpType::kFullyConnected || gemm_as_conv(n)) {
      node_mapping_[i] = Mapping::kChannels;
      continue;
    }
    if (n.op != OpType::kConv && n.op != OpType::kGlobalAvgPool) continue;
    if (want == "im2col" && im2col_mapping_applies(base_op(n, false))) {
      node_mapping_[i] = Mapping::kIm2col;
      continue;
    }
    if (channels_mapping_applies(base_op(n, false)) && want != "positions" &&
        (want == "channels" ||
         mapping_cost(n, Mapping::kChannels) < mapping_cost(n, Mapping::kPositions))) {
      node_mapping_[i] = Mapping::kChannels;
    }
    // im2col where the mapper's tile cost (bank terms included) puts it more than kMinGain below
    // the choice above: without the bank terms the gather's conflicts go unseen. `search` starts
    // from this choice (mapper.h: the start is costed first) when LowerOptions::search_from_im2col
    // says so: the weight-slot search lowers the plan from both starts, since im2col's blocks
    // take larger staging rings and so change what the memory plan spills.
    if ((want == "auto" || want == "search") && im2col_mapping_applies(base_op(n, false)) &&
        double(mapping_cost(n, Mapping::kIm2col, true)) <
            double(mapping_cost(n, node_mapping_[i], true)) * (1 - kMinGain)) {
      ++out_.im2col_picks;
      if (want == "auto" || opt_.search_from_im2col) node_mapping_[i] = Mapping::kIm2col;
    }
  }
}

}  // namespace strider
