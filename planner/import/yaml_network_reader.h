// Internal to the YAML network importer (yaml_network.cpp): the reader class with its field
// parsers (scalars, integers, lists, kernel / stride / pad forms, shapes) and error helpers,
// all of which name the file, line, layer and key.
#pragma once

#include <yaml-cpp/yaml.h>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "planner/ir/graph.h"
#include "core/common/input_file.h"
#include "core/arch/yaml_limits.h"

namespace strider {
namespace yaml_import {

// Largest accepted integer (dims, channels, kernel sizes) and tensor: keeps all shape
// arithmetic far from overflow.
constexpr int64_t kMaxValue = int64_t{1} << 24;
constexpr int64_t kMaxElements = int64_t{1} << 40;

class YamlNetworkReader {
 public:
  explicit YamlNetworkReader(const std::string& path) : path_(path) {}

  Graph read() {
    try {
      return read_file();
    } catch (const YAML::Exception& e) {
      // yaml-cpp errors not caught closer (conversions, deep nesting): name file and line.
      throw std::runtime_error(path_ + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
  }

 private:
  Graph read_file() {
    YAML::Node root;
    try {
      root = YAML::Load(read_input_file(path_, kMaxYamlFileBytes));
    } catch (const YAML::ParserException& e) {
      throw std::runtime_error(path_ + ":" + std::to_string(e.mark.line + 1) +
                               ": YAML syntax error: " + e.msg);
    }
    if (yaml_alias_values_over(root)) throw std::runtime_error(yaml_alias_limit_message(path_));
    if (!root.IsMap() || !root["network"]) {
      throw std::runtime_error(path_ + ":1: expected a top-level key 'network'");
    }
    const YAML::Node net = root["network"];
    if (!net.IsMap()) fail_at(net, "key 'network': expected a map");
    check_keys(net, "network", {"name", "input", "inputs", "layers", "outputs"});
    graph_.name = net["name"] ? scalar(net["name"], "network.name") : stem();
    read_inputs(net);
    const YAML::Node layers = net["layers"];
    if (!layers || !layers.IsSequence() || layers.size() == 0) {
      fail_at(layers ? layers : net, "key 'network.layers': expected a non-empty list of layers");
    }
    for (const YAML::Node& layer : layers) read_layer(layer);
    read_outputs(net);
    try {
      validate(graph_);
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(path_ + ": " + e.what());
    }
    return std::move(graph_);
  }

  [[noreturn]] void fail_at(const YAML::Node& node, const std::string& what) const {
    const int line = node.Mark().line >= 0 ? node.Mark().line + 1 : 1;
    throw std::runtime_error(path_ + ":" + std::to_string(line) + ": " + what);
  }
  [[noreturn]] void fail_key(const YAML::Node& node, const std::string& key,
                             const std::string& what) const {
    fail_at(node, "layer '" + layer_name_ + "': key '" + key + "': " + what);
  }

  std::string stem() const {
    std::string s = path_.substr(path_.find_last_of('/') + 1);
    return s.substr(0, s.find('.'));
  }

  void check_keys(const YAML::Node& map, const std::string& where,
                  const std::set<std::string>& allowed) const {
    for (const auto& kv : map) {
      const std::string key = kv.first.Scalar();
      if (!allowed.count(key)) {
        std::string list;
        for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail_at(kv.first, where + ": unknown key '" + key + "' (allowed: " + list + ")");
      }
    }
  }

  std::string scalar(const YAML::Node& node, const std::string& key) const {
    if (!node.IsScalar()) fail_at(node, "key '" + key + "': expected a scalar");
    return node.Scalar();
  }

  int64_t integer(const YAML::Node& node, const std::string& key, int64_t min_value) const {
    if (!node.IsScalar()) fail_key(node, key, "expected an integer");
    const std::string s = node.Scalar();
    size_t used = 0;
    int64_t v = 0;
    try {
      v = std::stoll(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != s.size()) fail_key(node, key, "expected an integer, got '" + s + "'");
    if (v < min_value) {
      fail_key(node, key, "expected an integer >= " + std::to_string(min_value) + ", got " + s);
    }
    if (v > kMaxValue) {
      fail_key(node, key, "expected an integer <= " + std::to_string(kMaxValue) + ", got " + s);
    }
    return v;
  }

  bool boolean(const YAML::Node& node, const std::string& key) const {
    const std::string s = node.IsScalar() ? node.Scalar() : "";
    if (s == "true") return true;
    if (s == "false") return false;
    fail_key(node, key, "expected true or false");
  }

  std::vector<int64_t> int_list(const YAML::Node& node, const std::string& key,
                                int64_t min_value) const {
    std::vector<int64_t> out;
    if (node.IsScalar()) {
      out.push_back(integer(node, key, min_value));
    } else if (node.IsSequence()) {
      for (const YAML::Node& v : node) out.push_back(integer(v, key, min_value));
    } else {
      fail_key(node, key, "expected an integer or a list of integers");
    }
    return out;
  }

  // N or [h, w].
  void pair(const YAML::Node& layer, const std::string& key, int64_t min_value, int* h, int* w) {
    const YAML::Node node = layer[key];
    if (!node) return;
    const std::vector<int64_t> v = int_list(node, key, min_value);
    if (v.size() == 1) {
      *h = *w = static_cast<int>(v[0]);
    } else if (v.size() == 2) {
      *h = static_cast<int>(v[0]);
      *w = static_cast<int>(v[1]);
    } else {
      fail_key(node, key, "expected N or [h, w]");
    }
  }

  // N, [h, w] or [top, left, bottom, right].
  void pads(const YAML::Node& layer, Node* n) {
    const YAML::Node node = layer["pad"];
    if (!node) return;
    const std::vector<int64_t> v = int_list(node, "pad", 0);
    if (v.size() == 1) {
      n->pad_top = n->pad_bottom = n->pad_left = n->pad_right = static_cast<int>(v[0]);
    } else if (v.size() == 2) {
      n->pad_top = n->pad_bottom = static_cast<int>(v[0]);
      n->pad_left = n->pad_right = static_cast<int>(v[1]);
    } else if (v.size() == 4) {
      n->pad_top = static_cast<int>(v[0]);
      n->pad_left = static_cast<int>(v[1]);
      n->pad_bottom = static_cast<int>(v[2]);
      n->pad_right = static_cast<int>(v[3]);
    } else {
      fail_key(node, "pad", "expected N, [h, w] or [top, left, bottom, right]");
    }
  }

  const YAML::Node& require(const YAML::Node& layer, const std::string& key) {
    if (!layer[key]) fail_key(layer, key, "missing (required for op " + op_name_ + ")");
    required_ = layer[key];
    return required_;
  }

  TensorShape shape_of(const YAML::Node& node, const std::string& key) const {
    if (!node || !node.IsSequence() || node.size() < 1 || node.size() > 4) {
      fail_at(node, "key '" + key + "': expected a list of 1 to 4 dims [n, c, h, w]");
    }
    int64_t d[4] = {1, 1, 1, 1};
    for (size_t k = 0; k < node.size(); ++k) {
      const std::string s = node[k].IsScalar() ? node[k].Scalar() : "";
      size_t used = 0;
      try {
        d[k] = std::stoll(s, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != s.size() || d[k] < 1 || d[k] > kMaxValue) {
        fail_at(node, "key '" + key + "': expected positive integer dims up to " +
                          std::to_string(kMaxValue) + ", got '" + s + "'");
      }
    }
    int64_t elements = 1;
    for (int64_t dim : d) {
      if (dim > kMaxElements / elements) {
        fail_at(node, "key '" + key + "': more than " + std::to_string(kMaxElements) + " elements");
      }
      elements *= dim;
    }
    return TensorShape{d[0], d[1], d[2], d[3]};
  }

  void read_inputs(const YAML::Node& net) {
    std::vector<YAML::Node> list;
    if (net["input"]) list.push_back(net["input"]);
    if (net["inputs"]) {
      if (!net["inputs"].IsSequence())
        fail_at(net["inputs"], "key 'network.inputs': expected a list");
      for (const YAML::Node& in : net["inputs"]) list.push_back(in);
    }
    if (list.empty()) fail_at(net, "key 'network.input': missing (expected {name, shape})");
    for (const YAML::Node& in : list) {
      if (!in.IsMap() || !in["name"] || !in["shape"]) {
        fail_at(in, "key 'network.input': expected {name: NAME, shape: [n, c, h, w]}");
      }
      check_keys(in, "network.input", {"name", "shape"});
      Tensor t;
      t.name = scalar(in["name"], "network.input.name");
      t.shape = shape_of(in["shape"], "network.input.shape");
      if (graph_.find_tensor(t.name) >= 0) fail_at(in, "input '" + t.name + "' defined twice");
      last_ = graph_.add_tensor(t);
      graph_.inputs.push_back(last_);
    }
  }

  void read_outputs(const YAML::Node& net) {
    const YAML::Node outs = net["outputs"];
    if (!outs) {
      graph_.outputs = graph_.nodes.back().outputs;
      return;
    }
    if (!outs.IsSequence() || outs.size() == 0) {
      fail_at(outs, "key 'network.outputs': expected a non-empty list of tensor names");
    }
    for (const YAML::Node& o : outs) {
      const std::string name = scalar(o, "network.outputs");
      const int id = graph_.find_tensor(name);
      if (id < 0 || graph_.tensors[id].kind != TensorKind::kActivation) {
        fail_at(o, "key 'network.outputs': unknown tensor '" + name + "'");
      }
      graph_.outputs.push_back(id);
    }
  }

  void read_layer(const YAML::Node& layer);
  void read_op_keys(const YAML::Node& layer, Node* n, int64_t* out_channels, bool* bias,
                    std::vector<int64_t>* split_sizes);

  std::string path_;
  Graph graph_;
  std::string layer_name_;
  std::string op_name_;
  YAML::Node required_;
  int last_ = -1;  // tensor produced by the previous layer (default input)
  std::set<std::string> layer_names_;
};

}  // namespace yaml_import
}  // namespace strider
