// TileWork: the closed-form traversal of one operation tile by the input iterator, line buffer,
// kernel region, neuron array and output iterator. Pure C++ (no SystemC): the lowering (to choose
// a mapping), the units and the tests share it.
//
// A tile is a sequence of line-buffer *fills*; each fill is written (one write cycle per shifted
// block, or per line) and then computed, through the two fill buffers of FillPipeline, so a fill's
// writes overlap the previous fill's compute. The tile's cycles are the pipeline's.
//
// Positions mapping (`OpDesc::mapping == kPositions`, the seed's; every window op and element-wise
// op): output positions are grouped into *runs* of `neurons.count` consecutive positions, one per
// neuron (line i feeds neuron i). Stride-1 windows walk the padded input as one stream of virtual
// rows of P positions (stream_pitch), so a run may cross a row end; the positions whose window
// crosses it (P - W_out per row) are computed and discarded by the output iterator. P is
// W + pad_left + pad_right, or with shared pad columns (`l1.shared_pad`, below) W + G.
//
// Shared pad columns (`l1.shared_pad`, stride 1 with shift-stride writes and `l1.pad_in_block`):
// the zeros are made in the block, so the right pad of row r and the left pad of row r + 1 need
// not be separate columns; one gap of G = max(pad_left, pad_right) zero columns between stored
// rows reads the same values. Virtual row pr of pitch P = W + G holds: columns [0, pad_left)
// zeros, [pad_left, pad_left + W) stored row pr - pad_top (all zeros for a top or bottom pad row,
// as before), [pad_left + W, P) zeros (G - pad_left of them). Padded column c is input column
// c - pad_left as before. Output position (r, x) is stream position r x P + x, valid iff
// x < W_out. Proof that every valid window reads exactly the padded input: with extent
// e = (kernel_w - 1) x dilation_w + 1, W_out = W + pad_left + pad_right - e + 1, and the window
// of (r, x) reads padded columns x .. x + e - 1 of padded rows r + kh x dilation_h. A column
// c < P is that virtual row's own column c, the padded input's: zeros in [0, pad_left), the
// stored row, then zeros up to P, inside the true right pad (P <= W + pad_left + pad_right). A
// column c >= P is read only by windows near the row end; the farthest, x = W_out - 1, reaches
// c = W + pad_left + pad_right - 1, i.e. column c - P = pad_left + pad_right - G - 1 < pad_left of
// the NEXT virtual row: that row's left zeros, and the true padded row has zeros there too
// (c >= pad_left + W: its right pad). So G >= max(pad_left, pad_right) is exactly what is needed
// (G >= pad_right for the next row's zeros, G >= pad_left for a row to hold its left pad and
// stored row). Positions of one row must not run into the next: P >= W_out, which W + G gives
// unless min(pad_left, pad_right) >= e (a pad wider than the window, e.g. a padded 1x1); then
// P = W_out and the farthest column read is P + e - 2, e - 2 < pad_left into the next row: zeros.
// Top and bottom pad rows stay all-zero virtual rows. Without pads P = W, as before.
// Strided streams keep W + pad_left + pad_right (their virtual rows are s padded rows and a
// position is valid by another rule); `l1.shared_pad: false` keeps it for stride 1 too (the first
// stream; the ablation). Fewer positions per row: a 7x7 5x5 pad-2 depthwise walks 6 x 9 + 7 = 61
// positions (one run of 64) instead of 6 x 11 + 7 = 73 (two); a 28x28 3x3 pad-1 one 27 x 29 + 28
// = 811 (13 runs) instead of 27 x 30 + 28 = 838 (14).
// Strided windows run over output rows back to back, one block per output row a run touches —
// or, when that takes fewer cycles (below), as one stream too: with stride s (s x s) position p
// of the tile reads padded-stream element s x p, so a virtual row is again wp positions (s padded
// rows), its first W_out valid and the rest discarded, and a segment is one shifted write
// whatever the number of output rows its run spans, at the price of computing the discarded
// positions (about (s - 1) / s of them) and reading the skipped rows. Small strided layers
// (7x7 or 14x14 outputs, a run spanning 5 to 9 output rows: mobile networks' strided depthwise)
// are bound by one write per output row and kernel row; the stream cuts that to one.
// `compute_tile_work` builds both and keeps the stream when its cycles — the pipeline's or the
// load port's time for `l2_read_bytes`, whichever is longer — are fewer (`TileWork::streamed`);
// the input iterator makes the same choice from the descriptor, so planner and model agree.
// The other way round, a stride-1 tile may walk its output rows back to back as a strided one
// does (rows_back_to_back_applies): one block per output row a run touches, so a segment costs as
// many shifted writes as the run spans rows, but no window crosses a row end and nothing is
// discarded. A 16x16 3x3 conv with pad 1 walks 15 x 17 + 16 = 271 stream positions (5 runs of
// 64) for 256 outputs (4 runs); where a fill's compute (accumulators x ceil(segments x kernel_w
// / macs_per_cycle)) still exceeds its writes, the rows take fewer cycles and are kept.
// The reduction of a position is split into *segments*, one kernel row of one input channel
// (kernel_w elements); a fill holds floor(line_bytes / kernel_w) segments. The loop is
//   for each run: for each group of up to `neurons.accumulators` output channels that read the
//   same input (one conv group; pools and element-wise ops: one channel): for each fill
// so one fill serves every channel of the group: its compute is group x ceil(fill elements /
// macs_per_cycle) cycles, the kernel region broadcasting the group's weight slice (double-buffered,
// streamed from the L2 staging slot; a tile whose kernels fit `l1.kernel_bytes` whole stays
// resident and is read once). With shift-stride writes one block read from L2 fills a segment of
// every line, line i shifted by i x stride: one write per segment, or one per output row a
// strided run spans; with `l1.pad_in_block: false` also one per stored row piece of a stride-1
// run over padded rows. Without shift-stride each active line is written on its own (plus one for
// each window crossing a padded row end when padding is not generated in the block).
//
// Channels mapping (`kChannels`: 1x1 convolutions incl. strided, fully-connected, global pooling):
// output channels on neurons in runs of `neurons.count`; the accumulators hold up to
// `accumulators` output positions. The reduction (input channels; for global pooling the
// channel's own positions) is split into fills of line_bytes elements. The loop is
//   for each channel run: for each group of up to `accumulators` positions: for each fill
// and a fill costs one line write per active line (each line gets its own channel's weights, or
// its own channel's inputs for pooling) and group x ceil(elements / macs_per_cycle) compute cycles,
// the group's inputs broadcast from the kernel region (resident when the tile's inputs fit).
//
// Im2col mapping (`kIm2col`: k>1 convolutions with groups 1, what a machine without shift-stride
// writes would do): the channels mapping with the reduction over the k_h x k_w x Cin window in
// im2col order. The kernel region is loaded with the stored input row pieces the group's windows
// read (one per reduced channel, kernel row and output row the group spans: the gather) and
// broadcasts the window's elements out of them, one per lane per cycle; each line is written
// with its channel's weights. Resident when the tile's input rows fit `l1.kernel_bytes`.
//
// Hybrid tile (a positions-mapping convolution with groups 1, 1x1 unpadded or k > 1,
// hybrid_tail_applies): the last run of a positions tile is partial when its stream of positions
// is not a multiple of `neurons.count` (a 14x14 plane: 196 = 3 x 64 + 4; padded 3x3: 13 x 15 +
// 14 = 209 = 3 x 64 + 17, shared pad columns), yet costs a full run: every group of `accumulators` output channels
// takes group x ceil(fill / macs_per_cycle) compute cycles per fill whatever the run's length. The
// hybrid runs that tail after the full runs with the tile's output channels on neurons and the
// tail's *valid* positions in the accumulators (groups of up to `accumulators`), each line written
// with its channel's weights: a 1x1 convolution in the channels form (the tail's inputs broadcast
// from the kernel region, resident when tail x k fits it), a k > 1 convolution in the im2col form
// (the reduction over the k_h x k_w x Cin window, the input row pieces the tail's windows read
// gathered into the kernel region as the im2col mapping does, resident when those rows fit). The
// tail is the valid outputs from the last full run's end on (hybrid_split): in a padded or strided
// stream the discarded virtual positions among them are not computed, so the tail is the tile's
// last `tail_positions` outputs in raster order (13 x 15 + 14: the stream's positions 192..208,
// output row 12's last 2 and row 13's 14, 16 positions; the discarded one between them is
// skipped). A 4-position 1x1 tail of C channels over k inputs costs
// ceil(C / 64) x k / 32 x max(64 writes, 4 x 8 compute) = C x k / 32 cycles instead of the run's
// C / 8 x k / 32 x 8 x 8 = C x k / 4 (seed machine); a k > 1 tail's parallelism is the tile's
// channel block (one channel per neuron), so it pays only for blocks of many channels.
// `compute_tile_work` builds it beside the plain tile (and the strided stream) and keeps it when
// its cycles (as for the strided stream) are fewer (`tail_positions`); the load unit and the
// neurons follow the same TileWork, so planner and model agree.
//
// All: a conv tile over an input-channel block reduces only over those channels and its int32
// partial sums are read from L2 before (kPsumRead) and written instead of the output (kPsumWrite).
// Softmax reads C channels per position and makes three passes. An Add / Mul whose second operand
// is one scalar per channel (squeeze-excite's scale) writes only its tensor operand into the
// lines, the scalar broadcast from the kernel region like a weight.
//
// Fused input scale (OpDesc::input_scale, a squeeze-excitation Mul folded into a conv): the bytes
// the load unit reads pass a per-lane multiplier and requantiser on their way into the lines and
// the kernel region. It is pipelined (one element per lane per cycle, as fast as the port
// delivers them), so it adds no cycle per byte: the tile reads its input channels' scale bytes
// from L2 once (input_scale_read; part of l2_read_bytes) and every write and fill is
// `l1.input_scale_cycles` later (the pipeline's depth, once per tile: pipeline_cycles,
// write_span_cycles and first_fill_write_cycles each grow by it).
#pragma once

#include <cstdint>

#include "core/arch/arch_config.h"
#include "core/contract/descriptor.h"

namespace strider {

// `repeats` times, `count` pieces of `bytes` (elements), one per channel at a tensor's channel
// stride: how a tile's L2 traffic is laid out in memory (model/l2 charges its bank conflicts).
struct PiecePattern {
  uint64_t bytes = 0, count = 0, repeats = 0;
  uint64_t total() const { return bytes * count * repeats; }
};

struct TileWork {
  uint64_t channels = 0;           // output channels in the tile
  // Positions: neuron runs (hybrid: + its tail's); channels: channel runs x position groups.
  uint64_t runs = 0;
  uint64_t computed_positions = 0; // per output channel, incl. discarded
  uint64_t valid_outputs = 0;      // output elements stored (all channels)
  uint64_t discarded_outputs = 0;  // computed and dropped (all channels)
  uint64_t fills = 0;              // line-buffer fills
  uint64_t active_lines = 0;       // most lines one fill writes (line-buffer occupancy)
  uint64_t shifted_writes = 0;
  uint64_t line_writes = 0;
  uint64_t lb_write_cycles = 0;    // = shifted_writes + line_writes
  uint64_t lb_write_bytes = 0;     // bytes written into lines (a shifted write: every active line)
  uint64_t kernel_bytes = 0;       // bytes loaded into the kernel region
  uint64_t l2_read_bytes = 0;      // input, weight, kernel and input-scale bytes read from L2
  uint64_t input_scale_bytes = 0;  // a fused input scale's bytes (input_scale_read), in the above
  uint64_t output_bytes = 0;       // bytes stored to L2
  // A fused global pool's store-port bytes (core/timing/fused_gap.h gap_traffic): its partial
  // sums read and written, its pooled output; beside output_bytes (which a conv whose result is
  // never stored does not write).
  uint64_t gap_bytes = 0;
  uint64_t macs = 0;               // useful multiply-accumulates (conv and fc only)
  uint64_t acc_updates = 0;        // accumulator updates: active neurons x compute cycles
  uint64_t compute_cycles = 0;     // neuron array cycles, incl. discarded positions
  uint64_t pipeline_cycles = 0;    // first write to last compute end, through the fill buffers
  uint64_t write_span_cycles = 0;  // first write to last write end (writes wait for free buffers)
  uint64_t first_fill_write_cycles = 0;  // before the neurons can start
  uint64_t last_fill_compute_cycles = 0; // after the last write
  uint64_t first_output_cycles = 0;      // from the neurons' start to the first group's results
  // Positions-mapping window tiles: the tile walks its padded input as one stream of virtual rows
  // (a stride-1 tile, unless its rows back to back take fewer cycles; a strided one when that
  // takes fewer: see above), else its output rows back to back.
  bool streamed = false;
  // Hybrid tile (see above): the valid positions of the last run, run in the channels or im2col
  // form (0: none), the positions of the traversal they replace (the runs end that many positions
  // before its end: tail_positions plus the discarded ones among them), and the weight bytes the
  // tail's lines are written with (part of l2_read_bytes).
  uint64_t tail_positions = 0;
  uint64_t tail_skipped = 0;
  uint64_t tail_line_bytes = 0;
  // Channels mapping (not fc, not pooling): the operand gather (part of kernel_bytes), per group
  // of positions one piece of the group's positions from each reduced input channel, per channel
  // run (once for all positions when the tile's inputs stay resident); full groups, then the
  // last partial group. Im2col: the input row pieces above. Hybrid tile: the tail's, from its
  // first position on. Empty otherwise (the input is read as one contiguous range).
  PiecePattern gather[2];
  // The stored output, in elements: channels mapping, per group of positions one piece of the
  // group's positions per output channel; positions mapping, one piece of the channel's valid
  // outputs per output channel (hybrid: of the runs' outputs, then the tail's groups as in the
  // channels mapping).
  PiecePattern store[2];
};

// `l2_port_bytes`: the load port's bytes per cycle (l2.port_bytes_per_cycle), which weighs a
// strided tile's two traversals.
TileWork compute_tile_work(const OpDesc& op, const L1Config& l1, const NeuronConfig& neurons,
                           uint32_t l2_port_bytes);

// One traversal of the tile, whatever its cycles: `stream` a positions tile walking its padded
// input as one stream (stride 1's default; strided_stream_applies), else its output rows back to
// back (a strided tile's default; rows_back_to_back_applies), `hybrid` (hybrid_tail_applies for
// that traversal) its partial last run with output channels on neurons. compute_tile_work picks
// among them; the stepped references check each.
TileWork tile_traversal(const OpDesc& op, const L1Config& l1, const NeuronConfig& neurons,
                        uint32_t l2_port_bytes, bool stream, bool hybrid);

// Whether a strided tile may run as one stream over the padded input: a positions-mapping conv
// or pool tile of two or more output rows, square stride > 1, shift-stride writes with padding
// made in the block, and no ceil-mode overhang (every row's last window ends inside the padded
// row).
bool strided_stream_applies(const OpDesc& op, const L1Config& l1);

// Whether a stride-1 tile may walk its output rows back to back instead of the padded stream (one
// block per output row a run touches, nothing discarded): a positions-mapping conv or pool tile of
// two or more output rows whose padded rows are wider than its output rows (windows crossing a row
// end to discard), with shift-stride writes and padding made in the block.
bool rows_back_to_back_applies(const OpDesc& op, const L1Config& l1);

// A tile's cycles as the lowering weighs them: its pipeline's or the load port's time for its
// reads, whichever is longer (what the input iterator weighs the traversals by, the mapping
// choice's cost without bank conflicts).
uint64_t tile_cycles(const TileWork& w, uint32_t l2_port_bytes);

// Whether `op`'s windows move one element at a time both ways (stride 1 x 1).
bool stride_one(const OpDesc& op);

// The positions a positions-mapping window tile's traversal walks per output channel: with
// `stream` one stream of virtual rows of stream_pitch positions, the last stopping at its last
// valid output ((rows - 1) x that + W_out), else its output rows back to back.
uint64_t traversal_positions(const OpDesc& op, const L1Config& l1, bool stream);

// The positions of one virtual row of a positions tile's stream (see the header): W + pad_left +
// pad_right; with `l1.shared_pad` for a stride-1 tile with shift-stride writes and
// `l1.pad_in_block`, max(W + max(pad_left, pad_right), W_out). The one place the pitch is
// computed: the closed form, the input iterator's row pieces and the planner all take it here.
uint64_t stream_pitch(const OpDesc& op, const L1Config& l1);

// Whether a positions tile may walk its input as `stream` says (tile_traversal): its plain
// traversal (one stream when stride_one, else its rows back to back), or the other one where
// rows_back_to_back_applies / strided_stream_applies.
bool traversal_applies(const OpDesc& op, const L1Config& l1, bool stream);

// A positions tile's split for the hybrid tile: its runs end `skipped` positions before the end of
// its traversal (`stream`: one stream of virtual rows of stream_pitch positions, the first W_out
// valid; else its output rows back to back), at the last multiple of
// `neurons.count`; `tail_positions` are the valid outputs from there on, the tile's last ones in
// raster order. Both 0 when the traversal has no full run or no partial one.
struct HybridSplit {
  uint64_t skipped = 0, tail_positions = 0;
};
HybridSplit hybrid_split(const OpDesc& op, const L1Config& l1, const NeuronConfig& nc,
                         bool stream);

// Whether a positions-mapping tile may run its last, partial run after the others with output
// channels on neurons (the hybrid tile): a convolution with groups 1, either 1x1 unpadded
// (channels_mapping_applies; the tail in the channels form) or over more than one element
// (im2col_mapping_applies; the tail in the im2col form), in the positions mapping, no fused pool,
// whose traversal (`stream`, as for hybrid_split) has a full run and a partial one.
bool hybrid_tail_applies(const OpDesc& op, const L1Config& l1, const NeuronConfig& nc,
                         bool stream);

// The input channels [first, first + count) a tile with a fused input scale reads, whose scale
// bytes it loads: a grouped conv's groups of the tile's output channels, an input-channel block,
// else every channel of op.input (count 0 without an input scale).
struct InputScaleRead {
  uint32_t first = 0, count = 0;
};
InputScaleRead input_scale_read(const OpDesc& op);

// Whether `op` is an Add or Mul whose second operand is one scalar per channel (input2 1 x 1),
// which the kernel region broadcasts instead of a second line write per run.
bool scalar_second_operand(const OpDesc& op);

// Whether `op` can run in the im2col mapping (a convolution with groups 1 and a kernel over one
// element).
bool im2col_mapping_applies(const OpDesc& op);

// Whether `op` can run in the channels mapping (1x1 unpadded convolution with groups 1,
// fully-connected, global average pooling).
bool channels_mapping_applies(const OpDesc& op);

}  // namespace strider
