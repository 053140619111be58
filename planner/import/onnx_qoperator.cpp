#include "planner/import/onnx_qoperator.h"

#include <map>
#include <stdexcept>
#include <vector>

#include "planner/import/onnx_import_context.h"

namespace strider {
namespace onnx_import {
namespace {

struct Rewriter {
  onnx::GraphProto* g;
  const std::string& path;
  std::map<std::string, const onnx::TensorProto*> inits;

  onnx::NodeProto node(const std::string& type, const std::string& name,
                       std::vector<std::string> inputs, const std::string& output) const {
    onnx::NodeProto n;
    n.set_op_type(type);
    n.set_name(name);
    for (const std::string& i : inputs) n.add_input(i);
    n.add_output(output);
    return n;
  }
  static void set_axis(onnx::NodeProto* n, int64_t axis) {
    onnx::AttributeProto* a = n->add_attribute();
    a->set_name("axis");
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(axis);
  }
  // The float values of constant input `name` of `q`, or a failure naming them.
  std::vector<double> constant(const onnx::NodeProto& q, const std::string& name) const {
    const auto it = inits.find(name);
    if (it == inits.end()) {
      throw std::runtime_error(path + ": node '" + q.name() + "' (" + q.op_type() + "): scale '" +
                               name + "' is not a constant initializer; the bias scale (input "
                               "scale x weight scale) must be computed at import");
    }
    std::vector<int64_t> dims;
    std::vector<double> data;
    bool has_data = false;
    decode_tensor(*it->second, "initializer '" + name + "'", &dims, &data, &has_data);
    return data;
  }
  // A new float32 initializer [n] (a scalar when n == 1 and the weight scale is one).
  void add_float(const std::string& name, const std::vector<float>& v, bool scalar) {
    onnx::TensorProto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    if (!scalar) t->add_dims(int64_t(v.size()));
    for (float x : v) t->add_float_data(x);
  }
  void add_int32_zeros(const std::string& name, size_t n, bool scalar) {
    onnx::TensorProto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT32);
    if (!scalar) t->add_dims(int64_t(n));
    for (size_t i = 0; i < n; ++i) t->add_int32_data(0);
  }

  // Appends the QDQ form of `q` (QLinearConv or QLinearMatMul) to `out`.
  void expand(const onnx::NodeProto& q, std::vector<onnx::NodeProto>* out) {
    const bool conv = q.op_type() == "QLinearConv";
    const int needed = 8;
    if (q.output_size() != 1 || q.output(0).empty()) {
      throw std::runtime_error(path + ": node '" + q.name() + "' (" + q.op_type() + "): " +
                               std::to_string(q.output_size()) + " outputs, expected 1");
    }
    if (q.input_size() < needed) {
      throw std::runtime_error(path + ": node '" + q.name() + "' (" + q.op_type() + "): " +
                               std::to_string(q.input_size()) + " inputs, expected " +
                               std::to_string(needed) + (conv ? " or 9" : ""));
    }
    const std::string base = (q.name().empty() ? q.output(0) : q.name()) + "/";
    const std::string a = base + "input_dq", w = base + "weight_dq", y = base + "float_out";
    out->push_back(node("DequantizeLinear", base + "dequantize_input", {q.input(0), q.input(1), q.input(2)}, a));
    onnx::NodeProto dw = node("DequantizeLinear", base + "dequantize_weight",
                              {q.input(3), q.input(4), q.input(5)}, w);
    set_axis(&dw, conv ? 0 : 1);  // output channels of [O, I, kh, kw]; columns of [K, N]
    out->push_back(dw);
    std::vector<std::string> op_inputs = {a, w};
    if (conv && q.input_size() > 8 && !q.input(8).empty()) {
      // A bias of the wrong length is the QLinearConv's error, not its rewritten form's.
      const auto bi = inits.find(q.input(8)), wi = inits.find(q.input(3));
      if (bi != inits.end() && wi != inits.end() && wi->second->dims_size() > 0) {
        int64_t values = 1;
        for (int64_t d : bi->second->dims()) values *= d;
        if (values != wi->second->dims(0)) {
          throw std::runtime_error(path + ": node '" + q.name() + "' (QLinearConv): bias '" +
                                   q.input(8) + "' (input 8) has " + std::to_string(values) +
                                   (values == 1 ? " value" : " values") + ", expected " +
                                   std::to_string(wi->second->dims(0)) +
                                   " (one per output channel)");
        }
      }
      const std::vector<double> sx = constant(q, q.input(1)), sw = constant(q, q.input(4));
      std::vector<float> sb;
      for (double s : sw) sb.push_back(float(sx.empty() ? 0.0 : sx[0]) * float(s));
      const bool scalar = sw.size() == 1;
      add_float(base + "bias_scale", sb, scalar);
      add_int32_zeros(base + "bias_zero_point", sb.size(), scalar);
      onnx::NodeProto db = node("DequantizeLinear", base + "dequantize_bias",
                                {q.input(8), base + "bias_scale", base + "bias_zero_point"},
                                base + "bias_dq");
      set_axis(&db, 0);
      out->push_back(db);
      op_inputs.push_back(base + "bias_dq");
    }
    onnx::NodeProto op = node(conv ? "Conv" : "MatMul", q.name(), op_inputs, y);
    if (conv) *op.mutable_attribute() = q.attribute();
    out->push_back(op);
    out->push_back(node("QuantizeLinear", base + "quantize_output", {y, q.input(6), q.input(7)}, q.output(0)));
  }
};

}  // namespace

void expand_qoperator(onnx::GraphProto* g, const std::string& path) {
  bool any = false;
  for (const onnx::NodeProto& n : g->node()) {
    any |= n.op_type() == "QLinearConv" || n.op_type() == "QLinearMatMul";
  }
  if (!any) return;
  Rewriter r{g, path, {}};  // initializers added later do not move the ones `inits` points to
  for (const onnx::TensorProto& t : g->initializer()) r.inits[t.name()] = &t;
  std::vector<onnx::NodeProto> nodes;
  for (const onnx::NodeProto& n : g->node()) {
    if (n.op_type() == "QLinearConv" || n.op_type() == "QLinearMatMul") {
      r.expand(n, &nodes);
    } else {
      nodes.push_back(n);
    }
  }
  g->clear_node();
  for (onnx::NodeProto& n : nodes) *g->add_node() = std::move(n);
}

}  // namespace onnx_import
}  // namespace strider
