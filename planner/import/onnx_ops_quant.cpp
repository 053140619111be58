// ONNX importer: already-quantised models in QDQ form (QuantizeLinear / DequantizeLinear around
// float ops, as torch.onnx.export writes a fake-quantised PyTorch model and onnxruntime's
// quantize_static with QuantFormat.QDQ). Strider's datapath is symmetric int8 (real = int8 x
// scale, zero point 0, values -128 to 127), so every zero point must be an int8 0.
//
// - Activations: QuantizeLinear (one scale) -> DequantizeLinear (the same scale) records the
//   scale on the IR tensor (Tensor::scale, kept by calibration) and the pair vanishes: the
//   DequantizeLinear output is the activation itself.
// - Weights: DequantizeLinear of an int8 initializer, or QuantizeLinear -> DequantizeLinear of a
//   float one (quantised here as ONNX does: x / scale in float, rounded half to even, saturated),
//   gives the weights int8 x scale with the model's scales (per tensor, or per output channel)
//   attached; conv / fc nodes keep them (Importer::take_weight_scales). DequantizeLinear of an
//   int32 constant (a bias at s_in x s_w) gives its float values.
// - The operator form: QLinearConv and QLinearMatMul arrive rewritten into this form
//   (onnx_qoperator.h); the rest (ConvInteger, MatMulInteger, QLinearAdd, ...) is refused with
//   the advice to export QDQ instead.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "planner/import/onnx_import_context.h"

namespace strider {
namespace onnx_import {
namespace {

std::string type_name(int type) {
  switch (type) {
    case onnx::TensorProto::INT8: return "int8 (-128 to 127)";
    case onnx::TensorProto::UINT8: return "uint8 (0 to 255)";
    case onnx::TensorProto::INT32: return "int32";
    case 0: return "of unknown type (computed)";
    default: return "of type " + onnx::TensorProto_DataType_Name(type);
  }
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

const char kSymmetric[] =
    "Strider's int8 datapath is symmetric: int8 values (-128 to 127) with zero point 0";

// The node's scales (input 1, each > 0) after checking its zero point (input 2): of type
// `expected` (int8; int32 for a bias) and 0. `type_if_absent`: the element type the quantised
// values have without a zero point input.
std::vector<double> checked_scales(Importer& im, int type_if_absent,
                                   int expected = onnx::TensorProto::INT8) {
  const ValuePtr s = im.constant_data(1);
  std::vector<double> scales = s->data;
  if (scales.empty()) im.fail("scale '" + s->name + "' is empty");
  for (double v : scales) {
    if (!(v > 0) || !std::isfinite(v)) {
      im.fail("scale '" + s->name + "' has value " + number(v) + ", expected > 0");
    }
  }
  if (!im.has_input(2)) {
    if (type_if_absent != expected) {
      im.fail("has no zero point, so its int8 side is " + type_name(type_if_absent) + "; " +
              kSymmetric + " (quantise with dtype torch.qint8)");
    }
    return scales;
  }
  const ValuePtr zp = im.constant_data(2);
  if (zp->elem_type != expected) {
    im.fail("zero point '" + zp->name + "' is " + type_name(zp->elem_type) + "; " + kSymmetric +
            " (quantise with dtype torch.qint8)");
  }
  if (zp->data.size() != scales.size()) {
    im.fail("zero point '" + zp->name + "' has " + std::to_string(zp->data.size()) +
            " values, scale '" + s->name + "' " + std::to_string(scales.size()));
  }
  for (size_t k = 0; k < zp->data.size(); ++k) {
    if (zp->data[k] != 0) {
      im.fail("zero point '" + zp->name + "' is " + number(zp->data[k]) +
              (zp->data.size() > 1 ? " at index " + std::to_string(k) : std::string()) + "; " +
              kSymmetric + " (quantise with qscheme torch.per_tensor_symmetric or "
              "torch.per_channel_symmetric)");
    }
  }
  return scales;
}

// Axis of per-channel scales on constant `x` (normalised; 0 for one scale, per tensor); checks
// the scale count.
int64_t scale_axis(Importer& im, const Value& x, size_t count) {
  if (count == 1) return 0;
  const int64_t axis = normalise_axis(im, im.attr_int("axis", 1), std::max<size_t>(x.dims.size(), 1));
  if (x.dims.empty() || x.dims[size_t(axis)] != int64_t(count)) {
    im.fail("scale '" + im.input(1)->name + "' has " + std::to_string(count) +
            " values, expected 1 or dim " + std::to_string(axis) + " of '" + x.name + "' " +
            dims_list(x.dims));
  }
  return axis;
}

// Index along `axis` of element i of a row-major tensor with `dims`.
size_t channel_of(const std::vector<int64_t>& dims, int64_t axis, size_t i) {
  const int64_t inner = product(dims, size_t(axis) + 1, dims.size());
  return size_t((int64_t(i) / inner) % dims[size_t(axis)]);
}

// QuantizeLinear on an activation: records the scale; the int8 value is a kQuantised view.
void quantize_activation(Importer& im) {
  const std::vector<double> scales = checked_scales(im, onnx::TensorProto::UINT8);
  const ValuePtr x = im.input(0);
  const int t = im.activation(0);
  if (scales.size() != 1) {
    im.fail("scale '" + im.input(1)->name + "' has " + std::to_string(scales.size()) +
            " values (per channel) for activation '" + x->name +
            "'; Strider quantises an activation with one scale (per tensor)");
  }
  Tensor& tensor = im.graph().tensors[size_t(t)];
  if (tensor.scale != 0 && tensor.scale != scales[0]) {
    im.fail("activation '" + x->name + "' already has scale " + number(tensor.scale) +
            " from another QuantizeLinear, this one gives " + number(scales[0]) +
            "; Strider keeps one scale per tensor");
  }
  tensor.scale = scales[0];
  auto v = std::make_shared<Value>();
  v->kind = Value::Kind::kQuantised;
  v->name = im.node().output(0);
  v->dims = x->dims;
  v->tensor = t;
  v->source = x;
  v->elem_type = onnx::TensorProto::INT8;
  v->quant_scales = scales;
  im.bind_alias(0, v);
}

// Input 0 (a constant) mapped element by element through f(value, scale of its channel), as a
// new constant of element type `elem_type` with the same dims; data only when the input has it.
template <typename F>
ValuePtr map_constant(Importer& im, const Value& x, const std::vector<double>& scales,
                      int elem_type, F f) {
  const int64_t axis = scale_axis(im, x, scales.size());
  auto v = std::make_shared<Value>();
  v->kind = Value::Kind::kConstant;
  v->dims = x.dims;
  v->has_data = x.has_data;
  v->elem_type = elem_type;
  if (x.has_data) {
    v->data.resize(x.data.size());
    for (size_t i = 0; i < x.data.size(); ++i) {
      v->data[i] = f(x.data[i], scales[scales.size() == 1 ? 0 : channel_of(x.dims, axis, i)]);
    }
  }
  return v;
}

// QuantizeLinear on a float constant (weights): int8 values as ONNX computes them (x / scale
// in float, rounded half to even, saturated).
void quantize_constant(Importer& im) {
  const std::vector<double> scales = checked_scales(im, onnx::TensorProto::UINT8);
  const ValuePtr x = im.constant(0);
  im.bind(0, map_constant(im, *x, scales, onnx::TensorProto::INT8, [](double w, double s) {
    return double(std::fmin(127.0f, std::fmax(-128.0f, std::nearbyint(float(w) / float(s)))));
  }));
}

void dequantize_constant(Importer& im) {
  const ValuePtr x = im.constant(0);
  if (x->elem_type != onnx::TensorProto::INT8 && x->elem_type != onnx::TensorProto::INT32) {
    im.fail("input '" + x->name + "' is " + type_name(x->elem_type) + "; " + kSymmetric +
            " (int32 for biases)");
  }
  const std::vector<double> scales = checked_scales(im, x->elem_type, x->elem_type);
  // int8 x scale is exact in double: the weight tensor gets the int8 values back exactly.
  ValuePtr v = map_constant(im, *x, scales, onnx::TensorProto::FLOAT,
                            [](double q, double s) { return q * s; });
  if (x->has_data && x->elem_type == onnx::TensorProto::INT8) {  // weights: their scales too
    v->quant_scales = scales;
    v->quant_axis = scale_axis(im, *x, scales.size());
  }
  im.bind(0, v);
}

}  // namespace

void import_quantize(Importer& im) {
  if (im.is_activation(0)) {
    quantize_activation(im);
  } else {
    quantize_constant(im);
  }
}

void import_dequantize(Importer& im) {
  const ValuePtr x = im.input(0);
  if (x->kind == Value::Kind::kQuantised) {
    const std::vector<double> scales = checked_scales(im, onnx::TensorProto::INT8);
    if (scales.size() != 1 || scales[0] != x->quant_scales[0]) {
      im.fail("dequantises '" + x->name + "' with scale " + number(scales[0]) +
              " but its QuantizeLinear used " + number(x->quant_scales[0]) +
              "; a QuantizeLinear -> DequantizeLinear pair needs one scale");
    }
    im.bind_alias(0, x->source);
    return;
  }
  if (im.is_activation(0)) {
    im.fail("input '" + x->name +
            "' is a float activation, not a QuantizeLinear output (Strider imports quantised "
            "activations as QuantizeLinear -> DequantizeLinear pairs)");
  }
  dequantize_constant(im);
}

bool refuse_qoperator(Importer& im) {
  const std::string& type = im.node().op_type();
  if (type.rfind("QLinear", 0) != 0 && type != "ConvInteger" && type != "MatMulInteger") {
    return false;
  }
  im.fail("the quantised operator form (" + type +
          ") is not supported beyond QLinearConv and QLinearMatMul: export the model in QDQ "
          "form instead (QuantizeLinear / "
          "DequantizeLinear around float ops, as torch.onnx.export writes a fake-quantised model "
          "or onnxruntime's quantize_static with QuantFormat.QDQ)");
}

void Importer::take_weight_scales(int tensor, const Value& w, int64_t out_axis) {
  if (w.quant_scales.empty()) return;
  const int64_t out = w.dims.empty() ? 1 : w.dims[size_t(out_axis)];
  if (out <= 0) return;  // no weights: nothing to keep
  if (w.quant_scales.size() == 1) {
    weight_scales_[tensor].assign(size_t(out), w.quant_scales[0]);
    return;
  }
  if (w.quant_axis != out_axis) {
    fail("weights '" + w.name + "' are quantised per channel on axis " +
         std::to_string(w.quant_axis) + " (" + std::to_string(w.quant_scales.size()) +
         " scales); Strider expects one scale per output channel (axis " +
         std::to_string(out_axis) + " of these weights)");
  }
  weight_scales_[tensor] = w.quant_scales;
}

}  // namespace onnx_import
}  // namespace strider
