// Exact closed-form figures of a positions tile's traversals (core/timing/tile_work.h): strided
// windows over rows or as one stream, stride-1 tiles walking their rows back to back, and the
// hybrid tile's last partial run in the channels (1x1) or im2col (k > 1) form.
#include "core/timing/tile_work.h"

#include <gtest/gtest.h>

#include "tests/model/tile_cases.h"

namespace strider {
namespace {

using namespace tile_cases;

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
  ASSERT_TRUE(hybrid_tail_applies(c.op, c.l1, c.nc, stride_one(c.op)));
  const HybridSplit split = hybrid_split(c.op, c.l1, c.nc, stride_one(c.op));
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
  // 48 cycles: 304 per group, 608 per run for the 2 groups. The stream (virtual rows of 16 + 1 =
  // 17 with shared pad columns) is 15 x 17 + 16 = 271 positions = 5 runs (the last of 15): 3,040
  // compute cycles, 10 + 3,040 = 3,050 in the pipeline. Rows back to back: 256 positions = 4 runs of 4 output rows, each segment 4 shifted
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
  // runs x 16 channels x 3 = 240. The stream is kept: virtual rows of 16 + max(1, 1) = 17 (shared
  // pad columns), 15 x 17 + 16 = 271 positions in 5 runs (the last of 15), one discarded position
  // per row but the last: 271 - 256 = 15 per channel.
  EXPECT_TRUE(w.streamed);
  EXPECT_EQ(stream_pitch(op, l1), 17u);
  EXPECT_EQ(w.runs, 5u);
  EXPECT_EQ(w.computed_positions, 271u);
  EXPECT_EQ(w.discarded_outputs, 16u * 15u);
  EXPECT_EQ(w.shifted_writes, 240u);
  EXPECT_EQ(w.compute_cycles, 240u);
  // The first stream (l1.shared_pad false): rows of 16 + 1 + 1 = 18, 15 x 18 + 16 = 286 positions,
  // 5 runs again (the last of 30), 286 - 256 = 30 discarded per channel, the same 240 cycles.
  L1Config own;
  own.shared_pad = false;
  const TileWork o = compute_tile_work(op, own, nc, kPort);
  EXPECT_TRUE(o.streamed);
  EXPECT_EQ(stream_pitch(op, own), 18u);
  EXPECT_EQ(o.computed_positions, 286u);
  EXPECT_EQ(o.discarded_outputs, 16u * 30u);
  EXPECT_EQ(o.compute_cycles, 240u);
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
  ASSERT_TRUE(hybrid_tail_applies(op, small_l1(), small_neurons(4), stride_one(op)));
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
  EXPECT_FALSE(hybrid_tail_applies(op, small_l1(), small_neurons(4), stride_one(op)));
  op = pointwise_tile();
  op.mapping = Mapping::kChannels;
  EXPECT_FALSE(hybrid_tail_applies(op, small_l1(), small_neurons(4), stride_one(op)));
  op = pointwise_tile();  // a padded 1x1 (neither channels nor im2col form)
  op.pad_top = op.pad_left = op.pad_bottom = op.pad_right = 1;
  op.output.h = 7, op.output.w = 6, op.row_end = 7;
  EXPECT_FALSE(hybrid_tail_applies(op, small_l1(), small_neurons(4), stride_one(op)));
  op = pointwise_tile();  // a grouped 3x3
  op.kernel_h = op.kernel_w = 3;
  op.pad_top = op.pad_left = op.pad_bottom = op.pad_right = 1;
  op.groups = 2;
  EXPECT_FALSE(hybrid_tail_applies(op, small_l1(), small_neurons(4), stride_one(op)));
}

}  // namespace
}  // namespace strider
