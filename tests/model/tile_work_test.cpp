// Exact closed-form figures of the input iterator / line buffer / neurons for small tiles.
#include "core/timing/tile_work.h"

#include <gtest/gtest.h>

#include "tests/model/tile_cases.h"

namespace strider {
namespace {

using namespace tile_cases;

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

// mobilenet_v3_small's 7x7 5x5 depthwise (features.10 / 11, block.1), 8 of its channels, on the
// seed machine (64 neurons x 4 lanes, 8 accumulators, 32 B lines, pads made in the block).
OpDesc depthwise_5x5_7x7() {
  OpDesc op;
  op.op = OpCode::kConv;
  op.input = TensorRef{MemSpace::kL2, 0, 8, 7, 7, 7, 49, 1};
  op.output = TensorRef{MemSpace::kL2, 4096, 8, 7, 7, 7, 49, 1};
  op.kernel_h = op.kernel_w = 5;
  op.pad_top = op.pad_left = op.pad_bottom = op.pad_right = 2;
  op.groups = 8;
  op.row_end = 7;
  op.ch_end = 8;
  return op;
}

TEST(TileWork, SharedPadColumnsFitA7x7DepthwiseInOneRun) {
  const OpDesc op = depthwise_5x5_7x7();
  const NeuronConfig nc;
  L1Config shared, own;
  own.shared_pad = false;
  const TileWork s = compute_tile_work(op, shared, nc, kPort);
  const TileWork o = compute_tile_work(op, own, nc, kPort);
  // Virtual rows of 7 + max(2, 2) = 9 (shared) or 7 + 2 + 2 = 11 (own pad columns); the stream is
  // 6 x 9 + 7 = 61 positions, one run of 64, or 6 x 11 + 7 = 73, two (64 + 9). Of those 49 are
  // outputs: 12 or 24 discarded per channel.
  EXPECT_EQ(stream_pitch(op, shared), 9u);
  EXPECT_EQ(stream_pitch(op, own), 11u);
  EXPECT_TRUE(s.streamed);
  EXPECT_TRUE(o.streamed);
  EXPECT_EQ(s.computed_positions, 61u);
  EXPECT_EQ(o.computed_positions, 73u);
  EXPECT_EQ(s.runs, 1u);
  EXPECT_EQ(o.runs, 2u);
  EXPECT_EQ(s.valid_outputs, 392u);  // 8 x 49 either way
  EXPECT_EQ(o.valid_outputs, 392u);
  EXPECT_EQ(s.discarded_outputs, 96u);   // 8 x 12
  EXPECT_EQ(o.discarded_outputs, 192u);  // 8 x 24
  // Depthwise: a group is one channel; its 5 segments (kernel rows of 5 B) make one 32 B fill
  // (floor(32 / 5) = 6 a fill): 5 shifted writes (one per segment, pads made in the block) and
  // ceil(25 / 4) = 7 compute cycles, per run and channel.
  EXPECT_EQ(s.fills, 8u);   // 1 run x 8 channels
  EXPECT_EQ(o.fills, 16u);  // 2 runs x 8 channels
  EXPECT_EQ(s.shifted_writes, 40u);
  EXPECT_EQ(o.shifted_writes, 80u);
  EXPECT_EQ(s.compute_cycles, 56u);
  EXPECT_EQ(o.compute_cycles, 112u);
  // Compute-bound (5 writes under the previous fill's 7): the first fill's 5 writes, then 7 per
  // fill back to back: 5 + 8 x 7 = 61 against 5 + 16 x 7 = 117. (The whole layer's 576 channels:
  // 5 + 576 x 7 = 4,037 against 5 + 1,152 x 7 = 8,069.)
  EXPECT_EQ(s.first_fill_write_cycles, 5u);
  EXPECT_EQ(s.pipeline_cycles, 61u);
  EXPECT_EQ(o.pipeline_cycles, 117u);
  // Accumulator updates: active neurons x compute cycles, 61 x 56 against (64 + 9) x 7 x 8.
  EXPECT_EQ(s.acc_updates, 3416u);
  EXPECT_EQ(o.acc_updates, 4088u);
  // Line bytes: every active line gets each segment's 5 B: 8 x 25 x 61 against 8 x 25 x 73.
  EXPECT_EQ(s.lb_write_bytes, 12200u);
  EXPECT_EQ(o.lb_write_bytes, 14600u);
  EXPECT_EQ(s.macs, 9800u);  // 392 outputs x 25
  EXPECT_EQ(o.macs, 9800u);
  // L2: a segment's block is its span, at most a stored row per virtual row it touches. Shared:
  // span 60 + 5 = 65 over 7 rows -> min(65, 7 x 7) = 49 B. Own: run 0 span 63 + 5 = 68 over rows
  // 0..5 -> 42 B, run 1 (positions 64..72) span 8 + 5 = 13 over rows 5..6 -> min(13, 14) = 13 B.
  // Per channel 5 x 49 = 245 or 5 x (42 + 13) = 275; the kernels (8 x 25 = 200 B) stay resident.
  EXPECT_EQ(s.kernel_bytes, 200u);
  EXPECT_EQ(s.l2_read_bytes, 8u * 245u + 200u);
  EXPECT_EQ(o.l2_read_bytes, 8u * 275u + 200u);
  EXPECT_EQ(s.output_bytes, 392u);
}

// A 28x28 3x3 pad-1 depthwise channel: 27 x 29 + 28 = 811 positions (13 runs) with shared pad
// columns, 27 x 30 + 28 = 838 (14 runs) without; one fill of 3 segments per run, ceil(9 / 4) = 3
// compute cycles and 3 writes: 3 + 13 x 3 = 42 against 3 + 14 x 3 = 45 cycles.
TEST(TileWork, SharedPadColumnsSaveARunOfA28x28Depthwise) {
  OpDesc op;
  op.op = OpCode::kConv;
  op.input = TensorRef{MemSpace::kL2, 0, 1, 28, 28, 28, 784, 1};
  op.output = TensorRef{MemSpace::kL2, 4096, 1, 28, 28, 28, 784, 1};
  op.kernel_h = op.kernel_w = 3;
  op.pad_top = op.pad_left = op.pad_bottom = op.pad_right = 1;
  op.row_end = 28;
  op.ch_end = 1;
  const NeuronConfig nc;
  L1Config shared, own;
  own.shared_pad = false;
  const TileWork s = compute_tile_work(op, shared, nc, kPort);
  const TileWork o = compute_tile_work(op, own, nc, kPort);
  EXPECT_EQ(s.computed_positions, 811u);
  EXPECT_EQ(o.computed_positions, 838u);
  EXPECT_EQ(s.runs, 13u);
  EXPECT_EQ(o.runs, 14u);
  EXPECT_EQ(s.discarded_outputs, 811u - 784u);  // 27: one per row boundary
  EXPECT_EQ(o.discarded_outputs, 838u - 784u);  // 54: two per row boundary
  EXPECT_EQ(s.pipeline_cycles, 42u);
  EXPECT_EQ(o.pipeline_cycles, 45u);
}

// The pitch only changes where the zeros are made in the block, for stride 1 (tile_work.h):
// without pads it is W either way; without shift-stride writes, without pads in the block, or
// strided, it stays W + pad_left + pad_right. Asymmetric pads share max(pad_left, pad_right); a
// pad wider than the window (2x1 kernel, pads 2 and 2: W_out = 5 + 4 - 2 + 1 = 8 > 5 + 2) takes
// the output row's width.
TEST(TileWork, StreamPitchSharesPadColumnsOnlyForStrideOneWithPadsInTheBlock) {
  OpDesc op = depthwise_5x5_7x7();
  const L1Config seed;
  EXPECT_EQ(stream_pitch(op, seed), 9u);
  L1Config l1 = seed;
  l1.shift_stride = false;
  EXPECT_EQ(stream_pitch(op, l1), 11u);
  l1 = seed;
  l1.pad_in_block = false;
  EXPECT_EQ(stream_pitch(op, l1), 11u);
  op.stride_h = op.stride_w = 2;
  op.output.h = op.output.w = 4;
  EXPECT_EQ(stream_pitch(op, seed), 11u);
  op = depthwise_5x5_7x7();
  op.pad_left = 1, op.pad_right = 3;  // W_out = 7 + 4 - 5 + 1 = 7 as before
  EXPECT_EQ(stream_pitch(op, seed), 10u);
  op.pad_left = op.pad_right = op.pad_top = op.pad_bottom = 0;
  op.output.h = op.output.w = 3;
  EXPECT_EQ(stream_pitch(op, seed), 7u);
  op = depthwise_5x5_7x7();
  op.input.w = 5;
  op.kernel_w = 2;
  op.output.w = 8;
  EXPECT_EQ(stream_pitch(op, seed), 8u);
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

}  // namespace
}  // namespace strider
