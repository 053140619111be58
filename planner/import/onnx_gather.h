// ONNX importer: Swin's data movement as kGather copies (onnx_gather.cpp has the overview).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planner/import/onnx_token_view.h"
#include "planner/ir/strided_copy.h"

namespace strider {
namespace onnx_import {

// Data movement (Swin's windows). gather_copy: a kGather node named after the ONNX node +
// `suffix` copying IR tensor `tensor` into a fresh tensor of shape `shape` along `axes`
// (element offsets; planner/ir/strided_copy.h cuts the copy into 2-D blocks); returns the new
// tensor. materialise: view `v` copied so that element (i0, i1, ...) lands on channel
// sum(i_k dcs_k), position sum(i_k dps_k) of the copy; returns the view of the copy.
int gather_copy(Importer& im, int tensor, std::vector<CopyAxis> axes, const TensorShape& shape,
                const std::string& suffix);
View materialise(Importer& im, const CView& v, std::vector<int64_t> dcs,
                 std::vector<int64_t> dps, const TensorShape& shape, const std::string& suffix);
// The layout a copy of `dims` takes (token layout): the last axis on channels, the others on
// positions (row-major), C = last dim, H = the product of the others, W = 1; a rank-4
// [1, H, W, C] as C x H x W (the NHWC view of a planar activation).
void natural_layout(const std::vector<int64_t>& dims, std::vector<int64_t>* cs,
                    std::vector<int64_t>* ps, TensorShape* shape);
// `v` copied into its natural layout.
View token_layout(Importer& im, const CView& v, const std::string& suffix);
// A compound view read by a Linear, [.., C] with C on channels and windows on positions (a
// window partition): remembered, so that a later Linear input with the same leading axes
// (the attention output, windows and heads on channels) is copied into the same windowed
// planar layout (linear_layout) and the window reverse after it reads it without a copy.
void note_windows(Importer& im, const CView& v);
CView linear_layout(Importer& im, const CView& v, const std::string& suffix);
// `v` copied into grouped form (grouped_form with row = r - 2, col = r - 1; with `transposed`
// row = r - 1, col = r - 2: a MatMul's B stored K on channels).
View grouped_layout(Importer& im, const CView& v, bool transposed, const std::string& suffix);
// The number of 2-D blocks grouped_layout would copy.
size_t copy_block_count(Importer& im, const CView& v, bool transposed);

// Slice (any axes, positive steps) and Concat of views or pieces into a kPieces pattern; false
// (nothing bound) when the operands are not views / pieces or the slice is not supported.
bool slice_pieces(Importer& im, const std::vector<int64_t>& starts,
                  const std::vector<int64_t>& ends, const std::vector<int64_t>& axes,
                  const std::vector<int64_t>& steps);
bool concat_pieces(Importer& im, size_t axis);

// A kPieces pattern copied into its natural layout (one kGather), turning `v` into the plain
// view of the copy for every later reader.
void assemble(Importer& im, const ValuePtr& v);

// True when constant dims `c` broadcast to `x` (numpy rules, c not of higher rank).
bool broadcasts_to(const std::vector<int64_t>& c, const std::vector<int64_t>& x);
// x + c with c broadcast over some axes of x (see onnx_gather.cpp).
void emit_add_broadcast(Importer& im, const ValuePtr& x, const Value& c);

}  // namespace onnx_import
}  // namespace strider
