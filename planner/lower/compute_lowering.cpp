// Compute nodes -> operation tiles (see lowering.h). A tile is a block of output channels over a
// band of output rows. Tensors resident in L2 are read and written in place; a tensor spilled to
// DRAM is read through in-band buffers (a fill move per band) and written through out-band
// buffers (a spill move per tile), so any layer runs with any L2 size down to one output row.
// A layer's weights are placed and staged in weight_staging.cpp.
#include <algorithm>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "core/timing/fused_gap.h"
#include "planner/lower/lowerer.h"

namespace strider {
namespace {

// The lowering casts an Activation to its PostAct by value: the two enums list the same
// activations in the same order.
static_assert(static_cast<uint8_t>(Activation::kSilu) == static_cast<uint8_t>(PostAct::kSilu) &&
                  static_cast<uint8_t>(Activation::kHardSwish) ==
                      static_cast<uint8_t>(PostAct::kHardSwish),
              "Activation and PostAct disagree");

OpCode op_code(const Node& n) {
  switch (n.op) {
    case OpType::kConv: return OpCode::kConv;
    case OpType::kFullyConnected: return OpCode::kFullyConnected;
    case OpType::kMaxPool: return OpCode::kMaxPool;
    case OpType::kAvgPool: return OpCode::kAvgPool;
    case OpType::kPad: return OpCode::kAvgPool;  // a 1x1 average over zero virtual padding
    case OpType::kGlobalAvgPool: return OpCode::kGlobalAvgPool;
    case OpType::kAdd: return OpCode::kAdd;
    case OpType::kMul: return OpCode::kMul;
    case OpType::kActivation: return OpCode::kActivation;
    case OpType::kSoftmax: return OpCode::kSoftmax;
    case OpType::kMatMul: return OpCode::kMatMul;
    case OpType::kLayerNorm: return OpCode::kLayerNorm;
    case OpType::kGelu: return OpCode::kGelu;
    case OpType::kInstanceNorm: return OpCode::kInstanceNorm;
    default:
      throw std::runtime_error("node '" + n.name + "': op " + to_string(n.op) +
                               " cannot be lowered to the compute pipeline");
  }
}

// OpDesc::kInputUnsigned / kInput2Unsigned / kOutputUnsigned from the tensors' is_unsigned
// (the calibrator's choice); a softmax's and a MatMul's uint8 probabilities are kUnsigned.
uint8_t unsigned_activation_flags(const Graph& g, const Node& n) {
  if (n.op == OpType::kSoftmax || n.op == OpType::kMatMul) return 0;
  const auto u = [&](int t) { return t >= 0 && g.tensors[size_t(t)].is_unsigned; };
  const bool second = n.inputs.size() > 1 && n.inputs[1] != n.scale_input();
  return uint8_t((!n.inputs.empty() && u(n.inputs[0]) ? OpDesc::kInputUnsigned : 0) |
                 (second && u(n.inputs[1]) ? OpDesc::kInput2Unsigned : 0) |
                 (!n.outputs.empty() && u(n.result()) ? OpDesc::kOutputUnsigned : 0));
}

}  // namespace

bool Lowerer::channel_local(const Node& n) const {
  switch (n.op) {
    case OpType::kConv: return n.groups > 1;
    case OpType::kFullyConnected:
    case OpType::kSoftmax:
    case OpType::kMatMul:
    case OpType::kLayerNorm: return false;
    default: return true;
  }
}

void Lowerer::input_rows(const Node& n, uint32_t r0, uint32_t r1, uint32_t* y0, uint32_t* y1) const {
  const int64_t h = g_.tensors[n.inputs[0]].shape.h;
  switch (n.op) {
    case OpType::kConv:
    case OpType::kMaxPool:
    case OpType::kAvgPool:
    case OpType::kPad: {
      const int64_t lo = int64_t(r0) * n.stride_h - n.pad_top;
      const int64_t hi = int64_t(r1 - 1) * n.stride_h - n.pad_top + int64_t(n.kernel_h - 1) * n.dilation_h + 1;
      *y0 = static_cast<uint32_t>(std::clamp<int64_t>(lo, 0, h));
      *y1 = static_cast<uint32_t>(std::clamp<int64_t>(hi, *y0, h));
      return;
    }
    case OpType::kGlobalAvgPool:
    case OpType::kFullyConnected:
    case OpType::kInstanceNorm:  // the statistics run over every row of a channel
      *y0 = 0, *y1 = static_cast<uint32_t>(h);
      return;
    default:
      *y0 = r0, *y1 = r1;
  }
}

void Lowerer::input_channels(const Node& n, uint32_t c0, uint32_t c1, uint32_t* i0, uint32_t* i1) const {
  const uint32_t in_c = static_cast<uint32_t>(g_.tensors[n.inputs[0]].shape.c);
  if (!channel_local(n)) {
    *i0 = 0, *i1 = in_c;
  } else if (n.op == OpType::kConv) {
    const uint32_t out_c = static_cast<uint32_t>(g_.tensors[n.outputs[0]].shape.c);
    const uint32_t cout_g = out_c / n.groups, cin_g = in_c / n.groups;
    *i0 = c0 / cout_g * cin_g, *i1 = ((c1 - 1) / cout_g + 1) * cin_g;
  } else {
    *i0 = c0, *i1 = c1;
  }
}

// Output channel c = g N + n reads B(g, k, n) for every k: B channel c over all its rows, or with
// transpose_b B channels [g K, (g + 1) K) at the rows of position n (a block inside one group
// reads only its positions' rows, a block across groups every row).
void Lowerer::matmul_b_range(const Node& n, uint32_t c0, uint32_t c1, uint32_t* i0, uint32_t* i1,
                             uint32_t* y0, uint32_t* y1) const {
  const TensorShape& b = g_.tensors[n.inputs[1]].shape;
  if (!n.transpose_b) {
    *i0 = c0, *i1 = c1, *y0 = 0, *y1 = static_cast<uint32_t>(b.h);
    return;
  }
  const uint32_t groups = static_cast<uint32_t>(n.groups);
  const uint32_t n_len = static_cast<uint32_t>(g_.tensors[n.outputs[0]].shape.c) / groups;
  const uint32_t k_len = static_cast<uint32_t>(b.c) / groups, w = static_cast<uint32_t>(b.w);
  const uint32_t g0 = c0 / n_len, g1 = (c1 - 1) / n_len;
  *i0 = g0 * k_len, *i1 = (g1 + 1) * k_len;
  if (g0 == g1) {
    *y0 = (c0 - g0 * n_len) / w, *y1 = (c1 - 1 - g0 * n_len) / w + 1;
  } else {
    *y0 = 0, *y1 = static_cast<uint32_t>(b.h);
  }
}

OpDesc Lowerer::base_op(const Node& n, bool placed) const {
  auto tensor = [&](int t) { return placed ? ref(t) : shape_ref(t); };
  OpDesc b;
  b.op = op_code(n);
  b.input = tensor(n.inputs[0]);
  if (n.inputs.size() > 1 && !n.residual.fused && !n.input_scale.fused) {
    b.input2 = tensor(n.inputs[1]);
  }
  if (n.input_scale.fused) {  // a per-channel Mul fused into the input load
    const Node::InputScaleFusion& f = n.input_scale;
    InputScale& s = b.input_scale;
    s.scale = tensor(n.scale_input());
    s.multiplier = f.multiplier, s.shift = f.shift;
    s.act = static_cast<PostAct>(static_cast<uint8_t>(f.act));
    s.clip_min = f.clip_min, s.clip_max = f.clip_max;
    const bool us = g_.tensors[size_t(n.scale_input())].is_unsigned;
    const bool up = g_.tensors[size_t(f.product)].is_unsigned;
    s.flags =
        uint8_t((us ? InputScale::kScaleUnsigned : 0) | (up ? InputScale::kProductUnsigned : 0));
  }
  if (n.residual.fused) {  // a residual Add fused into the store path
    const Node::ResidualAdd& r = n.residual;
    b.post = PostOp{PostOpKind::kAdd, tensor(n.inputs[1]), r.multiplier, r.operand_multiplier,
                    r.shift, static_cast<PostAct>(static_cast<uint8_t>(r.act)), r.clip_min,
                    r.clip_max};
  }
  b.output = tensor(n.outputs[0]);
  if (n.pool.fused) fuse_pool(n, &b);
  if (n.gap.fused) fuse_gap(n, placed, &b);
  if (!node_mapping_.empty()) b.mapping = node_mapping_[&n - g_.nodes.data()];
  b.kernel_h = static_cast<uint16_t>(n.op == OpType::kGlobalAvgPool ? b.input.h : n.kernel_h);
  b.kernel_w = static_cast<uint16_t>(n.op == OpType::kGlobalAvgPool ? b.input.w : n.kernel_w);
  b.stride_h = static_cast<uint16_t>(n.stride_h);
  b.stride_w = static_cast<uint16_t>(n.stride_w);
  b.pad_top = static_cast<uint16_t>(n.pad_top);
  b.pad_left = static_cast<uint16_t>(n.pad_left);
  b.pad_bottom = static_cast<uint16_t>(n.pad_bottom);
  b.pad_right = static_cast<uint16_t>(n.pad_right);
  b.dilation_h = static_cast<uint16_t>(n.dilation_h);
  b.dilation_w = static_cast<uint16_t>(n.dilation_w);
  b.groups = static_cast<uint32_t>(n.groups);
  b.count_include_pad = n.count_include_pad;
  // kUnsigned: a softmax writing uint8 probabilities, a MatMul reading them as A.
  const bool u = (n.op == OpType::kSoftmax && g_.tensors[n.outputs[0]].is_unsigned) ||
                 (n.op == OpType::kMatMul && g_.tensors[n.inputs[0]].is_unsigned);
  b.flags = uint8_t((n.transpose_b ? OpDesc::kTransposeB : 0) | (n.causal ? OpDesc::kCausal : 0) |
                    (u ? OpDesc::kUnsigned : 0) | unsigned_activation_flags(g_, n));
  if (n.op == OpType::kPad) {
    // Explicit zero padding: each output is the one input element under a 1x1 window, or 0 in
    // the padding (an average over no element); requantisation and activation do not apply.
    b.kernel_h = b.kernel_w = b.stride_h = b.stride_w = b.dilation_h = b.dilation_w = 1;
    b.count_include_pad = false;
  }
  b.act = static_cast<PostAct>(static_cast<uint8_t>(n.activation));
  if (is_lookup(n.activation)) {
    b.lut = n.lut;
  } else if (n.residual.fused && is_lookup(n.residual.act)) {
    b.lut = n.residual.lut;
  }
  b.clip_min = n.clip_min;
  b.clip_max = n.clip_max;
  b.requant_multiplier = n.requant_multiplier;
  b.requant_shift = n.requant_shift;
  b.input_multiplier = n.input_multiplier;
  b.input2_multiplier = n.input2_multiplier;
  b.row_begin = 0;
  b.row_end = b.output.h;
  return b;
}

Descriptor Lowerer::op_tile(const Node& n, uint32_t layer, const OpDesc& base, uint32_t r0,
                            uint32_t r1, uint32_t c0, uint32_t c1) const {
  Descriptor d;
  d.kind = DescKind::kOp;
  d.layer = layer;
  d.op = base;
  d.op.row_begin = r0, d.op.row_end = r1;
  set_tile_channels(n, c0, c1, &d.op);
  mark_gap_band(&d.op);  // a fused global pool's first / last band
  if (d.op.gap.first() && d.op.gap.last()) d.op.gap.partial = TensorRef();  // no partial sums
  const size_t i = &n - g_.nodes.data();
  if (i < node_tail_from_.size() && c0 >= node_tail_from_[i]) d.op.mapping = node_tail_[i];
  return d;
}

void Lowerer::set_tile_channels(const Node& n, uint32_t c0, uint32_t c1, OpDesc* op) {
  op->ch_begin = c0;
  op->ch_end = c1;
  op->channel_requant.clear();
  if (!n.channel_requant.empty()) {
    op->channel_requant.assign(n.channel_requant.begin() + c0, n.channel_requant.begin() + c1);
  }
}

// Output rows per tile when memory does not limit them. Strided windows run over output rows back
// to back with one L2 block per row a run touches, so a band of whole runs (rows x W_out up to
// one run of neurons) keeps runs from straddling rows; stride-1 windows stream across rows
// anyway and take the whole height.
uint32_t Lowerer::band_rows(const OpDesc& op) const {
  if (op.mapping != Mapping::kPositions) return op.output.h;  // positions sit in the accumulators
  const bool strided = (op.stride_h > 1 || op.stride_w > 1) &&
                       (op.op == OpCode::kConv || op.op == OpCode::kMaxPool || op.op == OpCode::kAvgPool);
  if (!strided || op.output.w >= arch_.neurons.count) return op.output.h;
  return std::max<uint32_t>(1, arch_.neurons.count / op.output.w);
}

uint32_t Lowerer::band_rows(const Node& n, const OpDesc& op) const {
  if (n.pool.fused) return op.output.h;  // a fused max-pool's tile: the whole height
  const size_t i = &n - g_.nodes.data();
  return i < node_rows_.size() && node_rows_[i] != 0 ? node_rows_[i] : band_rows(op);
}

void Lowerer::lower_compute(const Node& n, uint32_t layer) {
  layer_first_desc_ = static_cast<uint32_t>(out_.list.descriptors.size());
  const size_t idx = size_t(&n - g_.nodes.data());
  const int pf = node_prefetch_.empty() ? -1 : node_prefetch_[idx];
  if (pf >= 0 && prefetches_[size_t(pf)].stored) {  // stored when its first fill was emitted
    w_dram_ = prefetches_[size_t(pf)].w_dram, b_dram_ = prefetches_[size_t(pf)].b_dram;
  } else if (n.weights >= 0) {
    std::tie(w_dram_, b_dram_) = place_weights(n);
  }
  if (n.weights >= 0) staging_ = node_staging_[idx];
  fills_ = 0;
  out_.layers[layer].macs = static_cast<uint64_t>(node_macs(g_, n));  // all images
  if (dw_reader_[idx] >= 0) {  // with its depthwise reader, in row bands (depthwise_fusion.cpp)
    lower_dw_pair(n, layer);
    return;
  }
  // Inside an image segment the node runs for the one image of the segment's current pass.
  const uint32_t images = in_segment_ ? 1 : static_cast<uint32_t>(g_.tensors[n.outputs[0]].shape.n);
  bool spilled = false;
  for (int t : n.outputs) spilled = spilled || layout_.tensor_spilled[t];
  for (int t : n.inputs) spilled = spilled || layout_.tensor_spilled[t];
  if (!spilled) {
    lower_resident(n, layer, images);
    return;
  }
  // Row bands: images one after another, or sharing each weight block (see lower_banded).
  lower_banded(n, layer, images);
  image_ = 0;
}

// Tiles of a node whose tensors are all in L2: bands of output rows x blocks of output channels;
// a block's weights are staged once per band and reused by the tiles of every image of the batch
// (inputs outer), or, in the loop order weights_outer (the mapping search's, node_order_), staged
// once and reused by every band: W instead of bands x W DRAM bytes for the same tiles.
void Lowerer::lower_resident(const Node& n, uint32_t layer, uint32_t images) {
  std::vector<OpDesc> image_base(images);
  for (image_ = 0; image_ < images; ++image_) image_base[image_] = base_op(n);
  image_ = 0;
  const OpDesc& base = image_base[0];
  if (images > 1 && n.weights >= 0) out_.layers[layer].batch_order = "images_inside";
  const uint32_t out_c = base.output.c, block = weight_block(n);
  const uint32_t out_h = base.output.h;
  uint32_t rows = band_rows(n, base);
  const size_t idx = size_t(&n - g_.nodes.data());
  const bool weights_outer =
      n.weights >= 0 && idx < node_order_.size() && node_order_[idx] == LoopOrder::kWeightsOuter;
  // The first reader of a graph input loading in row chunks, and the producer of the run's last
  // graph output, may take lower bands so that their tiles overlap the input's load, and store
  // that output band by band behind its tiles (stream_io.cpp); a fused max-pool's tile keeps the
  // whole height and stores after the layer.
  const int out_t = n.outputs[0];
  const bool stream_in = images == 1 && chunked_.count(n.inputs[0]) > 0;
  const bool timed_output = int(idx) == tail_node_ && is_output_[size_t(out_t)] &&
                            !layout_.tensor_spilled[size_t(out_t)] && images == 1 &&
                            !in_segment_ && opt_.image_segments.empty();
  // (Only window ops of more than one output row have a band height to choose.)
  const bool windows =
      n.op == OpType::kConv || n.op == OpType::kMaxPool || n.op == OpType::kAvgPool;
  bool stream_out = false;
  if (windows && out_h > 1 && !n.pool.fused && !n.gap.fused && (stream_in || timed_output)) {
    const StreamCut cut =
        stream_cut(n, base, rows, block, weights_outer || block >= out_c, stream_in, timed_output);
    rows = cut.rows;
    stream_out = cut.band_stores && stream_output(out_t);
    for (MappingRow& row : out_.mapping) {
      if (row.layer == idx) row.rows = rows;  // the search's row names the node until run() ends
    }
  }
  // Per band of a streamed output: the tiles written so far (a band is stored once it has all
  // its channel blocks).
  const uint32_t blocks = (out_c + block - 1) / block;
  std::vector<std::vector<uint32_t>> band_tiles(stream_out ? (out_h + rows - 1) / rows : 0);
  uint32_t last = 0, slot = 0;
  std::vector<uint32_t> staged;  // the moves that staged the block staged last
  TensorRef staged_w, staged_b;  // the block staged last
  auto tile = [&](uint32_t r0, uint32_t c0, bool stage) {
    Descriptor d =
        op_tile(n, layer, base, r0, std::min(out_h, r0 + rows), c0, std::min(out_c, c0 + block));
    d.deps = input_deps(n);
    row_deps(n, r0, std::min(out_h, r0 + rows), &d.deps);  // a graph input loading in chunks
    if (n.weights >= 0 && stage) {
      const size_t before = d.deps.size();
      stage_weights(n, layer, d.op.ch_begin, d.op.ch_end, d);
      staged.assign(d.deps.begin() + std::ptrdiff_t(before), d.deps.end());
      staged_w = d.op.weights, staged_b = d.op.bias;
      // The slot stage_weights just filled (the ring's previous one).
      const size_t ring = staging_.last_user.size();
      slot = ring ? uint32_t((staging_.next + ring - 1) % ring) : 0;
    } else if (n.weights >= 0) {
      d.op.weights = staged_w, d.op.bias = staged_b;  // the block staged for an earlier band
      d.deps.insert(d.deps.end(), staged.begin(), staged.end());
    }
    emit_gathers(&n, &d.deps);  // the step before's gathers, behind these weights (copy_lowering)
    for (uint32_t i = 0; i < images; ++i) {
      // The same tile over image i: same staged weights, image i's tensors.
      Descriptor di = i + 1 < images ? d : std::move(d);
      di.op.input = image_base[i].input;
      di.op.input2 = image_base[i].input2;
      di.op.post.operand = image_base[i].post.operand;
      di.op.output = image_base[i].output;
      di.op.pool.output = image_base[i].pool.output;
      di.op.input_scale.scale = image_base[i].input_scale.scale;
      di.op.gap.output = image_base[i].gap.output;
      // The slot's last reader becomes this tile (the next writer of the slot waits for it).
      if ((i > 0 || !stage) && n.weights >= 0)
        staging_.last_user[slot] = -2 - static_cast<int>(slot);
      last = emit_tile(std::move(di), layer);
    }
    if (stream_out) {
      std::vector<uint32_t>& band = band_tiles[r0 / rows];
      band.push_back(last);
      if (band.size() == blocks) store_rows(out_t, r0, std::min(out_h, r0 + rows), band);
    }
  };
  // A layer in one channel block stages its weights once in either order (fpn30: tiny_fpn_det's
  // c3 moved its 1,216 weight bytes once per band, four times).
  if (weights_outer || block >= out_c) {
    for (uint32_t c0 = 0; c0 < out_c; c0 += block)
      for (uint32_t r0 = 0; r0 < out_h; r0 += rows) tile(r0, c0, r0 == 0);
  } else {
    for (uint32_t r0 = 0; r0 < out_h; r0 += rows)
      for (uint32_t c0 = 0; c0 < out_c; c0 += block) tile(r0, c0, true);
  }
  for (int t : n.outputs) last_desc_[t] = {last};
}

// Emits an operation tile after the moves that read L2 since its queue's last op and the
// other queue's ops whose bytes it overwrites: the staging slot it reads now names it, it is the
// last op of its queue so far.
uint32_t Lowerer::emit_tile(Descriptor d, uint32_t layer) {
  const int q = is_vector_op(d.op.op) ? 1 : 0;
  const bool took = !pending_readers_.empty();
  d.deps.insert(d.deps.end(), pending_readers_.begin(), pending_readers_.end());
  pending_readers_.clear();
  if (owed_readers_[q] >= 0) d.deps.push_back(uint32_t(owed_readers_[q]));
  owed_readers_[q] = -1;
  order_queues(d);
  const uint32_t id = emit(std::move(d));
  last_op_[q] = int(id);
  if (took) owed_readers_[1 - q] = int(id);
  record_queue_bytes(q, out_.list.descriptors.back());
  for (int& u : staging_.last_user) u = u <= -2 ? int(id) : u;
  ++out_.layers[layer].tiles;
  return id;
}

namespace {

// The L2 bytes [lo, hi) a tensor's held part spans (hi == lo: none or not in L2).
std::pair<uint64_t, uint64_t> l2_span(const TensorRef& t) {
  if (!t.present() || t.space != MemSpace::kL2) return {t.addr, t.addr};
  const uint64_t end = t.addr + uint64_t(t.held_channels() - 1) * t.channel_stride +
                       uint64_t(t.held_rows() - 1) * t.row_stride + uint64_t(t.w) * t.element_bytes;
  return {t.addr, end};
}

}  // namespace

// The compute pipeline and the vector unit take their ops side by side: a tile of one queue
// that writes L2 bytes an op of the other queue read or wrote, and that is not yet known to
// follow that op, waits for the latest such op (the earlier ones of that queue precede it). The
// bytes are each tensor's whole span: coarser than the tile, never missing one.
void Lowerer::order_queues(Descriptor& d) {
  const OpDesc& o = d.op;
  const int q = is_vector_op(o.op) ? 1 : 0, other = 1 - q;
  for (uint32_t p : d.deps) {
    const Descriptor& e = out_.list.descriptors[p];
    if (e.kind == DescKind::kOp && is_vector_op(e.op.op) == (other == 1)) {
      ordered_after_[q] = std::max(ordered_after_[q], int(p));
    }
  }
  const bool psum_write = (o.psum_mode & OpDesc::kPsumWrite) && o.psum.present();
  // The bytes it writes: its output (or partial sums), a fused global pool's output and partial
  // sums.
  const std::pair<uint64_t, uint64_t> spans[] = {l2_span(psum_write ? o.psum : o.stored()),
                                                 l2_span(o.gap.output), l2_span(o.gap.partial)};
  std::vector<OpBytes>& theirs = queue_bytes_[other];
  int wait = -1;
  for (const OpBytes& b : theirs) {
    for (const std::pair<uint64_t, uint64_t>& w : spans) {
      if (int(b.op) > ordered_after_[q] && b.lo < w.second && w.first < b.hi) {
        wait = std::max(wait, int(b.op));
      }
    }
  }
  if (wait >= 0) {
    d.deps.push_back(uint32_t(wait));
    ordered_after_[q] = wait;
  }
  theirs.erase(std::remove_if(theirs.begin(), theirs.end(),
                              [&](const OpBytes& b) { return int(b.op) <= ordered_after_[q]; }),
               theirs.end());
}

// Remembers the L2 bytes op `d` of queue `q` reads and writes, for the other queue's writers;
// a span one of the last few entries already holds takes the newer op id instead.
void Lowerer::record_queue_bytes(int q, const Descriptor& d) {
  const OpDesc& o = d.op;
  std::vector<OpBytes>& mine = queue_bytes_[q];
  for (const TensorRef* t : {&o.input, &o.input2, &o.weights, &o.bias, &o.psum, &o.stored(),
                             &o.post.operand, &o.gap.output, &o.gap.partial}) {
    const std::pair<uint64_t, uint64_t> s = l2_span(*t);
    if (s.first == s.second) continue;
    bool merged = false;
    for (size_t k = mine.size(); k > 0 && k + 8 > mine.size() && !merged; --k) {
      OpBytes& b = mine[k - 1];
      if (b.lo == s.first && b.hi == s.second) b.op = d.id, merged = true;
    }
    if (!merged) mine.push_back({s.first, s.second, d.id});
  }
}

// A fill move of channels [i0, i1) x rows [y0, y1) of DRAM tensor `r` into the next in-band slot,
// after `deps` and the slot's last reader; `band` describes the slot's contents.
uint32_t Lowerer::fill_band(uint32_t layer, const TensorRef& r, std::vector<uint32_t> deps,
                            uint32_t i0, uint32_t i1, uint32_t y0, uint32_t y1, TensorRef* band,
                            uint32_t* slot) {
  *slot = in_bands_.take();
  // A slot last read by a tile of this layer: that tile waited for a fill of every spilled input
  // of its band, which waited for the input's producers, so the WAR dependency below implies
  // them. Only the first fill of each slot in a layer names the producers (often one spill move
  // per producer tile): the list stays linear in size, with the same order of execution.
  if (in_bands_.last_user[*slot] >= 0 && uint32_t(in_bands_.last_user[*slot]) >= layer_first_desc_) {
    deps.clear();
  }
  *band = r;
  band->space = MemSpace::kL2;
  band->addr = in_bands_.addr(*slot);
  band->first_channel = i0, band->channels = i1 - i0, band->first_row = y0, band->rows = y1 - y0;
  band->channel_stride = band->rows * r.w;
  const std::vector<uint32_t> war = in_bands_.war(*slot);
  deps.insert(deps.end(), war.begin(), war.end());
  out_.layers[layer].fill_bytes += uint64_t(i1 - i0) * band->rows * r.w;
  return move(layer, MemSpace::kDram, r.addr + r.offset(i0, y0, 0), MemSpace::kL2, band->addr,
              i1 - i0, band->rows * r.w, r.channel_stride, band->channel_stride, deps);
}

// Points the tile's output at the next out-band slot (after the slot's last spill); returns it.
uint32_t Lowerer::band_output(Descriptor& d) {
  const uint32_t slot = out_bands_.take();
  const std::vector<uint32_t> war = out_bands_.war(slot);
  d.deps.insert(d.deps.end(), war.begin(), war.end());
  TensorRef& o = d.op.output;
  o.space = MemSpace::kL2;
  o.addr = out_bands_.addr(slot);
  o.first_channel = d.op.ch_begin, o.channels = d.op.ch_end - d.op.ch_begin;
  o.first_row = d.op.row_begin, o.rows = d.op.row_end - d.op.row_begin;
  o.channel_stride = o.rows * o.w;
  return slot;
}

// The spill move of an out-band slot written by `tile` to `home`, the output of the tile's image
// in DRAM.
uint32_t Lowerer::spill_band(uint32_t layer, const TensorRef& home, uint32_t slot, uint32_t c0,
                             uint32_t c1, uint32_t r0, uint32_t r1, uint32_t tile) {
  const uint32_t row_bytes = (r1 - r0) * home.w;
  const uint32_t spill = move(layer, MemSpace::kL2, out_bands_.addr(slot), MemSpace::kDram,
                              home.addr + home.offset(c0, r0, 0), c1 - c0, row_bytes, row_bytes,
                              home.channel_stride, {tile});
  out_bands_.last_user[slot] = int(spill);
  out_.layers[layer].spill_bytes += uint64_t(c1 - c0) * row_bytes;
  return spill;
}

}  // namespace strider
