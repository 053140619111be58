// The lowering of a conv with a fused global average pool (Node::gap, OpDesc::gap; see
// lowerer.h).
//
// Every tile of the conv carries the pool: its output, requantisation and activation, and the
// int32 partial sums of a tile over a band of rows. The partial sums of every fused conv share
// one buffer of 4 bytes per channel of the widest such conv, at the top of L2 (gap_region_bytes,
// reserved in plan_layout whatever the plan spills: the mapping search may cut a resident layer
// into bands after the memory plan). The bands of one channel block run in order in the compute
// pipeline (band b's tile is emitted before band b + 1's, and the pipeline finishes its ops in
// list order): each reads the sums its predecessor wrote, as the data-flow check proves from the
// queue order. The first band's tile starts from 0, the last writes the pooled bytes.
//
// Refused (FusionRefused: the run plans again with that pool unfused) where the lowering
// cannot run it: the pool's output spilled to DRAM (the store unit writes L2), or a conv the
// lowering may cut into input-channel blocks (partial sums over input channels,
// partial_sums_lowering.cpp). A depthwise pair's C (depthwise_fusion.cpp) runs its fused pool
// as any conv: its tiles go band after band, each band's channel blocks in order. A pair's P
// never has one: a P with a fused pool has two outputs (dw_legal takes one), and one whose
// result is never stored has none for C to read.
#include <algorithm>

#include "core/common/ceil_div.h"
#include "core/timing/fused_gap.h"
#include "planner/lower/legalise.h"
#include "planner/lower/lowerer.h"

namespace strider {

void Lowerer::fuse_gap(const Node& n, bool placed, OpDesc* op) const {
  const Node::GlobalPoolFusion& f = n.gap;
  FusedGap& g = op->gap;
  g.requant_multiplier = f.requant_multiplier;
  g.requant_shift = f.requant_shift;
  g.act = static_cast<PostAct>(static_cast<uint8_t>(f.act));
  g.clip_min = f.clip_min;
  g.clip_max = f.clip_max;
  g.flags = g_.tensors[size_t(f.output)].is_unsigned ? FusedGap::kOutputUnsigned : 0;
  g.output = placed ? ref(f.output) : shape_ref(f.output);
  if (f.conv_output >= 0) {  // the conv's result is never stored: its shape drives the tile
    g.flags |= FusedGap::kResultNotStored;
    TensorRef r = shape_ref(f.conv_output);
    r.space = g.output.space;
    r.addr = g.output.addr;
    r.channel_stride = r.w * r.h;
    op->output = r;
  }
  TensorRef& p = g.partial;  // one int32 per channel
  p.space = MemSpace::kL2;
  p.addr = gap_region_addr_;
  p.c = op->output.c, p.h = 1, p.w = 1;
  p.row_stride = 4, p.channel_stride = 4, p.element_bytes = 4;
}

uint64_t Lowerer::gap_region_bytes() const {
  uint64_t widest = 0;
  for (const Node& n : g_.nodes) {
    if (n.gap.fused) widest = std::max<uint64_t>(widest, g_.tensors[size_t(n.gap.output)].shape.c);
  }
  return align_up(4 * widest, std::max<uint64_t>(1, arch_.l2.alignment_bytes));
}

void Lowerer::check_fused_gaps(std::set<std::string>* refused) const {
  for (size_t i = 0; i < g_.nodes.size(); ++i) {
    const Node& n = g_.nodes[i];
    if (!n.gap.fused) continue;
    bool in_spilled = false;
    for (int t : n.inputs) in_spilled = in_spilled || layout_.tensor_spilled[size_t(t)];
    const bool channel_blocks = !psums_.last_user.empty() && n.groups == 1 && in_spilled;
    if (layout_.tensor_spilled[size_t(n.gap.output)] || channel_blocks) {
      refused->insert(g_.tensors[size_t(n.gap.output)].name);
    }
  }
}

}  // namespace strider
