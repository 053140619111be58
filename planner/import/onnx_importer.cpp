// ONNX importer driver: file loading, graph inputs and initializers, the op handler table,
// graph outputs, quantisation of float parameters, and import_onnx itself.
#include "planner/import/onnx_importer.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <stdexcept>

#include "core/common/input_file.h"
#include "onnx/version_converter/convert.h"
#include "planner/import/onnx_import_context.h"
#include "planner/import/onnx_newer_opsets.h"
#include "planner/import/onnx_qoperator.h"
#include "planner/import/onnx_token_view.h"

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
      {"ConvTranspose", import_conv_transpose},
      {"DequantizeLinear", import_dequantize},
      {"Div", import_binary},
      {"Dropout", import_alias},
      {"Equal", import_binary},
      {"Erf", import_transformer},
      {"Expand", import_expand},
      {"LayerNormalization", import_transformer},
      {"Pow", [](Importer& im) {  // of constants: folded; else a decomposed LayerNorm's
         if (!im.is_activation(0) && !im.is_activation(1)) return import_binary(im);
         import_transformer(im);
       }},
      {"Sqrt", import_transformer},
      {"Where", import_where},
      {"Flatten", import_reshape},
      {"Gather", import_shape_op},
      {"Gemm", import_gemm},
      {"GlobalAveragePool", import_global_pool},
      {"HardSigmoid", import_activation},
      {"HardSwish", import_activation},
      {"Identity", import_alias},
      {"InstanceNormalization", import_instance_norm},
      {"LeakyRelu", import_leaky_relu},
      {"MatMul", import_matmul},
      {"MaxPool", [](Importer& im) { import_pool(im, true); }},
      {"Mod", import_binary},
      {"Not", import_not},
      {"Range", import_range},
      {"ScatterND", import_scatter_nd},
      {"Mul", import_binary},
      {"Pad", import_pad},
      {"PRelu", import_prelu},
      {"QuantizeLinear", import_quantize},
      {"ReduceMean", import_reduce_mean},
      {"Relu", import_activation},
      {"Reshape", import_reshape},
      {"Resize", import_resize},
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

}  // namespace

void Importer::load(onnx::ModelProto* model) const {
  bool parsed = false;
  if (bytes_ != nullptr) {
    parsed = model->ParseFromString(*bytes_);
  } else {
    check_input_file(path_, kMaxNetworkFileBytes);
    std::ifstream in(path_, std::ios::binary);
    if (!in) throw std::runtime_error(path_ + ": cannot open network file");
    parsed = model->ParseFromIstream(&in);
  }
  if (!parsed) {
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
    v->elem_type = init.data_type();
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
    const auto& dims = in.type().tensor_type().shape().dim();
    for (int i = 0; i < dims.size(); ++i) {
      const auto& d = dims[i];
      if (d.has_dim_value()) {
        v->dims.push_back(d.dim_value());
        continue;
      }
      // A symbolic dim is never guessed: the batch (dim 0) and height and width (dims 2, 3 of
      // NCHW) take the run's values (networks[].batch, networks[].input: [H, W]); anything else
      // is refused.
      const bool spatial = dims.size() == 4 && i >= 2;
      const int64_t given = i == 0 ? dims_.batch : !spatial ? 0 : i == 2 ? dims_.h : dims_.w;
      if (given > 0) {
        v->dims.push_back(given);
        continue;
      }
      if (!(spatial && sized_)) {
        const std::string name =
            d.has_dim_param() && !d.dim_param().empty() ? "'" + d.dim_param() + "'" : "unnamed";
        throw std::runtime_error(
            path_ + ": graph input '" + in.name() + "' dim " + std::to_string(i) +
            " is symbolic (" + name + "): " +
            (spatial  ? "give the input size (networks[].input: [H, W], or --input H,W)"
             : i == 0 ? "give the batch (networks[].batch, or --batch N)"
                      : "Strider needs a fixed size here (export the model with static dims)"));
      }
      v->dims.push_back(1);  // replaced by the given input size
    }
    try {
      if (checked_elements(v->dims, "graph input '" + in.name() + "'") == 0) {
        throw std::runtime_error("graph input '" + in.name() + "' has dims " + dims_list(v->dims) +
                                 " (a zero dim is not supported)");
      }
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(path_ + ": " + e.what());
    }
    values_[in.name()] = v;
  }
}

void Importer::dispatch() {
  if (hard_swish_claims(*this)) {
    import_hard_swish(*this);
    return;
  }
  if (channels_last_claims(*this)) {
    import_channels_last(*this);
    return;
  }
  if (transformer_claims(*this)) {
    import_transformer(*this);
    return;
  }
  const auto it = handlers().find(node_->op_type());
  if (it == handlers().end() && refuse_qoperator(*this)) return;
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
    if (!v->parts.empty()) {  // a compound view: copied, named after the node producing it
      for (const onnx::NodeProto& n : g.node()) {
        for (const std::string& o : n.output()) {
          if (o == out.name()) node_ = &n, node_name_ = n.name();
        }
      }
      view_value(*this, v);
      node_ = nullptr;
    }
    graph_.outputs.push_back(v->tensor);
    if (!v->cstride.empty()) graph_.onnx_layouts[v->tensor] = {v->dims, v->cstride, v->pstride};
  }
  for (const onnx::ValueInfoProto& in : g.input()) {
    const auto it = values_.find(in.name());
    const bool is_input =
        it != values_.end() && it->second->tensor >= 0 &&
        std::count(graph_.inputs.begin(), graph_.inputs.end(), it->second->tensor);
    if (is_input && !it->second->cstride.empty()) {
      graph_.onnx_layouts[it->second->tensor] = {it->second->dims, it->second->cstride,
                                                 it->second->pstride};
    }
  }
}

void Importer::quantise() {
  for (const Node& n : graph_.nodes) {
    if (n.weights < 0) continue;
    double weight_scale = 1.0;
    const auto imported = weight_scales_.find(n.weights);
    if (std::vector<double>* w = float_data(n.weights)) {
      Tensor& t = graph_.tensors[n.weights];
      // Kept for calibration (planner/quant/calibrator.h), which sets the final scales.
      t.float_data.assign(w->begin(), w->end());
      std::vector<int8_t>& q = t.data;
      q.clear();
      if (imported != weight_scales_.end()) {
        // The model's int8 values and scales (DequantizeLinear): w = int8 x scale[o] exactly,
        // so w / scale[o] is the int8 value; calibration keeps them.
        t.channel_scales = imported->second;
        const size_t per = w->size() / t.channel_scales.size();
        for (size_t i = 0; i < w->size(); ++i) {
          q.push_back(static_cast<int8_t>(std::lround((*w)[i] / t.channel_scales[i / per])));
        }
        weight_scale = *std::max_element(t.channel_scales.begin(), t.channel_scales.end());
      } else {
        double max_abs = 0;
        for (double x : *w) max_abs = std::max(max_abs, std::fabs(x));
        weight_scale = max_abs > 0 ? max_abs / 127.0 : 1.0;
        for (double x : *w) q.push_back(static_cast<int8_t>(std::lround(x / weight_scale)));
      }
      t.scale = weight_scale;
    }
    if (n.bias < 0) continue;
    if (std::vector<double>* b = float_data(n.bias)) {
      // Accumulator scale: weight scale x activation scale (1 / kActivationScale).
      const double acc_scale = weight_scale / kActivationScale;
      graph_.tensors[n.bias].float_data.assign(b->begin(), b->end());
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
  for (const auto& op : model.opset_import()) {
    if (op.domain().empty() || op.domain() == "ai.onnx") opset_ = static_cast<int>(op.version());
  }
  if (opset_ >= 1 && opset_ < 11) {
    // Older models are upgraded by ONNX's own version converter, not by per-opset code here.
    const int from = source_opset_ = opset_;
    try {
      model = onnx::version_conversion::ConvertVersion(model, 11);
    } catch (const std::exception& e) {
      throw std::runtime_error(
          path_ + ": opset " + std::to_string(from) +
          " could not be converted to opset 11 by ONNX's version converter: " + e.what());
    }
    opset_ = 11;
    graph_.warnings.push_back(path_ + ": converted from opset " + std::to_string(from) +
                              " to opset 11 by ONNX's version converter");
  }
  if (opset_ >= 18 && opset_ <= 21) {
    // Newer than this ONNX library: imported as opset 17 when no operator changed since.
    check_unchanged_since_17(model.graph(), opset_, path_);
    source_opset_ = opset_;
    graph_.warnings.push_back(path_ + ": opset " + std::to_string(opset_) +
                              " imported as opset 17 (none of its operators changed after 17)");
    opset_ = 17;
  }
  if (opset_ < 1 || opset_ > 17) {
    throw std::runtime_error(path_ + ": opset " + std::to_string(opset_) +
                             " is not supported (1 to 21; 1 to 10 are converted to 11, 18 to 21 "
                             "import as 17 when none of their operators changed after 17)");
  }
  expand_qoperator(model.mutable_graph(), path_);
  const onnx::GraphProto& g = model.graph();
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
    std::string name =
        node_->name().empty() ? node_->op_type() + "_" + std::to_string(i) : node_->name();
    if (seen[name]++ > 0) name += "_" + std::to_string(i);
    node_name_ = name;
    if (node_->output_size() == 0) fail("has no outputs");
    try {
      dispatch();
    } catch (const std::exception& e) {
      const std::string what = e.what();
      if (what.rfind(path_ + ":", 0) == 0) throw;
      // Errors raised below the handlers (IR container, standard library): name file and node.
      fail(what);
    }
    if (progress_) report_progress(*progress_, uint64_t(i) + 1, uint64_t(g.node_size()));
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

Graph import_onnx(const std::string& path, const OnnxInputDims& dims,
                  const ProgressFn& progress) {
  onnx_import::Importer im(path, dims);
  im.set_progress(&progress);
  return im.run();
}

Graph import_onnx_bytes(const std::string& bytes, const std::string& label,
                        const OnnxInputDims& dims) {
  onnx_import::Importer im(label, dims);
  im.set_bytes(&bytes);
  return im.run();
}

Graph import_onnx(const std::string& path, bool sized) {
  return onnx_import::Importer(path, sized).run();
}

std::string onnx_supported_ops() {
  std::string list;
  for (const auto& kv : onnx_import::handlers()) list += (list.empty() ? "" : ", ") + kv.first;
  return list;
}

}  // namespace strider
