// ONNX importer: constant folding of N-D constants with data, for graphs that compute constants
// from shapes at run time (Swin's shifted-window attention mask: Range, ScatterND, Not, Concat
// and Transpose of N-D index and mask tensors). Element-wise arithmetic, Equal, Where, Expand,
// Slice and Reshape of constants fold in their own handlers.
#include <algorithm>
#include <cmath>

#include "planner/import/onnx_import_context.h"

namespace strider {
namespace onnx_import {
namespace {

constexpr int64_t kMaxFolded = int64_t{1} << 24;

std::vector<int64_t> row_major_strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t k = dims.size(); k-- > 1;) s[k - 1] = s[k] * dims[k];
  return s;
}

}  // namespace

void import_range(Importer& im) {
  const double start = im.constant_data(0)->data.at(0), limit = im.constant_data(1)->data.at(0);
  const double delta = im.constant_data(2)->data.at(0);
  if (delta == 0) im.fail("Range with delta 0 (expected a non-zero step)");
  const double n = std::max(0.0, std::ceil((limit - start) / delta));
  if (n > double(kMaxFolded)) im.fail("Range of " + std::to_string(n) + " elements is too large");
  std::vector<double> data(static_cast<size_t>(n));
  for (size_t i = 0; i < data.size(); ++i) data[i] = start + double(i) * delta;
  im.bind(0, im.make_constant({static_cast<int64_t>(n)}, data));
}

void import_not(Importer& im) {
  const ValuePtr c = im.constant_data(0);
  std::vector<double> data(c->data.size());
  for (size_t i = 0; i < data.size(); ++i) data[i] = c->data[i] == 0 ? 1 : 0;
  im.bind(0, im.make_constant(c->dims, data));
}

// ScatterND (reduction none): updates written at the index tuples of the last axis of indices.
void import_scatter_nd(Importer& im) {
  if (im.attr_string("reduction", "none") != "none") im.fail("ScatterND with a reduction");
  const ValuePtr data = im.constant_data(0), idx = im.constant_data(1), upd = im.constant_data(2);
  if (idx->dims.empty()) im.fail("ScatterND indices of rank 0");
  const size_t q = static_cast<size_t>(idx->dims.back());
  if (q > data->dims.size()) im.fail("ScatterND index tuples longer than the data's rank");
  const std::vector<int64_t> stride = row_major_strides(data->dims);
  const int64_t slice = product(data->dims, q, data->dims.size());
  const int64_t tuples = idx->elements() / static_cast<int64_t>(q);
  if (upd->elements() != tuples * slice) {
    im.fail("ScatterND updates " + dims_list(upd->dims) + " do not match indices " +
            dims_list(idx->dims) + " into " + dims_list(data->dims));
  }
  std::vector<double> out = data->data;
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t at = 0;
    for (size_t k = 0; k < q; ++k) {
      int64_t i = to_int64(idx->data[t * q + k]);
      if (i < 0) i += data->dims[k];
      if (i < 0 || i >= data->dims[k]) {
        im.fail("ScatterND index " + std::to_string(to_int64(idx->data[t * q + k])) +
                " out of range for dim " + std::to_string(k) + " of " + dims_list(data->dims));
      }
      at += i * stride[k];
    }
    std::copy_n(upd->data.begin() + t * slice, slice, out.begin() + at);
  }
  im.bind(0, im.make_constant(data->dims, out));
}

ValuePtr fold_transpose(Importer& im, const Value& c, const std::vector<int64_t>& perm) {
  const size_t r = c.dims.size();
  std::vector<int64_t> out(r);
  for (size_t k = 0; k < r; ++k) out[k] = c.dims[static_cast<size_t>(perm[k])];
  const std::vector<int64_t> in_stride = row_major_strides(c.dims);
  std::vector<double> data(c.data.size());
  std::vector<int64_t> idx(r, 0);
  for (size_t i = 0; i < data.size(); ++i) {
    int64_t at = 0;
    for (size_t k = 0; k < r; ++k) at += idx[k] * in_stride[static_cast<size_t>(perm[k])];
    data[i] = c.data[static_cast<size_t>(at)];
    for (size_t k = r; k-- > 0;) {
      if (++idx[k] < out[k]) break;
      idx[k] = 0;
    }
  }
  return im.make_constant(out, data);
}

ValuePtr fold_concat(Importer& im, size_t axis) {
  const ValuePtr first = im.constant_data(0);
  std::vector<int64_t> dims = first->dims;
  dims[axis] = 0;
  std::vector<ValuePtr> parts;
  for (size_t k = 0; k < im.num_inputs(); ++k) {
    const ValuePtr v = im.constant_data(k);
    if (v->dims.size() != dims.size()) im.fail("Concat of constants of different ranks");
    for (size_t d = 0; d < dims.size(); ++d) {
      if (d != axis && v->dims[d] != first->dims[d]) {
        im.fail("Concat of constants " + dims_list(first->dims) + " and " + dims_list(v->dims));
      }
    }
    dims[axis] += v->dims[axis];
    parts.push_back(v);
  }
  // Outer index over the axes before `axis`; each part contributes its rows of the axis.
  const int64_t outer = product(dims, 0, axis);
  std::vector<double> data;
  data.reserve(static_cast<size_t>(product(dims, 0, dims.size())));
  for (int64_t o = 0; o < outer; ++o) {
    for (const ValuePtr& v : parts) {
      const int64_t chunk = product(v->dims, axis, v->dims.size());
      data.insert(data.end(), v->data.begin() + o * chunk, v->data.begin() + (o + 1) * chunk);
    }
  }
  return im.make_constant(dims, data);
}

}  // namespace onnx_import
}  // namespace strider
