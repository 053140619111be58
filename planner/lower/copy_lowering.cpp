// The steps that move data without computing: views and in-place concats (no move, or the copies
// of concat inputs that could not be produced in place, some emitted early under other compute),
// a channel shuffle's plane copies, and gathers (an upsample's phases, a transposed conv's
// interleave), held back until the next step's first weights are staged.
#include <vector>

#include "planner/lower/lowerer.h"

namespace strider {
namespace {

constexpr size_t kGatherSharedDeps = 16;  // lower_gather: every move carries deps up to this many

}  // namespace

void Lowerer::lower_view(const Node& n, int idx) {
  // Views and in-place concats alias memory the plan already placed: no data moves, except the
  // concat inputs that could not be produced in place, copied after the last op so far retired
  // (the region may have held a tensor an earlier op was still reading) unless made earlier
  // (emit_early_copies). Each copy is a reader its source's next writer waits for.
  std::vector<uint32_t> deps = input_deps(n);
  int layer = node_layer_[size_t(idx)];
  for (size_t copy : node_copies_[idx]) {
    const ConcatCopy& c = layout_.copies[copy];
    uint32_t m = 0;
    if (c.step >= 0) {
      m = copy_desc_.at(copy);
    } else {
      if (layer < 0) layer = static_cast<int>(add_layer(n.name, "concat"));
      std::vector<uint32_t> after = last_desc_[c.tensor];
      after_ops(&after, false);
      m = copy_move(c, uint32_t(layer), std::move(after));
    }
    pending_readers_.push_back(m);
    deps.push_back(m);
  }
  for (int t : n.outputs) last_desc_[t] = deps;
  if (layer >= 0) out_.layer_node[layer] = idx;
  out_.step_layer.push_back(layer);
}

uint32_t Lowerer::copy_move(const ConcatCopy& c, uint32_t layer, std::vector<uint32_t> deps) {
  const uint64_t bytes = static_cast<uint64_t>(g_.tensors[c.tensor].bytes());
  const int out_t = g_.nodes[c.node].outputs[0];
  const MemSpace dst = space(out_t);
  uint32_t m = 0;
  if (c.dst_stride != 0) {
    // Into a channel shuffle's output (one image): plane k of the input to every dst_stride-th
    // byte of it, one 2-D move of c rows of h x w bytes.
    const TensorRef src = shape_ref(c.tensor);
    m = move(layer, space(c.tensor), layout_.tensor_addr[c.tensor], dst, c.dst_addr, src.c,
             src.h * src.w, src.channel_stride, static_cast<uint32_t>(c.dst_stride),
             std::move(deps));
  } else {
    // One row per image: the input's image i goes to its channels' place in the output's image i.
    const uint32_t images = static_cast<uint32_t>(g_.tensors[c.tensor].shape.n);
    const uint32_t row = static_cast<uint32_t>(bytes / images);
    const uint32_t out_row = static_cast<uint32_t>(g_.tensors[out_t].bytes() / images);
    m = move(layer, space(c.tensor), layout_.tensor_addr[c.tensor], dst, c.dst_addr, images, row,
             images > 1 ? row : 0, images > 1 ? out_row : 0, std::move(deps));
  }
  out_.layers[layer].copy_bytes += bytes;
  return m;
}

// The copies into a concat folded into a channel shuffle's layout that may run from node idx's
// step on (ConcatCopy::step): emitted after the step's own descriptors (the in-order load queue
// does not hold its weights behind them), once their source is made and what the previous step
// fenced retired (the output's buffer is live from this step on), so they run under the compute
// of the concat's other inputs. They join the readers at the concat's step (lower_view).
void Lowerer::emit_early_copies(int idx) {
  for (size_t copy : early_copies_[size_t(idx)]) {
    const ConcatCopy& c = layout_.copies[copy];
    int& layer = node_layer_[size_t(c.node)];
    if (layer < 0) layer = static_cast<int>(add_layer(g_.nodes[size_t(c.node)].name, "concat"));
    std::vector<uint32_t> deps = last_desc_[c.tensor];
    if (!step_fence_.empty()) {
      deps.insert(deps.end(), step_fence_.back().begin(), step_fence_.back().end());
    }
    copy_desc_.at(copy) = copy_move(c, uint32_t(layer), std::move(deps));
  }
}

void Lowerer::lower_shuffle(const Node& n, uint32_t layer) {
  // out channel (i * groups + k) = in channel (k * per + i): one 2-D move per input group.
  const TensorRef in = ref(n.inputs[0]), out = ref(n.outputs[0]);
  const uint32_t groups = static_cast<uint32_t>(n.shuffle_groups), per = in.c / groups;
  const uint32_t plane = in.channel_stride;
  std::vector<uint32_t> deps = input_deps(n), done;
  after_ops(&deps, false);
  for (uint32_t k = 0; k < groups; ++k) {
    done.push_back(move(layer, in.space, in.addr + uint64_t(k) * per * plane, out.space,
                        out.addr + uint64_t(k) * plane, per, plane, plane, groups * plane, deps));
    out_.layers[layer].copy_bytes += uint64_t(per) * plane;
  }
  pending_readers_.insert(pending_readers_.end(), done.begin(), done.end());
  last_desc_[n.outputs[0]] = done;
}

void Lowerer::lower_gather(const Node& n, uint32_t layer) {
  // One move per block and image. The first move waits for the input and for everything that
  // must retire before this step may write memory (the previous step's fence: its ops and the
  // moves reading memory it freed); the others wait for the same when that is at most
  // kGatherSharedDeps descriptors (so the DMA channels start together), else for that first move
  // only, so no descriptor carries thousands of dependencies. Outside image segments the moves
  // of a gather whose output is no graph output are held back (emit_gathers) until the next
  // step's first tile has staged its weights: the DMA executes moves in list order, so the
  // weights then no longer wait behind the gather's many small moves (tiny_fpn_det: 136).
  const int in_t = n.inputs[0], out_t = n.outputs[0];
  const uint64_t in_image = uint64_t(g_.tensors[in_t].bytes() / g_.tensors[in_t].shape.n);
  const uint64_t out_image = uint64_t(g_.tensors[out_t].bytes() / g_.tensors[out_t].shape.n);
  const MemSpace src = space(in_t), dst = space(out_t);
  DeferredGather g;
  g.step = current_step_;
  g.out_t = out_t;
  g.deps = input_deps(n);
  if (current_step_ >= 1) {
    const std::vector<uint32_t>& fence = step_fence_[size_t(current_step_ - 1)];
    g.deps.insert(g.deps.end(), fence.begin(), fence.end());
  }
  after_ops(&g.deps);
  for (int64_t i = 0; i < g_.tensors[out_t].shape.n; ++i) {
    for (const GatherBlock& b : n.gather) {
      g.moves.push_back(
          move_desc(layer, src, layout_.tensor_addr[in_t] + i * in_image + uint64_t(b.src), dst,
                    layout_.tensor_addr[out_t] + i * out_image + uint64_t(b.dst), uint32_t(b.rows),
                    uint32_t(b.row_len), uint32_t(b.rows > 1 ? b.src_stride : 0),
                    uint32_t(b.rows > 1 ? b.dst_stride : 0), {}, uint32_t(b.dst_step)));
    }
    out_.layers[layer].copy_bytes += out_image;
  }
  deferred_gathers_.push_back(std::move(g));
  if (in_segment_ || !opt_.image_segments.empty() || is_output_[out_t]) emit_gathers();
}

// Emits the held-back gathers (lower_gather). Each becomes a reader for the next op and joins its
// step's fence; with `reader`, that node's input producers are added to `deps`.
void Lowerer::emit_gathers(const Node* reader, std::vector<uint32_t>* deps) {
  if (deferred_gathers_.empty()) return;
  for (DeferredGather& g : deferred_gathers_) {
    std::vector<uint32_t> done;
    for (Descriptor& d : g.moves) {
      d.deps = done.empty() || g.deps.size() <= kGatherSharedDeps
                   ? g.deps
                   : std::vector<uint32_t>{done.front()};
      done.push_back(emit(std::move(d)));
    }
    pending_readers_.insert(pending_readers_.end(), done.begin(), done.end());
    if (size_t(g.step) < step_fence_.size()) {
      std::vector<uint32_t>& fence = step_fence_[size_t(g.step)];
      fence.insert(fence.end(), done.begin(), done.end());
    }
    last_desc_[size_t(g.out_t)] = std::move(done);
  }
  deferred_gathers_.clear();
  if (reader != nullptr && deps != nullptr) {
    const std::vector<uint32_t> more = input_deps(*reader);
    deps->insert(deps->end(), more.begin(), more.end());
  }
}

// A node whose first tile may take held-back gathers (emit_gathers from lower_resident): a compute
// node whose tensors all stay in L2, outside image segments. Before any other node they are
// emitted at the start of its step.
bool Lowerer::takes_gathers(const Node& n) const {
  if (moves_no_compute(n) || moves_by_dma(n) || in_segment_) return false;
  bool spilled = layout_.tensor_spilled[size_t(n.outputs[0])];
  for (int t : n.inputs) spilled = spilled || layout_.tensor_spilled[size_t(t)];
  return !spilled;
}

}  // namespace strider
