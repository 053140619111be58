// Internal to the ONNX importer: the value table and per-node helpers shared by the op handlers
// (onnx_import_context.cpp: values, attributes, emission; onnx_ops_compute.cpp: conv, pools,
// gemm, batch norm; onnx_ops_tensor.cpp: activations, element-wise, shape and layout ops and
// constant folding; onnx_ops_fold.cpp: folding of N-D constants; onnx_ops_quant.cpp:
// QuantizeLinear / DequantizeLinear; onnx_ops_transformer.cpp, onnx_token_view.cpp,
// onnx_gather.cpp: transformer graphs, their strided views and Swin's copies).
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "planner/import/onnx_importer.h"
#include "planner/ir/graph.h"

namespace strider {
namespace onnx_import {

// One ONNX value (a tensor name) as the importer sees it.
struct Value {
  enum class Kind {
    kPending,     // graph input not used yet: becomes an activation or a parameter on first use
    kActivation,  // an IR activation tensor
    kConstant,    // compile-time constant, with or without data
    kShuffle,     // channel shuffle in progress: 5-D reshape (and transpose) of `tensor`
    kPattern,     // a step of a decomposed LayerNorm / GELU or a scaled or masked attention
                  // score in progress (onnx_ops_transformer.cpp)
    kQuantised,   // the int8 output of QuantizeLinear on the activation `source` (scale in
                  // `quant_scales`): only DequantizeLinear reads it (onnx_ops_quant.cpp)
  };
  Kind kind = Kind::kConstant;
  std::string name;
  std::vector<int64_t> dims;  // ONNX dims
  int tensor = -1;            // kActivation / kShuffle: IR tensor id
  bool has_data = false;      // kConstant
  std::vector<double> data;   // kConstant with data, row-major (exact for int64 below 2^53)
  int shuffle_groups = 0;     // kShuffle
  bool transposed = false;    // kShuffle: transpose [0, 2, 1, 3, 4] seen
  // Transformer graphs (onnx_ops_transformer.cpp): a kActivation may be a strided view of its IR
  // tensor: element (i0, i1, ...) of `dims` is channel sum(i_k cstride_k), position (row x W +
  // column) sum(i_k pstride_k). Empty: the canonical NCHW reading of `dims`.
  std::vector<int64_t> cstride, pstride;
  // A compound view (Swin's windows, onnx_token_view.h CView): logical axis k is parts[k]
  // sub-axes, outermost first, of sizes sub_dims and strides sub_cs / sub_ps (cstride and
  // pstride stay empty); copied into a plain layout only when an op cannot read it.
  std::vector<int64_t> parts, sub_dims, sub_cs, sub_ps;
  // kPattern kPieces (Swin's cyclic shift and patch merging, onnx_token_view.h): the value is
  // assembled from strided pieces of IR tensors, copied (one kGather) when an op reads it.
  // Piece element (i0, i1, ...) is element offset + sum(i_k (cstride_k x H x W + pstride_k)) of
  // `tensor` and lands at index (at_k + i_k) of the value.
  struct Piece {
    int tensor = -1;
    std::vector<int64_t> dims, cstride, pstride, at;
    int64_t offset = 0;
  };
  std::vector<Piece> pieces;
  int pattern = 0;                 // kPattern: which step
  std::shared_ptr<Value> source;   // kPattern: the activation the pattern started from
  bool causal = false;             // kPattern: a causal mask was applied
  double factor = 1.0;             // kPattern scaled / masked score: scalar not yet folded
  double epsilon = 0;              // kPattern var + eps / its sqrt: the LayerNorm's epsilon
  // kConstant read from an initializer or a Constant node: its ONNX element type
  // (onnx::TensorProto::DataType; 0: unknown, e.g. folded). QuantizeLinear's int8 output: INT8.
  int elem_type = 0;
  // kConstant output of DequantizeLinear (data = int8 x scale, exact in double) and kQuantised:
  // the model's scales, one (per tensor) or one per index of dim `quant_axis`.
  std::vector<double> quant_scales;
  int64_t quant_axis = -1;
  int64_t elements() const;
};
using ValuePtr = std::shared_ptr<Value>;

class Importer {
 public:
  // `sized`: the caller gives the inputs' height and width (symbolic dims 2 and 3 allowed).
  explicit Importer(const std::string& path, bool sized = false) : path_(path), sized_(sized) {}
  Importer(const std::string& path, const OnnxInputDims& dims)
      : path_(path), sized_(dims.h > 0), dims_(dims) {}
  // Parses the serialized model `bytes` instead of reading the file `path` (named in errors).
  void set_bytes(const std::string* bytes) { bytes_ = bytes; }
  void set_progress(const ProgressFn* progress) { progress_ = progress; }  // k of N nodes
  Graph run();

  // --- used by op handlers -------------------------------------------------------------
  [[noreturn]] void fail(const std::string& what) const;
  const onnx::NodeProto& node() const { return *node_; }
  const std::string& node_name() const { return node_name_; }
  size_t num_inputs() const;  // trailing empty optional inputs dropped
  bool has_input(size_t k) const;
  ValuePtr input(size_t k);                   // any kind
  int activation(size_t k);                   // IR tensor id; fails on constants
  ValuePtr constant(size_t k);                // constant (parameters without data allowed)
  ValuePtr constant_data(size_t k);           // constant with data
  std::vector<int64_t> ints_input(size_t k);  // constant with data as integers
  bool is_activation(size_t k);
  void refuse_quantised(const Value& v) const;  // fails on a QuantizeLinear output (kQuantised)

  bool has_attr(const std::string& name) const;
  int64_t attr_int(const std::string& name, int64_t def) const;
  double attr_float(const std::string& name, double def) const;
  std::string attr_string(const std::string& name, const std::string& def) const;
  std::vector<int64_t> attr_ints(const std::string& name) const;
  const onnx::TensorProto* attr_tensor(const std::string& name) const;

  // Adds an IR node (name set here) reading `inputs`; creates its output tensors named after
  // the ONNX outputs, infers their shapes and binds them with rank `rank` (0: input's rank).
  Node new_node(OpType op) const;
  void emit(Node n, size_t rank = 0);
  size_t activation_rank(int tensor) const;
  void bind(size_t output, ValuePtr v);
  void bind_alias(size_t output, ValuePtr v);
  ValuePtr make_constant(std::vector<int64_t> dims, std::vector<double> data) const;

  // Weight and bias tensors for conv / fc nodes; float data kept until quantisation.
  int add_weights(const std::string& suffix, TensorShape shape, const std::vector<double>* data);
  // Weights `w` (an ONNX value) of IR weight tensor `tensor`, whose output channels are ONNX
  // dim `out_axis`: when the model dequantised them (DequantizeLinear), keeps the model's scales,
  // one per output channel, for quantise(); fails on scales along another axis.
  void take_weight_scales(int tensor, const Value& w, int64_t out_axis);
  bool has_imported_scales(int tensor) const { return weight_scales_.count(tensor) > 0; }
  int add_bias(int64_t channels, const std::vector<double>* data, const std::string& owner = "");
  std::vector<double>* float_data(int tensor);  // nullptr when the tensor has no data
  void set_float_data(int tensor, std::vector<double> data) {
    float_data_[tensor] = std::move(data);
  }
  void drop_float_data(int tensor) { float_data_.erase(tensor); }
  int consumers_of(const std::string& value) const;
  Graph& graph() { return graph_; }
  // Window partitions seen: where a copy for a Linear may put its tokens so that the window
  // reverse that follows needs none (onnx_gather.cpp token_layout).
  struct WindowLayout {
    std::vector<int64_t> dims;                    // the leading logical axes, e.g. [64, 49]
    std::vector<int64_t> parts, sub_dims, sub_ps;  // their sub-axes (on positions)
    int64_t h = 0, w = 0;                          // of the planar tensor they read
  };
  std::vector<WindowLayout>& window_layouts() { return window_layouts_; }
  ValuePtr output_value(size_t k) const;  // the value bound to output k (nullptr if none)
  int opset() const { return opset_; }
  int source_opset() const { return source_opset_; }  // before conversion (0: not converted)

 private:
  void load(onnx::ModelProto* model) const;
  void bind_inputs_and_initializers(const onnx::GraphProto& g);
  void dispatch();
  void finish(const onnx::GraphProto& g);
  void quantise();

  std::string path_;
  const std::string* bytes_ = nullptr;
  const ProgressFn* progress_ = nullptr;
  bool sized_ = false;
  OnnxInputDims dims_;
  Graph graph_;
  int opset_ = 13;
  int source_opset_ = 0;
  std::map<std::string, ValuePtr> values_;
  std::map<std::string, int> use_count_;
  std::map<int, std::vector<double>> float_data_;  // IR weight / bias tensor -> float values
  std::map<int, std::vector<double>> weight_scales_;  // IR weight tensor -> the model's scales
  std::vector<WindowLayout> window_layouts_;
  const onnx::NodeProto* node_ = nullptr;
  std::string node_name_;
  std::vector<std::string> node_names_;
};

// Op handlers (one per ONNX op type family); each reads importer.node().
void import_conv(Importer& im);
void import_pool(Importer& im, bool max_pool);
void import_global_pool(Importer& im);
void import_reduce_mean(Importer& im);
void import_gemm(Importer& im);
void import_matmul(Importer& im);
void import_batchnorm(Importer& im);
void import_instance_norm(Importer& im);  // onnx_ops_norm.cpp
void import_activation(Importer& im);
void import_leaky_relu(Importer& im);  // LeakyRelu, PRelu: onnx_ops_activation.cpp
void import_prelu(Importer& im);
void import_binary(Importer& im);
void import_concat(Importer& im);
void import_split(Importer& im);
// The kSplit of `channels` channels of tensor x by the node's split sizes (attribute or input 1;
// even parts when absent), checked against the outputs and the channels.
Node make_split_node(Importer& im, int x, int64_t channels);
void import_slice(Importer& im);
void import_reshape(Importer& im);
void import_transpose(Importer& im);
void import_pad(Importer& im);
void import_resize(Importer& im);          // onnx_ops_resize.cpp
void import_conv_transpose(Importer& im);  // onnx_ops_conv_transpose.cpp
void import_softmax(Importer& im);
void import_constant(Importer& im);
void import_shape_op(Importer& im);
void import_cast(Importer& im);
void import_constant_of_shape(Importer& im);
void import_expand(Importer& im);  // of a constant (a no-op broadcast of a parameter)
void import_where(Importer& im);   // folded on constants, else import_transformer
// Constant folding of N-D constants (onnx_ops_fold.cpp).
void import_range(Importer& im);
void import_not(Importer& im);
void import_scatter_nd(Importer& im);
ValuePtr fold_transpose(Importer& im, const Value& c, const std::vector<int64_t>& perm);
ValuePtr fold_concat(Importer& im, size_t axis);  // of the node's inputs (constants with data)
// QDQ form (onnx_ops_quant.cpp): QuantizeLinear / DequantizeLinear pairs on activations record
// the activation's scale and vanish; DequantizeLinear (of int8 or QuantizeLinear'd float
// constants) gives weights with the model's scales. refuse_qoperator fails on the operator form
// (QLinearConv, QLinearMatMul, ConvInteger, ...) and returns false for any other op.
void import_quantize(Importer& im);
void import_dequantize(Importer& im);
bool refuse_qoperator(Importer& im);
// Transformer graphs: true when the node reads a token view, a pattern in progress or a rank-3
// graph input, or is a MatMul of two activations; import_transformer then handles it.
bool transformer_claims(Importer& im);
// Channels-last CNN blocks (ConvNeXt, onnx_ops_channels_last.cpp): true for a Transpose
// [0, 2, 3, 1] of an NCHW activation, a Transpose of a view back to NCHW, or a per-channel Mul
// (layer scale); import_channels_last then handles it.
bool channels_last_claims(Importer& im);
void import_channels_last(Importer& im);
void import_transformer(Importer& im);
// Hard-swish and hard-sigmoid written out (Paddle2ONNX, tf2onnx, PyTorch's x * relu6(x + 3) / 6;
// onnx_ops_hard_swish.cpp): true for an Add of the scalar 3 to an activation and for any op
// reading a step of the pattern; import_hard_swish then handles it.
bool hard_swish_claims(Importer& im);
void import_hard_swish(Importer& im);

// TensorProto -> dims and values (double); fails naming `what` on unsupported encodings.
void decode_tensor(const onnx::TensorProto& t, const std::string& what, std::vector<int64_t>* dims,
                   std::vector<double>* data, bool* has_data);
// Small helpers shared by the handlers.
std::string dims_list(const std::vector<int64_t>& v);  // "[1, 2, 3]"
int64_t product(const std::vector<int64_t>& d, size_t begin, size_t end);
int64_t normalise_axis(Importer& im, int64_t axis, size_t rank);  // fails when out of range
std::vector<int64_t> axes_of(Importer& im, size_t k);             // attribute 'axes' or input k

TensorShape shape_from_dims(const std::vector<int64_t>& dims);  // rank <= 4, trailing dims 1
// Element count of `dims`; fails naming `what` on a negative dim or more than
// kMaxTensorElements elements.
int64_t checked_elements(const std::vector<int64_t>& dims, const std::string& what);
int64_t to_int64(double d);  // saturating

}  // namespace onnx_import
}  // namespace strider
