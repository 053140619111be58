// ONNX importer: the per-node helpers op handlers use (input resolution into activations or
// constants, attributes, node emission with shape inference, parameter tensors).
#include "planner/import/onnx_import_context.h"

#include <stdexcept>

namespace strider {
namespace onnx_import {

std::string dims_list(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + std::to_string(v[k]);
  return s + "]";
}

int64_t product(const std::vector<int64_t>& d, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t k = begin; k < end && k < d.size(); ++k) p *= d[k];
  return p;
}

int64_t normalise_axis(Importer& im, int64_t axis, size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) {
    im.fail("axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
  }
  return axis < 0 ? axis + r : axis;
}

// Axes from the attribute (older opsets) or from input `k` (newer ones).
std::vector<int64_t> axes_of(Importer& im, size_t k) {
  if (im.has_attr("axes")) return im.attr_ints("axes");
  if (im.has_input(k)) return im.ints_input(k);
  return {};
}

void Importer::fail(const std::string& what) const {
  throw std::runtime_error(path_ + ": node '" + node_name_ + "' (" + node_->op_type() +
                           "): " + what);
}

size_t Importer::num_inputs() const {
  size_t n = static_cast<size_t>(node_->input_size());
  while (n > 0 && node_->input(static_cast<int>(n) - 1).empty()) --n;
  return n;
}

bool Importer::has_input(size_t k) const {
  return k < num_inputs() && !node_->input(static_cast<int>(k)).empty();
}

ValuePtr Importer::input(size_t k) {
  if (!has_input(k)) fail("missing input " + std::to_string(k));
  const std::string& name = node_->input(static_cast<int>(k));
  const auto it = values_.find(name);
  if (it == values_.end()) {
    fail("input '" + name + "' is not a graph input, an initializer or an earlier node's output");
  }
  return it->second;
}

void Importer::refuse_quantised(const Value& v) const {
  if (v.kind == Value::Kind::kQuantised) {
    fail("input '" + v.name +
         "' is the int8 output of a QuantizeLinear; only DequantizeLinear may read it (QDQ form)");
  }
}

bool Importer::is_activation(size_t k) {
  const ValuePtr v = input(k);
  return v->kind == Value::Kind::kActivation || v->kind == Value::Kind::kShuffle ||
         v->kind == Value::Kind::kPending;
}

int Importer::activation(size_t k) {
  const ValuePtr v = input(k);
  if (v->kind == Value::Kind::kPending) {
    if (v->dims.empty() || v->dims.size() > 4) {
      fail("graph input '" + v->name + "' has rank " + std::to_string(v->dims.size()) +
           ", expected 1 to 4");
    }
    if (checked_elements(v->dims, "graph input '" + v->name + "'") == 0) {
      fail("graph input '" + v->name + "' has a zero dim");
    }
    Tensor t;
    t.name = v->name;
    t.shape = shape_from_dims(v->dims);
    v->tensor = graph_.add_tensor(t);
    v->kind = Value::Kind::kActivation;
    graph_.inputs.push_back(v->tensor);
  }
  if (v->kind == Value::Kind::kConstant) {
    fail("input " + std::to_string(k) + " '" + v->name + "' is a constant, expected an activation");
  }
  refuse_quantised(*v);
  if (v->kind == Value::Kind::kShuffle) {
    fail("input '" + v->name +
         "' is a 5-D channel shuffle intermediate; only Reshape [N, g, C/g, H, W] -> Transpose "
         "[0, 2, 1, 3, 4] -> Reshape [N, C, H, W] is supported");
  }
  return v->tensor;
}

ValuePtr Importer::constant(size_t k) {
  const ValuePtr v = input(k);
  if (v->kind == Value::Kind::kPending) v->kind = Value::Kind::kConstant;
  refuse_quantised(*v);
  if (v->kind != Value::Kind::kConstant) {
    fail("input " + std::to_string(k) + " '" + v->name + "' is an activation, expected a constant");
  }
  return v;
}

ValuePtr Importer::constant_data(size_t k) {
  const ValuePtr v = constant(k);
  if (!v->has_data) {
    fail("input " + std::to_string(k) + " '" + v->name +
         "' has no data (it must be a constant known at import time)");
  }
  return v;
}

std::vector<int64_t> Importer::ints_input(size_t k) {
  const ValuePtr v = constant_data(k);
  std::vector<int64_t> out;
  for (double d : v->data) out.push_back(to_int64(d));
  return out;
}

static const onnx::AttributeProto* find_attr(const onnx::NodeProto& n, const std::string& name) {
  for (const auto& a : n.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

bool Importer::has_attr(const std::string& name) const { return find_attr(*node_, name); }

int64_t Importer::attr_int(const std::string& name, int64_t def) const {
  const onnx::AttributeProto* a = find_attr(*node_, name);
  if (!a) return def;
  if (a->type() != onnx::AttributeProto::INT) fail("attribute '" + name + "' is not an int");
  return a->i();
}

double Importer::attr_float(const std::string& name, double def) const {
  const onnx::AttributeProto* a = find_attr(*node_, name);
  if (!a) return def;
  if (a->type() != onnx::AttributeProto::FLOAT) fail("attribute '" + name + "' is not a float");
  return a->f();
}

std::string Importer::attr_string(const std::string& name, const std::string& def) const {
  const onnx::AttributeProto* a = find_attr(*node_, name);
  if (!a) return def;
  if (a->type() != onnx::AttributeProto::STRING) fail("attribute '" + name + "' is not a string");
  return a->s();
}

std::vector<int64_t> Importer::attr_ints(const std::string& name) const {
  const onnx::AttributeProto* a = find_attr(*node_, name);
  if (!a) return {};
  if (a->type() != onnx::AttributeProto::INTS)
    fail("attribute '" + name + "' is not a list of ints");
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

const onnx::TensorProto* Importer::attr_tensor(const std::string& name) const {
  const onnx::AttributeProto* a = find_attr(*node_, name);
  if (!a) return nullptr;
  if (a->type() != onnx::AttributeProto::TENSOR) fail("attribute '" + name + "' is not a tensor");
  return &a->t();
}

Node Importer::new_node(OpType op) const {
  Node n;
  n.name = node_name_;
  n.op = op;
  return n;
}

// The rank of the activation value holding `tensor`: the current node's inputs first (a lookup
// each), else any value (a scan of all of them: only for nodes whose inputs are not that value).
size_t Importer::activation_rank(int tensor) const {
  auto holds = [tensor](const ValuePtr& v) {
    return v && v->kind == Value::Kind::kActivation && v->tensor == tensor;
  };
  for (int i = 0; i < node_->input_size(); ++i) {
    const auto it = values_.find(node_->input(i));
    if (it != values_.end() && holds(it->second)) return it->second->dims.size();
  }
  for (const auto& kv : values_) {
    if (holds(kv.second)) return kv.second->dims.size();
  }
  return 0;
}

void Importer::emit(Node n, size_t rank) {
  if (rank == 0) rank = n.inputs.empty() ? 4 : 0;
  if (rank == 0) rank = activation_rank(n.inputs[0]);
  const size_t outputs = n.op == OpType::kSplit ? n.channel_begin.size() : 1;
  try {
    for (size_t k = 0; k < outputs; ++k) {
      Tensor t;
      t.name = node_->output(static_cast<int>(k));
      n.outputs.push_back(graph_.add_tensor(t));
    }
    const std::vector<TensorShape> shapes = infer_output_shapes(graph_, n);
    for (size_t k = 0; k < outputs; ++k) {
      const TensorShape& s = shapes[k];
      graph_.tensors[n.outputs[k]].shape = s;
      auto v = std::make_shared<Value>();
      v->kind = Value::Kind::kActivation;
      v->name = node_->output(static_cast<int>(k));
      v->tensor = n.outputs[k];
      const int64_t all[4] = {s.n, s.c, s.h, s.w};
      v->dims.assign(all, all + (rank > 4 ? 4 : rank));
      bind(k, v);
    }
    graph_.add_node(n);
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    if (what.rfind(path_ + ":", 0) == 0) throw;
    throw std::runtime_error(path_ + ": " + what);
  }
}

void Importer::bind(size_t output, ValuePtr v) {
  if (static_cast<int>(output) >= node_->output_size())
    fail("missing output " + std::to_string(output));
  const std::string& name = node_->output(static_cast<int>(output));
  if (v->name.empty() || v->kind == Value::Kind::kConstant) v->name = name;
  values_[name] = std::move(v);
}

ValuePtr Importer::output_value(size_t k) const {
  if (static_cast<int>(k) >= node_->output_size()) return nullptr;
  const auto it = values_.find(node_->output(static_cast<int>(k)));
  return it == values_.end() ? nullptr : it->second;
}

void Importer::bind_alias(size_t output, ValuePtr v) {
  if (static_cast<int>(output) >= node_->output_size())
    fail("missing output " + std::to_string(output));
  values_[node_->output(static_cast<int>(output))] = std::move(v);
}

ValuePtr Importer::make_constant(std::vector<int64_t> dims, std::vector<double> data) const {
  auto v = std::make_shared<Value>();
  v->kind = Value::Kind::kConstant;
  v->dims = std::move(dims);
  v->data = std::move(data);
  v->has_data = true;
  return v;
}

int Importer::add_weights(const std::string& suffix, TensorShape shape,
                          const std::vector<double>* data) {
  Tensor t;
  t.name = node_name_ + suffix;
  t.kind = TensorKind::kWeight;
  t.shape = shape;
  const int id = graph_.add_tensor(t);
  if (data) float_data_[id] = *data;
  return id;
}

int Importer::add_bias(int64_t channels, const std::vector<double>* data,
                       const std::string& owner) {
  Tensor t;
  t.name = (owner.empty() ? node_name_ : owner) + ".bias";
  t.kind = TensorKind::kBias;
  t.element_bytes = 4;
  t.shape = TensorShape{1, channels, 1, 1};
  const int id = graph_.add_tensor(t);
  if (data) float_data_[id] = *data;
  return id;
}

std::vector<double>* Importer::float_data(int tensor) {
  const auto it = float_data_.find(tensor);
  return it == float_data_.end() ? nullptr : &it->second;
}

int Importer::consumers_of(const std::string& value) const {
  const auto it = use_count_.find(value);
  return it == use_count_.end() ? 0 : it->second;
}

}  // namespace onnx_import
}  // namespace strider
