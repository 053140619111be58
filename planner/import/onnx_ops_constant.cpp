// ONNX importer: constants and the constant folding of shape arithmetic (Constant, Shape, Gather,
// Cast, ConstantOfShape, Expand, Where; arithmetic and Equal on constants are folded in
// import_binary).
#include <algorithm>
#include <cmath>

#include "planner/import/onnx_import_context.h"

namespace strider {
namespace onnx_import {

void import_constant(Importer& im) {
  auto v = std::make_shared<Value>();
  v->kind = Value::Kind::kConstant;
  if (const onnx::TensorProto* t = im.attr_tensor("value")) {
    v->elem_type = t->data_type();
    try {
      decode_tensor(*t, "value", &v->dims, &v->data, &v->has_data);
    } catch (const std::runtime_error& e) {
      im.fail(e.what());
    }
  } else if (im.has_attr("value_float")) {
    v->data = {im.attr_float("value_float", 0)};
    v->has_data = true;
  } else if (im.has_attr("value_int")) {
    v->data = {static_cast<double>(im.attr_int("value_int", 0))};
    v->has_data = true;
  } else if (im.has_attr("value_ints")) {
    for (int64_t x : im.attr_ints("value_ints")) v->data.push_back(static_cast<double>(x));
    v->dims = {static_cast<int64_t>(v->data.size())};
    v->has_data = true;
  } else {
    im.fail("needs a 'value', 'value_float', 'value_int' or 'value_ints' attribute");
  }
  im.bind(0, v);
}

void import_shape_op(Importer& im) {
  if (im.node().op_type() == "Shape") {
    const ValuePtr in = im.input(0);
    const int64_t rank = static_cast<int64_t>(in->dims.size());
    int64_t start = im.attr_int("start", 0), end = im.attr_int("end", rank);
    start = std::max<int64_t>(0, std::min(rank, start < 0 ? start + rank : start));
    end = std::max<int64_t>(start, std::min(rank, end < 0 ? end + rank : end));
    std::vector<double> data;
    for (int64_t k = start; k < end; ++k) data.push_back(static_cast<double>(in->dims[k]));
    im.bind(0, im.make_constant({end - start}, data));
    return;
  }
  // Gather on constants (shape arithmetic).
  if (im.is_activation(0)) im.fail("Gather of an activation is not supported");
  const ValuePtr data = im.constant_data(0), indices = im.constant_data(1);
  if (data->dims.size() != 1 || im.attr_int("axis", 0) != 0) {
    im.fail("only Gather along axis 0 of a 1-D constant is supported");
  }
  std::vector<double> out;
  const int64_t size = data->dims[0];
  for (double d : indices->data) {
    int64_t i = to_int64(d);
    if (i < 0) i += size;
    if (i < 0 || i >= size) im.fail("index " + std::to_string(to_int64(d)) + " out of range");
    out.push_back(data->data[static_cast<size_t>(i)]);
  }
  im.bind(0, im.make_constant(indices->dims, out));
}

void import_cast(Importer& im) {
  if (im.is_activation(0)) {
    im.bind_alias(0, im.input(0));
    return;
  }
  const ValuePtr c = im.constant(0);
  auto v = std::make_shared<Value>(*c);
  const int64_t to = im.attr_int("to", onnx::TensorProto::FLOAT);
  const bool to_float = to == onnx::TensorProto::FLOAT || to == onnx::TensorProto::DOUBLE ||
                        to == onnx::TensorProto::FLOAT16;
  if (!to_float) {
    for (double& d : v->data) d = std::trunc(d);
  }
  im.bind(0, v);
}

void import_constant_of_shape(Importer& im) {
  const std::vector<int64_t> dims = im.ints_input(0);
  double fill = 0;
  if (const onnx::TensorProto* t = im.attr_tensor("value")) {
    std::vector<int64_t> d;
    std::vector<double> data;
    bool has = false;
    decode_tensor(*t, "value", &d, &data, &has);
    if (has && !data.empty()) fill = data[0];
  }
  const int64_t count = checked_elements(dims, "shape");
  if (count > (int64_t{1} << 24))
    im.fail("constant of " + std::to_string(count) + " elements is too large");
  im.bind(0, im.make_constant(dims, std::vector<double>(static_cast<size_t>(count), fill)));
}

// Expand of a constant: numpy broadcasting of its dims against the shape input. A parameter
// without data (a ViT's class token) may only keep its dims; one with data is broadcast.
void import_expand(Importer& im) {
  // A graph input not used yet is a parameter here (export_params=False).
  if (im.input(0)->kind != Value::Kind::kPending && im.is_activation(0)) {
    im.fail("Expand of an activation is not supported");
  }
  const ValuePtr c = im.constant(0);
  const std::vector<int64_t> shape = im.ints_input(1);
  const size_t rank = std::max(c->dims.size(), shape.size());
  std::vector<int64_t> in(rank, 1), out(rank, 1);
  std::copy(c->dims.begin(), c->dims.end(), in.begin() + static_cast<long>(rank - c->dims.size()));
  std::copy(shape.begin(), shape.end(), out.begin() + static_cast<long>(rank - shape.size()));
  for (size_t k = 0; k < rank; ++k) {
    if (in[k] != out[k] && in[k] != 1 && out[k] != 1) {
      im.fail("cannot expand " + dims_list(c->dims) + " to " + dims_list(shape));
    }
    out[k] = std::max(in[k], out[k]);
  }
  if (out == in) return im.bind_alias(0, c);
  if (!c->has_data) {
    im.fail("Expand of parameter '" + c->name + "' " + dims_list(c->dims) + " to " +
            dims_list(out) + " needs its data (only a broadcast that keeps the dims is supported)");
  }
  const int64_t total = checked_elements(out, "expanded shape");
  if (total > (int64_t{1} << 24)) {
    im.fail("constant of " + std::to_string(total) + " elements is too large");
  }
  std::vector<double> data(static_cast<size_t>(total));
  for (int64_t i = 0; i < total; ++i) {
    int64_t rem = i, src = 0, step = 1;
    for (size_t k = rank; k-- > 0;) {
      const int64_t idx = rem % out[k];
      rem /= out[k];
      src += (in[k] == 1 ? 0 : idx) * step;
      step *= in[k];
    }
    data[static_cast<size_t>(i)] = c->data[static_cast<size_t>(src)];
  }
  im.bind(0, im.make_constant(out, data));
}

// Where(cond, x, y) on constants with data of one shape (scalars broadcast): shape arithmetic
// such as torchvision's expand of the class token. Anything else goes to the transformer
// importer (a causal mask).
void import_where(Importer& im) {
  bool constants = true;
  for (size_t k = 0; k < 3 && k < im.num_inputs(); ++k) {
    const ValuePtr v = im.input(k);
    constants = constants && v->kind == Value::Kind::kConstant && v->has_data;
  }
  if (!constants || im.num_inputs() != 3) return import_transformer(im);
  const ValuePtr cond = im.input(0), x = im.input(1), y = im.input(2);
  std::vector<int64_t> dims = cond->dims;
  for (const ValuePtr& v : {x, y}) {
    if (v->elements() != 1 && dims != v->dims && cond->elements() == 1) dims = v->dims;
  }
  const int64_t total = product(dims, 0, dims.size());
  std::vector<double> data(static_cast<size_t>(total));
  for (const ValuePtr& v : {cond, x, y}) {
    if (v->elements() != 1 && v->dims != dims) {
      im.fail("Where of constants " + dims_list(cond->dims) + ", " + dims_list(x->dims) + ", " +
              dims_list(y->dims) + " (only one shape, or scalars, is supported)");
    }
  }
  auto at = [](const ValuePtr& v, int64_t i) { return v->data[v->elements() == 1 ? 0 : i]; };
  for (int64_t i = 0; i < total; ++i) data[i] = at(cond, i) != 0 ? at(x, i) : at(y, i);
  im.bind(0, im.make_constant(dims, data));
}

}  // namespace onnx_import
}  // namespace strider
