// ONNX importer driver: file loading, the value table, attribute access, node emission,
// quantisation of float parameters, and import_onnx itself.
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <stdexcept>

#include "planner/import/onnx_import_context.h"
#include "planner/import/onnx_importer.h"

namespace strider {
namespace onnx_import {
namespace {

using Handler = std::function<void(Importer&)>;

void import_alias(Importer& im) {
  if (im.node().output_size() > 1 && !im.node().output(1).empty() &&
      im.consumers_of(im.node().output(1)) > 0) {
    im.fail("the mask output is not supported");
  }
  im.bind_alias(0, im.input(0));
}

const std::map<std::string, Handler>& handlers() {
  static const std::map<std::string, Handler> kHandlers = {
      {"Add", import_binary},
      {"AveragePool", [](Importer& im) { import_pool(im, false); }},
      {"BatchNormalization", import_batchnorm},
      {"Cast", import_cast},
      {"Clip", import_activation},
      {"Concat", import_concat},
      {"Constant", import_constant},
      {"ConstantOfShape", import_constant_of_shape},
      {"Conv", import_conv},
      {"Div", import_binary},
      {"Dropout", import_alias},
      {"Flatten", import_reshape},
      {"Gather", import_shape_op},
      {"Gemm", import_gemm},
      {"GlobalAveragePool", import_global_pool},
      {"HardSigmoid", import_activation},
      {"HardSwish", import_activation},
      {"Identity", import_alias},
      {"MatMul", import_matmul},
      {"MaxPool", [](Importer& im) { import_pool(im, true); }},
      {"Mul", import_binary},
      {"Pad", import_pad},
      {"ReduceMean", import_reduce_mean},
      {"Relu", import_activation},
      {"Reshape", import_reshape},
      {"Shape", import_shape_op},
      {"Sigmoid", import_activation},
      {"Slice", import_slice},
      {"Softmax", import_softmax},
      {"Split", import_split},
      {"Squeeze", import_reshape},
      {"Sub", import_binary},
      {"Transpose", import_transpose},
      {"Unsqueeze", import_reshape},
  };
  return kHandlers;
}

double half_to_double(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  double v = exponent == 0 ? std::ldexp(mantissa, -24)
                           : exponent == 31 ? std::numeric_limits<double>::infinity()
                                            : std::ldexp(mantissa + 1024, exponent - 25);
  return (h & 0x8000) ? -v : v;
}

template <typename T>
void read_raw(const std::string& raw, int64_t count, std::vector<double>* out) {
  for (int64_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
    out->push_back(static_cast<double>(v));
  }
}

}  // namespace

int64_t Value::elements() const {
  int64_t e = 1;
  for (int64_t d : dims) e *= d;
  return e;
}

TensorShape shape_from_dims(const std::vector<int64_t>& dims) {
  int64_t d[4] = {1, 1, 1, 1};
  for (size_t k = 0; k < dims.size() && k < 4; ++k) d[k] = dims[k];
  return TensorShape{d[0], d[1], d[2], d[3]};
}

void decode_tensor(const onnx::TensorProto& t, const std::string& what, std::vector<int64_t>* dims,
                   std::vector<double>* data, bool* has_data) {
  dims->assign(t.dims().begin(), t.dims().end());
  int64_t count = 1;
  for (int64_t d : *dims) count *= d;
  data->clear();
  *has_data = false;
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    throw std::runtime_error(what + " stores its data in an external file (not supported)");
  }
  const std::string& raw = t.raw_data();
  const int type = t.data_type();
  size_t element_size = 0;
  switch (type) {
    case onnx::TensorProto::FLOAT: element_size = 4; break;
    case onnx::TensorProto::DOUBLE: element_size = 8; break;
    case onnx::TensorProto::INT64: element_size = 8; break;
    case onnx::TensorProto::INT32: element_size = 4; break;
    case onnx::TensorProto::INT16: element_size = 2; break;
    case onnx::TensorProto::UINT16: element_size = 2; break;
    case onnx::TensorProto::FLOAT16: element_size = 2; break;
    case onnx::TensorProto::INT8: element_size = 1; break;
    case onnx::TensorProto::UINT8: element_size = 1; break;
    case onnx::TensorProto::BOOL: element_size = 1; break;
    default:
      throw std::runtime_error(what + " has unsupported data type " + std::to_string(type));
  }
  if (!raw.empty()) {
    if (raw.size() != static_cast<size_t>(count) * element_size) {
      throw std::runtime_error(what + " has " + std::to_string(raw.size()) +
                               " bytes of raw data, expected " +
                               std::to_string(count * static_cast<int64_t>(element_size)));
    }
    switch (type) {
      case onnx::TensorProto::FLOAT: read_raw<float>(raw, count, data); break;
      case onnx::TensorProto::DOUBLE: read_raw<double>(raw, count, data); break;
      case onnx::TensorProto::INT64: read_raw<int64_t>(raw, count, data); break;
      case onnx::TensorProto::INT32: read_raw<int32_t>(raw, count, data); break;
      case onnx::TensorProto::INT16: read_raw<int16_t>(raw, count, data); break;
      case onnx::TensorProto::UINT16: read_raw<uint16_t>(raw, count, data); break;
      case onnx::TensorProto::INT8: read_raw<int8_t>(raw, count, data); break;
      case onnx::TensorProto::UINT8:
      case onnx::TensorProto::BOOL: read_raw<uint8_t>(raw, count, data); break;
      case onnx::TensorProto::FLOAT16: {
        std::vector<double> bits;
        read_raw<uint16_t>(raw, count, &bits);
        for (double b : bits) data->push_back(half_to_double(static_cast<uint16_t>(b)));
        break;
      }
      default: break;
    }
  } else if (t.float_data_size() > 0) {
    data->assign(t.float_data().begin(), t.float_data().end());
  } else if (t.double_data_size() > 0) {
    data->assign(t.double_data().begin(), t.double_data().end());
  } else if (t.int64_data_size() > 0) {
    for (int64_t v : t.int64_data()) data->push_back(static_cast<double>(v));
  } else if (t.int32_data_size() > 0) {
    for (int32_t v : t.int32_data()) {
      data->push_back(type == onnx::TensorProto::FLOAT16 ? half_to_double(static_cast<uint16_t>(v))
                                                         : static_cast<double>(v));
    }
  }
  if (data->empty() && count > 0) return;  // declared without data
  if (static_cast<int64_t>(data->size()) != count) {
    throw std::runtime_error(what + " holds " + std::to_string(data->size()) +
                             " values, its dims give " + std::to_string(count));
  }
  *has_data = true;
}

void Importer::fail(const std::string& what) const {
  throw std::runtime_error(path_ + ": node '" + node_name_ + "' (" + node_->op_type() + "): " +
                           what);
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
  for (double d : v->data) out.push_back(static_cast<int64_t>(d));
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
  if (a->type() != onnx::AttributeProto::INTS) fail("attribute '" + name + "' is not a list of ints");
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

void Importer::emit(Node n, size_t rank) {
  if (rank == 0) rank = n.inputs.empty() ? 4 : 0;
  if (rank == 0) {
    for (const auto& kv : values_) {
      if (kv.second->kind == Value::Kind::kActivation && kv.second->tensor == n.inputs[0]) {
        rank = kv.second->dims.size();
        break;
      }
    }
  }
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
  if (static_cast<int>(output) >= node_->output_size()) fail("missing output " + std::to_string(output));
  const std::string& name = node_->output(static_cast<int>(output));
  if (v->name.empty() || v->kind == Value::Kind::kConstant) v->name = name;
  values_[name] = std::move(v);
}

void Importer::bind_alias(size_t output, ValuePtr v) {
  if (static_cast<int>(output) >= node_->output_size()) fail("missing output " + std::to_string(output));
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

void Importer::load(onnx::ModelProto* model) const {
  std::ifstream in(path_, std::ios::binary);
  if (!in) throw std::runtime_error(path_ + ": cannot open network file");
  if (!model->ParseFromIstream(&in)) {
    throw std::runtime_error(path_ + ": not a valid ONNX model (protobuf parse failed)");
  }
  if (!model->has_graph() || model->graph().node_size() == 0) {
    throw std::runtime_error(path_ + ": not a valid ONNX model (no graph nodes)");
  }
}

void Importer::bind_inputs_and_initializers(const onnx::GraphProto& g) {
  for (const onnx::TensorProto& init : g.initializer()) {
    auto v = std::make_shared<Value>();
    v->kind = Value::Kind::kConstant;
    v->name = init.name();
    try {
      decode_tensor(init, "initializer '" + init.name() + "'", &v->dims, &v->data, &v->has_data);
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(path_ + ": " + e.what());
    }
    values_[init.name()] = v;
  }
  for (const onnx::ValueInfoProto& in : g.input()) {
    if (values_.count(in.name())) continue;  // an initializer listed as input
    auto v = std::make_shared<Value>();
    v->kind = Value::Kind::kPending;
    v->name = in.name();
    if (!in.type().has_tensor_type() || !in.type().tensor_type().has_shape()) {
      throw std::runtime_error(path_ + ": graph input '" + in.name() + "' has no tensor shape");
    }
    for (const auto& d : in.type().tensor_type().shape().dim()) {
      // A symbolic dim (batch) is 1: Strider runs batch 1.
      v->dims.push_back(d.has_dim_value() ? d.dim_value() : 1);
    }
    values_[in.name()] = v;
  }
}

void Importer::dispatch() {
  const auto it = handlers().find(node_->op_type());
  if (it == handlers().end() || (!node_->domain().empty() && node_->domain() != "ai.onnx")) {
    throw std::runtime_error(path_ + ": node '" + node_name_ + "': unsupported op type '" +
                             (node_->domain().empty() ? "" : node_->domain() + ".") +
                             node_->op_type() + "' (supported: " + onnx_supported_ops() + ")");
  }
  it->second(*this);
}

void Importer::finish(const onnx::GraphProto& g) {
  for (const onnx::ValueInfoProto& out : g.output()) {
    const auto it = values_.find(out.name());
    if (it == values_.end()) {
      throw std::runtime_error(path_ + ": graph output '" + out.name() + "' is never produced");
    }
    const ValuePtr v = it->second;
    if (v->kind != Value::Kind::kActivation) {
      throw std::runtime_error(path_ + ": graph output '" + out.name() +
                               "' is not an activation (constant or shuffle intermediate)");
    }
    graph_.outputs.push_back(v->tensor);
  }
}

void Importer::quantise() {
  for (const Node& n : graph_.nodes) {
    if (n.weights < 0) continue;
    double weight_scale = 1.0;
    if (std::vector<double>* w = float_data(n.weights)) {
      double max_abs = 0;
      for (double x : *w) max_abs = std::max(max_abs, std::fabs(x));
      weight_scale = max_abs > 0 ? max_abs / 127.0 : 1.0;
      std::vector<int8_t>& q = graph_.tensors[n.weights].data;
      q.clear();
      for (double x : *w) q.push_back(static_cast<int8_t>(std::lround(x / weight_scale)));
    }
    if (n.bias < 0) continue;
    if (std::vector<double>* b = float_data(n.bias)) {
      // Accumulator scale: weight scale x activation scale (1 / kActivationScale).
      const double acc_scale = weight_scale / kActivationScale;
      std::vector<int32_t>& q = graph_.tensors[n.bias].bias;
      q.clear();
      for (double x : *b) {
        const double r = std::round(x / acc_scale);
        q.push_back(static_cast<int32_t>(std::max(-2147483648.0, std::min(2147483647.0, r))));
      }
    }
  }
}

Graph Importer::run() {
  onnx::ModelProto model;
  load(&model);
  const onnx::GraphProto& g = model.graph();
  for (const auto& op : model.opset_import()) {
    if (op.domain().empty() || op.domain() == "ai.onnx") opset_ = static_cast<int>(op.version());
  }
  if (opset_ < 11 || opset_ > 17) {
    throw std::runtime_error(path_ + ": opset " + std::to_string(opset_) +
                             " is not supported (11 to 17)");
  }
  graph_.name = g.name().empty() || g.name() == "torch_jit" || g.name() == "main_graph"
                    ? path_.substr(path_.find_last_of('/') + 1)
                    : g.name();
  graph_.name = graph_.name.substr(0, graph_.name.find(".onnx"));
  bind_inputs_and_initializers(g);
  for (const onnx::NodeProto& n : g.node()) {
    for (const std::string& in : n.input()) ++use_count_[in];
  }
  for (const onnx::ValueInfoProto& out : g.output()) ++use_count_[out.name()];
  std::map<std::string, int> seen;
  for (int i = 0; i < g.node_size(); ++i) {
    node_ = &g.node(i);
    std::string name = node_->name().empty() ? node_->op_type() + "_" + std::to_string(i)
                                             : node_->name();
    if (seen[name]++ > 0) name += "_" + std::to_string(i);
    node_name_ = name;
    dispatch();
  }
  node_ = nullptr;
  finish(g);
  quantise();
  try {
    validate(graph_);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path_ + ": " + e.what());
  }
  return std::move(graph_);
}

}  // namespace onnx_import

Graph import_onnx(const std::string& path) { return onnx_import::Importer(path).run(); }

std::string onnx_supported_ops() {
  std::string list;
  for (const auto& kv : onnx_import::handlers()) list += (list.empty() ? "" : ", ") + kv.first;
  return list;
}

}  // namespace strider
