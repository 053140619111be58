#include "planner/lower/lowering.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <stdexcept>

#include "planner/lower/activation_layout.h"
#include "planner/schedule/schedule.h"

namespace strider {
namespace {

constexpr uint32_t kStagingSlots = 2;

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

PostAct post_act(Activation a) { return static_cast<PostAct>(static_cast<uint8_t>(a)); }

// Weight bytes of one output channel of a conv (or fc) node.
uint64_t channel_weight_bytes(const Graph& g, const Node& n) {
  const Tensor& w = g.tensors[n.weights];
  return uint64_t(w.shape.elements()) / uint64_t(w.shape.n);
}

class Lowerer {
 public:
  Lowerer(const Graph& g, const ArchConfig& arch, const LowerOptions& opt)
      : g_(g), arch_(arch), opt_(opt), last_desc_(g.tensors.size()) {}

  Lowered run();

 private:
  uint32_t tile_channels(const Node& n) const;
  uint64_t slot_bytes_needed() const;
  TensorRef ref(int tensor) const;
  uint32_t add_layer(const std::string& name, const std::string& op);
  uint32_t emit(Descriptor d);
  uint32_t move(uint32_t layer, MemSpace src, uint64_t src_addr, MemSpace dst, uint64_t dst_addr,
                uint32_t rows, uint32_t row_bytes, uint32_t src_stride, uint32_t dst_stride,
                std::vector<uint32_t> deps);
  void lower_compute(const Node& n, uint32_t layer);
  void lower_shuffle(const Node& n, uint32_t layer);
  std::vector<uint32_t> input_deps(const Node& n) const;

  const Graph& g_;
  const ArchConfig& arch_;
  const LowerOptions& opt_;
  Lowered out_;
  std::vector<std::vector<uint32_t>> last_desc_;  // per tensor: descriptors that produce it
  std::vector<int> slot_reader_;                  // per staging slot: last tile that read it
  uint64_t slot_bytes_ = 0, staging_base_ = 0, next_weight_addr_ = kDramWeightsBase;
  uint32_t next_slot_ = 0;
};

uint32_t Lowerer::tile_channels(const Node& n) const {
  const uint32_t out_c = static_cast<uint32_t>(g_.tensors[n.outputs[0]].shape.c);
  if (n.op == OpType::kConv) {
    const uint64_t per = channel_weight_bytes(g_, n);
    return static_cast<uint32_t>(std::clamp<uint64_t>(arch_.l1.kernel_bytes / per, 1, out_c));
  }
  if (n.op == OpType::kFullyConnected) {
    // One run of neurons per tile, bounded so a slot stays within an eighth of L2.
    const uint64_t per = channel_weight_bytes(g_, n);
    const uint64_t cap = std::max<uint64_t>(1, (arch_.l2.size_bytes / 8) / per);
    return static_cast<uint32_t>(std::clamp<uint64_t>(cap, 1, std::min<uint64_t>(arch_.neurons.count, out_c)));
  }
  return out_c;
}

uint64_t Lowerer::slot_bytes_needed() const {
  uint64_t need = 0;
  for (const Node& n : g_.nodes) {
    if (n.weights < 0) continue;
    const uint64_t ch = tile_channels(n);
    need = std::max(need, align_up(ch * channel_weight_bytes(g_, n), arch_.l2.alignment_bytes) +
                              align_up(ch * 4, arch_.l2.alignment_bytes));
  }
  return need;
}

TensorRef Lowerer::ref(int tensor) const {
  const Tensor& t = g_.tensors[tensor];
  TensorRef r;
  r.space = MemSpace::kL2;
  r.addr = out_.tensor_addr[tensor];
  r.c = static_cast<uint32_t>(t.shape.c);
  r.h = static_cast<uint32_t>(t.shape.h);
  r.w = static_cast<uint32_t>(t.shape.w);
  r.row_stride = r.w;
  r.channel_stride = r.w * r.h;
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
  d.id = static_cast<uint32_t>(out_.list.descriptors.size());
  std::sort(d.deps.begin(), d.deps.end());
  d.deps.erase(std::unique(d.deps.begin(), d.deps.end()), d.deps.end());
  out_.list.descriptors.push_back(std::move(d));
  return out_.list.descriptors.back().id;
}

uint32_t Lowerer::move(uint32_t layer, MemSpace src, uint64_t src_addr, MemSpace dst,
                       uint64_t dst_addr, uint32_t rows, uint32_t row_bytes, uint32_t src_stride,
                       uint32_t dst_stride, std::vector<uint32_t> deps) {
  Descriptor d;
  d.kind = DescKind::kMove;
  d.layer = layer;
  d.deps = std::move(deps);
  d.move = MoveDesc{src, dst, src_addr, dst_addr, rows, row_bytes, src_stride, dst_stride};
  return emit(std::move(d));
}

std::vector<uint32_t> Lowerer::input_deps(const Node& n) const {
  std::vector<uint32_t> deps;
  for (int t : n.inputs) deps.insert(deps.end(), last_desc_[t].begin(), last_desc_[t].end());
  return deps;
}

void Lowerer::lower_shuffle(const Node& n, uint32_t layer) {
  // out channel (i * groups + k) = in channel (k * per + i): one 2-D move per input group.
  const TensorRef in = ref(n.inputs[0]), out = ref(n.outputs[0]);
  const uint32_t groups = static_cast<uint32_t>(n.shuffle_groups), per = in.c / groups;
  const uint32_t plane = in.channel_stride;
  std::vector<uint32_t> done;
  for (uint32_t k = 0; k < groups; ++k) {
    done.push_back(move(layer, MemSpace::kL2, in.addr + uint64_t(k) * per * plane, MemSpace::kL2,
                        out.addr + uint64_t(k) * plane, per, plane, plane, groups * plane,
                        input_deps(n)));
    out_.layers[layer].copy_bytes += uint64_t(per) * plane;
  }
  last_desc_[n.outputs[0]] = done;
}

void Lowerer::lower_compute(const Node& n, uint32_t layer) {
  OpDesc base;
  switch (n.op) {
    case OpType::kConv: base.op = OpCode::kConv; break;
    case OpType::kFullyConnected: base.op = OpCode::kFullyConnected; break;
    case OpType::kMaxPool: base.op = OpCode::kMaxPool; break;
    case OpType::kAvgPool: base.op = OpCode::kAvgPool; break;
    case OpType::kGlobalAvgPool: base.op = OpCode::kGlobalAvgPool; break;
    case OpType::kAdd: base.op = OpCode::kAdd; break;
    case OpType::kMul: base.op = OpCode::kMul; break;
    case OpType::kActivation: base.op = OpCode::kActivation; break;
    case OpType::kSoftmax: base.op = OpCode::kSoftmax; break;
    default:
      throw std::runtime_error("node '" + n.name + "': op " + to_string(n.op) +
                               " cannot be lowered to the compute pipeline");
  }
  base.input = ref(n.inputs[0]);
  if (n.inputs.size() > 1) base.input2 = ref(n.inputs[1]);
  base.output = ref(n.outputs[0]);
  base.kernel_h = static_cast<uint16_t>(n.kernel_h);
  base.kernel_w = static_cast<uint16_t>(n.kernel_w);
  if (n.op == OpType::kGlobalAvgPool) {
    base.kernel_h = static_cast<uint16_t>(base.input.h);
    base.kernel_w = static_cast<uint16_t>(base.input.w);
  }
  base.stride_h = static_cast<uint16_t>(n.stride_h);
  base.stride_w = static_cast<uint16_t>(n.stride_w);
  base.pad_top = static_cast<uint16_t>(n.pad_top);
  base.pad_left = static_cast<uint16_t>(n.pad_left);
  base.pad_bottom = static_cast<uint16_t>(n.pad_bottom);
  base.pad_right = static_cast<uint16_t>(n.pad_right);
  base.dilation_h = static_cast<uint16_t>(n.dilation_h);
  base.dilation_w = static_cast<uint16_t>(n.dilation_w);
  base.groups = static_cast<uint32_t>(n.groups);
  base.count_include_pad = n.count_include_pad;
  base.act = post_act(n.activation);
  base.clip_min = n.clip_min;
  base.clip_max = n.clip_max;
  base.requant_multiplier = n.requant_multiplier;
  base.requant_shift = n.requant_shift;
  base.row_begin = 0;
  base.row_end = base.output.h;
  const uint32_t out_c = base.output.c, block = tile_channels(n);
  const uint64_t per_ch = n.weights >= 0 ? channel_weight_bytes(g_, n) : 0;
  uint64_t w_dram = 0, b_dram = 0;
  if (n.weights >= 0) {  // this layer's weights, then its biases, in DRAM
    const Tensor& wt = g_.tensors[n.weights];
    w_dram = next_weight_addr_;
    out_.dram.blobs.push_back({w_dram, wt.data});
    b_dram = align_up(w_dram + wt.bytes(), 64);
    std::vector<int8_t> bias_bytes(uint64_t(out_c) * 4, 0);
    if (n.bias >= 0) {
      const std::vector<int32_t>& b = g_.tensors[n.bias].bias;
      for (size_t i = 0; i < b.size() && i < out_c; ++i) {
        for (int k = 0; k < 4; ++k) bias_bytes[4 * i + k] = int8_t((uint32_t(b[i]) >> (8 * k)) & 0xff);
      }
    }
    out_.dram.blobs.push_back({b_dram, bias_bytes});
    next_weight_addr_ = align_up(b_dram + bias_bytes.size(), 4096);
  }
  const std::vector<uint32_t> producers = input_deps(n);
  uint32_t last = 0;
  for (uint32_t c0 = 0; c0 < out_c; c0 += block) {
    const uint32_t c1 = std::min(out_c, c0 + block), ch = c1 - c0;
    Descriptor d;
    d.kind = DescKind::kOp;
    d.layer = layer;
    d.op = base;
    d.op.ch_begin = c0;
    d.op.ch_end = c1;
    d.deps = producers;
    if (n.weights >= 0) {
      const uint32_t slot = next_slot_;
      next_slot_ = (next_slot_ + 1) % kStagingSlots;
      const uint64_t w_l2 = staging_base_ + uint64_t(slot) * slot_bytes_;
      const uint64_t b_l2 = w_l2 + align_up(ch * per_ch, arch_.l2.alignment_bytes);
      std::vector<uint32_t> war;
      if (slot_reader_[slot] >= 0) war.push_back(static_cast<uint32_t>(slot_reader_[slot]));
      const uint32_t wm = move(layer, MemSpace::kDram, w_dram + c0 * per_ch, MemSpace::kL2, w_l2, 1,
                               static_cast<uint32_t>(ch * per_ch), 0, 0, war);
      const uint32_t bm = move(layer, MemSpace::kDram, b_dram + uint64_t(c0) * 4, MemSpace::kL2,
                               b_l2, 1, ch * 4, 0, 0, war);
      out_.layers[layer].weight_bytes += ch * per_ch + uint64_t(ch) * 4;
      d.deps.push_back(wm);
      d.deps.push_back(bm);
      d.op.weights = TensorRef{MemSpace::kL2, w_l2, ch, static_cast<uint32_t>(n.kernel_h),
                               static_cast<uint32_t>(per_ch / n.kernel_h), 0, 0, 1};
      d.op.weights.row_stride = d.op.weights.w;
      d.op.weights.channel_stride = static_cast<uint32_t>(per_ch);
      d.op.bias = TensorRef{MemSpace::kL2, b_l2, ch, 1, 1, 4, 4, 4};
      last = emit(std::move(d));
      slot_reader_[slot] = static_cast<int>(last);
    } else {
      last = emit(std::move(d));
    }
    ++out_.layers[layer].tiles;
  }
  out_.layers[layer].macs = static_cast<uint64_t>(node_macs(g_, n));
  for (int t : n.outputs) last_desc_[t] = {last};
}

Lowered Lowerer::run() {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<int> order = schedule_nodes(g_, opt_.schedule);
  slot_bytes_ = slot_bytes_needed();
  out_.staging_bytes = slot_bytes_ * kStagingSlots;
  if (out_.staging_bytes >= arch_.l2.size_bytes) {
    throw std::runtime_error("weight staging needs " + std::to_string(out_.staging_bytes) +
                             " bytes, more than the L2 of " + std::to_string(arch_.l2.size_bytes));
  }
  staging_base_ = arch_.l2.size_bytes - out_.staging_bytes;
  slot_reader_.assign(kStagingSlots, -1);

  const ActivationLayout layout =
      plan_activations(g_, order, arch_.l2.alignment_bytes, staging_base_, opt_);
  out_.tensor_addr = layout.tensor_addr;
  out_.plan = layout.buffers;
  out_.allocator = layout.allocator;
  out_.arena_bytes = layout.peak_bytes;
  out_.lower_bound_bytes = layout.lower_bound_bytes;
  out_.proven_optimal = layout.proven_optimal;
  const int64_t steps = static_cast<int64_t>(order.size());
  for (uint32_t s = 0; s < kStagingSlots; ++s) {
    out_.plan.push_back({"staging" + std::to_string(s), "weight", staging_base_ + s * slot_bytes_,
                         slot_bytes_, 0, steps > 0 ? steps - 1 : 0});
  }

  uint64_t dram_act = kDramActivationsBase;
  for (int t : g_.inputs) {
    const uint32_t layer = add_layer("input:" + g_.tensors[t].name, "input");
    const uint64_t bytes = static_cast<uint64_t>(g_.tensors[t].bytes());
    last_desc_[t] = {move(layer, MemSpace::kDram, dram_act, MemSpace::kL2, out_.tensor_addr[t], 1,
                          static_cast<uint32_t>(bytes), 0, 0, {})};
    out_.layers[layer].input_bytes = bytes;
    out_.dram.inputs.emplace_back(t, dram_act);
    dram_act = align_up(dram_act + bytes, 4096);
  }
  for (int idx : order) {
    const Node& n = g_.nodes[idx];
    if (is_view_op(n.op) || n.op == OpType::kConcat) {
      // Views and in-place concats alias memory the plan already placed: no data moves, except
      // the concat inputs that could not be produced in place, copied L2 -> L2.
      std::vector<uint32_t> deps = input_deps(n);
      int layer = -1;
      for (const ConcatCopy& c : layout.copies) {
        if (c.node != idx) continue;
        if (layer < 0) layer = static_cast<int>(add_layer(n.name, "concat"));
        const uint64_t bytes = static_cast<uint64_t>(g_.tensors[c.tensor].bytes());
        deps.push_back(move(layer, MemSpace::kL2, out_.tensor_addr[c.tensor], MemSpace::kL2,
                            c.dst_addr, 1, static_cast<uint32_t>(bytes), 0, 0,
                            last_desc_[c.tensor]));
        out_.layers[layer].copy_bytes += bytes;
      }
      for (int t : n.outputs) last_desc_[t] = deps;
      if (layer >= 0) out_.layer_node[layer] = idx;
      out_.step_layer.push_back(layer);
      continue;
    }
    const uint32_t layer = add_layer(n.name, to_string(n.op));
    out_.layer_node[layer] = idx;
    out_.step_layer.push_back(static_cast<int>(layer));
    if (n.op == OpType::kChannelShuffle) {
      lower_shuffle(n, layer);
    } else {
      lower_compute(n, layer);
    }
  }
  for (int t : g_.outputs) {
    const uint32_t layer = add_layer("output:" + g_.tensors[t].name, "output");
    const uint64_t bytes = static_cast<uint64_t>(g_.tensors[t].bytes());
    move(layer, MemSpace::kL2, out_.tensor_addr[t], MemSpace::kDram, dram_act, 1,
         static_cast<uint32_t>(bytes), 0, 0, last_desc_[t]);
    out_.layers[layer].output_bytes = bytes;
    out_.dram.outputs.emplace_back(t, dram_act);
    dram_act = align_up(dram_act + bytes, 4096);
  }
  out_.list.arch_fingerprint = arch_.fingerprint();
  for (size_t t = 0; t < g_.tensors.size(); ++t) {
    const Tensor& tensor = g_.tensors[t];
    if (tensor.kind != TensorKind::kActivation) continue;
    TensorEntry e;
    e.name = tensor.name;
    const bool is_in = std::count(g_.inputs.begin(), g_.inputs.end(), int(t)) > 0;
    const bool is_out = std::count(g_.outputs.begin(), g_.outputs.end(), int(t)) > 0;
    e.role = is_in ? TensorRole::kInput : is_out ? TensorRole::kOutput : TensorRole::kActivation;
    e.addr = out_.tensor_addr[t];
    e.bytes = static_cast<uint64_t>(tensor.bytes());
    out_.list.tensors.push_back(e);
  }
  check(out_.list);
  out_.planner_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return std::move(out_);
}

}  // namespace

Lowered lower(const Graph& g, const ArchConfig& arch, const LowerOptions& opt) {
  return Lowerer(g, arch, opt).run();
}

}  // namespace strider
