// Strider YAML network importer (format in yaml_network.h): layers and their op keys; the
// reader's field parsers are in yaml_network_reader.h.
#include "planner/import/yaml_network.h"

#include <map>

#include "planner/import/yaml_network_reader.h"

namespace strider {
namespace yaml_import {
namespace {

struct OpSpec {
  OpType op;
  Activation activation;
  std::set<std::string> keys;  // besides name, op, inputs
};

const std::map<std::string, OpSpec>& op_specs() {
  static const std::map<std::string, OpSpec> kSpecs = {
      {"conv",
       {OpType::kConv,
        Activation::kNone,
        {"out_channels", "kernel", "stride", "pad", "dilation", "groups", "bias", "activation",
         "clip"}}},
      {"fc",
       {OpType::kFullyConnected,
        Activation::kNone,
        {"out_features", "bias", "activation", "clip"}}},
      {"maxpool", {OpType::kMaxPool, Activation::kNone, {"kernel", "stride", "pad", "ceil_mode"}}},
      {"avgpool",
       {OpType::kAvgPool,
        Activation::kNone,
        {"kernel", "stride", "pad", "ceil_mode", "count_include_pad", "activation", "clip"}}},
      {"globalavgpool", {OpType::kGlobalAvgPool, Activation::kNone, {"activation", "clip"}}},
      {"add", {OpType::kAdd, Activation::kNone, {"activation", "clip"}}},
      {"mul", {OpType::kMul, Activation::kNone, {"activation", "clip"}}},
      {"concat", {OpType::kConcat, Activation::kNone, {}}},
      {"activation", {OpType::kActivation, Activation::kNone, {"activation", "clip"}}},
      {"relu", {OpType::kActivation, Activation::kRelu, {}}},
      {"relu6", {OpType::kActivation, Activation::kRelu6, {}}},
      {"sigmoid", {OpType::kActivation, Activation::kSigmoid, {}}},
      {"hardsigmoid", {OpType::kActivation, Activation::kHardSigmoid, {}}},
      {"hardswish", {OpType::kActivation, Activation::kHardSwish, {}}},
      {"clip", {OpType::kActivation, Activation::kClip, {"clip"}}},
      {"reshape", {OpType::kReshape, Activation::kNone, {"shape"}}},
      {"flatten", {OpType::kReshape, Activation::kNone, {}}},
      {"identity", {OpType::kReshape, Activation::kNone, {}}},
      {"dropout", {OpType::kReshape, Activation::kNone, {}}},
      {"split", {OpType::kSplit, Activation::kNone, {"sizes"}}},
      {"slice", {OpType::kSlice, Activation::kNone, {"begin", "end"}}},
      {"channel_shuffle", {OpType::kChannelShuffle, Activation::kNone, {"groups"}}},
      {"pad", {OpType::kPad, Activation::kNone, {"pad"}}},
      {"softmax", {OpType::kSoftmax, Activation::kNone, {}}},
  };
  return kSpecs;
}

}  // namespace

void YamlNetworkReader::read_layer(const YAML::Node& layer) {
  if (!layer.IsMap()) fail_at(layer, "key 'network.layers': each layer must be a map");
  if (!layer["name"]) fail_at(layer, "layer without key 'name'");
  layer_name_ = scalar(layer["name"], "name");
  if (!layer["op"]) fail_key(layer, "op", "missing");
  op_name_ = scalar(layer["op"], "op");
  const auto spec_it = op_specs().find(op_name_);
  if (spec_it == op_specs().end()) {
    std::string list;
    for (const auto& kv : op_specs()) list += (list.empty() ? "" : ", ") + kv.first;
    fail_key(layer["op"], "op", "unknown op '" + op_name_ + "' (supported: " + list + ")");
  }
  if (!layer_names_.insert(layer_name_).second) {
    fail_key(layer["name"], "name", "layer name defined twice");
  }
  std::set<std::string> allowed = spec_it->second.keys;
  allowed.insert({"name", "op", "inputs"});
  check_keys(layer, "layer '" + layer_name_ + "'", allowed);

  Node n;
  n.name = layer_name_;
  n.op = spec_it->second.op;
  n.activation = spec_it->second.activation;
  if (layer["inputs"]) {
    const YAML::Node ins = layer["inputs"];
    if (!ins.IsSequence() || ins.size() == 0) {
      fail_key(ins, "inputs", "expected a non-empty list of tensor names");
    }
    for (const YAML::Node& in : ins) {
      const std::string name = in.IsScalar() ? in.Scalar() : "";
      const int id = graph_.find_tensor(name);
      if (id < 0 || graph_.tensors[id].kind != TensorKind::kActivation) {
        fail_key(
            in, "inputs",
            "unknown tensor '" + name + "' (inputs must be the network input or earlier layers)");
      }
      n.inputs.push_back(id);
    }
  } else {
    n.inputs.push_back(last_);
  }
  const size_t arity = n.op == OpType::kAdd || n.op == OpType::kMul ? 2 : 1;
  if (n.op != OpType::kConcat && n.inputs.size() != arity) {
    fail_key(layer["inputs"] ? layer["inputs"] : layer, "inputs",
             "op " + op_name_ + " takes " + std::to_string(arity) + " input" +
                 (arity == 1 ? "" : "s") + ", got " + std::to_string(n.inputs.size()));
  }

  int64_t out_channels = 0;
  bool bias = true;
  std::vector<int64_t> split_sizes;
  read_op_keys(layer, &n, &out_channels, &bias, &split_sizes);

  const int line = layer.Mark().line + 1;
  try {
    if (n.op == OpType::kConv || n.op == OpType::kFullyConnected) {
      const TensorShape& in = graph_.tensors[n.inputs[0]].shape;
      Tensor w;
      w.name = layer_name_ + ".weight";
      w.kind = TensorKind::kWeight;
      w.shape = n.op == OpType::kConv
                    ? TensorShape{out_channels, in.c / n.groups, n.kernel_h, n.kernel_w}
                    : TensorShape{out_channels, in.c * in.h * in.w, 1, 1};
      if (n.op == OpType::kConv && in.c % n.groups != 0) {
        fail_key(layer["groups"], "groups",
                 "input channels " + std::to_string(in.c) + " not divisible by groups " +
                     std::to_string(n.groups));
      }
      n.weights = graph_.add_tensor(w);
      if (bias) {
        Tensor b;
        b.name = layer_name_ + ".bias";
        b.kind = TensorKind::kBias;
        b.element_bytes = 4;
        b.shape = TensorShape{1, out_channels, 1, 1};
        n.bias = graph_.add_tensor(b);
      }
    }
    const size_t outputs = n.op == OpType::kSplit ? split_sizes.size() : 1;
    for (size_t k = 0; k < outputs; ++k) {
      Tensor t;
      t.name = n.op == OpType::kSplit ? layer_name_ + "." + std::to_string(k) : layer_name_;
      n.outputs.push_back(graph_.add_tensor(t));
    }
    const std::vector<TensorShape> shapes = infer_output_shapes(graph_, n);
    for (size_t k = 0; k < shapes.size(); ++k) graph_.tensors[n.outputs[k]].shape = shapes[k];
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    if (what.rfind(path_ + ":", 0) == 0) throw;
    throw std::runtime_error(path_ + ":" + std::to_string(line) + ": layer '" + layer_name_ +
                             "': " + what);
  }
  last_ = n.outputs.back();
  graph_.add_node(n);
}

void YamlNetworkReader::read_op_keys(const YAML::Node& layer, Node* n, int64_t* out_channels,
                                     bool* bias, std::vector<int64_t>* split_sizes) {
  if (layer["activation"]) {
    const std::string a = layer["activation"].IsScalar() ? layer["activation"].Scalar() : "";
    if (!parse_activation(a, &n->activation)) {
      fail_key(
          layer["activation"], "activation",
          "expected none, relu, relu6, clip, sigmoid, hardsigmoid or hardswish, got '" + a + "'");
    }
  }
  if (layer["clip"]) {
    const std::vector<int64_t> v = int_list(layer["clip"], "clip", -128);
    if (v.size() != 2 || v[0] > v[1] || v[1] > 127) {
      fail_key(layer["clip"], "clip", "expected [min, max] with -128 <= min <= max <= 127");
    }
    n->clip_min = static_cast<int32_t>(v[0]);
    n->clip_max = static_cast<int32_t>(v[1]);
  }
  if ((n->activation == Activation::kClip) != static_cast<bool>(layer["clip"])) {
    fail_key(layer, "clip", "needed exactly when the activation is clip");
  }
  if (n->activation == Activation::kRelu6) {
    n->clip_min = 0;
    n->clip_max = 6 * kActivationScale;
  }
  switch (n->op) {
    case OpType::kConv:
      *out_channels = integer(require(layer, "out_channels"), "out_channels", 1);
      require(layer, "kernel");
      pair(layer, "kernel", 1, &n->kernel_h, &n->kernel_w);
      pair(layer, "stride", 1, &n->stride_h, &n->stride_w);
      pair(layer, "dilation", 1, &n->dilation_h, &n->dilation_w);
      pads(layer, n);
      if (layer["groups"]) n->groups = static_cast<int>(integer(layer["groups"], "groups", 1));
      if (layer["bias"]) *bias = boolean(layer["bias"], "bias");
      break;
    case OpType::kFullyConnected:
      *out_channels = integer(require(layer, "out_features"), "out_features", 1);
      if (layer["bias"]) *bias = boolean(layer["bias"], "bias");
      break;
    case OpType::kMaxPool:
    case OpType::kAvgPool:
      require(layer, "kernel");
      pair(layer, "kernel", 1, &n->kernel_h, &n->kernel_w);
      n->stride_h = n->kernel_h;
      n->stride_w = n->kernel_w;
      pair(layer, "stride", 1, &n->stride_h, &n->stride_w);
      pads(layer, n);
      if (layer["ceil_mode"]) n->ceil_mode = boolean(layer["ceil_mode"], "ceil_mode");
      if (layer["count_include_pad"]) {
        n->count_include_pad = boolean(layer["count_include_pad"], "count_include_pad");
      }
      break;
    case OpType::kActivation:
      if (op_name_ == "activation") require(layer, "activation");
      break;
    case OpType::kReshape:
      if (op_name_ == "flatten") n->reshape_dims = {0, -1};
      if (op_name_ == "reshape") n->reshape_dims = int_list(require(layer, "shape"), "shape", -1);
      break;
    case OpType::kSplit: {
      *split_sizes = int_list(require(layer, "sizes"), "sizes", 1);
      int64_t begin = 0;
      for (int64_t s : *split_sizes) {
        n->channel_begin.push_back(begin);
        n->channel_end.push_back(begin + s);
        begin += s;
      }
      break;
    }
    case OpType::kSlice:
      n->channel_begin = {integer(require(layer, "begin"), "begin", 0)};
      n->channel_end = {integer(require(layer, "end"), "end", 1)};
      break;
    case OpType::kChannelShuffle:
      n->shuffle_groups = static_cast<int>(integer(require(layer, "groups"), "groups", 1));
      break;
    case OpType::kPad:
      require(layer, "pad");
      pads(layer, n);
      break;
    default:
      break;
  }
}

}  // namespace yaml_import

Graph import_yaml_network(const std::string& path) {
  return yaml_import::YamlNetworkReader(path).read();
}

}  // namespace strider
