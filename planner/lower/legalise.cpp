#include "planner/lower/legalise.h"

#include <algorithm>
#include <climits>

namespace strider {
namespace {

bool can_take_activation(OpType op) {
  switch (op) {
    case OpType::kConv:
    case OpType::kFullyConnected:
    case OpType::kMaxPool:
    case OpType::kAvgPool:
    case OpType::kGlobalAvgPool:
    case OpType::kAdd:
    case OpType::kMul:
      return true;
    default:
      return false;
  }
}

// Per tensor: whether it is a graph output.
std::vector<char> output_flags(const Graph& g) {
  std::vector<char> is_output(g.tensors.size(), 0);
  for (int t : g.outputs) {
    if (t >= 0 && t < static_cast<int>(is_output.size())) is_output[t] = 1;
  }
  return is_output;
}

// What a fold sees of the graph before it: each tensor's producer (a fold that moves an output
// updates it), consumers and graph-output flag.
struct Uses {
  std::vector<int> producer;
  std::vector<std::vector<int>> consumers;
  std::vector<char> is_output;
};

// The one walker of both fusions: one pass in node order (linear in the graph); `fold(node,
// uses)` folds the node into an earlier one and returns true, or leaves it and returns false.
// The folded nodes are dropped afterwards, the others keep their order. Returns how many.
template <typename Fold>
int fold_nodes(Graph* g, Fold fold) {
  Uses uses{g->producers(), g->consumers(), output_flags(*g)};
  std::vector<char> removed(g->nodes.size(), 0);
  int folded = 0;
  for (size_t i = 0; i < g->nodes.size(); ++i) {
    if (fold(g->nodes[i], uses)) removed[i] = 1, ++folded;
  }
  size_t kept = 0;
  for (size_t i = 0; i < g->nodes.size(); ++i) {
    if (!removed[i]) {
      if (kept != i) g->nodes[kept] = std::move(g->nodes[i]);
      ++kept;
    }
  }
  g->nodes.resize(kept);
  return folded;
}

}  // namespace

int fuse_activations(Graph* g) {
  // A fused activation's output is thereafter produced by its producer, which now carries an
  // activation and so takes no second one.
  return fold_nodes(g, [g](const Node& a, Uses& u) {
    // Only an identity requantisation folds exactly: the producer's own requantisation stays.
    // LeakyRelu / PRelu keep their node (their slope is a requantisation of their own).
    if (a.op != OpType::kActivation || a.inputs.size() != 1 || a.outputs.size() != 1 ||
        a.requant_multiplier != 1 || a.requant_shift != 0 || !a.negative_slope.empty()) {
      return false;
    }
    const int t = a.inputs[0], p = u.producer[t];
    if (p < 0 || u.consumers[t].size() != 1 || u.is_output[t]) return false;
    Node& prod = g->nodes[p];
    if (!can_take_activation(prod.op) || prod.activation != Activation::kNone ||
        prod.outputs.size() != 1) {
      return false;
    }
    prod.activation = a.activation;
    prod.clip_min = a.clip_min;
    prod.clip_max = a.clip_max;
    prod.outputs[0] = a.outputs[0];  // the producer now writes the activation's output
    u.producer[a.outputs[0]] = p;
    return true;
  });
}

int fuse_residual_adds(Graph* g, const std::set<std::string>& keep, const std::string& prefix) {
  return fold_nodes(g, [&](const Node& a, const Uses& u) {
    if (a.op != OpType::kAdd || a.inputs.size() != 2 || a.outputs.size() != 1 ||
        a.inputs[0] == a.inputs[1] || keep.count(prefix + g->tensors[a.outputs[0]].name)) {
      return false;
    }
    const TensorShape& out = g->tensors[a.outputs[0]].shape;
    if (g->tensors[a.inputs[0]].shape != out || g->tensors[a.inputs[1]].shape != out) return false;
    int take = -1;  // the Add's operand whose conv takes it
    for (int k = 0; k < 2; ++k) {
      const int t = a.inputs[k], p = u.producer[t], other = u.producer[a.inputs[1 - k]];
      if (p < 0 || u.consumers[t].size() != 1 || u.is_output[t] || other >= p) continue;
      const Node& conv = g->nodes[p];
      // The conv's own result stays int8 inside the fused op (OpDesc::kOutputUnsigned names the
      // Add's output), so a conv whose output calibration made uint8 keeps its Add.
      // A descriptor carries one lookup table's scales (OpDesc::lut): a conv and an Add that
      // both end in a lookup activation stay apart.
      if (conv.op != OpType::kConv || conv.outputs.size() != 1 || conv.inputs.size() != 1 ||
          conv.residual.fused || g->tensors[t].is_unsigned ||
          (is_lookup(conv.activation) && is_lookup(a.activation))) {
        continue;
      }
      if (take < 0 || p > u.producer[a.inputs[take]]) take = k;
    }
    if (take < 0) return false;
    Node& conv = g->nodes[u.producer[a.inputs[take]]];
    conv.inputs.push_back(a.inputs[1 - take]);
    conv.residual.fused = true;
    conv.residual.multiplier = take == 0 ? a.requant_multiplier : a.input2_multiplier;
    conv.residual.operand_multiplier = take == 0 ? a.input2_multiplier : a.requant_multiplier;
    conv.residual.shift = a.requant_shift;
    conv.residual.act = a.activation;
    conv.residual.clip_min = a.clip_min;
    conv.residual.clip_max = a.clip_max;
    conv.residual.lut = a.lut;
    conv.outputs[0] = a.outputs[0];  // the conv now writes the Add's output
    return true;
  });
}

int fuse_max_pools(Graph* g, const std::set<std::string>& keep, const std::string& prefix) {
  return fold_nodes(g, [&](const Node& a, Uses& u) {
    if (a.op != OpType::kMaxPool || a.inputs.size() != 1 || a.outputs.size() != 1 ||
        keep.count(prefix + g->tensors[a.outputs[0]].name) || a.activation != Activation::kNone ||
        a.requant_multiplier != 1 || a.requant_shift != 0 || a.kernel_h * a.kernel_w < 2 ||
        a.dilation_h != 1 ||
        a.dilation_w != 1 || a.stride_h > a.kernel_h || a.stride_w > a.kernel_w ||
        a.pad_top >= a.kernel_h || a.pad_bottom >= a.kernel_h || a.pad_left >= a.kernel_w ||
        a.pad_right >= a.kernel_w) {
      return false;
    }
    const int t = a.inputs[0], p = u.producer[t];
    if (p < 0 || u.consumers[t].size() != 1 || u.is_output[t]) return false;
    Node& conv = g->nodes[p];
    if (conv.op != OpType::kConv || conv.outputs.size() != 1 || conv.residual.fused ||
        conv.pool.fused ||
        g->tensors[t].is_unsigned != g->tensors[a.outputs[0]].is_unsigned) {
      return false;
    }
    conv.pool = {true,        a.kernel_h, a.kernel_w,    a.stride_h,   a.stride_w,
                 a.pad_top,   a.pad_left, a.pad_bottom,  a.pad_right,  t};
    conv.outputs[0] = a.outputs[0];  // the conv now writes the pool's output
    u.producer[a.outputs[0]] = p;
    return true;
  });
}

int fuse_input_scales(Graph* g, const std::set<std::string>& keep, const std::string& prefix) {
  return fold_nodes(g, [&](const Node& a, const Uses& u) {
    if (a.op != OpType::kMul || a.inputs.size() != 2 || a.outputs.size() != 1 ||
        a.inputs[0] == a.inputs[1] || keep.count(prefix + g->tensors[a.outputs[0]].name) ||
        is_lookup(a.activation) || !a.channel_requant.empty() || !a.negative_slope.empty()) {
      return false;
    }
    const int m = a.outputs[0];
    const TensorShape& out = g->tensors[m].shape;
    if (out.h * out.w < 2) return false;  // a 1x1 plane: no tensor operand to tell from the scale
    int x = -1, s = -1;                   // the tensor operand and the per-channel scale
    for (int k = 0; k < 2; ++k) {
      const TensorShape& xs = g->tensors[a.inputs[k]].shape;
      const TensorShape& ss = g->tensors[a.inputs[1 - k]].shape;
      if (xs == out && ss.n == out.n && ss.c == out.c && ss.h == 1 && ss.w == 1) {
        x = a.inputs[k], s = a.inputs[1 - k];
      }
    }
    if (x < 0 || u.consumers[m].size() != 1 || u.is_output[m]) return false;
    Node& conv = g->nodes[u.consumers[m][0]];
    if (conv.op != OpType::kConv || conv.outputs.size() != 1 || conv.input_scale.fused ||
        conv.inputs.empty() || conv.inputs[0] != m ||
        std::count(conv.inputs.begin(), conv.inputs.end(), m) != 1) {
      return false;
    }
    conv.inputs[0] = x;
    conv.inputs.push_back(s);
    conv.input_scale = {true,       m,         a.requant_multiplier, a.requant_shift, a.activation,
                        a.clip_min, a.clip_max};
    return true;
  });
}

int fuse_global_pools(Graph* g, const std::set<std::string>& keep, const std::string& prefix) {
  return fold_nodes(g, [&](const Node& a, Uses& u) {
    if (a.op != OpType::kGlobalAvgPool || a.inputs.size() != 1 || a.outputs.size() != 1 ||
        keep.count(prefix + g->tensors[a.outputs[0]].name) || is_lookup(a.activation)) {
      return false;
    }
    const int t = a.inputs[0], p = u.producer[t];
    if (p < 0) return false;
    Node& conv = g->nodes[p];
    const TensorShape& x = g->tensors[t].shape;
    // The int32 partial sums of a band hold any plane's sum exactly: H x W x 255 < 2^31.
    if (conv.op != OpType::kConv || conv.outputs.size() != 1 || conv.outputs[0] != t ||
        conv.pool.fused || conv.gap.fused || x.n != 1 || x.h * x.w > INT32_MAX / 255) {
      return false;
    }
    Node::GlobalPoolFusion& f = conv.gap;
    f.fused = true;
    f.output = a.outputs[0];
    f.requant_multiplier = a.requant_multiplier;
    f.requant_shift = a.requant_shift;
    f.act = a.activation;
    f.clip_min = a.clip_min;
    f.clip_max = a.clip_max;
    if (u.consumers[t].size() == 1 && !u.is_output[t]) {  // the pool was X's only reader
      f.conv_output = t;
      conv.outputs[0] = a.outputs[0];
    } else {
      conv.outputs.push_back(a.outputs[0]);
    }
    u.producer[a.outputs[0]] = p;
    return true;
  });
}

std::set<std::string> residuals_read_from_dram(const Graph& g,
                                               const std::vector<bool>& tensor_spilled) {
  std::set<std::string> names;
  for (const Node& n : g.nodes) {
    if (n.residual.fused && n.inputs.size() > 1 && size_t(n.inputs[1]) < tensor_spilled.size() &&
        tensor_spilled[size_t(n.inputs[1])]) {
      names.insert(g.tensors[size_t(n.outputs[0])].name);
    }
  }
  return names;
}

uint64_t dram_move_bytes(const DescriptorList& list) {
  uint64_t bytes = 0;
  for (const Descriptor& d : list.descriptors) {
    if (d.kind == DescKind::kMove &&
        (d.move.src_space == MemSpace::kDram || d.move.dst_space == MemSpace::kDram)) {
      bytes += d.move.bytes();
    }
  }
  return bytes;
}

}  // namespace strider
