// The lowering of a conv with a fused max-pool (Node::pool, OpDesc::pool; see lowerer.h).
//
// The rule: a fused conv's tile covers the conv's whole height (every pool window's rows are in
// it; no row of the conv's result is computed twice) and any block of its channels (pooling is
// per channel; a positions tile's block is narrowed to what the row buffer holds). So the conv is
// lowered only where its tensors stay in L2 (a spilled one would be cut into row bands) and
// where the row buffer holds a channel group's open pooled rows; elsewhere the plan is refused
// and the run re-plans with that pool unfused (tb/fusion_planner.h).
//
// Here too the one check of a fused input scale (Node::input_scale, OpDesc::input_scale): its
// tiles read the scale tensor in place, so a plan that spilled it is refused the same way.
#include <algorithm>

#include "core/timing/fused_pool.h"
#include "planner/lower/legalise.h"
#include "planner/lower/lowerer.h"

namespace strider {

void Lowerer::fuse_pool(const Node& n, OpDesc* op) const {
  const Node::MaxPoolFusion& p = n.pool;
  op->pool.kernel_h = static_cast<uint16_t>(p.kernel_h);
  op->pool.kernel_w = static_cast<uint16_t>(p.kernel_w);
  op->pool.stride_h = static_cast<uint16_t>(p.stride_h);
  op->pool.stride_w = static_cast<uint16_t>(p.stride_w);
  op->pool.pad_top = static_cast<uint16_t>(p.pad_top);
  op->pool.pad_left = static_cast<uint16_t>(p.pad_left);
  op->pool.pad_bottom = static_cast<uint16_t>(p.pad_bottom);
  op->pool.pad_right = static_cast<uint16_t>(p.pad_right);
  op->pool.output = op->output;
  // The conv's result: never stored, its shape (dense planes) drives the tile.
  const TensorShape& s = g_.tensors[size_t(p.conv_output)].shape;
  TensorRef r;
  r.space = op->pool.output.space;
  r.addr = op->pool.output.addr;
  r.c = static_cast<uint32_t>(s.c);
  r.h = static_cast<uint32_t>(s.h);
  r.w = static_cast<uint32_t>(s.w);
  r.row_stride = r.w;
  r.channel_stride = r.w * r.h;
  op->output = r;
}

uint64_t Lowerer::pool_block_cap(const Node& n) const {
  const uint64_t open_rows = uint64_t(n.pool.kernel_h + n.pool.stride_h - 1) / n.pool.stride_h;
  const uint64_t per_channel = open_rows * uint64_t(g_.tensors[size_t(n.outputs[0])].shape.w);
  const uint64_t cap = arch_.l1.pool_row_buffer_bytes / std::max<uint64_t>(per_channel, 1);
  const uint64_t unit = arch_.neurons.accumulators;
  return std::max<uint64_t>(1, cap >= unit ? cap / unit * unit : cap);
}

void Lowerer::check_fused_pools() const {
  std::set<std::string> refused;
  check_fused_gaps(&refused);
  for (const Node& n : g_.nodes) {
    if (!n.pool.fused) continue;
    bool spilled = layout_.tensor_spilled[size_t(n.outputs[0])];
    for (int t : n.inputs) spilled = spilled || layout_.tensor_spilled[size_t(t)];
    const size_t i = &n - g_.nodes.data();
    OpDesc op = base_op(n, false);
    const uint32_t block = weight_block(n);
    op.ch_begin = 0, op.ch_end = std::min(op.output.c, block);
    uint64_t need = pool_row_buffer_bytes(op, arch_.neurons.count);
    if (i < node_tail_from_.size() && node_tail_from_[i] < op.output.c) {  // the search's tail
      op.mapping = node_tail_[i];
      need = std::max(need,
                      pool_row_buffer_bytes(op, arch_.neurons.count));
    }
    if (spilled || need > arch_.l1.pool_row_buffer_bytes) {
      refused.insert(g_.tensors[size_t(n.outputs[0])].name);
    }
  }
  if (!refused.empty()) throw FusionRefused(std::move(refused));
}

}  // namespace strider

namespace strider {

void Lowerer::check_fused_scales() const {
  std::set<std::string> refused;
  for (const Node& n : g_.nodes) {
    if (n.input_scale.fused && layout_.tensor_spilled[size_t(n.scale_input())]) {
      refused.insert(g_.tensors[size_t(n.input_scale.product)].name);
    }
  }
  if (!refused.empty()) throw FusionRefused(std::move(refused));
}

}  // namespace strider
