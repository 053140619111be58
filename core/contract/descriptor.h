// The descriptor list: the one versioned contract between the planner (which emits it) and the
// SystemC model (which executes it). Plain C++, no SystemC.
//
// A list has a header (format version, the fingerprint of the arch config it was planned for, the
// layer names, a tensor table) and descriptors. A Move descriptor is executed by the DMA (DRAM<->L2,
// L2<->L2, 2-D with strides); an Op descriptor by the compute pipeline (load unit, line buffer,
// neurons, store unit) over one tile of one layer. A descriptor starts only once every id in `deps`
// has retired. Ids are dense: descriptors[i].id == i, and deps name only smaller ids.
//
// Serialisation: a compact little-endian binary form ("STRD" magic, version, then fields, then
// from version 2 a SHA-256 of every byte before it, so a corrupted file is refused) and a
// readable YAML form; both round-trip exactly.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace strider {

// Version 2: a SHA-256 trailer in the binary form; op codes kMatMul, kLayerNorm, kGelu and
// OpDesc::flags (transformer networks); OpDesc::mapping.
// Version 3: OpDesc::channel_requant (per-output-channel requantisation of conv / fc).
// Version 4: OpDesc::input_multiplier (the calibrated input scale of Softmax and GELU) and
// OpDesc::input2_multiplier (Add operands at different scales).
// Version 5: OpDesc::post (an element-wise Add, and the activation after it, fused into a conv's
// store path).
// Version 6: op code kInstanceNorm (vector unit).
// Version 7: MoveDesc::dst_step (a destination row scattered to every dst_step-th byte).
// Version 8: PostAct::kSilu (x sigmoid(x) as a fused activation); OpDesc::lut (the lookup
// activations' calibrated input and output scales).
// Version 9: OpDesc::pool (a max-pool fused into a conv's store path: kernel, stride, pads and the
// pooled output the store unit writes).
// Version 10: OpDesc::gap (a global average pool fused into a conv's store path: the pooled
// [C, 1, 1] output, its requantisation and activation, the int32 per-channel partial sums of a
// tile over a band of rows, first / last band and unsigned flags).
// Version 11: OpDesc::input_scale (a squeeze-excitation's per-channel Mul fused into a conv's
// input load: the scale tensor, the Mul's requantisation, activation, clip and signedness).
// Version 12: MoveDesc::background (a prefetch the hardware may run behind later demand moves).
constexpr uint32_t kDescriptorFormatVersion = 12;

// Requantisation of an int32 value to int8: round_half_away(v x multiplier / 2^shift)
// (core/contract/quant.h).
struct Requant {
  int32_t multiplier = 1;
  int32_t shift = 0;
  bool operator==(const Requant& o) const { return multiplier == o.multiplier && shift == o.shift; }
};

enum class MemSpace : uint8_t { kDram = 0, kL2 = 1 };
enum class DescKind : uint8_t { kMove = 0, kOp = 1 };

// Operation codes the compute pipeline executes. Views (reshape, split, concat-in-place) never
// reach the hardware; channel shuffle and explicit copies lower to moves.
enum class OpCode : uint8_t {
  kConv = 0,            // incl. grouped and depthwise
  kFullyConnected = 1,
  kMaxPool = 2,
  kAvgPool = 3,
  kGlobalAvgPool = 4,
  kAdd = 5,             // requantize(a x requant_multiplier + b x input2_multiplier, 1,
                        // requant_shift): each operand at its own scale (core/contract/quant.h)
  kMul = 6,
  kActivation = 7,      // element-wise activation only
  kSoftmax = 8,         // vector unit: over each group of input.c / groups channels, exp of
                        // the input at the scale input_multiplier gives, the probability at
                        // 1/127 requantised by requant (vector_math.h)
  // A matrix multiply of two activations on the neuron array, the second operand (input2) read
  // from L2 like weights (no DRAM staging): out[g*N + n][m] = sum_k A[g*K + k][m] B(g, k, n),
  // B(g, k, n) = input2[g*N + n][k], or input2[g*K + k][n] with kTransposeB; groups = G. Timed as
  // a 1x1 convolution over the positions m (rows of A) with N output channels per group.
  kMatMul = 9,
  kLayerNorm = 10,      // vector unit: over the channels of each position, x gamma + beta
  kGelu = 11,           // vector unit: element-wise x Phi(x), the input at the scale
                        // input_multiplier gives, requantised by requant (vector_math.h)
  // Vector unit: each channel over all the positions (rows x width) of one image, x gamma + beta
  // (the LayerNorm arithmetic of vector_math.h with D = rows x width); a tile reads every row of
  // its channels and writes rows [row_begin, row_end).
  kInstanceNorm = 12,
};

// Ops executed by the vector unit instead of the neuron array.
inline bool is_vector_op(OpCode op) {
  return op == OpCode::kSoftmax || op == OpCode::kLayerNorm || op == OpCode::kGelu ||
         op == OpCode::kInstanceNorm;
}

// How a tile is laid onto the neuron array (core/timing/tile_work.h). kPositions: consecutive output
// positions on neurons, input windows filled by shift-stride writes, weights broadcast from the
// kernel region. kChannels: output channels on neurons, each line written with its channel's
// weights, inputs broadcast, the accumulators holding several positions. kIm2col: the channels
// mapping for a k>1 convolution (groups 1), the broadcast input being the k x k x Cin window in
// im2col order: no shifted writes.
enum class Mapping : uint8_t { kPositions = 0, kChannels = 1, kIm2col = 2 };

// kSilu: x sigmoid(x) (SiLU / swish), on the hard-swish's scales (core/contract/quant.h).
enum class PostAct : uint8_t {
  kNone = 0,
  kRelu,
  kRelu6,
  kClip,
  kSigmoid,
  kHardSigmoid,
  kHardSwish,
  kSilu
};

// The scales of a lookup activation's 256-entry table (kSigmoid, kHardSigmoid, kHardSwish, kSilu;
// core/contract/quant.h lut_entry): the entry for the int8 input q is f(q s_in) in the output
// unit s_out (the swishes; the sigmoids' unit is 1/127, or 1/255 unsigned). Each scale is
// multiplier / 2^shift in quantize_multiplier's form. The default is the fixed 1/16 both
// (16384 / 2^18), what an uncalibrated graph's int8 activations (1/16 per unit) hold.
struct LutScales {
  Requant in{16384, 18}, out{16384, 18};
  bool operator==(const LutScales& o) const { return in == o.in && out == o.out; }
};

// A tensor in memory: planar CHW, element_bytes per element. c, h, w are the tensor's full shape
// (padding and bounds follow them); a band buffer holds only channels [first_channel,
// first_channel + channels) and rows [first_row, first_row + rows) of it (0: all), element
// (c, y, x) being at addr + offset(c, y, x).
struct TensorRef {
  MemSpace space = MemSpace::kL2;
  uint64_t addr = 0;           // address of element (first_channel, first_row, 0)
  uint32_t c = 0, h = 0, w = 0;
  uint32_t row_stride = 0;     // bytes between consecutive rows
  uint32_t channel_stride = 0; // bytes between consecutive channels
  uint8_t element_bytes = 1;
  uint32_t first_channel = 0, channels = 0;  // channels held (0: all c)
  uint32_t first_row = 0, rows = 0;          // rows held (0: all h)
  bool present() const { return c != 0; }
  uint32_t held_channels() const { return channels ? channels : c; }
  uint32_t held_rows() const { return rows ? rows : h; }
  uint64_t bytes() const { return uint64_t(c) * h * w * element_bytes; }
  uint64_t held_bytes() const { return uint64_t(held_channels()) * held_rows() * w * element_bytes; }
  uint64_t offset(uint32_t ch, uint32_t y, uint32_t x) const {
    return uint64_t(ch - first_channel) * channel_stride + uint64_t(y - first_row) * row_stride +
           uint64_t(x) * element_bytes;
  }
  bool operator==(const TensorRef& o) const;
};

// A post-op the store path applies to an op's int8 result y before writing it. kAdd: out =
// activate(requantize(y x multiplier + r x operand_multiplier, 1, shift), act, clip_min,
// clip_max), r the operand's element at the same (channel, row, column) — exactly OpCode::kAdd's
// arithmetic with y as its first operand — read from L2 by the store unit (model/l1/store_unit).
enum class PostOpKind : uint8_t { kNone = 0, kAdd = 1 };

struct PostOp {
  PostOpKind kind = PostOpKind::kNone;
  TensorRef operand;  // same shape as the op's output; a band buffer when spilled
  int32_t multiplier = 0, operand_multiplier = 0, shift = 0;
  PostAct act = PostAct::kNone;
  int32_t clip_min = -128, clip_max = 127;
  bool present() const { return kind != PostOpKind::kNone; }
  bool operator==(const PostOp& o) const;
};

// A max-pool fused into a conv's store path (model/l1/store_unit.h): the store unit takes the
// maximum over each kernel_h x kernel_w window (stride, virtual padding: a window's elements
// outside the conv's result are skipped, never a pad value) of the conv's requantised, activated
// result and writes only the pooled tensor `output` (the op's own OpDesc::output then gives only
// the conv result's shape: it is never stored). A fused tile covers the conv's whole height
// (row_begin 0, row_end output.h), so every window's rows are in the tile; its channels
// [ch_begin, ch_end) of `output` are written, every pooled row.
struct FusedPool {
  uint16_t kernel_h = 0, kernel_w = 0;  // 0: no fused pool
  uint16_t stride_h = 1, stride_w = 1;
  uint16_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  TensorRef output;  // the pooled tensor (c = the conv's channels)
  bool present() const { return kernel_h != 0; }
  bool operator==(const FusedPool& o) const;
};

// A per-channel scale fused into a conv's (or fc's) input load (model/l1/load_unit.h; a
// squeeze-excitation's Mul(X, s) whose product only the conv read): every element x of op.input
// the tile reads, in channel c, enters the line buffer / kernel broadcast as
//   activate(requantize(x s_c, multiplier, shift), act, clip_min, clip_max)
// — exactly OpCode::kMul's arithmetic with its second operand s broadcast per channel — and the
// conv computes on these products (its virtual padding stays zero: it pads the product). `scale`
// holds one element per channel of op.input (c = op.input.c, h = w = 1). OpDesc::kInputUnsigned
// names op.input (x); kScaleUnsigned the scale, kProductUnsigned the product (what the conv
// multiplies, the Mul's output). No lookup activation (the op's one table is its own).
struct InputScale {
  TensorRef scale;  // absent: no input scale
  int32_t multiplier = 1, shift = 0;
  PostAct act = PostAct::kNone;
  int32_t clip_min = -128, clip_max = 127;
  static constexpr uint8_t kScaleUnsigned = 1, kProductUnsigned = 2;
  uint8_t flags = 0;
  bool present() const { return scale.present(); }
  bool operator==(const InputScale& o) const;
};

// A global average pool fused into a conv's store path (model/l1/store_unit.h): as it writes the
// tile's results the store unit adds up each channel's values (the int8 / uint8 bytes it stores,
// after the conv's requantisation, activation and post-op), and writes for each channel of
// [ch_begin, ch_end) activate(requantize(sum over the conv's H x W results, requant_multiplier,
// requant_shift), act, clip_min, clip_max) to `output` ([C, 1, 1]) — exactly
// OpCode::kGlobalAvgPool's arithmetic (model/neuron/tile_compute.cpp). A tile over a band of rows (not all of them) adds its
// rows' sums to the int32 partial sums `partial` (one element per channel, element_bytes 4, in
// L2): the first band's tile (kFirst: row_begin 0) starts from 0 instead of reading them, a tile
// without kLast writes them back, the last band's tile (kLast: row_end = output.h) requantises
// and writes `output`; a tile with both flags (the whole height) touches no partial sums.
// kResultNotStored: the conv's own result (op.output) is never written, only the pooled values.
struct FusedGap {
  static constexpr uint8_t kFirst = 1, kLast = 2, kOutputUnsigned = 4, kResultNotStored = 8;
  TensorRef output;   // the pooled tensor [C, 1, 1]
  TensorRef partial;  // int32 partial sums [C, 1, 1] (absent when kFirst and kLast)
  int32_t requant_multiplier = 1, requant_shift = 0;
  PostAct act = PostAct::kNone;
  int32_t clip_min = -128, clip_max = 127;
  uint8_t flags = 0;
  bool present() const { return output.present(); }
  bool first() const { return flags & kFirst; }
  bool last() const { return flags & kLast; }
  bool stores_result() const { return !(flags & kResultNotStored); }
  bool operator==(const FusedGap& o) const;
};

struct MoveDesc {
  MemSpace src_space = MemSpace::kDram, dst_space = MemSpace::kL2;
  uint64_t src_addr = 0, dst_addr = 0;
  uint32_t rows = 1, row_bytes = 0;
  uint32_t src_stride = 0, dst_stride = 0;  // bytes between row starts
  // Bytes between consecutive bytes of a destination row: 1 writes the row contiguously; s > 1
  // scatters it, byte i of row r going to dst_addr + r x dst_stride + i x s (one phase of a
  // nearest upsample or of a transposed conv's interleave), the bytes in between untouched
  // (byte-masked writes). Rows of a 2-D move do not overlap: dst_stride >= dst_row_span().
  uint32_t dst_step = 1;
  // A prefetch the hardware may run behind later demand moves (a deep weight prefetch): the DMA
  // starts it only when no demand move waits and keeps one channel free for demand; the DRAM
  // serves its requests when no demand request can issue (docs/model.md, DMA and DRAM). Only a
  // DRAM -> L2 move may be background (check()). false: a demand move, served in list order.
  bool background = false;
  uint64_t bytes() const { return uint64_t(rows) * row_bytes; }
  // Bytes from the first to the last byte a destination row writes.
  uint64_t dst_row_span() const {
    return row_bytes == 0 ? 0 : uint64_t(row_bytes - 1) * dst_step + 1;
  }
  bool operator==(const MoveDesc& o) const;
};

struct OpDesc {
  OpCode op = OpCode::kConv;
  TensorRef input;    // full input tensor of the layer (the tile's rows are derived)
  TensorRef input2;   // second operand of Add / Mul (absent otherwise)
  TensorRef weights;  // c = out channels, h = kernel_h, w = (in_ch / groups) * kernel_w
  TensorRef bias;     // c = out channels, element_bytes 4
  TensorRef output;   // full output tensor of the layer
  uint16_t kernel_h = 1, kernel_w = 1;
  uint16_t stride_h = 1, stride_w = 1;
  uint16_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  uint16_t dilation_h = 1, dilation_w = 1;
  uint32_t groups = 1;
  bool count_include_pad = false;
  PostAct act = PostAct::kNone;
  int32_t clip_min = -128, clip_max = 127;
  int32_t requant_multiplier = 1;
  int32_t requant_shift = 0;
  // Softmax / GELU: the input scale in Q24 as core/contract/vector_math.h uses it (softmax:
  // 2^24 log2(e) s_in, GELU: 2^24 s_in / sqrt 2); 0 for every other op.
  int32_t input_multiplier = 0;
  // Add: the second operand's multiplier (the first's is requant_multiplier, the shift shared);
  // 0 for every other op.
  int32_t input2_multiplier = 0;
  // The table scales of the lookup activation: `act`'s, or post.act's when act is not one (a
  // fused op carries at most one; the lowering keeps such an Add apart).
  LutScales lut;
  // Per-output-channel requantisation (conv / fc with per-channel weight scales): one entry per
  // channel of the tile, [ch_begin, ch_end) in order; empty: requant_multiplier / requant_shift
  // for every channel. Carried in the descriptor like the per-tensor pair (the controller's
  // fetch cost is the fixed descriptor_bytes). Activation (LeakyRelu / PRelu): the
  // requantisation of a negative input per channel, its multiplier carrying the slope's sign;
  // a non-negative input takes requant_multiplier / requant_shift.
  std::vector<Requant> channel_requant;
  Requant requant_of(uint32_t channel) const {
    return channel_requant.empty() ? Requant{requant_multiplier, requant_shift}
                                   : channel_requant[channel - ch_begin];
  }
  // The tile: output rows [row_begin, row_end) x output channels [ch_begin, ch_end).
  uint32_t row_begin = 0, row_end = 0;
  uint32_t ch_begin = 0, ch_end = 0;
  // Input-channel blocking (conv, groups 1): the tile reduces over input channels
  // [in_ch_begin, in_ch_end) only (0, 0: all), accumulating in int32 partial sums `psum`
  // ([channel][row][column] of the tile, element_bytes 4): kPsumRead starts from them instead of
  // the bias, kPsumWrite stores them instead of the requantised output.
  static constexpr uint8_t kPsumRead = 1, kPsumWrite = 2;
  uint32_t in_ch_begin = 0, in_ch_end = 0;
  uint8_t psum_mode = 0;
  TensorRef psum;
  Mapping mapping = Mapping::kPositions;
  static constexpr uint8_t kTransposeB = 1;  // MatMul: B stored K on channels, N on rows
  static constexpr uint8_t kCausal = 2;      // Softmax: row m sees channels n <= m of its group
  // Softmax: the output is uint8 (core/contract/vector_math.h softmax_prob_u8); MatMul: input (A) is
  // uint8. Every other tensor is int8.
  static constexpr uint8_t kUnsigned = 4;
  // Unsigned activations (core/contract/quant.h): op.input / op.input2 hold uint8 values, the
  // output is written as uint8 (zero point 0). Conv, fully connected, pools, add, mul and
  // activation only. With a post-op (a fused residual Add) kInput2Unsigned names its operand and
  // kOutputUnsigned the Add's output; the conv's own result is int8.
  static constexpr uint8_t kInputUnsigned = 8, kInput2Unsigned = 16, kOutputUnsigned = 32;
  uint8_t flags = 0;
  PostOp post;  // conv only; applied to the requantised output (not to partial sums)
  FusedPool pool;  // conv only, without post-op or partial sums
  InputScale input_scale;  // conv or fc only: applied to op.input as it is loaded
  FusedGap gap;    // conv only, without fused max-pool or partial sums
  // Where the store unit writes the tile's results: the pooled tensor, the fused global pool's
  // output when the conv's result is never stored, or `output`.
  const TensorRef& stored() const {
    return pool.present()                         ? pool.output
           : gap.present() && !gap.stores_result() ? gap.output
                                                   : output;
  }
  bool operator==(const OpDesc& o) const;
};

struct Descriptor {
  uint32_t id = 0;
  DescKind kind = DescKind::kOp;
  std::vector<uint32_t> deps;
  uint32_t layer = 0;  // index into DescriptorList::layers
  MoveDesc move;       // valid when kind == kMove
  OpDesc op;           // valid when kind == kOp
  bool operator==(const Descriptor& o) const;
};

enum class TensorRole : uint8_t { kActivation = 0, kWeight = 1, kScratch = 2, kInput = 3, kOutput = 4 };

struct TensorEntry {
  std::string name;
  TensorRole role = TensorRole::kActivation;
  MemSpace space = MemSpace::kL2;
  uint64_t addr = 0;
  uint64_t bytes = 0;
  bool operator==(const TensorEntry& o) const;
};

struct DescriptorList {
  uint32_t version = kDescriptorFormatVersion;
  uint64_t arch_fingerprint = 0;
  std::vector<std::string> layers;
  std::vector<TensorEntry> tensors;
  std::vector<Descriptor> descriptors;
  bool operator==(const DescriptorList& o) const;
};

const char* to_string(MemSpace s);
const char* to_string(DescKind k);
const char* to_string(OpCode op);
const char* to_string(PostAct a);
const char* to_string(PostOpKind k);
const char* to_string(Mapping m);
const char* to_string(TensorRole r);

// Checks the structural invariants (dense ids, deps on earlier ids, layer indices in range, moves
// and ops with non-zero sizes). Throws std::runtime_error naming the descriptor.
void check(const DescriptorList& list);

// Binary form. read_binary throws std::runtime_error naming `source` and the byte offset on a
// truncated or malformed stream, and on a version mismatch.
void write_binary(const DescriptorList& list, std::ostream& out);
DescriptorList read_binary(std::istream& in, const std::string& source);

// Readable YAML form. read_text throws naming `source`, the line and the key.
std::string to_text(const DescriptorList& list);
DescriptorList read_text(const std::string& text, const std::string& source);

}  // namespace strider
