// Graph IR: container methods, names of enums, validation and shape re-inference.
// Shape rules live in shape_inference.cpp, parameter materialisation in parameters.cpp.
#include "planner/ir/graph.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace strider {

std::string to_string(const TensorShape& s) {
  std::ostringstream os;
  os << s.n << "x" << s.c << "x" << s.h << "x" << s.w;
  return os.str();
}

int Graph::add_tensor(Tensor t) {
  if (find_tensor(t.name) >= 0) {
    throw std::runtime_error("graph '" + name + "': tensor '" + t.name + "' defined twice");
  }
  tensors.push_back(std::move(t));
  index_tensors();
  return static_cast<int>(tensors.size()) - 1;
}

int Graph::add_node(Node n) {
  if (nodes_indexed_ > nodes.size()) {  // nodes were removed (legalise): index them afresh
    node_names_.clear();
    nodes_indexed_ = 0;
  }
  for (; nodes_indexed_ < nodes.size(); ++nodes_indexed_) node_names_.insert(nodes[nodes_indexed_].name);
  // A name in the index may belong to a node since removed: only then scan to be sure.
  if (node_names_.count(n.name) != 0 &&
      std::any_of(nodes.begin(), nodes.end(), [&](const Node& o) { return o.name == n.name; })) {
    throw std::runtime_error("graph '" + name + "': node '" + n.name + "' defined twice");
  }
  node_names_.insert(n.name);
  nodes.push_back(std::move(n));
  nodes_indexed_ = nodes.size();
  return static_cast<int>(nodes.size()) - 1;
}

void Graph::index_tensors() const {
  if (tensors_indexed_ > tensors.size()) {
    tensor_index_.clear();
    tensors_indexed_ = 0;
  }
  for (; tensors_indexed_ < tensors.size(); ++tensors_indexed_) {
    // The first tensor of a name wins, as a front-to-back scan would find it.
    tensor_index_.emplace(tensors[tensors_indexed_].name, static_cast<int>(tensors_indexed_));
  }
}

int Graph::find_tensor(const std::string& tensor_name) const {
  index_tensors();
  const auto it = tensor_index_.find(tensor_name);
  if (it != tensor_index_.end() && it->second < static_cast<int>(tensors.size()) &&
      tensors[it->second].name == tensor_name) {
    return it->second;
  }
  if (it == tensor_index_.end()) return -1;
  // The indexed tensor was renamed or replaced in place: index everything afresh.
  tensor_index_.clear();
  tensors_indexed_ = 0;
  index_tensors();
  const auto again = tensor_index_.find(tensor_name);
  return again != tensor_index_.end() && tensors[again->second].name == tensor_name ? again->second
                                                                                     : -1;
}

std::vector<int> Graph::producers() const {
  std::vector<int> prod(tensors.size(), -1);
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (int t : nodes[i].outputs) {
      if (t >= 0 && t < static_cast<int>(tensors.size())) prod[t] = static_cast<int>(i);
    }
  }
  return prod;
}

std::vector<std::vector<int>> Graph::consumers() const {
  std::vector<std::vector<int>> cons(tensors.size());
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (int t : nodes[i].inputs) {
      if (t >= 0 && t < static_cast<int>(tensors.size())) {
        // A node reading the same tensor twice (x + x) is listed once.
        if (cons[t].empty() || cons[t].back() != static_cast<int>(i)) {
          cons[t].push_back(static_cast<int>(i));
        }
      }
    }
  }
  return cons;
}

const char* to_string(OpType op) {
  switch (op) {
    case OpType::kConv:
      return "conv";
    case OpType::kFullyConnected:
      return "fc";
    case OpType::kMaxPool:
      return "maxpool";
    case OpType::kAvgPool:
      return "avgpool";
    case OpType::kGlobalAvgPool:
      return "globalavgpool";
    case OpType::kAdd:
      return "add";
    case OpType::kMul:
      return "mul";
    case OpType::kConcat:
      return "concat";
    case OpType::kActivation:
      return "activation";
    case OpType::kReshape:
      return "reshape";
    case OpType::kSplit:
      return "split";
    case OpType::kSlice:
      return "slice";
    case OpType::kChannelShuffle:
      return "channel_shuffle";
    case OpType::kPad:
      return "pad";
    case OpType::kSoftmax:
      return "softmax";
    case OpType::kMatMul:
      return "matmul";
    case OpType::kLayerNorm:
      return "layernorm";
    case OpType::kGelu:
      return "gelu";
    case OpType::kInstanceNorm:
      return "instancenorm";
    case OpType::kGather:
      return "gather";
  }
  return "?";
}

const char* to_string(Activation a) {
  switch (a) {
    case Activation::kNone:
      return "none";
    case Activation::kRelu:
      return "relu";
    case Activation::kRelu6:
      return "relu6";
    case Activation::kClip:
      return "clip";
    case Activation::kSigmoid:
      return "sigmoid";
    case Activation::kHardSigmoid:
      return "hardsigmoid";
    case Activation::kHardSwish:
      return "hardswish";
    case Activation::kSilu:
      return "silu";
  }
  return "?";
}

bool parse_activation(const std::string& s, Activation* out) {
  static const Activation kAll[] = {
      Activation::kNone,    Activation::kRelu,        Activation::kRelu6,    Activation::kClip,
      Activation::kSigmoid, Activation::kHardSigmoid, Activation::kHardSwish, Activation::kSilu};
  for (Activation a : kAll) {
    if (s == to_string(a)) {
      *out = a;
      return true;
    }
  }
  return false;
}

bool is_view_op(OpType op) { return op == OpType::kReshape; }

int64_t norm_length(const Graph& g, const Node& n) {
  const TensorShape& s = g.tensors[n.inputs[0]].shape;
  return n.op == OpType::kInstanceNorm ? s.h * s.w : s.c;
}

namespace {

[[noreturn]] void fail(const Node& n, const std::string& what) {
  throw std::runtime_error("node '" + n.name + "' (" + to_string(n.op) + "): " + what);
}

void check_id(const Graph& g, const Node& n, int id, const char* role, TensorKind kind) {
  if (id < 0 || id >= static_cast<int>(g.tensors.size())) {
    fail(n, std::string(role) + " tensor id " + std::to_string(id) + " out of range [0, " +
                std::to_string(g.tensors.size()) + ")");
  }
  if (g.tensors[id].kind != kind) {
    static const char* kKindNames[] = {"activation", "weight", "bias"};
    fail(n, std::string(role) + " tensor '" + g.tensors[id].name + "' is a " +
                kKindNames[static_cast<int>(g.tensors[id].kind)] + " tensor, expected " +
                kKindNames[static_cast<int>(kind)]);
  }
}

}  // namespace

void validate(const Graph& g) {
  const int num_tensors = static_cast<int>(g.tensors.size());
  for (const Tensor& t : g.tensors) {
    const int64_t dims[4] = {t.shape.n, t.shape.c, t.shape.h, t.shape.w};
    int64_t elements = 1;
    for (int64_t d : dims) {
      if (d < 1 || d > kMaxTensorElements / elements) {
        throw std::runtime_error("graph '" + g.name + "': tensor '" + t.name + "' has shape " +
                                 to_string(t.shape) + " (dims must be >= 1, at most " +
                                 std::to_string(kMaxTensorElements) + " elements)");
      }
      elements *= d;
    }
  }
  std::vector<bool> available(g.tensors.size(), false);
  for (int t : g.inputs) {
    if (t < 0 || t >= num_tensors) {
      throw std::runtime_error("graph '" + g.name + "': input tensor id " + std::to_string(t) +
                               " out of range");
    }
    available[t] = true;
  }
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.inputs.empty()) fail(n, "has no inputs");
    if (n.outputs.empty()) fail(n, "has no outputs");
    for (int t : n.inputs) {
      check_id(g, n, t, "input", TensorKind::kActivation);
      if (!available[t]) {
        fail(n, "input '" + g.tensors[t].name +
                    "' is neither a graph input nor produced by an earlier node");
      }
    }
    for (int t : n.outputs) {
      check_id(g, n, t, "output", TensorKind::kActivation);
      if (available[t]) {
        fail(n, "output '" + g.tensors[t].name + "' is already produced elsewhere");
      }
    }
    const bool needs_weights =
        n.op == OpType::kConv || n.op == OpType::kFullyConnected || is_norm(n.op);
    if (needs_weights && n.weights < 0) fail(n, "has no weights");
    if (!needs_weights && (n.weights >= 0 || n.bias >= 0)) fail(n, "has weights or bias");
    if (n.weights >= 0) {
      check_id(g, n, n.weights, "weight", TensorKind::kWeight);
      const Tensor& w = g.tensors[n.weights];
      if (!w.data.empty() && static_cast<int64_t>(w.data.size()) != w.shape.elements()) {
        fail(n, "weights '" + w.name + "' hold " + std::to_string(w.data.size()) +
                    " values, expected " + std::to_string(w.shape.elements()));
      }
    }
    if (n.bias >= 0) {
      check_id(g, n, n.bias, "bias", TensorKind::kBias);
      const Tensor& b = g.tensors[n.bias];
      const int64_t out_c = g.tensors[n.weights].shape.n;
      if (b.shape != TensorShape{1, out_c, 1, 1}) {
        fail(n, "bias '" + b.name + "' has shape " + to_string(b.shape) + ", expected 1x" +
                    std::to_string(out_c) + "x1x1");
      }
      if (!b.bias.empty() && static_cast<int64_t>(b.bias.size()) != out_c) {
        fail(n, "bias '" + b.name + "' holds " + std::to_string(b.bias.size()) +
                    " values, expected " + std::to_string(out_c));
      }
    }
    if (n.requant_shift < 0 || n.requant_shift > 62) {
      fail(n, "requantisation shift " + std::to_string(n.requant_shift) + " outside [0, 62]");
    }
    if (!n.negative_slope.empty()) {
      const int64_t c = n.inputs.empty() ? 0 : g.tensors[n.inputs[0]].shape.c;
      if (n.op != OpType::kActivation) fail(n, "a negative slope on a non-activation node");
      if (n.negative_slope.size() != 1 && int64_t(n.negative_slope.size()) != c) {
        fail(n, std::to_string(n.negative_slope.size()) + " negative slopes, expected 1 or " +
                    std::to_string(c) + " (one per channel)");
      }
      for (double s : n.negative_slope) {
        if (!std::isfinite(s)) fail(n, "negative slope " + std::to_string(s) + " is not finite");
      }
      if (!n.channel_requant.empty() && int64_t(n.channel_requant.size()) != c) {
        fail(n, std::to_string(n.channel_requant.size()) +
                    " negative-input requantisations, expected one per channel (" +
                    std::to_string(c) + ")");
      }
      for (const Requant& r : n.channel_requant) {
        if (r.shift < 0 || r.shift > 62) {
          fail(n, "negative-input requantisation shift " + std::to_string(r.shift) +
                      " outside [0, 62]");
        }
      }
    } else if (!n.channel_requant.empty()) {
      const int64_t out_c = n.weights < 0 ? 0 : g.tensors[n.weights].shape.n;
      if (n.weights < 0 || int64_t(n.channel_requant.size()) != out_c) {
        fail(n, std::to_string(n.channel_requant.size()) +
                    " channel requantisations, expected one per output channel of a node with "
                    "weights (" + std::to_string(out_c) + ")");
      }
      for (size_t c = 0; c < n.channel_requant.size(); ++c) {
        const int32_t s = n.channel_requant[c].shift;
        if (s < 0 || s > 62) {
          fail(n, "requantisation shift " + std::to_string(s) + " of channel " +
                      std::to_string(c) + " outside [0, 62]");
        }
      }
    }
    const std::vector<TensorShape> shapes = infer_output_shapes(g, n);
    if (shapes.size() != n.outputs.size()) {
      fail(n, "has " + std::to_string(n.outputs.size()) + " outputs, expected " +
                  std::to_string(shapes.size()));
    }
    for (size_t k = 0; k < shapes.size(); ++k) {
      const Tensor& out = g.tensors[n.outputs[k]];
      if (out.shape != shapes[k]) {
        fail(n, "output '" + out.name + "' has shape " + to_string(out.shape) + ", expected " +
                    to_string(shapes[k]));
      }
      available[n.outputs[k]] = true;
    }
  }
  for (int t : g.outputs) {
    if (t < 0 || t >= num_tensors || !available[t]) {
      throw std::runtime_error("graph '" + g.name + "': output tensor id " + std::to_string(t) +
                               " is not produced by any node");
    }
  }
}

void reinfer_shapes(Graph* g) {
  for (Node& n : g->nodes) {
    if (n.op == OpType::kFullyConnected && n.weights >= 0 && !n.inputs.empty()) {
      Tensor& w = g->tensors.at(n.weights);
      const TensorShape& in = g->tensors.at(n.inputs[0]).shape;
      if (w.data.empty()) w.shape.c = in.c * in.h * in.w;
    }
    const std::vector<TensorShape> shapes = infer_output_shapes(*g, n);
    if (shapes.size() != n.outputs.size()) {
      fail(n, "has " + std::to_string(n.outputs.size()) + " outputs, expected " +
                  std::to_string(shapes.size()));
    }
    for (size_t k = 0; k < shapes.size(); ++k) g->tensors.at(n.outputs[k]).shape = shapes[k];
  }
}

}  // namespace strider
