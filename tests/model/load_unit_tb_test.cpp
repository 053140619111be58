// LoadUnit testbench: a source feeds conv tiles, a sink takes the tokens from the line-buffer
// channel after seeded random delays (back-pressure). A plain C++ model of the unit's timing
// predicts when each tile starts and when the sink gets it; the tokens must carry their own
// descriptor and closed-form work in order, with load_end = start + busy.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "model/l1/load_unit.h"
#include "model/l2/l2_sram.h"
#include "tests/model/unit_bench.h"

namespace strider {
namespace {

// The tiny architecture (tiny_arch, configs/arch/tiny.yaml): 8 lines x 16 B, 4 L2 banks x 8 B,
// 16 B/cycle per port, L2 latency 2; 4 MAC lanes and 8 accumulators, so the conv tile's 4 output
// channels share every fill, and padding is made in the shifted block.

// 3x3 conv, pad 1: input 3x8x8 at L2 0, output 4x8x8 (tile_work_test's ConvCase).
Descriptor conv_tile(uint32_t id) {
  Descriptor d;
  d.id = id;
  d.kind = DescKind::kOp;
  d.op.op = OpCode::kConv;
  d.op.input = TensorRef{MemSpace::kL2, 0, 3, 8, 8, 8, 64, 1};
  d.op.output = TensorRef{MemSpace::kL2, 4096, 4, 8, 8, 8, 64, 1};
  d.op.kernel_h = d.op.kernel_w = 3;
  d.op.pad_top = d.op.pad_left = d.op.pad_bottom = d.op.pad_right = 1;
  d.op.row_end = 8;
  d.op.ch_end = 4;
  return d;
}

struct Bench : sc_core::sc_module {
  ArchConfig arch = tiny_arch();
  ClockDomain clock{1000.0};
  StatRegistry stats;
  RunRecord record;
  L2Sram l2{arch.l2, false, stats};
  LatencyFifo<const Descriptor*> in{"in", 0};
  LatencyFifo<TileToken> out{"out", 1};
  std::vector<Descriptor> tiles;
  std::vector<uint64_t> delays, taken;
  std::vector<TileToken> tokens;
  std::unique_ptr<LoadUnit> unit;

  Bench(sc_core::sc_module_name n, bool shift_stride, size_t count, uint32_t seed,
        Descriptor (*make)(uint32_t) = conv_tile)
      : sc_core::sc_module(n) {
    arch.l1.shift_stride = shift_stride;
    std::mt19937 rng(seed);
    for (uint32_t i = 0; i < count; ++i) {
      tiles.push_back(make(i));
      delays.push_back(rng() % 1500);
    }
    record.descriptors.resize(count);
    unit = std::make_unique<LoadUnit>("load", arch, clock, l2, in, out, record, stats);
    SC_HAS_PROCESS(Bench);
    SC_THREAD(source);
    SC_THREAD(sink);
  }
  void source() {
    for (const Descriptor& d : tiles) in.write(&d);
  }
  void sink() {
    for (uint64_t delay : delays) {
      sc_core::wait(clock.cycles(delay));
      tokens.push_back(out.read());
      taken.push_back(clock.now());
    }
  }
};

// Reference model: tile k starts when the unit is free (previous start + busy) and the channel
// has room (the sink took token k-1); token k is visible `first` cycles after its start; the sink
// takes it `delay` after the previous one, not before it is visible.
void check_against_model(Bench& b, uint64_t busy, uint64_t first) {
  sc_core::sc_start();
  ASSERT_EQ(b.taken.size(), b.tiles.size());
  uint64_t start = 0, taken = 0;
  for (size_t k = 0; k < b.tiles.size(); ++k) {
    if (k > 0) start = std::max(start + busy, taken);
    taken = std::max(taken + b.delays[k], start + first);
    const DescriptorRecord& r = b.record.descriptors[k];
    EXPECT_EQ(r.start, start) << "tile " << k;
    EXPECT_EQ(r.stall_backpressure,
              k == 0 ? 0 : start - (b.record.descriptors[k - 1].start + busy));
    EXPECT_EQ(b.taken[k], taken) << "tile " << k;
    // Functional: the token is tile k's, with its closed-form work.
    const TileToken& t = b.tokens[k];
    EXPECT_EQ(t.desc, &b.tiles[k]);
    EXPECT_EQ(t.load_end, start + busy);
    const TileWork w =
        compute_tile_work(b.tiles[k].op, b.arch.l1, b.arch.neurons, b.arch.l2.port_bytes_per_cycle);
    EXPECT_EQ(t.work.lb_write_cycles, w.lb_write_cycles);
    EXPECT_EQ(t.work.l2_read_bytes, w.l2_read_bytes);
    EXPECT_EQ(t.work.compute_cycles, w.compute_cycles);
  }
}

// The conv tile on tiny walks its 8 output rows back to back (core/timing/tile_work.h: 8 runs of
// one output row each, where the padded stream would be 7 x 10 + 8 = 78 positions in 10 runs), one
// group of 4 channels each, 9 segments of 3 B in fills of 5 and 4 segments, each segment one
// shifted write (one output row). Shift-stride: fills write 5 and 4 cycles and compute 4 x
// ceil(15 / 4) = 16 and 4 x ceil(12 / 4) = 12 cycles, so the writes wait for free fill buffers:
// the last fill's writes start when fill 13's compute ends (5 + 7 x 28 = 201) and end at 205. L2:
// the input row pieces (model/l1/row_pieces.h): per run (output row r) and kernel row kh the
// stored row r + kh - 1, its 8 columns (the pad columns are made in the block), for the 3 channels
// at once; rows -1 and 8 are padding: 8 x 3 - 2 = 22 pieces x 8 B x 3 channels = 528 B, plus 108
// resident kernel bytes = 636 B, far inside the 205-cycle write span.
TEST(LoadUnitTb, ShiftStrideConvTilesUnderRandomBackPressure) {
  Bench b("bench", true, 12, 7);
  // busy = max(205 write span, L2) = 205. First fill: 5 writes + 2 latency = 7.
  check_against_model(b, 205, 7);
  EXPECT_EQ(b.stats.get("line_buffer.write_cycles"), 12u * 72u);  // 9 segments x 8 runs
  EXPECT_EQ(b.stats.get("line_buffer.shifted_writes"), 12u * 72u);
  EXPECT_EQ(b.stats.get("load.l2_read_bytes"), 12u * 636u);
  EXPECT_EQ(b.record.descriptors[0].l2_read_bytes, 636u);
  // The back-pressure really bit: some tile waited for the sink.
  uint64_t stalled = 0;
  for (const DescriptorRecord& r : b.record.descriptors) stalled += r.stall_backpressure;
  EXPECT_GT(stalled, 0u);
}

TEST(LoadUnitTb, PerLineWritesConvTilesUnderRandomBackPressure) {
  Bench b("bench", false, 12, 11);
  // Per tile: each segment written line by line. The 78 stream positions end in a partial run
  // (stream 72..77, output row 7's last 6 positions), which the hybrid tile runs in the im2col
  // form: the 9 full runs write 9 segments x 8 lines = 72 per run, 648 in all, in fills of 40
  // and 32 writes that always outlast the compute before them (4 x ceil(15 / 4) = 16 and
  // 4 x ceil(12 / 4) = 12), so they never wait: they end at 648, the last run's compute at 660.
  // The tail: the 4 channels on 4 lines, the 27-element window in fills of 16 and 11 (4 line
  // writes each): 648 -> 652, then (once the last run's fill releases its buffer) 660 -> 664;
  // compute 6 x 4 = 24 and 6 x 3 = 18 (660 -> 702, as the 702 cycles of the plain tile's
  // writes alone). L2: the runs' 9 x 72 x 3 B windows (1,944), the tail's lines' weights (108),
  // the resident kernels (108): 2,160 B -> 135 port cycles, then the tail's resident input rows
  // (3 channels x 3 rows x 8 B = 72): well inside the 664-cycle span -> busy 664. First fill:
  // 5 segments x 8 lines = 40 + 2 = 42.
  check_against_model(b, 664, 42);
  EXPECT_EQ(b.stats.get("line_buffer.line_writes"), 12u * 656u);
  EXPECT_EQ(b.stats.get("line_buffer.shifted_writes"), 0u);
}

TEST(LoadUnitTb, FirstTileExactCycles) {
  Bench b("bench", true, 1, 1);
  b.delays = {0};
  sc_core::sc_start();
  // Issued at 0; visible to the neurons at 5 writes + 2 L2 latency = 7; busy until the last
  // fill's writes end at 205 (see above).
  EXPECT_EQ(b.taken[0], 7u);
  EXPECT_EQ(b.tokens[0].load_end, 205u);
  EXPECT_EQ(b.stats.get("load.busy_cycles"), 205u);
}

}  // namespace
}  // namespace strider

namespace strider {
namespace {

// An operation descriptor `id` for a conv tile (the tests fill in its tensors and shape).
Descriptor conv_descriptor(uint32_t id) {
  Descriptor d;
  d.id = id;
  d.kind = DescKind::kOp;
  d.op.op = OpCode::kConv;
  return d;
}

// A 1x1 conv in the channels mapping: 8 output channels over 2 x 4 = 8 positions (one group of
// 8 accumulators) reducing 16 input channels whose planes lie `plane` bytes apart in L2.
template <uint32_t plane>
Descriptor gather_tile(uint32_t id) {
  Descriptor d = conv_descriptor(id);
  d.op.mapping = Mapping::kChannels;
  d.op.input = TensorRef{MemSpace::kL2, 0, 16, 2, 4, 4, plane, 1};
  d.op.output = TensorRef{MemSpace::kL2, 4096, 8, 2, 4, 4, 8, 1};
  d.op.kernel_h = d.op.kernel_w = 1;
  d.op.row_end = 2;
  d.op.ch_end = 8;
  return d;
}

// The gather reads the 16 input channels' 8 positions as 16 pieces of 8 B. First the lines'
// weights, 8 x 16 = 128 contiguous bytes from 0: 8 port cycles, 4 words on each of the 4 banks
// (busy to cycle 4). Then the gather at cycle 8 (the port's): planes 64 B apart are a multiple of
// the banks' 4 x 8 = 32 B, so every piece is word 0 of its plane on bank 0: 16 words, bank 0
// busy 8 -> 24, where the port would move 16 words x 8 B / 16 B = 8 cycles: 24 - 16 = 8 conflict
// cycles. Planes 72 B apart step one bank per piece: 4 words on each bank, 8 -> 12, inside the
// port's 16: no conflict.
// Runs two one-tile benches side by side; both must deliver their tile.
void run_both(const Bench& a, const Bench& b) {
  sc_core::sc_start();
  ASSERT_EQ(a.taken.size(), 1u);
  ASSERT_EQ(b.taken.size(), 1u);
}

TEST(LoadUnitTb, ChannelPlaneGatherIsChargedPieceByPiece) {
  Bench same("same", true, 1, 1, gather_tile<64>);
  Bench spread("spread", true, 1, 1, gather_tile<72>);
  run_both(same, spread);
  const TileWork w = compute_tile_work(same.tiles[0].op, same.arch.l1, same.arch.neurons,
                                       same.arch.l2.port_bytes_per_cycle);
  EXPECT_EQ(w.gather[0].bytes, 8u);
  EXPECT_EQ(w.gather[0].count, 16u);
  EXPECT_EQ(w.l2_read_bytes, 256u);  // 128 weights + 128 gathered
  EXPECT_EQ(same.record.descriptors[0].l2_bank_conflict_cycles, 8u);
  EXPECT_EQ(same.record.descriptors[0].stall_l2_conflict, 8u);
  EXPECT_EQ(same.stats.get("l2.bank_conflict_cycles.load"), 8u);
  EXPECT_EQ(spread.record.descriptors[0].l2_bank_conflict_cycles, 0u);
  EXPECT_EQ(spread.stats.get("l2.bank_conflict_cycles.load"), 0u);
}

// A 1x3 conv, pad 1 left and right, over 2 input channels of 2 x 8 (rows 12 B apart, channel
// planes `plane` B apart at L2 0) into 1 x 2 x 8 outputs; weights (6 B) at 1024. Stride 1 and
// wp = 10, so the 2 x 8 outputs are 10 + 8 = 18 stream positions in 3 runs on the 8 neurons:
//   run 0, positions [0, 8):  padded [0, 10)  -> row 0 columns [0, 8): 8 B at 0
//   run 1, positions [8, 16): padded [8, 18)  -> row 0 column 7: 1 B at 7;
//                                                 row 1 columns [0, 7): 7 B at 12
//   run 2, positions [16, 18): padded [16, 20) -> row 1 columns [5, 8): 3 B at 17
// Each piece is one access over both channels (count 2 at the plane stride): 2 x 19 = 38 B, plus
// the 6 kernel bytes = 44 B.
template <uint32_t plane>
Descriptor row_piece_tile(uint32_t id) {
  Descriptor d = conv_descriptor(id);
  d.op.input = TensorRef{MemSpace::kL2, 0, 2, 2, 8, 12, plane, 1};
  d.op.weights = TensorRef{MemSpace::kL2, 1024, 1, 1, 6, 6, 6, 1};
  d.op.output = TensorRef{MemSpace::kL2, 4096, 1, 2, 8, 8, 16, 1};
  d.op.kernel_h = 1;
  d.op.kernel_w = 3;
  d.op.pad_left = d.op.pad_right = 1;
  d.op.row_end = 2;
  d.op.ch_end = 1;
  return d;
}

// Tiny's L2: 4 banks x 8 B (a bank repeats every 32 B), 16 B/cycle, latency 2; a pattern of
// several pieces moves ceil(words x 8 / 16) port cycles.
// Planes 32 B apart put both channels' pieces on the same banks: a piece inside one bank word
// leaves that bank 2 words for 1 port cycle (1 conflict cycle), a piece over two words gives each
// of its two banks 2 words for 2 port cycles (none):
//   8 B at 0:  word 0 + word 4, bank 0: port 0 -> 1, bank 0 0 -> 2            conflict 1
//   1 B at 7:  word 0 + word 4, bank 0: port 2 -> 3, bank 0 2 -> 4            conflict 1
//   7 B at 12: words 1, 2 + 5, 6, banks 1, 2 x 2 words: port 4 -> 6, banks 4 -> 6  conflict 0
//   3 B at 17: word 2 + word 6, bank 2: port 6 -> 7, bank 2 6 -> 8            conflict 1
//   kernel 6 B at 1024 (bank 0): port 8 -> 9, bank 0 8 -> 9                   conflict 0
// L2 done at 9 + 2 latency = 11, 3 conflict cycles. Planes 40 B apart put the second channel one
// bank further: 0 -> 1, 1 -> 2, 2 -> 4 (4 words over banks 1, 2, 2, 3), 4 -> 5, kernel 5 -> 6:
// no conflict, done at 6 + 2 = 8. The writes: 2 segments (one per channel) per run, 3 runs, one
// shifted write per stored row a segment's block touches (1, 2, 1: run 1 spans both rows) and
// ceil(6 / 4) = 2 compute cycles per fill: writes 0 -> 2, 2 -> 6, 6 -> 8, so the write span is 8
// and the L2 decides the busy time: 11 against 8. The neurons may start after the first fill's 2
// writes + 2 latency = 4.
TEST(LoadUnitTb, PositionsRowPiecesAreChargedPieceByPiece) {
  Bench same("same", true, 1, 1, row_piece_tile<32>);
  Bench spread("spread", true, 1, 1, row_piece_tile<40>);
  // Pads not made in the block: the tile keeps the padded stream (its rows back to back, 2 runs,
  // need them made in the block), one shifted write per stored row a segment's block touches.
  same.arch.l1.pad_in_block = spread.arch.l1.pad_in_block = false;
  same.delays = spread.delays = {0};
  run_both(same, spread);
  const TileWork w = compute_tile_work(same.tiles[0].op, same.arch.l1, same.arch.neurons,
                                       same.arch.l2.port_bytes_per_cycle);
  EXPECT_TRUE(w.streamed);
  EXPECT_EQ(w.write_span_cycles, 8u);
  EXPECT_EQ(w.kernel_bytes, 6u);
  const DescriptorRecord& s = same.record.descriptors[0];
  EXPECT_EQ(s.l2_read_bytes, 44u);
  EXPECT_EQ(s.l2_bank_conflict_cycles, 3u);
  EXPECT_EQ(s.stall_l2_conflict, 3u);
  EXPECT_EQ(same.tokens[0].load_end, 11u);
  EXPECT_EQ(same.taken[0], 4u);
  EXPECT_EQ(same.stats.get("l2.bank_conflict_cycles.load"), 3u);
  EXPECT_EQ(same.stats.get("l2.load_bytes"), 44u);
  EXPECT_EQ(same.stats.get("load.l2_read_bytes"), 44u);
  const DescriptorRecord& p = spread.record.descriptors[0];
  EXPECT_EQ(p.l2_read_bytes, 44u);
  EXPECT_EQ(p.l2_bank_conflict_cycles, 0u);
  EXPECT_EQ(spread.tokens[0].load_end, 8u);
  EXPECT_EQ(spread.stats.get("l2.bank_conflict_cycles.load"), 0u);
}

// The conv tile in the im2col mapping on the tiny arch: 4 output channels on neurons, 64
// positions in 8 groups of 8 (one output row each), the 27-element window in fills of 16 and 11.
Descriptor im2col_tile(uint32_t id) {
  Descriptor d = conv_tile(id);
  d.op.mapping = Mapping::kIm2col;
  return d;
}

// Per group: 4 line writes per fill, compute 8 x ceil(16 / 4) = 32 and 8 x ceil(11 / 4) = 24.
// The last fill's writes wait for fill 14's compute (4 + 7 x 56 = 396): the writes end at 400.
// L2: the lines' weights, 8 groups x 4 x 27 = 864 contiguous bytes from 0 (54 port cycles, 27
// words per bank); then the resident input rows, 3 channels x 8 rows of 8 B at the 64 B channel
// stride, all on bank 0: 24 words, bank 0 busy 54 -> 78 where the port needs 24 x 8 / 16 = 12
// cycles (54 -> 66): 12 conflict cycles, data at 78 + 2. Busy max(400, 80) = 400; the neurons
// may start after the first fill's 4 writes + 2 latency = 6.
TEST(LoadUnitTb, Im2colTileExactCycles) {
  Bench b("im2col", false, 1, 1, im2col_tile);
  b.delays = {0};
  sc_core::sc_start();
  ASSERT_EQ(b.taken.size(), 1u);
  const TileWork w =
      compute_tile_work(b.tiles[0].op, b.arch.l1, b.arch.neurons, b.arch.l2.port_bytes_per_cycle);
  EXPECT_EQ(w.write_span_cycles, 400u);
  EXPECT_EQ(w.pipeline_cycles, 452u);  // 4 + 8 x 56
  EXPECT_EQ(w.l2_read_bytes, 864u + 192u);
  EXPECT_EQ(b.taken[0], 6u);
  EXPECT_EQ(b.tokens[0].load_end, 400u);
  EXPECT_EQ(b.stats.get("load.busy_cycles"), 400u);
  EXPECT_EQ(b.stats.get("line_buffer.shifted_writes"), 0u);
  EXPECT_EQ(b.stats.get("line_buffer.line_writes"), 64u);  // 16 fills x 4 lines
  EXPECT_EQ(b.record.descriptors[0].l2_bank_conflict_cycles, 12u);
}

// The same im2col tile with shift-stride writes on (the seed's setting): im2col writes each line
// with its channel's weights and has no shifted writes, so it reads what it reads without them —
// the lines' weights and its gather, 864 + 192 bytes, with the same 12 bank-conflict cycles and
// the same 400 busy cycles. (It read positions-style row pieces and the gather's size from the
// weights before: 864 bytes of the lines' weights never read.)
TEST(LoadUnitTb, Im2colTileReadsItsWeightsWithShiftStrideOn) {
  Bench b("im2col_shift", true, 1, 1, im2col_tile);
  b.delays = {0};
  sc_core::sc_start();
  ASSERT_EQ(b.taken.size(), 1u);
  const TileWork w =
      compute_tile_work(b.tiles[0].op, b.arch.l1, b.arch.neurons, b.arch.l2.port_bytes_per_cycle);
  EXPECT_EQ(w.l2_read_bytes, 864u + 192u);
  EXPECT_EQ(b.record.descriptors[0].l2_read_bytes, w.l2_read_bytes);
  EXPECT_EQ(b.tokens[0].load_end, 400u);
  EXPECT_EQ(b.stats.get("line_buffer.shifted_writes"), 0u);
  EXPECT_EQ(b.stats.get("line_buffer.line_writes"), 64u);
  EXPECT_EQ(b.record.descriptors[0].l2_bank_conflict_cycles, 12u);
}

// A 1x1 conv in the positions mapping: 16 input channels of 2 x 6 (planes 12 B apart at L2 0)
// -> 8 output channels, weights (8 x 16 B) at 1024. 12 positions on 8 neurons: a run of 8, then
// a partial run of 4, which the hybrid tile runs in the channels form.
Descriptor hybrid_tile(uint32_t id) {
  Descriptor d = conv_descriptor(id);
  d.op.input = TensorRef{MemSpace::kL2, 0, 16, 2, 6, 6, 12, 1};
  d.op.weights = TensorRef{MemSpace::kL2, 1024, 8, 1, 16, 16, 16, 1};
  d.op.output = TensorRef{MemSpace::kL2, 4096, 8, 2, 6, 6, 12, 1};
  d.op.kernel_h = d.op.kernel_w = 1;
  d.op.row_end = 2;
  d.op.ch_end = 8;
  return d;
}

// Tiny (4 MAC lanes, 8 accumulators). Plain: 2 runs, one fill each (16 shifted writes, 8 x
// ceil(16 / 4) = 32 compute): 16 + 2 x 32 = 80 cycles. Hybrid: the run of 8 (writes 0 -> 16,
// compute 16 -> 48), then the 4 positions with the 8 channels on neurons: one fill of 8 line
// writes (16 -> 24) and 4 x 4 = 16 compute cycles (48 -> 64): 64 cycles, kept.
// L2, in order: the run's row pieces, positions [0, 8) = row 0 and 2 columns of row 1, back to
// back: 8 B at 0 for each of the 16 channels (12 B apart: words 0..23 once each, 6 per bank),
// ceil(24 x 8 / 16) = 12 port cycles (0 -> 12), no conflict. Then from the weights the run's
// resident kernels (128 B) and the tail's lines' weights (128 B): 256 B, 16 port cycles
// (12 -> 28), 8 words per bank (banks free at 20). Then the tail's gather from its first
// position (row 1, column 2: byte 8): 4 B per channel at 8 + 12 i, words 1 + 3j and 2 + 3j
// (j < 8), 4 per bank: 8 port cycles (28 -> 36), banks 28 -> 32, no conflict. L2 done at 36 + 2
// latency = 38 > the 24-cycle write span: busy 38. 128 + 256 + 64 = 448 B. The neurons may start
// after the first fill's 16 writes + 2 latency = 18.
TEST(LoadUnitTb, HybridTileExactCycles) {
  Bench b("hybrid", true, 1, 1, hybrid_tile);
  b.delays = {0};
  sc_core::sc_start();
  ASSERT_EQ(b.taken.size(), 1u);
  const TileWork w =
      compute_tile_work(b.tiles[0].op, b.arch.l1, b.arch.neurons, b.arch.l2.port_bytes_per_cycle);
  EXPECT_EQ(w.tail_positions, 4u);
  EXPECT_EQ(w.pipeline_cycles, 64u);
  EXPECT_EQ(w.write_span_cycles, 24u);
  EXPECT_EQ(b.taken[0], 18u);
  EXPECT_EQ(b.tokens[0].load_end, 38u);
  EXPECT_EQ(b.stats.get("load.busy_cycles"), 38u);
  EXPECT_EQ(b.stats.get("load.l2_read_bytes"), 448u);
  EXPECT_EQ(b.stats.get("l2.load_bytes"), 448u);
  EXPECT_EQ(b.stats.get("line_buffer.shifted_writes"), 16u);
  EXPECT_EQ(b.stats.get("line_buffer.line_writes"), 8u);
  EXPECT_EQ(b.stats.get("line_buffer.fills"), 2u);
  EXPECT_EQ(b.stats.get("kernel.load_bytes"), 192u);  // 128 kernels + 64 tail inputs
  EXPECT_EQ(b.record.descriptors[0].l2_bank_conflict_cycles, 0u);
}

// A 3x3 conv, pad 1, in the positions mapping: 2 input channels of 4 x 4 (rows 4 B, planes 16 B
// apart at L2 0) -> 8 output channels of 4 x 4, weights (8 x 18 B) at 1024. The padded stream is
// 3 x 6 + 4 = 22 positions: runs of 8 and 8, then stream positions 16..21 (row 2's two windows
// across its end and output row 3), whose 4 valid positions the hybrid tile runs in the im2col
// form.
Descriptor k3_hybrid_tile(uint32_t id) {
  Descriptor d = conv_tile(id);
  d.op.input = TensorRef{MemSpace::kL2, 0, 2, 4, 4, 4, 16, 1};
  d.op.weights = TensorRef{MemSpace::kL2, 1024, 8, 3, 6, 6, 18, 1};
  d.op.output = TensorRef{MemSpace::kL2, 4096, 8, 4, 4, 4, 16, 1};
  d.op.row_end = 4;
  d.op.ch_end = 8;
  return d;
}

// Tiny (4 MAC lanes, 8 accumulators), padding not made in the block, so the tile keeps its padded
// stream (with it made in the block, its 4 output rows back to back are 2 full runs and no tail:
// rows_back_to_back_applies): each segment's block is one shifted write per stored row it spans,
// 2 for every run here. Per run: the 6 segments (2 channels x 3 kernel rows, 3 B) in fills of 5
// and 1 (10 and 2 shifted writes), the 8 channels in one group: 8 x ceil(15 / 4) = 32 and
// 8 x ceil(3 / 4) = 8 compute. Plain: 3 runs, compute-bound from 10: 10 + 3 x 40 = 130 cycles.
// Hybrid: the 2 runs' fills (writes 0-10, 10-12, 42-52, 52-54; compute 10-42, 42-50, 52-84,
// 84-92), then the tail: the 8 channels on the 8 lines, the 18-element window in fills of 16 and
// 2 (8 line writes each, 84-92 and 92-100, once fills 3 and 4 release their buffers), the 4
// positions in one group: 4 x 4 = 16 and 4 x 1 = 4 compute (92-108, 108-112): 112 cycles, kept;
// the writes end at 100.
// L2 bytes: the runs' row pieces per channel, kernel rows 0..2 — run 0: 3 (row 0, columns 0..2),
// 4 + 3 and 4 + 3 (a row and the next one's first 3 columns, back to back): 17; run 1: 3 + 4
// three times: 21; x 2 channels = 76. The weights: the runs' resident kernels (144) and the
// tail's lines' weights (8 x 18 = 144). The tail's gather, resident: its output row 3 reads input
// rows 2 and 3 (3 by the rule), 4 B of each of the 2 channels: 24, from input row 2 (byte 8).
// 76 + 288 + 24 = 388 B in 25 port cycles at least; the L2 ends well before the 100-cycle write
// span: busy 100. The neurons may start after the first fill's 10 writes + 2 latency = 12.
TEST(LoadUnitTb, K3HybridTileExactCycles) {
  Bench b("k3_hybrid", true, 1, 1, k3_hybrid_tile);
  b.arch.l1.pad_in_block = false;  // the tile keeps its padded stream (see above)
  b.delays = {0};
  sc_core::sc_start();
  ASSERT_EQ(b.taken.size(), 1u);
  const TileWork w =
      compute_tile_work(b.tiles[0].op, b.arch.l1, b.arch.neurons, b.arch.l2.port_bytes_per_cycle);
  EXPECT_EQ(w.tail_positions, 4u);
  EXPECT_EQ(w.tail_skipped, 6u);
  EXPECT_EQ(w.pipeline_cycles, 112u);
  EXPECT_EQ(w.write_span_cycles, 100u);
  EXPECT_EQ(b.taken[0], 12u);
  EXPECT_EQ(b.tokens[0].load_end, 100u);
  EXPECT_EQ(b.stats.get("load.busy_cycles"), 100u);
  EXPECT_EQ(b.stats.get("load.l2_read_bytes"), 388u);
  EXPECT_EQ(b.stats.get("l2.load_bytes"), 388u);
  EXPECT_EQ(b.stats.get("line_buffer.shifted_writes"), 24u);
  EXPECT_EQ(b.stats.get("line_buffer.line_writes"), 16u);
  EXPECT_EQ(b.stats.get("line_buffer.fills"), 6u);
  EXPECT_EQ(b.stats.get("kernel.load_bytes"), 168u);  // 144 kernels + 24 tail input rows
}

// A 3x3 pad-1 depthwise tile over 2 channels of 3 x 3 (rows 3 B apart, planes 9 B apart, at L2
// 0), weights (18 B) at 1024, on tiny (8 neurons, 4 lanes): 3 x 3 outputs per channel in a stream
// of 2 x 4 + 3 = 11 positions with shared pad columns (virtual rows of 3 + 1), 2 x 5 + 3 = 13
// without (3 + 1 + 1): 2 runs either way (8 + 3, 8 + 5), one fill of 3 segments per run and
// channel (3 shifted writes, ceil(9 / 4) = 3 compute cycles). The row pieces per channel (stream
// elements [kh x P + start, + active - 1 + 3) cut at virtual row ends, clipped to the stored
// columns; a piece continuing the previous one in memory joined to it):
//   shared, P = 4: run 0 kh 0: row 0 [0, 3) + row 1 [0, 1) = 4 B; kh 1: rows 0, 1 + row 2 [0, 1) =
//     7 B; kh 2: rows 1, 2 = 6 B; run 1 kh 0: row 1 = 3 B; kh 1: row 2 = 3 B; kh 2: pad rows only.
//     23 B.
//   own, P = 5: run 0 kh 0: row 0 = 3 B; kh 1: rows 0, 1 = 6 B; kh 2: rows 1, 2 = 6 B; run 1
//     kh 0: row 0 [2, 3) + row 1 = 4 B; kh 1: row 1 [2, 3) + row 2 = 4 B; kh 2: row 2 [2, 3) = 1 B.
//     24 B.
// x 2 channels, plus the 18 resident kernel bytes: 64 B against 66 B read by the load unit.
Descriptor shared_pad_tile(uint32_t id) {
  Descriptor d = conv_descriptor(id);
  d.op.input = TensorRef{MemSpace::kL2, 0, 2, 3, 3, 3, 9, 1};
  d.op.weights = TensorRef{MemSpace::kL2, 1024, 2, 3, 3, 3, 9, 1};
  d.op.output = TensorRef{MemSpace::kL2, 4096, 2, 3, 3, 3, 9, 1};
  d.op.kernel_h = d.op.kernel_w = 3;
  d.op.pad_top = d.op.pad_left = d.op.pad_bottom = d.op.pad_right = 1;
  d.op.groups = 2;
  d.op.row_end = 3;
  d.op.ch_end = 2;
  return d;
}

TEST(LoadUnitTb, SharedPadColumnsReadTheStreamsRowPieces) {
  Bench shared("shared", true, 1, 1, shared_pad_tile);
  Bench own("own", true, 1, 1, shared_pad_tile);
  own.arch.l1.shared_pad = false;
  shared.delays = own.delays = {0};
  run_both(shared, own);
  const TileWork ws = compute_tile_work(shared.tiles[0].op, shared.arch.l1, shared.arch.neurons,
                                        shared.arch.l2.port_bytes_per_cycle);
  const TileWork wo = compute_tile_work(own.tiles[0].op, own.arch.l1, own.arch.neurons,
                                        own.arch.l2.port_bytes_per_cycle);
  EXPECT_TRUE(ws.streamed);
  EXPECT_TRUE(wo.streamed);
  EXPECT_EQ(ws.computed_positions, 11u);
  EXPECT_EQ(wo.computed_positions, 13u);
  EXPECT_EQ(shared.stats.get("load.l2_read_bytes"), 64u);
  EXPECT_EQ(own.stats.get("load.l2_read_bytes"), 66u);
  // 2 runs x 2 channels x 3 segments, one shifted write each, either way.
  EXPECT_EQ(shared.stats.get("line_buffer.shifted_writes"), 12u);
  EXPECT_EQ(own.stats.get("line_buffer.shifted_writes"), 12u);
}

}  // namespace
}  // namespace strider
