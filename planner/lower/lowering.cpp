#include "planner/lower/lowering.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "core/common/ceil_div.h"
#include "planner/lower/lowerer.h"
#include "planner/schedule/schedule.h"

namespace strider {
namespace {

constexpr uint64_t kChunkedInputBytes = 32768;  // smaller graph inputs load in one move
constexpr int64_t kInputChunks = 8;             // a chunk holds at least 1/8 of the rows

// Channel views and shuffles are lowered for one image only: with a batch they would mix the
// images' channels, so they are refused rather than run wrongly (a concat copies image by image).
void refuse_unbatched(const Graph& g, const Node& n) {
  if (n.op != OpType::kSplit && n.op != OpType::kSlice && n.op != OpType::kChannelShuffle) {
    return;
  }
  for (int t : n.inputs) {
    const int64_t images = g.tensors[t].shape.n;
    if (images > 1) {
      throw std::runtime_error("node '" + n.name + "' (" + to_string(n.op) + "): batch " +
                               std::to_string(images) + " (networks[].batch) is not supported " +
                               "for " + to_string(n.op) + " yet; run this network with batch 1");
    }
  }
}

}  // namespace

Lowerer::Lowerer(const Graph& g, const ArchConfig& arch, const LowerOptions& opt,
                 uint32_t in_band_slots)
    : g_(g),
      arch_(arch),
      opt_(opt),
      in_band_slots_(in_band_slots),
      last_desc_(g.tensors.size()),
      loaded_(g.tensors.size()),
      io_layer_(g.tensors.size(), -1),
      io_addr_(g.tensors.size(), 0),
      is_input_(g.tensors.size(), 0),
      is_output_(g.tensors.size(), 0) {
  for (int t : g.inputs) is_input_.at(t) = 1;
  for (int t : g.outputs) is_output_.at(t) = 1;
}

MemSpace Lowerer::space(int tensor) const {
  return layout_.tensor_spilled[tensor] ? MemSpace::kDram : MemSpace::kL2;
}

TensorRef Lowerer::ref(int tensor) const {
  TensorRef r = shape_ref(tensor);
  r.space = space(tensor);
  r.addr = layout_.tensor_addr[tensor];
  // Image image_index() of a tensor holding every image (one holding one image at a time: 0).
  if (g_.tensors[tensor].shape.n > 1 && !layout_.tensor_per_image[size_t(tensor)]) {
    r.addr += uint64_t(image_index()) * r.c * r.h * r.w;
  }
  return r;
}

TensorRef Lowerer::shape_ref(int tensor) const {
  const Tensor& t = g_.tensors[tensor];
  TensorRef r;
  r.c = static_cast<uint32_t>(t.shape.c);
  r.h = static_cast<uint32_t>(t.shape.h);
  r.w = static_cast<uint32_t>(t.shape.w);
  r.row_stride = r.w;
  r.channel_stride = r.w * r.h;
  // Skewed planes (activation_layout.h) once the memory plan is made.
  if (size_t(tensor) < layout_.tensor_channel_stride.size()) {
    r.channel_stride = static_cast<uint32_t>(layout_.tensor_channel_stride[size_t(tensor)]);
  }
  return r;
}

uint32_t Lowerer::add_layer(const std::string& name, const std::string& op) {
  out_.list.layers.push_back(name);
  out_.layer_node.push_back(-1);
  LayerReport rep;
  rep.name = name;
  rep.op = op;
  out_.layers.push_back(rep);
  return static_cast<uint32_t>(out_.list.layers.size() - 1);
}

uint32_t Lowerer::emit(Descriptor d) {
  if (opt_.max_descriptors != 0 && out_.list.descriptors.size() >= opt_.max_descriptors) {
    throw DescriptorLimitError("descriptor count passes the limit of " +
                               std::to_string(opt_.max_descriptors) + " at layer '" +
                               out_.list.layers.at(d.layer) + "'");
  }
  d.id = static_cast<uint32_t>(out_.list.descriptors.size());
  std::sort(d.deps.begin(), d.deps.end());
  d.deps.erase(std::unique(d.deps.begin(), d.deps.end()), d.deps.end());
  out_.list.descriptors.push_back(std::move(d));
  return out_.list.descriptors.back().id;
}

void Lowerer::after_ops(std::vector<uint32_t>* deps, bool with_readers) const {
  if (with_readers) deps->insert(deps->end(), pending_readers_.begin(), pending_readers_.end());
  for (int q = 0; q < 2; ++q) {
    if (last_op_[q] >= 0) deps->push_back(uint32_t(last_op_[q]));
  }
}

Descriptor Lowerer::move_desc(uint32_t layer, MemSpace src, uint64_t src_addr, MemSpace dst,
                              uint64_t dst_addr, uint32_t rows, uint32_t row_bytes,
                              uint32_t src_stride, uint32_t dst_stride, std::vector<uint32_t> deps,
                              uint32_t dst_step) {
  Descriptor d;
  d.kind = DescKind::kMove;
  d.layer = layer;
  d.deps = std::move(deps);
  d.move = MoveDesc{src, dst, src_addr, dst_addr, rows, row_bytes, src_stride, dst_stride};
  d.move.dst_step = dst_step;
  return d;
}

uint32_t Lowerer::move(uint32_t layer, MemSpace src, uint64_t src_addr, MemSpace dst,
                       uint64_t dst_addr, uint32_t rows, uint32_t row_bytes, uint32_t src_stride,
                       uint32_t dst_stride, std::vector<uint32_t> deps, uint32_t dst_step) {
  return emit(move_desc(layer, src, src_addr, dst, dst_addr, rows, row_bytes, src_stride,
                        dst_stride, std::move(deps), dst_step));
}

std::vector<uint32_t> Lowerer::input_deps(const Node& n) const {
  std::vector<uint32_t> deps;
  for (int t : n.inputs) deps.insert(deps.end(), last_desc_[t].begin(), last_desc_[t].end());
  return deps;
}

// The layer, DRAM address and bytes of this pass's move of graph input or output `t` (`kind`:
// input or output; the first pass adds the layer and records the tensor in `list`). One held an
// image at a time (inside an image segment) moves that pass's image. False for a spilled one: its
// home is DRAM already.
bool Lowerer::io_move(int t, const std::string& kind, std::vector<std::pair<int, uint64_t>>* list,
                      uint32_t* layer, uint64_t* dram, uint64_t* bytes) {
  const bool again = io_layer_[t] >= 0;  // a later image's pass
  *layer = again ? uint32_t(io_layer_[t]) : add_layer(kind + ":" + g_.tensors[t].name, kind);
  io_layer_[t] = int(*layer);
  *bytes = static_cast<uint64_t>(g_.tensors[t].bytes());
  if (layout_.tensor_spilled[t]) {
    list->emplace_back(t, layout_.tensor_addr[t]);
    return false;
  }
  if (!again) {
    io_addr_[t] = dram_io_;
    list->emplace_back(t, dram_io_);
    dram_io_ = align_up(dram_io_ + *bytes, 4096);
  }
  *dram = io_addr_[t];
  if (layout_.tensor_per_image[t]) {
    *bytes /= uint64_t(g_.tensors[t].shape.n);
    *dram += seg_image_ * *bytes;
  }
  return true;
}

// A graph input is loaded just before its first use, once the ops before it retired (its L2
// region may have held a tensor they read); a graph input whose home is DRAM needs no load. One
// of at least kChunkedInputBytes read first by a conv or pool (lazy) loads in up to
// kInputChunks chunks of whole rows (every channel's: a 2-D move), each emitted just before the
// first tile that reads it, so the first tiles start on the first rows instead of after the
// whole image (a 224 x 224 RGB image: 150,528 B, about 12,000 cycles at 12.8 B per cycle).
void Lowerer::load_input(int t, bool lazy) {
  if (loaded_[t] || !is_input_[t]) return;
  loaded_[t] = true;
  uint32_t layer = 0;
  uint64_t src = 0, bytes = 0;
  if (!io_move(t, "input", &out_.dram.inputs, &layer, &src, &bytes)) return;
  std::vector<uint32_t> deps;
  after_ops(&deps);
  out_.layers[layer].input_bytes += bytes;
  const TensorShape& s = g_.tensors[t].shape;
  if (lazy && !in_segment_ && s.n == 1 && s.h > 1 && bytes >= kChunkedInputBytes) {
    ChunkedInput& c = chunked_[t];
    c.layer = layer;
    c.dram = src;
    c.rows_per_chunk = uint32_t((s.h + kInputChunks - 1) / kInputChunks);
    c.fence = std::move(deps);
    last_desc_[t].clear();
    return;
  }
  last_desc_[t] = {move(layer, MemSpace::kDram, src, MemSpace::kL2, layout_.tensor_addr[t], 1,
                        static_cast<uint32_t>(bytes), 0, 0, deps)};
}

// Each chunk covers the rows from the last chunk's end up to the rows the reading tile needs
// (at least rows_per_chunk of them), so a tile waits for the one move that brings its new rows.
void Lowerer::emit_chunks(int t, uint32_t rows) {
  ChunkedInput& c = chunked_.at(t);
  const TensorRef r = shape_ref(t);
  while (c.emitted_rows < std::min(rows, r.h)) {
    const uint32_t y0 = c.emitted_rows;
    const uint32_t y1 = std::min(r.h, std::max(rows, y0 + c.rows_per_chunk));
    const uint64_t off = uint64_t(y0) * r.w;
    const bool whole = y1 - y0 == r.h;  // the tensor in one contiguous row
    c.chunks.push_back(move(c.layer, MemSpace::kDram, c.dram + off, MemSpace::kL2,
                            layout_.tensor_addr[t] + off, whole ? 1 : r.c,
                            whole ? r.c * r.channel_stride : (y1 - y0) * r.w,
                            whole ? 0 : r.channel_stride, whole ? 0 : r.channel_stride, c.fence));
    c.ends.push_back(y1);
    c.emitted_rows = y1;
  }
}

void Lowerer::row_deps(const Node& n, uint32_t r0, uint32_t r1, std::vector<uint32_t>* deps) {
  const auto it = chunked_.find(n.inputs[0]);
  if (it == chunked_.end()) return;
  uint32_t y0 = 0, y1 = 0;
  input_rows(n, r0, r1, &y0, &y1);
  // The last band also takes the rows below every window (a 7 x 7 stride-2 stem over 224 rows
  // reads 223): a chunk no tile waited for would be a write that the next writer of its memory
  // does not follow.
  if (r1 >= g_.tensors[size_t(n.result())].shape.h) y1 = shape_ref(n.inputs[0]).h;
  emit_chunks(n.inputs[0], y1);
  const ChunkedInput& c = it->second;
  for (size_t k = 0; k < c.chunks.size(); ++k) {
    const uint32_t begin = k == 0 ? 0 : c.ends[k - 1];
    if (begin < y1 && y0 < c.ends[k]) deps->push_back(c.chunks[k]);
  }
}

// A graph output is stored to DRAM as soon as it is produced (a spilled one is there already).
// The memory plan keeps it one step longer (memory/activation_problem.cpp), so outside image
// segments its store is a reader the ops of the next step need not wait for: it joins the pending
// readers once that step is lowered (lower_step), before any later writer of its memory.
// One its producer stored by row bands (stream_output, lower_resident) has its moves already.
void Lowerer::store_output(int t) {
  if (!is_output_[t]) return;
  std::vector<uint32_t>& readers =
      in_segment_ || !opt_.image_segments.empty() ? pending_readers_ : draining_outputs_;
  const auto it = streamed_.find(t);
  if (it != streamed_.end()) {
    readers.insert(readers.end(), it->second.stores.begin(), it->second.stores.end());
    out_.layers[it->second.layer].output_bytes += uint64_t(g_.tensors[t].bytes());
    streamed_.erase(it);
    return;
  }
  uint32_t layer = 0;
  uint64_t dst = 0, bytes = 0;
  if (!io_move(t, "output", &out_.dram.outputs, &layer, &dst, &bytes)) return;
  readers.push_back(move(layer, MemSpace::kL2, layout_.tensor_addr[t], MemSpace::kDram, dst, 1,
                         static_cast<uint32_t>(bytes), 0, 0, last_desc_[t]));
  out_.layers[layer].output_bytes += bytes;
}

bool Lowerer::stream_output(int t) {
  if (!is_output_[t] || layout_.tensor_spilled[t] || in_segment_ || g_.tensors[t].shape.n != 1 ||
      !opt_.image_segments.empty()) {
    return false;
  }
  StreamedOutput s;
  uint64_t bytes = 0;
  if (!io_move(t, "output", &out_.dram.outputs, &s.layer, &s.dram, &bytes)) return false;
  streamed_[t] = s;
  return true;
}

void Lowerer::lower_step(int idx) {
  const Node& n = g_.nodes[idx];
  current_step_ = int64_t(step_fence_.size());
  const bool first_pass = !in_segment_ || seg_image_ == 0;
  if (!takes_gathers(n)) emit_gathers();
  // A conv or pool whose tensors all stay in L2 (or whose output alone spills, and no partial
  // sums) reads its first input by rows: that input, a graph input, may load in row chunks.
  const bool by_rows = (n.op == OpType::kConv || n.op == OpType::kMaxPool ||
                        n.op == OpType::kAvgPool) && !layout_.tensor_spilled[n.inputs[0]] &&
                       n.inputs.size() == 1 && psums_.last_user.empty();
  for (int t : n.inputs) load_input(t, by_rows && t == n.inputs[0]);
  refuse_unbatched(g_, n);
  if (moves_no_compute(n) || layout_.shuffle_folded[size_t(idx)]) {
    const size_t steps = out_.step_layer.size();
    lower_view(n, idx);
    if (!first_pass) out_.step_layer.resize(steps);  // a later image's pass: the step is listed
  } else {
    uint32_t layer = uint32_t(node_layer_[size_t(idx)]);
    if (dw_lowered_[size_t(idx)]) {  // its layer and image marks made with its producer's
      if (first_pass) out_.step_layer.push_back(static_cast<int>(layer));
    } else if (first_pass) {
      layer = add_layer(n.name, to_string(n.op));
      node_layer_[size_t(idx)] = int(layer);
      out_.layer_node[layer] = idx;
      out_.step_layer.push_back(static_cast<int>(layer));
    }
    if (in_segment_ && !dw_lowered_[size_t(idx)]) {
      out_.layer_image_first.resize(out_.layers.size());
      out_.layer_image_first[layer].push_back(uint32_t(out_.list.descriptors.size()));
      out_.layers[layer].batch_order = "image_segment";
    }
    if (dw_lowered_[size_t(idx)]) {
      // Lowered with its producer in the step before (depthwise_fusion.cpp).
    } else if (n.op == OpType::kChannelShuffle) {
      lower_shuffle(n, layer);
    } else if (n.op == OpType::kGather) {
      lower_gather(n, layer);
    } else {
      lower_compute(n, layer);
    }
  }
  emit_early_copies(idx);
  // The chunks no tile read (rows below every window), and the input's producers for later
  // readers.
  for (auto& [t, c] : chunked_) {
    emit_chunks(t, UINT32_MAX);
    last_desc_[size_t(t)] = c.chunks;
  }
  chunked_.clear();
  // Gathers of the previous step this step's tiles did not take.
  if (!deferred_gathers_.empty() && deferred_gathers_.front().step < current_step_) emit_gathers();
  // The previous step's output stores: their memory may be written from the next step on.
  pending_readers_.insert(pending_readers_.end(), draining_outputs_.begin(),
                          draining_outputs_.end());
  draining_outputs_.clear();
  for (int t : n.outputs) {
    if (!in_segment_ || layout_.tensor_per_image[size_t(t)]) store_output(t);
  }
  emit_prefetches();  // later layers' weights the DMA loads from here on (deep_prefetch.cpp)
  // What must retire before memory this step was the last to use is written again.
  std::vector<uint32_t> fence;
  after_ops(&fence);
  step_fence_.push_back(std::move(fence));
}

Lowered Lowerer::run() {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<int> order =
      opt_.order.empty() ? schedule_nodes(g_, opt_.schedule) : opt_.order;
  choose_mappings();  // before the memory plan: the mapping sets the weight-staging slot sizes
  plan_memory(order);
  if (arch_.lowering.mapping == "search") search_mappings(order);  // mapper.h
  check_fused_pools();
  check_fused_scales();
  node_copies_.resize(g_.nodes.size());
  for (size_t k = 0; k < layout_.copies.size(); ++k) node_copies_.at(layout_.copies[k].node).push_back(k);
  early_copies_.assign(g_.nodes.size(), {});
  copy_desc_.assign(layout_.copies.size(), 0);
  for (size_t k = 0; k < layout_.copies.size(); ++k) {
    // After the first node from its step on that computes (views emit nothing to hide it under).
    int64_t step = layout_.copies[k].step;
    if (step < 0) continue;
    while (order.at(size_t(step)) != layout_.copies[k].node &&
           (moves_no_compute(g_.nodes[size_t(order[size_t(step)])]) ||
            layout_.shuffle_folded[size_t(order[size_t(step)])])) {
      ++step;
    }
    if (order[size_t(step)] == layout_.copies[k].node) {
      layout_.copies[k].step = -1;  // nothing computes before the concat: made at its step
    } else {
      early_copies_.at(size_t(order[size_t(step)])).push_back(k);
    }
  }

  dram_io_ = kDramActivationsBase + (uint64_t(1) << 30);  // graph inputs and outputs
  for (int idx : order) {
    if (!moves_no_compute(g_.nodes[size_t(idx)]) && !layout_.shuffle_folded[size_t(idx)]) {
      tail_node_ = idx;
    }
  }
  node_layer_.assign(g_.nodes.size(), -1);
  out_.image_segments = opt_.image_segments;
  out_.tensor_per_image = layout_.tensor_per_image;
  const std::vector<StepRange>& segs = opt_.image_segments;
  size_t next_seg = 0;
  for (size_t s = 0; s < order.size();) {
    if (next_seg < segs.size() && int64_t(s) == segs[next_seg].first) {
      const StepRange r = segs[next_seg++];
      lower_segment(order, size_t(r.first), size_t(r.last));
      s = size_t(r.last) + 1;
      report_progress(opt_.progress, s, order.size());
      continue;
    }
    lower_step(order[s++]);
    report_progress(opt_.progress, s, order.size());
  }
  emit_gathers();
  // The search's rows name nodes; each compute node has one layer.
  for (MappingRow& row : out_.mapping) {
    const auto it = std::find(out_.layer_node.begin(), out_.layer_node.end(), int(row.layer));
    row.layer = uint32_t(it - out_.layer_node.begin());
  }
  out_.list.arch_fingerprint = arch_.fingerprint();
  // The tensor table lists the activations the list uses: a tensor no node reads or writes any
  // more (e.g. a conv output whose activation was fused into the conv) has no memory.
  std::vector<bool> used(g_.tensors.size(), false);
  for (const Node& n : g_.nodes) {
    for (int t : n.inputs) used[size_t(t)] = true;
    for (int t : n.outputs) used[size_t(t)] = true;
  }
  for (int t : g_.inputs) used[size_t(t)] = true;
  for (size_t t = 0; t < g_.tensors.size(); ++t) {
    const Tensor& tensor = g_.tensors[t];
    if (tensor.kind != TensorKind::kActivation || !used[t]) continue;
    TensorEntry e;
    e.name = tensor.name;
    const bool is_in = is_input_[t], is_out = is_output_[t];
    e.role = is_in ? TensorRole::kInput : is_out ? TensorRole::kOutput : TensorRole::kActivation;
    e.space = space(int(t));
    e.addr = layout_.tensor_addr[t];
    e.bytes = static_cast<uint64_t>(tensor.bytes());
    const uint64_t plane = uint64_t(tensor.shape.h) * uint64_t(tensor.shape.w);
    if (layout_.tensor_interleaved[t]) {  // every groups-th plane of a channel shuffle's output
      e.bytes = (uint64_t(tensor.shape.c) - 1) * layout_.tensor_channel_stride[t] + plane;
    } else if (layout_.tensor_channel_stride[t] != plane) {
      e.bytes = uint64_t(tensor.shape.c) * layout_.tensor_channel_stride[t];  // skewed planes
    }
    if (layout_.tensor_per_image[t]) e.bytes /= uint64_t(tensor.shape.n);  // one image at a time
    out_.list.tensors.push_back(e);
  }
  out_.layer_image_first.resize(out_.layers.size());
  check(out_.list);
  out_.planner_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return std::move(out_);
}

uint64_t dram_bytes(const LayerReport& r) {
  return r.weight_bytes + r.input_bytes + r.output_bytes + r.fill_bytes + r.spill_bytes;
}

uint64_t dram_bytes(const Lowered& l) {
  uint64_t b = 0;
  for (const LayerReport& r : l.layers) b += dram_bytes(r);
  return b;
}

// A batch lowers twice when more in-band slots are possible: with two slots (more L2 for the
// activations) and with one per image up to four (bands of more images share each weight
// block); the lowering that moves fewer DRAM bytes is kept (resnet50 at batch 4 reads 40.6 MB
// per image with four slots against 50.8 MB with two; mobilenet_v2 7.9 MB with two against 9.0).
Lowered lower_slots(const Graph& g, const ArchConfig& arch, const LowerOptions& opt) {
  Lowered two = Lowerer(g, arch, opt, 2).run();
  const uint32_t slots = Lowerer::batch_band_slots(g);
  if (slots <= 2 || two.band_bytes == 0 || !shares_weights(g, opt)) return two;
  Lowered more;
  try {
    more = Lowerer(g, arch, opt, slots).run();
  } catch (const std::runtime_error&) {  // the larger slots do not fit this L2
    return two;
  }
  const double seconds = two.planner_seconds + more.planner_seconds;
  Lowered& best = dram_bytes(more) < dram_bytes(two) ? more : two;
  best.search_seconds = two.search_seconds + more.search_seconds;
  best.planner_seconds = seconds;
  return std::move(best);
}

}  // namespace strider
