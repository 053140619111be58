// ONNX importer: decoding of TensorProto data (raw little-endian or typed fields) into dims and
// double values, with the element-count guard every importer path uses.
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "planner/import/onnx_import_context.h"

namespace strider {
namespace onnx_import {
namespace {

double half_to_double(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  double v = exponent == 0    ? std::ldexp(mantissa, -24)
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

int64_t checked_elements(const std::vector<int64_t>& dims, const std::string& what) {
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0 || (d > 0 && count > 0 && d > kMaxTensorElements / count)) {
      std::string list;
      for (int64_t x : dims) list += (list.empty() ? "" : ", ") + std::to_string(x);
      throw std::runtime_error(what + " has dims [" + list + "] (negative or more than " +
                               std::to_string(kMaxTensorElements) + " elements)");
    }
    count *= d;
  }
  return count;
}

int64_t to_int64(double d) {
  // Saturating conversion: shape arithmetic never needs more, and it keeps the cast defined.
  if (!(d > -4.0e18)) return std::isnan(d) ? 0 : -4000000000000000000;
  if (d > 4.0e18) return 4000000000000000000;
  return static_cast<int64_t>(d);
}

TensorShape shape_from_dims(const std::vector<int64_t>& dims) {
  int64_t d[4] = {1, 1, 1, 1};
  for (size_t k = 0; k < dims.size() && k < 4; ++k) d[k] = dims[k];
  return TensorShape{d[0], d[1], d[2], d[3]};
}

void decode_tensor(const onnx::TensorProto& t, const std::string& what, std::vector<int64_t>* dims,
                   std::vector<double>* data, bool* has_data) {
  dims->assign(t.dims().begin(), t.dims().end());
  const int64_t count = checked_elements(*dims, what);
  data->clear();
  *has_data = false;
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    throw std::runtime_error(what + " stores its data in an external file (not supported)");
  }
  const std::string& raw = t.raw_data();
  const int type = t.data_type();
  size_t element_size = 0;
  switch (type) {
    case onnx::TensorProto::FLOAT:
      element_size = 4;
      break;
    case onnx::TensorProto::DOUBLE:
      element_size = 8;
      break;
    case onnx::TensorProto::INT64:
      element_size = 8;
      break;
    case onnx::TensorProto::INT32:
      element_size = 4;
      break;
    case onnx::TensorProto::INT16:
      element_size = 2;
      break;
    case onnx::TensorProto::UINT16:
      element_size = 2;
      break;
    case onnx::TensorProto::FLOAT16:
      element_size = 2;
      break;
    case onnx::TensorProto::INT8:
      element_size = 1;
      break;
    case onnx::TensorProto::UINT8:
      element_size = 1;
      break;
    case onnx::TensorProto::BOOL:
      element_size = 1;
      break;
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
      case onnx::TensorProto::FLOAT:
        read_raw<float>(raw, count, data);
        break;
      case onnx::TensorProto::DOUBLE:
        read_raw<double>(raw, count, data);
        break;
      case onnx::TensorProto::INT64:
        read_raw<int64_t>(raw, count, data);
        break;
      case onnx::TensorProto::INT32:
        read_raw<int32_t>(raw, count, data);
        break;
      case onnx::TensorProto::INT16:
        read_raw<int16_t>(raw, count, data);
        break;
      case onnx::TensorProto::UINT16:
        read_raw<uint16_t>(raw, count, data);
        break;
      case onnx::TensorProto::INT8:
        read_raw<int8_t>(raw, count, data);
        break;
      case onnx::TensorProto::UINT8:
      case onnx::TensorProto::BOOL:
        read_raw<uint8_t>(raw, count, data);
        break;
      case onnx::TensorProto::FLOAT16: {
        std::vector<double> bits;
        read_raw<uint16_t>(raw, count, &bits);
        for (double b : bits) data->push_back(half_to_double(static_cast<uint16_t>(b)));
        break;
      }
      default:
        break;
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

}  // namespace onnx_import
}  // namespace strider
