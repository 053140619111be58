// Token-sequence views and score patterns of the ONNX importer's transformer ops
// (onnx_ops_transformer.cpp, onnx_ops_channels_last.cpp): a view reads an IR activation through
// per-axis channel / position strides (Value::cstride / pstride), so the Reshape / Transpose
// chains of attention move no data; a pattern is one step of a decomposed LayerNorm or GELU, or a
// scaled / masked attention score, waiting for the op that completes it. Errors go through
// Importer::fail (naming the node).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planner/import/onnx_import_context.h"

namespace strider {
namespace onnx_import {

enum Pattern {
  kNone = 0,
  kMean,      // ReduceMean(x) over the last axis
  kCentred,   // x - mean(x)
  kSquare,    // (x - mean)^2
  kVar,       // mean((x - mean)^2)
  kVarEps,    // var + eps
  kStd,       // sqrt(var + eps)
  kScaled,    // x / s or x * s for a scalar s
  kErf,       // erf(x / sqrt2)
  kErfPlus1,  // 1 + erf(x / sqrt2)
  kXErf,      // x (1 + erf(x / sqrt2))
  kMasked,    // scores with a causal mask applied
  kTokens,    // a ViT's class token concatenated before the patch tokens (awaits the position
              // embedding Add)
  kPieces,    // Slices along positions and Concats of them (Swin's cyclic shift torch.roll,
              // patch merging's stride-2 slices): Value::pieces, copied into natural layout by
              // one kGather when an op reads the value (view_value)
  // GELU in its tanh form, 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), as PyTorch
  // (approximate='tanh') and GPT-2's gelu_new export it; imported as the GELU (erf form):
  kSq,           // x * x (an x * x read by anything else is emitted as a Mul, onnx_token_view.cpp)
  kCube,         // x * x * x or Pow(x, 3)
  kCubeScaled,   // 0.044715 x^3
  kInner,        // x + 0.044715 x^3
  kInnerScaled,  // sqrt(2 / pi) (x + 0.044715 x^3)
  kTanh,         // tanh(...)
  kTanhPlus1,    // 1 + tanh(...)
  kXTanh,        // x (1 + tanh(...))
  // A hard-swish / hard-sigmoid written out (onnx_ops_hard_swish.cpp), of any activation:
  kPlus3,   // x + 3
  kClip6,   // Clip(x + 3, 0, 6)
  kXClip6,  // x * Clip(x + 3, 0, 6)
};

struct View {
  ValuePtr v;
  int tensor = -1;
  std::vector<int64_t> dims, cs, ps;
  size_t rank() const { return dims.size(); }
};

// A view whose logical axes may each be several sub-axes (outermost first): a reshape that
// merges axes apart in memory (Swin's window partition: [.., 8, 7, 8, 7, C] with the window
// axes first -> [64, 49, C]) keeps the strides of the merged axes instead of copying. Reshape,
// transpose, a Gather of an index on channels, a bias Add and the copies (onnx_gather.h) take
// it as it is; a MatMul copies it into the layout it reads; any other reader gets a copy in
// natural layout (view_value). The window reverse after the projection Linear is one: its
// input was copied into the windows' planar layout (onnx_gather.h linear_layout).
struct SubAxis {
  int64_t size = 1, cs = 0, ps = 0;
};
struct CView {
  ValuePtr v;
  int tensor = -1;
  std::vector<int64_t> dims;
  std::vector<std::vector<SubAxis>> axes;  // per logical axis, outermost sub-axis first
  size_t rank() const { return dims.size(); }
};

// An activation read through strides of its own (not the canonical NCHW reading).
bool is_view(const ValuePtr& v);

// Input k / value v as a CView (nothing copied); a plain View as a CView.
CView cview_value(Importer& im, ValuePtr v);
CView cview_of(Importer& im, size_t k);
CView as_cview(const View& v);
// True when every axis of `c` is one sub-axis; then *v (if given) is its plain view.
bool as_view(const CView& c, View* v);
// Binds output `out` to `c`: a plain view when every axis is one sub-axis after merging
// contiguous ones, else a compound view.
void bind_cview(Importer& im, size_t out, CView c);
// The last axis runs over all channels of the tensor (one sub-axis, stride 1), every other
// sub-axis over positions.
bool channels_last(Importer& im, const CView& v);



// The strides of an activation value: its own, or those of the canonical NCHW reading of its
// dims. A scaled or masked score stands for the scores themselves.
View view_value(Importer& im, ValuePtr v);

// Input k as a view; a graph input [1, S, D] (or [S, D]) becomes a token sequence C = D, H = S.
View view_of(Importer& im, size_t k);

// Binds output `out` of the ONNX node to IR tensor `tensor` read with the given strides.
void bind_view(Importer& im, size_t out, int tensor, std::vector<int64_t> dims,
               std::vector<int64_t> cs, std::vector<int64_t> ps);

// A pattern step `pattern` (Pattern) started from `source`, named after the node's output 0.
ValuePtr make_pattern(Importer& im, int pattern, ValuePtr source);

// ONNX axis (negative from the end) as an index below `rank`; fails naming the node otherwise.
size_t axis_of(Importer& im, int64_t axis, size_t rank);

// The view as [G, rows, cols] with cols on channels (stride 1), rows on positions (stride 1,
// all of them) and the remaining axes (G) as channel groups of cols channels each. False when
// the view is not in that form.
bool grouped_form(Importer& im, const View& v, size_t row, size_t col, int64_t* groups);

// Channel strides of `dims` in grouped form (the second-to-last axis on positions, in *ps; the
// others on channels, the last fastest).
std::vector<int64_t> grouped_strides(const std::vector<int64_t>& dims, std::vector<int64_t>* ps);

// The last axis runs over all channels of the tensor (stride 1), every other axis over positions.
bool channels_last(Importer& im, const View& v);



// Emits `n` (single output) and binds output 0 as a view with the given strides.
int emit_view(Importer& im, Node n, std::vector<int64_t> dims, std::vector<int64_t> cs,
              std::vector<int64_t> ps);

// Adds `n` with one output tensor named after the ONNX node's output + `suffix` (an intermediate
// the ONNX graph does not name) and returns that tensor.
int add_node_output(Importer& im, Node n, const std::string& suffix);

// Producer node of IR tensor `t` (or nullptr).
Node* producer(Importer& im, int t);

// A scalar Mul / Div of an activation read as a score (attention's 1 / sqrt(d)) folds into the
// output factor of the conv, fc or MatMul that produced it (Node::output_factor), which the
// float reference and the calibrated requantisation apply.
void absorb_scalar(Importer& im, const ValuePtr& x, double factor);

// Input k when it is a constant. A graph input not used yet is a parameter (export_params=False)
// when another input of the node is already known.
ValuePtr const_or_null(Importer& im, size_t k);

// A one-element constant within 0.1 % of x.
bool scalar_near(const ValuePtr& c, double x);

// A constant [.., S, S] mask with data: true where key n > query m (the future) and only there.
bool causal_mask(const Value& c, bool additive);

// Layout ops of views (onnx_ops_view_layout.cpp), dispatched by import_transformer.
void import_slice_view(Importer& im);
void import_split_view(Importer& im);
void import_gather_view(Importer& im);
void import_concat_view(Importer& im);
void import_reshape_view(Importer& im);
void import_transpose_view(Importer& im);

}  // namespace onnx_import
}  // namespace strider
