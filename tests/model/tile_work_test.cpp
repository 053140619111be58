// Exact closed-form figures of the input iterator / line buffer / neurons for small tiles.
#include "core/timing/tile_work.h"

#include <gtest/gtest.h>

namespace strider {
namespace {

// The small machine of these tests: 8 neurons x 2 MAC lanes, 16-byte lines, a 512 B kernel region.
L1Config small_l1() {
  L1Config l1;
  l1.lines = 8;
  l1.line_bytes = 16;
  l1.kernel_bytes = 512;
  return l1;
}
constexpr uint32_t kPort = 64;  // load port bytes per cycle (weighs a strided tile's traversals)
NeuronConfig small_neurons(uint32_t accumulators) {
  NeuronConfig nc;
  nc.count = 8;
  nc.macs_per_cycle = 2;
  nc.accumulators = accumulators;
  return nc;
}

// 3x3 conv, pad 1, stride 1: input 3x8x8 -> output 4x8x8, on 8 neurons x 16-byte lines,
// 2 MACs per cycle per neuron; the first design (one accumulator, padding not generated in the
// block) unless a test says otherwise.
struct ConvCase {
  OpDesc op;
  L1Config l1 = small_l1();
  NeuronConfig nc = small_neurons(1);
  ConvCase() {
    op.op = OpCode::kConv;
    op.input = TensorRef{MemSpace::kL2, 0, 3, 8, 8, 8, 64, 1};
    op.output = TensorRef{MemSpace::kL2, 4096, 4, 8, 8, 8, 64, 1};
    op.kernel_h = op.kernel_w = 3;
    op.pad_top = op.pad_left = op.pad_bottom = op.pad_right = 1;
    op.row_end = 8;
    op.ch_end = 4;
    l1.pad_in_block = false;
  }
};

TEST(TileWork, ConvShiftStrideRunsAcrossRowEnds) {
  ConvCase c;
  const TileWork w = compute_tile_work(c.op, c.l1, c.nc, kPort);
  // Virtual rows of 8 + 2 pad = 10 positions; 7 full rows + 8 valid of the last = 78 positions,
  // in ceil(78 / 8) = 10 runs per output channel.
  EXPECT_EQ(w.computed_positions, 78u);
  EXPECT_EQ(w.runs, 10u);
  // 14 of the 78 are windows across a row end (2 per row boundary x 7), discarded; x 4 channels.
  EXPECT_EQ(w.discarded_outputs, 56u);
  EXPECT_EQ(w.valid_outputs, 256u);
  // Segments = 3 channels x 3 kernel rows = 9 of 3 bytes; 16 / 3 = 5 per fill -> 2 fills per run.
  EXPECT_EQ(w.fills, 80u);  // 4 channels x 10 runs x 2
  // Runs span 1,2,2,2,1,1,2,2,2,1 stored rows = 16 blocks; 9 segments x 16 x 4 channels.
  EXPECT_EQ(w.shifted_writes, 576u);
  EXPECT_EQ(w.line_writes, 0u);
  EXPECT_EQ(w.lb_write_cycles, 576u);
  // Compute per run: ceil(5*3/2) = 8 + ceil(4*3/2) = 6 -> 14; x 10 runs x 4 channels.
  EXPECT_EQ(w.compute_cycles, 560u);
  EXPECT_EQ(w.first_fill_write_cycles, 5u);  // 5 segments, run 0 spans one row
  EXPECT_EQ(w.first_output_cycles, 14u);
  EXPECT_EQ(w.last_fill_compute_cycles, 6u);
  EXPECT_EQ(w.macs, 6912u);  // 256 outputs x 27
  // L2 blocks per run: min(active + 2, pieces x 8) = 8,10,10,10,8,8,10,10,10,8 = 92 bytes per
  // segment; x 9 segments x 4 channels = 3312, plus the kernel region 4 x 27 = 108.
  EXPECT_EQ(w.kernel_bytes, 108u);
  EXPECT_EQ(w.l2_read_bytes, 3420u);
  EXPECT_EQ(w.output_bytes, 256u);
}

TEST(TileWork, InputChannelBlockWithPartialSums) {
  ConvCase c;
  c.op.in_ch_begin = 1;  // input channels 1 and 2 of 3, partial sums in and out
  c.op.in_ch_end = 3;
  c.op.psum_mode = OpDesc::kPsumRead | OpDesc::kPsumWrite;
  const TileWork w = compute_tile_work(c.op, c.l1, c.nc, kPort);
  // 2 channels x 3 kernel rows = 6 segments: fills of 5 + 1 -> ceil(15/2) 8 + ceil(3/2) 2 = 10
  // compute cycles per run, x 10 runs x 4 channels.
  EXPECT_EQ(w.compute_cycles, 400u);
  EXPECT_EQ(w.shifted_writes, 384u);  // 6 segments x 16 blocks x 4 channels
  EXPECT_EQ(w.macs, 4608u);           // 256 outputs x 2 x 3 x 3
  // Input blocks 6 x 92 x 4 = 2208, kernels 4 x 18 = 72, partial sums read 4 x 256 x 4 = 1024.
  EXPECT_EQ(w.l2_read_bytes, 3304u);
  EXPECT_EQ(w.output_bytes, 1024u);   // int32 partial sums written instead of int8 outputs
}

TEST(TileWork, ConvPerLineWritesWithoutShiftStride) {
  ConvCase c;
  c.l1.shift_stride = false;
  // The plain traversal (compute_tile_work runs this tile's last run as a hybrid tail, which
  // TileWork.K3HybridTailRunsItsValidPositionsInTheIm2colForm pins).
  const TileWork w = tile_traversal(c.op, c.l1, c.nc, kPort, stride_one(c.op), false);
  // One write per active line plus one per window crossing a row end, per segment:
  // runs give 8,10,10,10,10,8,10,10,10,6 = 92 -> 9 x 92 x 4 channels.
  EXPECT_EQ(w.line_writes, 3312u);
  EXPECT_EQ(w.shifted_writes, 0u);
  EXPECT_EQ(w.lb_write_cycles, 3312u);
  EXPECT_EQ(w.first_fill_write_cycles, 40u);  // 5 segments x 8 lines
  // Each line reads its own 3-byte window: 9 x 3 x 78 x 4 + kernel 108.
  EXPECT_EQ(w.l2_read_bytes, 8532u);
  EXPECT_EQ(w.compute_cycles, 560u);  // compute does not depend on how lines are written
}

// ConvCase on an input 4 wide (output 4x8x4) with per-line writes: virtual rows of 4 + 2 = 6
// positions, 7 x 6 + 4 = 46 in the stream, 5 runs of 8 and a partial run of 6 (stream positions
// 40..45: row 6's two windows across its end, then output row 7's 4 positions). The hybrid tile
// runs the runs (stream 0..39, 28 valid outputs and 12 discarded per channel), then the 4 valid
// positions of the tail in the im2col form.
TEST(TileWork, K3HybridTailRunsItsValidPositionsInTheIm2colForm) {
  ConvCase c;
  c.l1.shift_stride = false;
  c.op.input = TensorRef{MemSpace::kL2, 0, 3, 8, 4, 4, 32, 1};
  c.op.output = TensorRef{MemSpace::kL2, 4096, 4, 8, 4, 4, 32, 1};
  ASSERT_TRUE(hybrid_tail_applies(c.op, c.nc, stride_one(c.op)));
  const HybridSplit split = hybrid_split(c.op, c.nc, stride_one(c.op));
  EXPECT_EQ(split.skipped, 6u);
  EXPECT_EQ(split.tail_positions, 4u);
  const TileWork w = compute_tile_work(c.op, c.l1, c.nc, kPort);
  // Runs: 9 segments (3 channels x 3 kernel rows, 3 B) in fills of 5 and 4, per line: active +
  // windows across a row end = 10, 10, 12, 10, 10 writes per segment (the plain tile's sixth run
  // 6 + 2 = 8); 4 groups of 1 channel, compute 1 x ceil(15 / 2) = 8 and ceil(12 / 2) = 6.
  // Write-bound: the runs' 52 x 9 x 4 = 1,872 writes end at 1,872, their last compute at 1,878.
  // Tail: the 4 channels on 4 lines, the 27-element window in fills of 16 and 11 (4 line writes
  // each), the 4 positions in 4 groups of 1 accumulator: compute 8 and 6 per group, back to back
  // from 1,878 (the first tail fill written 1,872 -> 1,876; each later one once its buffer is
  // free): 1,878 + 4 x 14 = 1,934; the last writes start when the sixth tail fill's compute ends
  // (1,878 + 3 x 14 = 1,920): 1,924. Plain: 2,160 writes + 6 = 2,166 cycles.
  EXPECT_EQ(w.tail_positions, 4u);
  EXPECT_EQ(w.tail_skipped, 6u);
  EXPECT_EQ(w.pipeline_cycles, 1934u);
  EXPECT_EQ(w.write_span_cycles, 1924u);
  EXPECT_EQ(tile_traversal(c.op, c.l1, c.nc, kPort, stride_one(c.op), false).pipeline_cycles,
            2166u);
  EXPECT_EQ(w.runs, 5u + 4u);  // 5 position runs + 1 channel run x 4 groups of positions
  EXPECT_EQ(w.fills, 40u + 8u);
  EXPECT_EQ(w.line_writes, 1872u + 32u);
  EXPECT_EQ(w.shifted_writes, 0u);
  EXPECT_EQ(w.compute_cycles, 5u * 4u * 14u + 4u * 14u);
  EXPECT_EQ(w.first_fill_write_cycles, 50u);  // 5 segments x 10 lines
  EXPECT_EQ(w.first_output_cycles, 46u);      // fill 2's writes 50 -> 90, compute 90 -> 96
  EXPECT_EQ(w.last_fill_compute_cycles, 6u);
  EXPECT_EQ(w.acc_updates, 5u * 4u * 14u * 8u + 4u * 14u * 4u);
  EXPECT_EQ(w.lb_write_bytes, 5u * 4u * 9u * 3u * 8u + 4u * 27u * 4u);
  EXPECT_EQ(w.computed_positions, 40u + 4u);
  EXPECT_EQ(w.valid_outputs, 128u);
  EXPECT_EQ(w.discarded_outputs, 48u);  // 12 per channel, none in the tail
  EXPECT_EQ(w.macs, 128u * 27u);
  // L2: the runs' per-line windows 9 x 3 x 8 per run and group (4,320), the tail's lines'
  // weights (4 groups x 4 x 27 = 432), the kernel region: the runs' resident kernels (4 x 27 =
  // 108) and the tail's input rows, resident (its output row 7 reads input rows 6 and 7 — 3 by
  // the rule, at most H — of 3 channels, 4 B each: 36).
  EXPECT_EQ(w.tail_line_bytes, 432u);
  EXPECT_EQ(w.kernel_bytes, 108u + 36u);
  EXPECT_EQ(w.l2_read_bytes, 4320u + 432u + 144u);
  EXPECT_EQ(w.gather[0].bytes, 4u);
  EXPECT_EQ(w.gather[0].count, 3u);
  EXPECT_EQ(w.gather[0].repeats, 3u);
  EXPECT_EQ(w.gather[1].total(), 0u);
  // Stored: the runs' 28 outputs per channel, then the tail's 4 groups of 1 per channel.
  EXPECT_EQ(w.store[0].bytes, 28u);
  EXPECT_EQ(w.store[0].count, 4u);
  EXPECT_EQ(w.store[1].bytes, 1u);
  EXPECT_EQ(w.store[1].count, 4u);
  EXPECT_EQ(w.store[1].repeats, 4u);
}

TEST(TileWork, StridedConvRunsOverRowsOneBlockPerRow) {
  ConvCase c;
  c.op.stride_h = c.op.stride_w = 2;
  c.op.output.h = c.op.output.w = 4;
  c.op.row_end = 4;
  const TileWork w = compute_tile_work(c.op, c.l1, c.nc, kPort);
  // 16 positions on 8 neurons: 2 runs of 2 output rows each; nothing discarded.
  EXPECT_EQ(w.runs, 2u);
  EXPECT_EQ(w.discarded_outputs, 0u);
  EXPECT_EQ(w.shifted_writes, 144u);  // 9 segments x 2 pieces x 2 runs x 4 channels
  EXPECT_EQ(w.compute_cycles, 112u);  // 14 x 2 runs x 4 channels
  // A piece spans (4 - 1) x 2 + 3 = 9 columns, clipped to the 8 stored: 9 segments x 2 pieces x
  // 8 x 2 runs x 4 channels = 1152, + 108 kernel bytes.
  EXPECT_EQ(w.l2_read_bytes, 1260u);
}

// A strided depthwise tile whose run spans every output row: 3x3, stride 2, pad 1, input 2x8x4
// -> output 2x4x2, on 8 neurons x 4 MAC lanes, padding made in the block.
struct StridedDepthwiseCase : ConvCase {
  StridedDepthwiseCase() {
    op.input = TensorRef{MemSpace::kL2, 0, 2, 8, 4, 4, 32, 1};
    op.output = TensorRef{MemSpace::kL2, 4096, 2, 4, 2, 2, 8, 1};
    op.stride_h = op.stride_w = 2;
    op.groups = 2;
    op.row_end = 4;
    op.ch_end = 2;
    l1.pad_in_block = true;
    nc = small_neurons(8);
    nc.macs_per_cycle = 4;
  }
};

TEST(TileWork, SmallStridedTileRunsAsOneStreamOverThePaddedInput) {
  StridedDepthwiseCase c;
  ASSERT_TRUE(strided_stream_applies(c.op, c.l1));
  const TileWork w = compute_tile_work(c.op, c.l1, c.nc, kPort);
  // Rows back to back: 4 x 2 = 8 positions, one run over 4 output rows: 3 kernel rows x 4 blocks
  // = 12 writes per channel against ceil(9 / 4) = 3 compute cycles; 2 fills, write-bound: 12 +
  // 12 + 3 = 27 cycles. One stream: position p reads padded element 2p, a virtual row is wp = 6
  // positions (2 valid), (4 - 1) x 6 + 2 = 20 positions = 3 runs (8, 8, 4), 3 writes and 3
  // compute cycles per run and channel: 6 fills, 3 + 6 x 3 = 21 cycles. The stream is kept.
  EXPECT_TRUE(w.streamed);
  EXPECT_EQ(w.runs, 3u);
  EXPECT_EQ(w.computed_positions, 20u);
  EXPECT_EQ(w.valid_outputs, 16u);      // 2 channels x 4 x 2
  EXPECT_EQ(w.discarded_outputs, 24u);  // 2 channels x (20 - 8)
  EXPECT_EQ(w.fills, 6u);
  EXPECT_EQ(w.shifted_writes, 18u);  // 3 runs x 2 channels x 3 kernel rows
  EXPECT_EQ(w.compute_cycles, 18u);  // 6 fills x 3
  EXPECT_EQ(w.pipeline_cycles, 21u);
  EXPECT_EQ(w.macs, 144u);  // 16 outputs x 9
  // Blocks of (8 - 1) x 2 + 3 = 17, 17 and (4 - 1) x 2 + 3 = 9 stream elements from stream
  // element 0, 16 and 32: padded rows 0-2, 2-5 and 5-6 (6 elements each), so at most 3, 4 and 2
  // stored rows of 4: 12, 16 and 8 bytes, x 3 kernel rows x 2 channels = 216, + 18 kernel bytes.
  EXPECT_EQ(w.l2_read_bytes, 234u);
}

// The default run's conv2a on the seed machine (64 neurons x 4 lanes, 8 accumulators, 32 B lines):
// 16 -> 16 channels, 3x3, pad 1, 16 x 16.
OpDesc seed_conv2a() {
  OpDesc op;
  op.op = OpCode::kConv;
  op.input = TensorRef{MemSpace::kL2, 0, 16, 16, 16, 16, 256, 1};
  op.output = TensorRef{MemSpace::kL2, 8192, 16, 16, 16, 16, 256, 1};
  op.kernel_h = op.kernel_w = 3;
  op.pad_top = op.pad_left = op.pad_bottom = op.pad_right = 1;
  op.row_end = 16;
  op.ch_end = 16;
  return op;
}

TEST(TileWork, StrideOneTileWalksItsRowsBackToBackWhenShorter) {
  const OpDesc op = seed_conv2a();
  const L1Config l1;
  const NeuronConfig nc;
  ASSERT_TRUE(rows_back_to_back_applies(op, l1));
  const TileWork w = compute_tile_work(op, l1, nc, kPort);
  // A position reduces 16 channels x 3 kernel rows = 48 segments of 3, 10 to a 32 B fill: 5 fills
  // (4 x 10 + 8) per group of 8 channels, computing 8 x ceil(30 / 4) = 64 and 8 x ceil(24 / 4) =
  // 48 cycles: 304 per group, 608 per run for the 2 groups. The padded stream is 15 x 18 + 16 =
  // 286 positions = 5 runs (the last of 30): 3,040 compute cycles, 10 + 3,040 = 3,050 in the
  // pipeline. Rows back to back: 256 positions = 4 runs of 4 output rows, each segment 4 shifted
  // writes (40 and 32 per fill, under the previous fill's 64 or 48 compute cycles): 4 x 608 =
  // 2,432 compute cycles, 40 + 2,432 = 2,472 in the pipeline. The rows are kept.
  EXPECT_FALSE(w.streamed);
  EXPECT_EQ(w.runs, 4u);
  EXPECT_EQ(w.computed_positions, 256u);
  EXPECT_EQ(w.discarded_outputs, 0u);
  EXPECT_EQ(w.fills, 40u);                      // 4 runs x 2 groups x 5
  EXPECT_EQ(w.shifted_writes, 1536u);           // 4 runs x 2 groups x 48 segments x 4 rows
  EXPECT_EQ(w.compute_cycles, 2432u);
  EXPECT_EQ(w.pipeline_cycles, 2472u);
  EXPECT_EQ(w.macs, 589824u);                   // 256 x 16 outputs x 144
}

TEST(TileWork, StrideOneDepthwiseTileKeepsThePaddedStream) {
  OpDesc op = seed_conv2a();
  op.groups = 16;  // depthwise: each channel reduces its own 3 kernel rows
  const L1Config l1;
  const NeuronConfig nc;
  ASSERT_TRUE(rows_back_to_back_applies(op, l1));
  const TileWork w = compute_tile_work(op, l1, nc, kPort);
  // Per run and channel one fill of 3 segments computed in ceil(9 / 4) = 3 cycles. The stream
  // writes a segment once (3 writes a fill); rows back to back write it once per output row a run
  // spans (4: 12 writes a fill), write-bound at 4 x 16 x 12 = 768 cycles against the stream's 5
  // runs x 16 channels x 3 = 240. The stream is kept, its 30 discarded positions per channel too.
  EXPECT_TRUE(w.streamed);
  EXPECT_EQ(w.runs, 5u);
  EXPECT_EQ(w.computed_positions, 286u);
  EXPECT_EQ(w.discarded_outputs, 16u * 30u);
  EXPECT_EQ(w.shifted_writes, 240u);
  EXPECT_EQ(w.compute_cycles, 240u);
}

TEST(TileWork, WideStridedTileKeepsItsRowsBackToBack) {
  StridedDepthwiseCase c;
  // Input 2x8x16 -> output 2x4x8: a run is one output row, one block per kernel row either way;
  // the stream would add discarded positions (a virtual row of 18 with 8 valid) and nothing else.
  c.op.input = TensorRef{MemSpace::kL2, 0, 2, 8, 16, 16, 128, 1};
  c.op.output = TensorRef{MemSpace::kL2, 4096, 2, 4, 8, 8, 32, 1};
  ASSERT_TRUE(strided_stream_applies(c.op, c.l1));
  const TileWork w = compute_tile_work(c.op, c.l1, c.nc, kPort);
  EXPECT_FALSE(w.streamed);
  EXPECT_EQ(w.runs, 4u);
  EXPECT_EQ(w.discarded_outputs, 0u);
  EXPECT_EQ(w.shifted_writes, 24u);  // 4 runs x 2 channels x 3 kernel rows
  // Without padding made in the block, or with a ceil-mode overhang, the stream is not offered.
  c.l1.pad_in_block = false;
  EXPECT_FALSE(strided_stream_applies(c.op, c.l1));
  c.l1.pad_in_block = true;
  c.op.output.w = 9;  // (18 - 3) / 2 + 1 = 8 windows fit the padded row, 9 overhang it
  EXPECT_FALSE(strided_stream_applies(c.op, c.l1));
}

TEST(TileWork, ScalarPerChannelOperandComesFromTheKernelRegion) {
  // Mul of a 2x4x4 tensor by one scalar per channel (squeeze-excite's scale, input2 2x1x1) on 8
  // neurons x 2 MAC lanes: 16 positions = 2 runs; per run and channel one fill of one segment
  // (the tensor operand, 1 shifted write) and ceil(1 / 2) = 1 compute cycle: 4 fills, the writes
  // one ahead of the compute: 1 + 4 x 1 = 5 cycles.
  OpDesc op;
  op.op = OpCode::kMul;
  op.input = TensorRef{MemSpace::kL2, 0, 2, 4, 4, 4, 16, 1};
  op.input2 = TensorRef{MemSpace::kL2, 1024, 2, 1, 1, 1, 1, 1};
  op.output = TensorRef{MemSpace::kL2, 2048, 2, 4, 4, 4, 16, 1};
  op.row_end = 4;
  op.ch_end = 2;
  L1Config l1 = small_l1();
  const NeuronConfig nc = small_neurons(1);
  ASSERT_TRUE(scalar_second_operand(op));
  const TileWork w = compute_tile_work(op, l1, nc, kPort);
  EXPECT_EQ(w.runs, 2u);
  EXPECT_EQ(w.fills, 4u);
  EXPECT_EQ(w.shifted_writes, 4u);
  EXPECT_EQ(w.compute_cycles, 4u);
  EXPECT_EQ(w.pipeline_cycles, 5u);
  EXPECT_EQ(w.lb_write_bytes, 32u);  // 8 lines x 1 byte x 4 fills
  EXPECT_EQ(w.kernel_bytes, 2u);     // the 2 scalars, resident
  EXPECT_EQ(w.l2_read_bytes, 34u);   // 8 x 4 fills + 2
  // A full second operand (2x4x4) takes a second write per fill: 2 writes against 1 compute
  // cycle, write-bound: 4 x 2 + 1 = 9 cycles, 64 bytes read and written into the lines.
  op.input2 = op.input;
  op.input2.addr = 1024;
  const TileWork full = compute_tile_work(op, l1, nc, kPort);
  EXPECT_EQ(full.shifted_writes, 8u);
  EXPECT_EQ(full.pipeline_cycles, 9u);
  EXPECT_EQ(full.lb_write_bytes, 64u);
  EXPECT_EQ(full.l2_read_bytes, 64u);
}

TEST(TileWork, UnpaddedPointwiseConvStreamsOneBlockPerSegment) {
  ConvCase c;
  c.op.kernel_h = c.op.kernel_w = 1;
  c.op.pad_top = c.op.pad_left = c.op.pad_bottom = c.op.pad_right = 0;
  const TileWork w = compute_tile_work(c.op, c.l1, c.nc, kPort);
  // 8 x 8 = 64 contiguous positions = 8 runs; nothing discarded; the stored rows are contiguous,
  // so each of the 3 segments (one per input channel) is one shifted write per run.
  EXPECT_EQ(w.runs, 8u);
  EXPECT_EQ(w.discarded_outputs, 0u);
  EXPECT_EQ(w.shifted_writes, 96u);    // 3 x 8 runs x 4 channels
  EXPECT_EQ(w.compute_cycles, 64u);    // ceil(3 x 1 / 2) = 2 per run, x 8 x 4
  // Blocks of 8 bytes: 3 segments x 8 x 8 runs x 4 channels = 768, plus kernels 4 x 3 = 12.
  EXPECT_EQ(w.l2_read_bytes, 780u);
}

TEST(TileWork, FullyConnectedPutsFeaturesOnNeurons) {
  OpDesc op;
  op.op = OpCode::kFullyConnected;
  op.input = TensorRef{MemSpace::kL2, 0, 40, 1, 1, 1, 1, 1};
  op.output = TensorRef{MemSpace::kL2, 64, 10, 1, 1, 1, 1, 1};
  op.row_end = 1;
  op.ch_end = 10;
  const TileWork w = compute_tile_work(op, small_l1(), small_neurons(1), kPort);
  // 10 features on 8 neurons: 2 runs (8 + 2 active); 40 inputs = 3 fills of 16,16,8.
  EXPECT_EQ(w.runs, 2u);
  EXPECT_EQ(w.fills, 6u);
  EXPECT_EQ(w.line_writes, 30u);       // 3 fills x (8 + 2) lines
  EXPECT_EQ(w.compute_cycles, 40u);    // per run ceil(16/2) + ceil(16/2) + ceil(8/2) = 20, x 2 runs
  EXPECT_EQ(w.macs, 400u);
  EXPECT_EQ(w.l2_read_bytes, 440u);    // weights 10 x 40 + input 40 into the kernel region
}

TEST(TileWork, AccumulatorsShareOneFillAcrossChannelsAndPaddingIsMadeInTheBlock) {
  ConvCase c;
  c.nc.accumulators = 4;  // the tile's 4 output channels share every fill
  c.l1.pad_in_block = true;
  const TileWork w = compute_tile_work(c.op, c.l1, c.nc, kPort);
  // With padding made in the block the tile walks its 8 output rows back to back (a strided
  // tile's traversal, rows_back_to_back_applies): 8 runs of one row, nothing discarded, where the
  // padded stream takes 10 runs of 78 positions (560 compute cycles below against 448). One group
  // of 4 channels per run: 2 fills of 5 and 4 segments per run = 16 fills (A = 1: 64), each
  // segment one shifted write (the run is one output row): 9 x 8 = 72 writes.
  EXPECT_FALSE(w.streamed);
  EXPECT_EQ(w.runs, 8u);
  EXPECT_EQ(w.computed_positions, 64u);
  EXPECT_EQ(w.fills, 16u);
  EXPECT_EQ(w.shifted_writes, 72u);
  // A fill computes 4 channels: 4 x ceil(5 x 3 / 2) = 32 and 4 x ceil(4 x 3 / 2) = 24 cycles, 56
  // per run: 448.
  EXPECT_EQ(w.compute_cycles, 448u);
  // Writes of 5 and 4 cycles always finish before the previous fill's compute: compute-bound, so
  // the pipeline is the first fill's 5 writes + 448 = 453. The last fill's writes start when fill
  // 13's compute ends (5 + 7 x 56 = 397) and take 4 cycles: 401.
  EXPECT_EQ(w.pipeline_cycles, 453u);
  EXPECT_EQ(w.write_span_cycles, 401u);
  EXPECT_EQ(w.first_fill_write_cycles, 5u);
  EXPECT_EQ(w.first_output_cycles, 56u);  // the first run's two fills: 32 + 24
  EXPECT_EQ(w.last_fill_compute_cycles, 24u);
  EXPECT_EQ(w.macs, 6912u);
  EXPECT_EQ(w.discarded_outputs, 0u);
  // The input blocks are read once per run for all 4 channels: per segment one output row's block,
  // min(8 stored, 7 + 3 padded) = 8 bytes, 9 x 8 x 8 = 576 (the closed form counts pad rows' blocks
  // too), plus the 4 x 27 = 108 kernel bytes resident in the 512 B region.
  EXPECT_EQ(w.l2_read_bytes, 684u);
  // Lines written: 9 segments x 3 bytes x 8 active positions x 8 runs; accumulator updates: 56
  // compute cycles per run on 8 neurons for 8 runs.
  EXPECT_EQ(w.lb_write_bytes, 1728u);
  EXPECT_EQ(w.acc_updates, 3584u);
}

TEST(TileWork, DepthwiseConvGainsNothingFromAccumulators) {
  ConvCase c;
  c.op.input.c = 4;
  c.op.groups = 4;  // every output channel reads its own input channel
  const TileWork one = compute_tile_work(c.op, c.l1, c.nc, kPort);
  c.nc.accumulators = 8;
  const TileWork eight = compute_tile_work(c.op, c.l1, c.nc, kPort);
  // 3 segments (kernel rows) of one channel: 1 fill per run and channel either way.
  EXPECT_EQ(one.fills, 40u);  // 10 runs x 4 channels
  EXPECT_EQ(eight.fills, one.fills);
  EXPECT_EQ(eight.shifted_writes, one.shifted_writes);
  EXPECT_EQ(eight.compute_cycles, one.compute_cycles);
  EXPECT_EQ(eight.pipeline_cycles, one.pipeline_cycles);
}

TEST(TileWork, ChannelsMappingPutsOutputChannelsOnNeuronsAndPositionsInAccumulators) {
  OpDesc op;
  op.op = OpCode::kConv;
  op.mapping = Mapping::kChannels;
  op.input = TensorRef{MemSpace::kL2, 0, 40, 2, 5, 5, 10, 1};
  op.output = TensorRef{MemSpace::kL2, 4096, 10, 2, 5, 5, 10, 1};
  op.row_end = 2;
  op.ch_end = 10;
  ASSERT_TRUE(channels_mapping_applies(op));
  const TileWork w = compute_tile_work(op, small_l1(), small_neurons(4), kPort);
  // 10 output channels on 8 neurons: runs of 8 and 2; 10 positions in groups of 4, 4, 2; the
  // 40 input channels in fills of 16, 16, 8: 2 x 3 x 3 = 18 fills.
  EXPECT_EQ(w.runs, 6u);
  EXPECT_EQ(w.fills, 18u);
  // Every fill writes each active line with its channel's weights: 9 x 8 + 9 x 2.
  EXPECT_EQ(w.line_writes, 90u);
  EXPECT_EQ(w.shifted_writes, 0u);
  // A fill computes its group of positions: a x ceil(16 / 2) or a x ceil(8 / 2); per channel run
  // 2 x (32 + 32 + 16) + (16 + 16 + 8) = 200, x 2 runs.
  EXPECT_EQ(w.compute_cycles, 400u);
  // Writes (8 or 2 cycles) always end before the previous compute: 8 + 400. The last fill's writes
  // start when fill 15's compute ends (384): 386.
  EXPECT_EQ(w.pipeline_cycles, 408u);
  EXPECT_EQ(w.write_span_cycles, 386u);
  EXPECT_EQ(w.first_output_cycles, 80u);  // the first group's three fills: 32 + 32 + 16
  EXPECT_EQ(w.macs, 4000u);               // 10 channels x 10 positions x 40
  EXPECT_EQ(w.valid_outputs, 100u);
  EXPECT_EQ(w.discarded_outputs, 0u);
  // Weights re-read per position group: (3 x 8 + 3 x 2) x 40 = 1200; the 10 x 40 = 400 input
  // bytes fit the kernel region and are read once.
  EXPECT_EQ(w.kernel_bytes, 400u);
  EXPECT_EQ(w.l2_read_bytes, 1600u);
  EXPECT_EQ(w.acc_updates, 2000u);  // 200 cycles on 8 neurons + 200 on 2
  // Address patterns: the resident inputs are gathered once, one piece of the 10 positions from
  // each of the 40 input channels (10 x 40 = the 400 kernel bytes); the output is stored per
  // group of positions, one piece per output channel: 2 full groups of 4, then one of 2.
  EXPECT_EQ(w.gather[0].bytes, 10u);
  EXPECT_EQ(w.gather[0].count, 40u);
  EXPECT_EQ(w.gather[0].repeats, 1u);
  EXPECT_EQ(w.gather[1].total(), 0u);
  EXPECT_EQ(w.store[0].bytes, 4u);
  EXPECT_EQ(w.store[0].count, 10u);
  EXPECT_EQ(w.store[0].repeats, 2u);
  EXPECT_EQ(w.store[1].bytes, 2u);
  EXPECT_EQ(w.store[1].count, 10u);
  EXPECT_EQ(w.store[1].repeats, 1u);
  EXPECT_EQ(w.store[0].total() + w.store[1].total(), w.valid_outputs);
  // A kernel region too small for the inputs: per channel run (2) and group, one piece of the
  // group's positions per input channel: 2 runs x 2 full groups of 4, then 2 runs x one of 2;
  // 40 x (4 x 4 + 2 x 2) = 800 kernel bytes.
  L1Config l1 = small_l1();
  l1.kernel_bytes = 256;
  const TileWork v = compute_tile_work(op, l1, small_neurons(4), kPort);
  EXPECT_EQ(v.gather[0].bytes, 4u);
  EXPECT_EQ(v.gather[0].count, 40u);
  EXPECT_EQ(v.gather[0].repeats, 4u);
  EXPECT_EQ(v.gather[1].bytes, 2u);
  EXPECT_EQ(v.gather[1].repeats, 2u);
  EXPECT_EQ(v.kernel_bytes, 800u);
  EXPECT_EQ(v.gather[0].total() + v.gather[1].total(), v.kernel_bytes);
}

TEST(TileWork, Im2colBroadcastsTheWindowToOutputChannelsOnNeurons) {
  ConvCase c;  // 3x3, pad 1, stride 1: 3x8x8 -> 4x8x8
  c.op.mapping = Mapping::kIm2col;
  c.nc = small_neurons(4);
  ASSERT_TRUE(im2col_mapping_applies(c.op));
  ASSERT_FALSE(channels_mapping_applies(c.op));
  const TileWork w = compute_tile_work(c.op, c.l1, c.nc, kPort);
  // 4 output channels on 4 of the 8 neurons (one run); 64 positions in 16 groups of 4; the
  // window of 3 x 3 x 3 = 27 elements in fills of 16 and 11: 32 fills, no shifted writes.
  EXPECT_EQ(w.runs, 16u);
  EXPECT_EQ(w.fills, 32u);
  EXPECT_EQ(w.shifted_writes, 0u);
  EXPECT_EQ(w.line_writes, 128u);  // each fill writes the 4 active lines with their weights
  // A fill computes its 4 positions: 4 x ceil(16 / 2) = 32, 4 x ceil(11 / 2) = 24; 16 x 56.
  EXPECT_EQ(w.compute_cycles, 896u);
  // The writes (4 cycles) never hold the neurons: 4 + 896. The last fill's writes wait for
  // fill 30's compute to free its buffer: 4 + 15 x 56 = 844, + 4.
  EXPECT_EQ(w.pipeline_cycles, 900u);
  EXPECT_EQ(w.write_span_cycles, 848u);
  EXPECT_EQ(w.first_output_cycles, 56u);  // the first group's two fills
  EXPECT_EQ(w.macs, 6912u);               // 4 channels x 64 positions x 27
  EXPECT_EQ(w.valid_outputs, 256u);
  EXPECT_EQ(w.discarded_outputs, 0u);
  EXPECT_EQ(w.acc_updates, 3584u);  // 896 cycles on 4 neurons
  // The tile reads input rows 0-7 of 3 channels, 3 x 8 x 8 = 192 B <= 512: loaded once, one
  // stored row per channel and row. Weights re-read per group: 16 x 4 x 27 = 1728.
  EXPECT_EQ(w.kernel_bytes, 192u);
  EXPECT_EQ(w.gather[0].bytes, 8u);
  EXPECT_EQ(w.gather[0].count, 3u);
  EXPECT_EQ(w.gather[0].repeats, 8u);
  EXPECT_EQ(w.l2_read_bytes, 1920u);
  // A 128 B kernel region: per group (each within one output row) and kernel row, one piece per
  // input channel of 3 x 1 + 3 = 6 columns: 16 groups x 3 kernel rows = 48 repeats of 3 pieces.
  c.l1.kernel_bytes = 128;
  const TileWork v = compute_tile_work(c.op, c.l1, c.nc, kPort);
  EXPECT_EQ(v.gather[0].bytes, 6u);
  EXPECT_EQ(v.gather[0].count, 3u);
  EXPECT_EQ(v.gather[0].repeats, 48u);
  EXPECT_EQ(v.gather[1].total(), 0u);
  EXPECT_EQ(v.kernel_bytes, 864u);
  EXPECT_EQ(v.pipeline_cycles, w.pipeline_cycles);
}

TEST(TileWork, Im2colGroupsAcrossOutputRowsGatherOnePiecePerRow) {
  ConvCase c;  // 5x5, pad 2, stride 2: 3x8x8 -> 4x4x4
  c.op.mapping = Mapping::kIm2col;
  c.op.kernel_h = c.op.kernel_w = 5;
  c.op.stride_h = c.op.stride_w = 2;
  c.op.pad_top = c.op.pad_left = c.op.pad_bottom = c.op.pad_right = 2;
  c.op.output = TensorRef{MemSpace::kL2, 4096, 4, 4, 4, 4, 16, 1};
  c.op.row_end = 4;
  c.nc = small_neurons(3);
  c.l1.kernel_bytes = 128;  // the tile's 3 x 8 x 8 input rows do not fit
  const TileWork w = compute_tile_work(c.op, c.l1, c.nc, kPort);
  // 16 positions in groups of 3 (positions 0-2, 3-5, 6-8, 9-11, 12-14, 15); 75 window elements
  // in fills of 16 x 4 + 11: 5 fills per group, 30 in all, 4 line writes each.
  EXPECT_EQ(w.fills, 30u);
  EXPECT_EQ(w.line_writes, 120u);
  // Per group of 3: 4 x 3 x 8 + 3 x 6 = 114; the last group of 1: 4 x 8 + 6 = 38; 5 x 114 + 38.
  EXPECT_EQ(w.compute_cycles, 608u);
  EXPECT_EQ(w.pipeline_cycles, 612u);  // 4 cycles of writes, then compute back to back
  EXPECT_EQ(w.macs, 4800u);            // 4 x 16 x 75
  // Groups 0-2, 9-11, 12-14 lie in one output row: pieces of min(8, 2 x 2 + 5) = 8 columns.
  // Groups 3-5 (row 0 col 3; row 1 cols 0-1) and 6-8 (row 1 cols 2-3; row 2 col 0) and 15 span
  // pieces of 1, 2, 2, 1, 1 positions: 5, 7, 7, 5, 5 columns, mean ceil(29 / 5) = 6. Per kernel
  // row (5) and input channel (3): 3 x 5 and 5 x 5 repeats; 8 x 3 x 15 + 6 x 3 x 25 = 810.
  EXPECT_EQ(w.gather[0].bytes, 8u);
  EXPECT_EQ(w.gather[0].count, 3u);
  EXPECT_EQ(w.gather[0].repeats, 15u);
  EXPECT_EQ(w.gather[1].bytes, 6u);
  EXPECT_EQ(w.gather[1].count, 3u);
  EXPECT_EQ(w.gather[1].repeats, 25u);
  EXPECT_EQ(w.kernel_bytes, 810u);
  EXPECT_EQ(w.l2_read_bytes, 810u + 6u * 4u * 75u);  // + weights: 6 groups x 4 channels x 75
}

TEST(TileWork, GlobalPoolingOnChannelsReducesEachLineOverItsOwnChannel) {
  OpDesc op;
  op.op = OpCode::kGlobalAvgPool;
  op.mapping = Mapping::kChannels;
  op.input = TensorRef{MemSpace::kL2, 0, 16, 6, 6, 6, 36, 1};
  op.output = TensorRef{MemSpace::kL2, 1024, 16, 1, 1, 1, 1, 1};
  op.kernel_h = op.kernel_w = 6;
  op.row_end = 1;
  op.ch_end = 16;
  const TileWork w = compute_tile_work(op, small_l1(), small_neurons(8), kPort);
  // 2 runs of 8 channels; each line gets its channel's 36 values in fills of 16, 16, 4: 8 writes
  // and ceil(16 / 2) = 8, 8, 2 compute cycles. Fills (8, 8) (8, 8) (8, 2) twice: writes and compute
  // alternate without waiting, compute ends at 16, 24, 26, 40, 48, 50; writes at 8, 16, 24, 32, 40,
  // 48.
  EXPECT_EQ(w.fills, 6u);
  EXPECT_EQ(w.line_writes, 48u);
  EXPECT_EQ(w.compute_cycles, 36u);
  EXPECT_EQ(w.pipeline_cycles, 50u);
  EXPECT_EQ(w.write_span_cycles, 48u);
  EXPECT_EQ(w.l2_read_bytes, 576u);  // 16 channels x 36, no broadcast operand
  EXPECT_EQ(w.macs, 0u);
  EXPECT_EQ(w.valid_outputs, 16u);
}

// A 1x1 conv, 16 input channels of 5 x 4 -> 8 channels (20 positions), in the positions mapping on
// 8 neurons x 2 MAC lanes, 16-byte lines and 4 accumulators.
OpDesc pointwise_tile() {
  OpDesc op;
  op.op = OpCode::kConv;
  op.input = TensorRef{MemSpace::kL2, 0, 16, 5, 4, 4, 20, 1};
  op.output = TensorRef{MemSpace::kL2, 4096, 8, 5, 4, 4, 20, 1};
  op.kernel_h = op.kernel_w = 1;
  op.row_end = 5;
  op.ch_end = 8;
  return op;
}

TEST(TileWork, HybridTileRunsTheLastPartialRunInTheChannelsForm) {
  const OpDesc op = pointwise_tile();
  ASSERT_TRUE(hybrid_tail_applies(op, small_neurons(4), stride_one(op)));
  const TileWork w = compute_tile_work(op, small_l1(), small_neurons(4), kPort);
  // Plain: 20 positions in runs of 8, 8, 4; 2 groups of 4 channels; one fill of the 16 segments
  // (1 B each) per run and group: 16 shifted writes, 4 x ceil(16 / 2) = 32 compute cycles, so
  // compute-bound: 16 + 6 x 32 = 208 cycles, the 4-position run costing as much as a full one.
  // Hybrid: the runs of 8 and 8 (4 fills, compute ends 48, 80, 112, 144), then the 4 positions in
  // the channels form: the 8 channels on the 8 neurons, the 4 positions in one group of the 4
  // accumulators, one fill of the 16 input channels: 8 line writes (each line its channel's 16
  // weights; fill 5's buffer is free when fill 3's compute ends at 112: writes 112 -> 120) and
  // 4 x ceil(16 / 2) = 32 compute cycles after fill 4's: 144 -> 176.
  EXPECT_EQ(w.tail_positions, 4u);
  EXPECT_EQ(w.pipeline_cycles, 176u);
  EXPECT_EQ(w.write_span_cycles, 120u);
  EXPECT_EQ(w.runs, 3u);  // 2 position runs + 1 channel run x 1 group of positions
  EXPECT_EQ(w.fills, 5u);
  EXPECT_EQ(w.shifted_writes, 64u);  // 2 runs x 2 groups x 16 segments
  EXPECT_EQ(w.line_writes, 8u);
  EXPECT_EQ(w.compute_cycles, 160u);
  EXPECT_EQ(w.last_fill_compute_cycles, 32u);
  EXPECT_EQ(w.acc_updates, 4u * 32u * 8u + 32u * 8u);  // 8 positions, then 8 channels active
  EXPECT_EQ(w.lb_write_bytes, 4u * 16u * 8u + 16u * 8u);
  EXPECT_EQ(w.macs, 8u * 20u * 16u);
  EXPECT_EQ(w.valid_outputs, 160u);
  EXPECT_EQ(w.discarded_outputs, 0u);
  // L2: the runs' blocks (16 segments x 8 B, per run and group: 512 B), the tail's lines' weights
  // (8 x 16 = 128 B), the kernel region: the runs' resident kernels (8 x 16 = 128 B) and the
  // tail's resident inputs (4 positions x 16 channels = 64 B, gathered as one 4 B piece per
  // input channel).
  EXPECT_EQ(w.tail_line_bytes, 128u);
  EXPECT_EQ(w.kernel_bytes, 128u + 64u);
  EXPECT_EQ(w.l2_read_bytes, 512u + 128u + 192u);
  EXPECT_EQ(w.gather[0].bytes, 4u);
  EXPECT_EQ(w.gather[0].count, 16u);
  EXPECT_EQ(w.gather[0].repeats, 1u);
  EXPECT_EQ(w.gather[1].total(), 0u);
  // Stored: the runs' 16 outputs per channel, then the tail's group of 4 per channel.
  EXPECT_EQ(w.store[0].bytes, 16u);
  EXPECT_EQ(w.store[0].count, 8u);
  EXPECT_EQ(w.store[1].bytes, 4u);
  EXPECT_EQ(w.store[1].count, 8u);
  EXPECT_EQ(w.store[1].repeats, 1u);
}

TEST(TileWork, HybridTileIsKeptOnlyWhereItIsShorter) {
  // One output channel: a positions run's fill is write-bound (16 shifted writes against
  // 1 x ceil(16 / 2) = 8 compute), so the plain tile takes 3 x 16 + 8 = 56 cycles; the tail in
  // the channels form would compute its 4 positions one after another on the one active neuron,
  // 4 x 8 = 32 cycles after the runs' 16 + 16 writes: 72. The plain tile is kept.
  OpDesc op = pointwise_tile();
  op.ch_end = 1;
  const TileWork w = compute_tile_work(op, small_l1(), small_neurons(4), kPort);
  EXPECT_EQ(w.tail_positions, 0u);
  EXPECT_EQ(w.pipeline_cycles, 56u);
  EXPECT_EQ(w.runs, 3u);
  EXPECT_EQ(w.gather[0].total(), 0u);
  // No hybrid where the positions fill whole runs, nor for a 3x3 window or the channels mapping.
  op = pointwise_tile();
  op.row_end = 4;  // 16 positions: 2 whole runs
  EXPECT_FALSE(hybrid_tail_applies(op, small_neurons(4), stride_one(op)));
  op = pointwise_tile();
  op.mapping = Mapping::kChannels;
  EXPECT_FALSE(hybrid_tail_applies(op, small_neurons(4), stride_one(op)));
  op = pointwise_tile();  // a padded 1x1 (neither channels nor im2col form)
  op.pad_top = op.pad_left = op.pad_bottom = op.pad_right = 1;
  op.output.h = 7, op.output.w = 6, op.row_end = 7;
  EXPECT_FALSE(hybrid_tail_applies(op, small_neurons(4), stride_one(op)));
  op = pointwise_tile();  // a grouped 3x3
  op.kernel_h = op.kernel_w = 3;
  op.pad_top = op.pad_left = op.pad_bottom = op.pad_right = 1;
  op.groups = 2;
  EXPECT_FALSE(hybrid_tail_applies(op, small_neurons(4), stride_one(op)));
}

}  // namespace
}  // namespace strider
