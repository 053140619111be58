// Graph IR: the one representation every importer (ONNX, YAML, SCALE-Sim) produces and every
// planner pass (legalise, schedule, memory plan, lower) consumes.
//
// Data is int8 activations in planar NCHW (N images contiguous), int8 weights laid out
// [out_channels][in_channels / groups][kernel_h][kernel_w], int32 biases. Activations are
// requantised back to int8 by the producing op: acc * multiplier >> shift (64-bit product),
// rounded half away from zero, then clamped by the fused activation. The exact integer rules
// are core/contract/quant.h (requantize, activate), shared by the model and the reference.
//
// Activation values read as fixed point with kActivationScale per unit (q = 16 means 1.0):
// importers map real clip bounds with it (Clip(-1, 1) -> [-16, 16]) and give kRelu6 nodes
// clip_min 0, clip_max 6 * kActivationScale = 96.
//
// Tensor ids and node ids are indices into Graph::tensors and Graph::nodes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/contract/descriptor.h"

namespace strider {

enum class OpType : uint8_t {
  kConv,            // grouped / depthwise / dilated convolution; also FullyConnected as 1x1 on 1x1
  kFullyConnected,  // input flattened to C*H*W, weights [out][in]
  kMaxPool,
  kAvgPool,
  kGlobalAvgPool,  // also ReduceMean over H and W
  kAdd,            // element-wise, second input may broadcast per channel or scalar
  kMul,
  kConcat,          // channel concat
  kActivation,      // activation-only op (the fused activation does the work)
  kReshape,         // reshape / flatten / squeeze / identity / dropout: a view of its input
  kSplit,           // channel split: each output is a contiguous channel range of the input
  kSlice,           // one channel range of the input
  kChannelShuffle,  // reshape-transpose-reshape channel shuffle
  kPad,             // explicit zero padding
  kSoftmax,         // over each group of C / groups channels (optionally causal, see below)
  // Transformer ops. A token sequence [seq, d] is stored as C = d, H = seq, W = 1: each token is
  // one row, so row bands are blocks of tokens (tiling and spilling work per token block) and a
  // channel's values over the tokens are contiguous (planar CHW). A batch of matrices
  // [G, M, N] (G heads) is C = G x N (channel g x N + n), H = M, W = 1.
  kMatMul,     // two activations: out[g][m][n] = sum_k A[g][m][k] B[g][k][n], groups = G;
               // A is [G*K channels, M rows]; B is [G*N, K] (B[k][n] at channel g*N+n, row k)
               // or with transpose_b [G*K, N] (at channel g*K+k, row n). Requantised.
  kLayerNorm,  // over the channels of each position, then x gamma (weights, int8 per channel)
               // + beta (bias, int32), requantised
  kGelu,       // x * Phi(x), element-wise, requantised to the output scale
  kInstanceNorm,  // each channel over the H x W positions of its image (ONNX
                  // InstanceNormalization), then x gamma + beta like kLayerNorm; vector unit
  kGather,     // data movement: a fresh tensor (Node::gather_shape) whose elements are copied
               // from the input as the 2-D blocks Node::gather lists (each image alike); every
               // output element is written by exactly one block. Swin's window partition /
               // reverse and cyclic shift. Lowered to L2 -> L2 moves (one per block).
};

// One 2-D block of a kGather, in elements of one image (planar CHW offsets): `rows` rows of
// `row_len` elements, row r read at src + r x src_stride and written at dst + r x dst_stride
// (with several rows, the source stride at least row_len and the destination stride at least
// the row's span dst_span(): the DMA's 2-D move).
struct GatherBlock {
  int64_t src = 0, dst = 0;
  int64_t rows = 1, row_len = 0;
  int64_t src_stride = 0, dst_stride = 0;
  // Elements between consecutive elements of an output row (MoveDesc::dst_step): element i of
  // row r is written at dst + r x dst_stride + i x dst_step.
  int64_t dst_step = 1;
  int64_t dst_span() const { return (row_len - 1) * dst_step + 1; }
  bool operator==(const GatherBlock& o) const {
    return src == o.src && dst == o.dst && rows == o.rows && row_len == o.row_len &&
           src_stride == o.src_stride && dst_stride == o.dst_stride && dst_step == o.dst_step;
  }
};

// kSilu: x sigmoid(x) (ONNX's Mul(x, Sigmoid(x)), imported as one activation).
enum class Activation : uint8_t {
  kNone,
  kRelu,
  kRelu6,
  kClip,
  kSigmoid,
  kHardSigmoid,
  kHardSwish,
  kSilu
};

// The activations the datapath applies by a 256-entry table (core/contract/quant.h lut_entry).
inline bool is_lookup(Activation a) {
  return a == Activation::kSigmoid || a == Activation::kHardSigmoid ||
         a == Activation::kHardSwish || a == Activation::kSilu;
}

constexpr int kActivationScale = 16;

// Largest tensor validate() accepts (elements); importers keep shape arithmetic below it.
constexpr int64_t kMaxTensorElements = int64_t{1} << 40;

enum class TensorKind : uint8_t { kActivation, kWeight, kBias };

struct TensorShape {
  int64_t n = 1, c = 1, h = 1, w = 1;
  int64_t elements() const { return n * c * h * w; }
  bool operator==(const TensorShape& o) const {
    return n == o.n && c == o.c && h == o.h && w == o.w;
  }
  bool operator!=(const TensorShape& o) const { return !(*this == o); }
};

std::string to_string(const TensorShape& s);  // "1x64x56x56"

struct Tensor {
  std::string name;
  TensorShape shape;
  TensorKind kind = TensorKind::kActivation;
  int element_bytes = 1;      // int8 activations and weights, int32 biases
  std::vector<int8_t> data;   // weights (empty: not materialised, see Graph::materialise)
  std::vector<int32_t> bias;  // biases
  // Quantisation (planner/quant/calibrator.h): real value = int8 value x scale for activations
  // and weights (0: not calibrated). An already-quantised ONNX model (QuantizeLinear on the
  // activation) sets an activation's scale at import; calibration keeps it. float_data: weights
  // in float as imported (materialised or int8-imported weights have none:
  // planner/quant/float_reference.h float_weights() derives them), biases as imported or derived
  // by the calibrator; for activations, the float network's value on calibration image 0
  // (kept for the fidelity report). Graph inputs of a calibrated graph also hold their quantised
  // calibration image in `data`.
  double scale = 0.0;
  std::vector<float> float_data;
  // Weights quantised per output channel: one scale per output channel (shape.n), real =
  // int8 x channel_scales[o] (then `scale` is the largest, for display); empty: `scale` for the
  // whole tensor. Set at import from an already-quantised ONNX model (DequantizeLinear weights,
  // with `data` its int8 values); calibration keeps them.
  std::vector<double> channel_scales;
  // A conv / fc bias: the real shift per output channel that bias correction subtracts from
  // float_data before it is quantised to `bias` (planner/quant/bias_correction.h); the float
  // network keeps float_data. Empty: none.
  std::vector<double> bias_shift{};
  // uint8 values, real = uint8 x scale: the probabilities of a softmax read only as a MatMul's
  // first operand (materialise_parameters; OpDesc::kUnsigned). Every other tensor is int8.
  bool is_unsigned = false;
  int64_t bytes() const { return shape.elements() * element_bytes; }
};

struct Node {
  std::string name;
  OpType op = OpType::kActivation;
  std::vector<int> inputs;   // activation tensor ids
  std::vector<int> outputs;  // activation tensor ids
  int weights = -1;          // tensor id of kWeight, or -1
  int bias = -1;             // tensor id of kBias, or -1

  // Window ops (conv, pools, pad).
  int kernel_h = 1, kernel_w = 1;
  int stride_h = 1, stride_w = 1;
  int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int dilation_h = 1, dilation_w = 1;
  int groups = 1;
  // Conv only: a depthwise 1x1 conv standing for a BatchNormalization that could not be folded
  // into a preceding conv (a per-channel scale and shift). The hardware executes its MACs, but
  // network totals of the original model (strider inspect) leave it out.
  bool from_batchnorm = false;
  bool count_include_pad = false;  // AvgPool
  bool ceil_mode = false;          // MaxPool / AvgPool: output size rounded up (ONNX ceil_mode);
                                   // a window starting in the bottom/right padding is dropped.
                                   // Pool padding is virtual: max ignores it, avg counts it only
                                   // with count_include_pad.

  // Fused activation and requantisation to int8.
  Activation activation = Activation::kNone;
  int32_t clip_min = -128, clip_max = 127;  // int8 domain, for kClip and kRelu6 ([0, 96])
  int32_t requant_multiplier = 1;
  int32_t requant_shift = 0;
  // A lookup activation's table scales (OpDesc::lut): s_in, the calibrated pre-activation scale
  // the requantisation above targets (a pool's: its input's), and s_out, a swish's output scale;
  // the default 1/16 both until calibration.
  LutScales lut;
  // Softmax / GELU: the input scale in Q24 (OpDesc::input_multiplier, core/contract/vector_math.h),
  // set by materialise_parameters (nominal 1/16) and by calibration; LayerNorm: its epsilon in
  // the integer units of D^2 var (layernorm_epsilon_code of `epsilon` at the input scale); 0 for
  // other ops.
  int32_t input_multiplier = 0;
  // LayerNorm / InstanceNorm: ONNX's epsilon, added to the variance (finite, > 0; checked at
  // import).
  double epsilon = 0;
  // Add: the second operand's multiplier, requant_multiplier the first's (OpDesc::kAdd): set
  // equal by materialise_parameters (operands at one scale) and per operand by calibration.
  int32_t input2_multiplier = 0;
  // Conv / fc: one requantisation per output channel (weights with per-channel scales), which
  // then replaces requant_multiplier / requant_shift; empty: the per-tensor pair.
  std::vector<Requant> channel_requant;
  // kActivation with negative_slope (LeakyRelu, PRelu): channel_requant is instead the
  // requantisation of a negative input, one per channel (requant_multiplier / requant_shift
  // that of a positive one); its multiplier carries the slope's sign (0 for slope 0).
  Requant requant_of(int64_t channel) const {
    return channel_requant.empty() ? Requant{requant_multiplier, requant_shift}
                                   : channel_requant[size_t(channel)];
  }
  // LeakyRelu / PRelu (kActivation only): y = x for x >= 0, slope x below, the slope per
  // channel (PRelu) or one for every channel (size 1); empty for every other node.
  std::vector<double> negative_slope;
  double slope_of(int64_t channel) const {
    return negative_slope.size() == 1 ? negative_slope[0] : negative_slope[size_t(channel)];
  }

  // Conv: a residual Add fused into its post-op (planner/lower/legalise.h fuse_residual_adds):
  // inputs[1] is the Add's other operand r, and the conv's int8 result y (its requantisation and
  // activation applied) becomes activate(requantize(y x multiplier + r x operand_multiplier, 1,
  // shift), act, clip_min, clip_max) — the Add's arithmetic (OpDesc::post).
  struct ResidualAdd {
    bool fused = false;
    int32_t multiplier = 0, operand_multiplier = 0, shift = 0;
    Activation act = Activation::kNone;
    int32_t clip_min = -128, clip_max = 127;
    LutScales lut;  // the Add's lookup activation's table scales (Node::lut)
  };
  ResidualAdd residual;
  // A MaxPool fused into this conv's store path (OpDesc::pool; planner/lower/legalise.h
  // fuse_max_pools): outputs[0] is then the pooled tensor and conv_output the conv's own result,
  // which has no memory (only its shape is used).
  struct MaxPoolFusion {
    bool fused = false;
    int kernel_h = 0, kernel_w = 0, stride_h = 1, stride_w = 1;
    int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
    int conv_output = -1;
  };
  MaxPoolFusion pool;
  // Conv: a per-channel Mul (a squeeze-excitation's Mul(X, s), s [C,1,1]) fused into its input
  // load (OpDesc::input_scale; planner/lower/legalise.h fuse_input_scales): inputs[0] is then the
  // Mul's tensor operand X, inputs.back() its scale s, and the conv computes on the Mul's
  // arithmetic of them; `product` is the Mul's output M, which has no memory (only its
  // signedness is used: the values the conv multiplies).
  struct InputScaleFusion {
    bool fused = false;
    int product = -1;
    int32_t multiplier = 1, shift = 0;
    Activation act = Activation::kNone;
    int32_t clip_min = -128, clip_max = 127;
  };
  InputScaleFusion input_scale;
  // The tensor id of a fused input scale (inputs.back()), or -1.
  int scale_input() const { return input_scale.fused ? inputs.back() : -1; }
  // A GlobalAveragePool reading this conv's result fused into its store path (OpDesc::gap;
  // planner/lower/legalise.h fuse_global_pools): `output` is the pool's [C, 1, 1] output, the
  // pool's requantisation, activation and clip its own. The conv's result X stays outputs[0]
  // and `output` is outputs[1] when X has other readers (or is a graph output); else X is never
  // stored: outputs is {output} and conv_output X (no memory, only its shape is used).
  struct GlobalPoolFusion {
    bool fused = false;
    int output = -1;
    int conv_output = -1;  // X when it is never stored, else -1
    int32_t requant_multiplier = 1, requant_shift = 0;
    Activation act = Activation::kNone;
    int32_t clip_min = -128, clip_max = 127;
  };
  GlobalPoolFusion gap;
  // The tensor holding this node's computed result's shape: the conv's own output when a
  // max-pool is fused or a fused global pool's conv result is never stored, else outputs[0].
  int result() const {
    return pool.fused ? pool.conv_output : gap.conv_output >= 0 ? gap.conv_output : outputs[0];
  }

  // Split / Slice: channel ranges, one [begin, end) per output.
  std::vector<int64_t> channel_begin, channel_end;
  int shuffle_groups = 1;  // ChannelShuffle
  bool transpose_b = false;  // MatMul: B stored K on channels, N on rows (see kMatMul)
  bool causal = false;       // Softmax: position m (row) sees channels n <= m of its group only
  // Real factor on the output before the activation: a scalar Mul / Div the ONNX importer
  // absorbed into this conv / fc / MatMul (attention's 1 / sqrt(d)). The float reference applies
  // it; the calibrated requantisation carries it (the integer datapath has no separate step).
  double output_factor = 1.0;

  // Reshape: target dims in ONNX Reshape form (0 copies the input dim, -1 is inferred), at most
  // four, mapped onto N, C, H, W with missing trailing dims 1 (e.g. {0, -1} is Flatten to
  // N x (C*H*W) x 1 x 1). Empty: same shape as the input (identity, dropout).
  std::vector<int64_t> reshape_dims;

  // Gather: the output shape (N = the input's) and the blocks copied into it.
  TensorShape gather_shape;
  std::vector<GatherBlock> gather;
};

struct Graph {
  std::string name;
  std::vector<Tensor> tensors;
  std::vector<Node> nodes;   // in a valid topological order after import
  std::vector<int> inputs;   // graph input tensor ids
  std::vector<int> outputs;  // graph output tensor ids
  // What an importer changed and the user should hear (e.g. a duplicate layer name made
  // unique): printed as "warning: ..." by `strider run` and `strider inspect`.
  std::vector<std::string> warnings;
  // How calibration chose the activation scales (planner/quant/calibrator.h: mse, minmax,
  // percentile P, entropy); empty: not calibrated. Reported in summary.json and the dump.
  std::string calibration_method;
  // ONNX importer: where the elements of a graph input or output lie in its IR tensor when not
  // in plain NCHW order (a token sequence [S, D] is C = D, H = S; an output may be a strided
  // view): element (i0, i1, ...) of the ONNX tensor of `dims`, in row-major order, is at channel
  // sum(i_k cstride_k) and position (row x W + column) sum(i_k pstride_k). Keyed by tensor id;
  // absent: the ONNX tensor's row-major order is the IR tensor's.
  struct OnnxLayout {
    std::vector<int64_t> dims, cstride, pstride;
  };
  std::map<int, OnnxLayout> onnx_layouts;

  // Name lookups are hashed (import is linear in the graph size): add_tensor and add_node keep
  // an index of the names; tensors or nodes appended directly are indexed on the next call.
  // Renaming a tensor in place is not seen by find_tensor (copy it and add it instead).
  int add_tensor(Tensor t);
  int add_node(Node n);
  int find_tensor(const std::string& name) const;  // -1 when absent

  // Producer node of each tensor (-1 for graph inputs and constants); consumers of each tensor.
  std::vector<int> producers() const;
  std::vector<std::vector<int>> consumers() const;

 private:
  void index_tensors() const;
  mutable std::unordered_map<std::string, int> tensor_index_;
  mutable size_t tensors_indexed_ = 0;
  std::unordered_set<std::string> node_names_;
  size_t nodes_indexed_ = 0;
};

const char* to_string(OpType op);
const char* to_string(Activation a);
bool parse_activation(const std::string& s, Activation* out);

// True for ops that only re-interpret their input's memory (no data movement).
bool is_view_op(OpType op);

// LayerNorm and InstanceNorm: normalise then x gamma (weights) + beta (bias) on the vector unit.
inline bool is_norm(OpType op) { return op == OpType::kLayerNorm || op == OpType::kInstanceNorm; }
// The values a norm's mean and variance run over: the channels (LayerNorm) or the H x W
// positions of a channel (InstanceNorm); the D of core/contract/vector_math.h.
int64_t norm_length(const Graph& g, const Node& n);

// Output shape of a node given its input shapes; throws std::runtime_error naming the node on
// inconsistent inputs. Used by importers and by validate().
std::vector<TensorShape> infer_output_shapes(const Graph& g, const Node& n);

// Multiply-accumulates of conv and fully-connected nodes (0 for everything else).
int64_t node_macs(const Graph& g, const Node& n);

// Network totals (what `strider inspect` reports): `macs` and `weights` count the
// multiply-accumulates and weight elements of conv and fully-connected nodes of the original
// model (nodes standing for unfolded BatchNormalizations left out); `executed_macs` counts every
// conv / fc node; `weight_bytes` all weight and bias tensors; `activation_bytes` every
// activation tensor (graph inputs and node outputs).
struct GraphTotals {
  int64_t macs = 0;
  int64_t weights = 0;
  int64_t executed_macs = 0;
  int64_t weight_bytes = 0;
  int64_t activation_bytes = 0;
};
GraphTotals graph_totals(const Graph& g);

// Checks ids, shapes against infer_output_shapes, topological order and weight sizes. Throws
// std::runtime_error naming the node and what was expected.
void validate(const Graph& g);

// Recomputes every activation tensor produced by a node, in node order, from the graph inputs'
// shapes (after an input size change). Weight tensors of fully-connected nodes that hold no data
// follow their new input size; ones with data must still match (else the node's shape error is
// thrown, as from infer_output_shapes).
void reinfer_shapes(Graph* g);

// Weight tensor shape of a conv: [out][in/groups][kh][kw] as n, c, h, w; of a fully-connected
// layer: [out][in] as n, c (h = w = 1). Reduction length (MACs per output element) of either.
int64_t reduction_length(const Graph& g, const Node& n);

// Fills weights and biases that have no data with deterministic pseudo-random int8 values from
// `seed` (and the tensor name), and sets each conv / fully-connected node's requantisation so that
// outputs use the int8 range without saturating on average.
void materialise_parameters(Graph* g, uint64_t seed);

// LeakyRelu / PRelu: sets channel_requant of a node with negative_slope to the requantisation of
// a negative input, real factor `scale` x slope per channel (one rounding: y = requantize(x, m_c,
// s_c) with m_c / 2^s_c ~= scale x slope_c, the multiplier negative for a negative slope and 0
// for slope 0), `channels` entries.
void set_negative_requant(Node* n, double scale, int64_t channels);

}  // namespace strider
