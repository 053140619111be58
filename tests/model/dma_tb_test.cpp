// Dma testbench: a source pushes move descriptors through a one-entry channel after seeded random
// gaps (the DMA's back-pressure is its input: it takes a move only when a channel is free); a
// collector takes the retirements. A plain C++ model of the DMA (channel choice, setup, source
// and destination sides on copies of the memory models, end = both sides done) predicts every
// acceptance, start and retirement, and a byte-array model of the 2-D copies predicts memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <vector>

#include "model/dma/dma.h"
#include "model/dram/dram.h"
#include "model/l2/l2_sram.h"
#include "tests/model/unit_bench.h"

namespace strider {
namespace {

ArchConfig tiny() {  // configs/arch/tiny.yaml
  ArchConfig a;
  a.dma.channels = 1;
  a.dma.burst_bytes = 16;
  a.dma.setup_cycles = 4;
  a.dma.row_setup_cycles = 1;
  a.dram.model = "simple";  // the flat pipe the hand arithmetic assumes
  a.dram.bytes_per_cycle = 8;
  a.dram.latency_cycles = 20;
  a.l2 = tiny_l2();
  return a;
}

Descriptor move(uint32_t id, MemSpace src, uint64_t src_addr, MemSpace dst, uint64_t dst_addr,
                uint32_t rows, uint32_t row_bytes, uint32_t src_stride, uint32_t dst_stride) {
  Descriptor d;
  d.id = id;
  d.kind = DescKind::kMove;
  d.move = MoveDesc{src, dst, src_addr, dst_addr, rows, row_bytes, src_stride, dst_stride};
  return d;
}

struct Bench : UnitBench<const Descriptor*> {
  ArchConfig arch;
  std::unique_ptr<Dram> dram;
  std::unique_ptr<L2Sram> l2;
  std::unique_ptr<Dma> dma;

  Bench(sc_core::sc_module_name n, const ArchConfig& a, std::vector<Descriptor> m,
        std::vector<uint64_t> g)
      : UnitBench(n, std::move(m), std::move(g)), arch(a) {
    dram = std::make_unique<Dram>(arch.dram, 1000.0, stats);
    l2 = std::make_unique<L2Sram>(arch.l2, true, stats);
    dma = std::make_unique<Dma>("dma", arch.dma, clock, true, *dram, *l2, in, retire, record,
                                stats);
  }
  const Descriptor* item(const Descriptor& d) override { return &d; }
};

// Byte-array model of both memories: the 2-D copies in descriptor order.
using Space = std::map<uint64_t, int8_t>;
// Every byte the models wrote holds the same value in the bench's memories.
void expect_memories(Bench& b, const Space& dram, const Space& l2) {
  for (const auto& [addr, v] : l2) {
    int8_t got;
    b.l2->read(addr, &got, 1);
    ASSERT_EQ(got, v) << "L2 byte " << addr;
  }
  for (const auto& [addr, v] : dram) {
    int8_t got;
    b.dram->read(addr, &got, 1);
    ASSERT_EQ(got, v) << "DRAM byte " << addr;
  }
}
void copy_2d(const MoveDesc& m, Space& dram, Space& l2) {
  Space& src = m.src_space == MemSpace::kDram ? dram : l2;
  Space& dst = m.dst_space == MemSpace::kDram ? dram : l2;
  std::vector<int8_t> row(m.row_bytes);
  for (uint32_t r = 0; r < m.rows; ++r) {  // a row is read whole, then written
    for (uint32_t i = 0; i < m.row_bytes; ++i) {
      const auto it = src.find(m.src_addr + uint64_t(r) * m.src_stride + i);
      row[i] = it == src.end() ? 0 : it->second;
    }
    for (uint32_t i = 0; i < m.row_bytes; ++i) dst[m.dst_addr + uint64_t(r) * m.dst_stride + i] = row[i];
  }
}

TEST(DmaTb, TwoDimensionalMovesExactCycles) {
  std::vector<Descriptor> m = {
      move(0, MemSpace::kDram, 0x1000, MemSpace::kL2, 256, 4, 24, 40, 32),
      move(1, MemSpace::kL2, 256, MemSpace::kL2, 1024, 1, 96, 0, 0),
      move(2, MemSpace::kL2, 1024, MemSpace::kDram, 0x8000, 2, 48, 48, 64)};
  Bench b("bench", tiny(), m, {0, 0, 0});
  std::vector<int8_t> src(4 * 40);
  for (size_t i = 0; i < src.size(); ++i) src[i] = int8_t(i * 7 + 3);
  b.dram->write(0x1000, src.data(), src.size());
  sc_core::sc_start();
  // Move 0 at 0: setup 4 (the 3 extra rows' addresses, 1 cycle each, out by 4 + 3 = 7 while
  // the data streams); DRAM 4 rows x ceil(24/16) bursts x 16 = 128 bus bytes = 16 cycles ->
  // 4 + 20 + 16 = 40; L2 96 B = 6 port cycles + 2 -> 12. Retires at max(40, 12, 7) = 40.
  // Move 1 (taken at 0) is set up on the one channel once move 0's setup is done, 4..8, while
  // move 0 transfers; its transfer starts when move 0 ends: t0 40; L2 read 40..46 (+2 = 48), L2
  // write queues on the DMA port 46..52 (+2) -> 54. Move 2 (taken at 40, when move 1 got the
  // channel) is set up 40..44; t0 54 (its second row's address by 55); L2 read 54..60 (+2) ->
  // 62; DRAM 2 x 48 B = 96 bus bytes = 12 cycles -> 54 + 20 + 12 = 86.
  // (With the row addresses before the data and each setup after the previous move: 43, 61, 98.)
  EXPECT_EQ(b.retired, (std::vector<uint64_t>{40, 54, 86}));
  EXPECT_EQ(b.record.descriptors[1].start, 40u);  // it took the channel when move 0 ended
  EXPECT_EQ(b.record.descriptors[2].dram_write_bytes, 96u);
  // Functional: row r of the DRAM source (40 bytes apart) lands in L2 32 bytes apart (the 8-byte
  // gaps stay zero), the 96 bytes from 256 are copied to 1024 and come back to DRAM as 2 rows of
  // 48 bytes 64 apart.
  std::vector<int8_t> back(2 * 64);
  b.dram->read(0x8000, back.data(), back.size());
  for (int r = 0; r < 2; ++r) {
    for (int i = 0; i < 64; ++i) {
      const int flat = r * 48 + i;  // byte of the L2 copy at 1024
      const int8_t want = i >= 48 ? 0 : flat % 32 < 24 ? src[(flat / 32) * 40 + flat % 32] : 0;
      EXPECT_EQ(back[r * 64 + i], want) << r << "," << i;
    }
  }
}

Descriptor stepped(uint32_t id, uint64_t src_addr, uint64_t dst_addr, uint32_t rows,
                   uint32_t row_bytes, uint32_t src_stride, uint32_t dst_stride) {
  Descriptor d = move(id, MemSpace::kL2, src_addr, MemSpace::kL2, dst_addr, rows, row_bytes,
                      src_stride, dst_stride);
  d.move.dst_step = 2;
  return d;
}

// A nearest x2 upsample of a 2 x 4 plane (L2 0) into 4 x 8 (L2 256) as the importer cuts it
// (onnx_resample.h, strided): per row phase py and column phase px one move of the 2 input
// rows, each row's 4 bytes read contiguously and written to every 2nd byte of output row
// 2 y + py (dst 256 + 8 py + px, rows 16 apart, dst_step 2).
TEST(DmaTb, RepeatedGatherMoveWithADstStepExactCycles) {
  std::vector<Descriptor> m = {stepped(0, 0, 256, 2, 4, 4, 16), stepped(1, 0, 257, 2, 4, 4, 16),
                               stepped(2, 0, 264, 2, 4, 4, 16), stepped(3, 0, 265, 2, 4, 4, 16)};
  Bench b("bench", tiny(), m, {0, 0, 0, 0});
  std::vector<int8_t> src(8);
  for (size_t i = 0; i < src.size(); ++i) src[i] = int8_t(i * 5 + 1);
  b.l2->write(0, src.data(), src.size());
  sc_core::sc_start();
  // tiny: one channel, setup 4 (the extra row's address out 1 cycle later, while the first
  // streams); L2 4 banks x 8 B, 16 B/cycle, latency 2.
  // Move 0 at 0, t0 4: the source rows are back to back, 8 B = 1 port cycle (bank 0) 4..5, end
  // 5 + 2 = 7; the destination is 2 pieces of span (4 - 1) x 2 + 1 = 7 B, 16 apart: words 32
  // (bank 0) and 34 (bank 2), 2 words x 8 B = 1 port cycle, after the read on the DMA port
  // 5..6, end 8. Retires at 8 = max(7, 8, 4 + 1). Moves 1-3 alike, each set up while the one
  // before transfers (move 1 4..8, move 2 8..12, ...), so each starts its transfer when the
  // previous ends and takes 4 (read, write, latency): 12, 16, 20 (the port and banks are free
  // again by their t0). The phased cut instead moved 1 element per row: 8 moves (one per output
  // row and column phase) of 4 rows.
  EXPECT_EQ(b.retired, (std::vector<uint64_t>{8, 12, 16, 20}));
  EXPECT_EQ(b.record.descriptors[3].l2_write_bytes, 8u);  // payload: 2 rows x 4 B
  std::vector<int8_t> out(32);
  b.l2->read(256, out.data(), out.size());
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 8; ++x) EXPECT_EQ(out[size_t(y * 8 + x)], src[size_t((y / 2) * 4 + x / 2)]);
  }
}

// A transposed conv's interleave (stride 2, 1 output channel): the stacked sub-convolutions'
// phase (a, b) is channel 2 a + b, a 2 x 8 plane at L2 16 (2 a + b); output (2 q + a, 2 r + b)
// of the 4 x 16 output at L2 256 is its element (q, r). One move per phase: 2 rows of 8 bytes,
// read 8 apart (contiguous), written to every 2nd byte from 256 + 16 a + b, rows 32 apart.
TEST(DmaTb, InterleaveMovesWithADstStepExactCycles) {
  std::vector<Descriptor> m = {stepped(0, 0, 256, 2, 8, 8, 32), stepped(1, 16, 257, 2, 8, 8, 32),
                               stepped(2, 32, 272, 2, 8, 8, 32), stepped(3, 48, 273, 2, 8, 8, 32)};
  Bench b("bench", tiny(), m, {0, 0, 0, 0});
  std::vector<int8_t> src(64);
  for (size_t i = 0; i < src.size(); ++i) src[i] = int8_t(i * 3 - 90);
  b.l2->write(0, src.data(), src.size());
  sc_core::sc_start();
  // Move 0 at 0, t0 = 0 + 4 = 4: the 16 source bytes are one range, words 0-1 (banks 0, 1),
  // 1 port cycle 4..5, end 7; the destination is 2 pieces of span 7 x 2 + 1 = 15 B, 32 apart:
  // words 32-33 and 36-37 (banks 0, 1, 0, 1), 4 words x 8 B = 2 port cycles 5..7 (banks 0 and 1
  // 2 words each, free at 5), end 9 (the second row's address out at 5). Move 1, set up 4..8
  // while move 0 transfers, t0 9: read words 2-3 9..10 (end 12), write words 32-33, 36-37
  // 10..12, end 14. Moves 2 and 3 (destination words 34-35, 38-39), set up 9..13 and 14..18:
  // 19 and 24. The phased cut: one move per output row and column phase, 8 of 8 rows x 1 byte.
  EXPECT_EQ(b.retired, (std::vector<uint64_t>{9, 14, 19, 24}));
  std::vector<int8_t> out(64);
  b.l2->read(256, out.data(), out.size());
  for (int y = 0; y < 4; ++y) {
    for (int x = 0; x < 16; ++x) {
      const int phase = (y % 2) * 2 + x % 2;
      EXPECT_EQ(out[size_t(y * 16 + x)], src[size_t(phase * 16 + (y / 2) * 8 + x / 2)])
          << y << "," << x;
    }
  }
}

// The L2 side of a move: one range when its rows are back to back, else one piece per row at
// the row stride (model/l2 charges the pieces' banks).
Access l2_side(L2Sram& l2, const MoveDesc& mv, uint64_t addr, uint32_t stride, uint64_t t0) {
  if (mv.rows <= 1 || stride == mv.row_bytes) return l2.access(L2Sram::kDma, addr, mv.bytes(), t0);
  AccessPattern p;
  p.addr = addr, p.bytes = mv.row_bytes, p.count = mv.rows, p.stride = stride;
  return l2.access_pattern(L2Sram::kDma, p, t0);
}

TEST(DmaTb, RandomMovesOnTwoChannelsUnderBackPressure) {
  ArchConfig a = tiny();
  a.dma.channels = 2;
  std::mt19937 rng(21);
  std::vector<Descriptor> m;
  std::vector<uint64_t> gaps;
  for (uint32_t i = 0; i < 24; ++i) {
    const MemSpace s = rng() % 3 == 0 ? MemSpace::kL2 : MemSpace::kDram;
    const MemSpace d = s == MemSpace::kDram || rng() % 2 ? MemSpace::kL2 : MemSpace::kDram;
    const uint32_t rows = 1 + rng() % 4, row_bytes = 1 + rng() % 100;
    const uint64_t sa = (s == MemSpace::kDram ? 0x10000 : 0) + rng() % 8192;
    const uint64_t da = (d == MemSpace::kDram ? 0x20000 : 0) + rng() % 8192;
    m.push_back(move(i, s, sa, d, da, rows, row_bytes, row_bytes + rng() % 50, row_bytes + rng() % 50));
    gaps.push_back(rng() % 20);
  }
  Bench b("bench", a, m, gaps);
  Space dram_model, l2_model;
  std::vector<int8_t> seed_bytes(16384);
  for (size_t i = 0; i < seed_bytes.size(); ++i) {
    seed_bytes[i] = int8_t(rng());
    dram_model[0x10000 + i] = seed_bytes[i];
  }
  b.dram->write(0x10000, seed_bytes.data(), seed_bytes.size());
  sc_core::sc_start();
  // Reference: the DMA takes move k when it is back from giving move k-1 its channel; the source
  // could write it `gap` after its previous write, once the channel had room (move k-1 taken).
  // The move gets the channel that frees first; its setup starts when it is taken and the
  // channel's previous setup is done, its sides when its setup is and the channel's previous
  // move has ended, and it ends when both sides have and its last row's address is out (1 cycle
  // per extra row after t0).
  StatRegistry ref_stats;
  Dram ref_dram(a.dram, 1000.0, ref_stats);
  L2Sram ref_l2(a.l2, false, ref_stats);
  std::vector<uint64_t> channel_free(2, 0), setup_free(2, 0);
  uint64_t accepted = 0, taken = 0, prev_assigned = 0, held = 0, waited = 0;
  for (const Descriptor& d : m) {
    held += taken > accepted + gaps[d.id];
    accepted = std::max(accepted + gaps[d.id], taken);
    taken = std::max(accepted, prev_assigned);
    auto ch = std::min_element(channel_free.begin(), channel_free.end());
    const size_t c = size_t(ch - channel_free.begin());
    const uint64_t assigned = std::max(taken, *ch);
    waited += assigned > taken;
    const uint64_t start = std::max(taken, setup_free[c]);
    const MoveDesc& mv = d.move;
    const uint64_t t0 = std::max(start + 4, assigned);
    setup_free[c] = t0;
    auto side = [&](MemSpace s, uint64_t addr, bool write) {
      return s == MemSpace::kDram
                 ? ref_dram.access(write ? Dram::kWrite : Dram::kRead, addr,
                                   Dma::dram_bus_bytes(mv, 16, write), t0)
                 : l2_side(ref_l2, mv, addr, write ? mv.dst_stride : mv.src_stride, t0);
    };
    const Access src = side(mv.src_space, mv.src_addr, false);
    const Access dst = side(mv.dst_space, mv.dst_addr, true);
    *ch = std::max({src.end, dst.end, t0 + (mv.rows - 1)});
    prev_assigned = assigned;
    EXPECT_EQ(b.accepted[d.id], accepted) << "move " << d.id;
    EXPECT_EQ(b.record.descriptors[d.id].start, assigned) << "move " << d.id;
    EXPECT_EQ(b.record.descriptors[d.id].channel, ch - channel_free.begin()) << "move " << d.id;
    EXPECT_EQ(b.retired[d.id], *ch) << "move " << d.id;
    copy_2d(mv, dram_model, l2_model);
  }
  EXPECT_GT(held, 0u);    // the source was held back by the one-entry channel
  EXPECT_GT(waited, 0u);  // and moves waited for a free channel
  expect_memories(b, dram_model, l2_model);
}

Descriptor background(Descriptor d) {
  d.move.background = true;
  return d;
}

// One channel: demand move 0, background move 1, demand move 2, all written at 0. tiny: setup 4;
// the flat DRAM pipe 8 B per cycle, first data after 20; L2 16 B per cycle, latency 2. Each move
// is 64 B DRAM -> L2: DRAM 64 / 8 = 8 bus cycles, L2 4 port cycles.
std::vector<Descriptor> one_channel_moves() {
  return {move(0, MemSpace::kDram, 0x1000, MemSpace::kL2, 0, 1, 64, 0, 0),
          background(move(1, MemSpace::kDram, 0x2000, MemSpace::kL2, 1024, 1, 64, 0, 0)),
          move(2, MemSpace::kDram, 0x3000, MemSpace::kL2, 2048, 1, 64, 0, 0)};
}

TEST(DmaTb, BackgroundMoveWaitsBehindALaterDemandMoveOnOneChannel) {
  Bench b("bench", tiny(), one_channel_moves(), {0, 0, 0});
  sc_core::sc_start();
  // Move 0 at 0: t0 4, DRAM 4 + 20 + 8 = 32 (bus free at 12), L2 4..8 + 2 = 10: retires at 32.
  // Move 1 (background) joins the background queue at 0 and the input is read on: move 2
  // (demand) waits for the channel. At 32 move 2 takes it first (set up 4..8 behind move 0):
  // t0 32, DRAM 32 + 28 = 60. Move 1 gets the idle channel at 60, programmed from then:
  // t0 64, DRAM 64 + 28 = 92.
  EXPECT_EQ(b.retired, (std::vector<uint64_t>{32, 92, 60}));
  EXPECT_EQ(b.record.descriptors[2].start, 32u);
  EXPECT_EQ(b.record.descriptors[1].start, 60u);
  EXPECT_EQ(b.stats.get("dma.background_moves"), 1u);
}

// The same list with dma.background_priority false: every move in list order, as before.
TEST(DmaTb, BackgroundPriorityOffKeepsListOrderOnOneChannel) {
  ArchConfig a = tiny();
  a.dma.background_priority = false;
  Bench b("bench", a, one_channel_moves(), {0, 0, 0});
  sc_core::sc_start();
  // Move 0 retires at 32 as above. Move 1 waits for the channel (the input stalls behind it),
  // set up 4..8: t0 32, DRAM 32 + 28 = 60. Move 2 is read at 32 and set up 32..36: t0 60,
  // DRAM 60 + 28 = 88.
  EXPECT_EQ(b.retired, (std::vector<uint64_t>{32, 60, 88}));
  EXPECT_EQ(b.stats.get("dma.background_moves"), 0u);
}

// Two channels: background moves 0 (256 B) and 1 (64 B), a demand L2 -> L2 move 2 (16 B), a
// background move 3 (64 B), all written at 0.
std::vector<Descriptor> two_channel_moves() {
  return {background(move(0, MemSpace::kDram, 0x1000, MemSpace::kL2, 0, 1, 256, 0, 0)),
          background(move(1, MemSpace::kDram, 0x2000, MemSpace::kL2, 1024, 1, 64, 0, 0)),
          move(2, MemSpace::kL2, 4096, MemSpace::kL2, 8192, 1, 16, 0, 0),
          background(move(3, MemSpace::kDram, 0x4000, MemSpace::kL2, 3072, 1, 64, 0, 0))};
}

TEST(DmaTb, BackgroundMovesKeepOneChannelForDemand) {
  ArchConfig a = tiny();
  a.dma.channels = 2;
  Bench b("bench", a, two_channel_moves(), {0, 0, 0, 0});
  sc_core::sc_start();
  // Move 0 takes channel 0 at 0 (no demand move waits): t0 4, DRAM 256 / 8 = 32 bus cycles
  // 4..36, end 4 + 20 + 32 = 56; L2 16 port cycles 4..20. Move 1 queues: one channel of two
  // already holds a background move. Move 2 (demand) takes the free channel 1 at 0: t0 4, its
  // L2 read behind move 0's write on the DMA port, 20..21 (+2 = 23), its write 21..22 (+2):
  // retires at 24. Channel 1 is free from 24 but move 1 may not take it while move 0 holds
  // channel 0; at 56 it takes channel 1 (freed first, at 24), programmed from 56: t0 60, DRAM
  // 60 + 20 + 8 = 88. Move 3, the younger, waits for move 1 to end and takes channel 0 (freed at
  // 56) at 88: t0 92, DRAM 92 + 28 = 120.
  EXPECT_EQ(b.retired, (std::vector<uint64_t>{56, 88, 24, 120}));
  EXPECT_EQ(b.record.descriptors[0].channel, 0);
  EXPECT_EQ(b.record.descriptors[2].channel, 1);
  EXPECT_EQ(b.record.descriptors[2].start, 0u);
  EXPECT_EQ(b.record.descriptors[1].channel, 1);
  EXPECT_EQ(b.record.descriptors[1].start, 56u);
  EXPECT_EQ(b.record.descriptors[3].channel, 0);
  EXPECT_EQ(b.record.descriptors[3].start, 88u);
  EXPECT_EQ(b.stats.get("dma.background_moves"), 3u);
}

TEST(DmaTb, BackgroundPriorityOffKeepsListOrderOnTwoChannels) {
  ArchConfig a = tiny();
  a.dma.channels = 2;
  a.dma.background_priority = false;
  Bench b("bench", a, two_channel_moves(), {0, 0, 0, 0});
  sc_core::sc_start();
  // Move 0 as above (56). Move 1 takes channel 1 at 0: t0 4, L2 behind move 0's 20..24 (+2),
  // DRAM behind move 0's bus 36..44, end 64. Move 2 waits (input stalled) for channel 0 at 56,
  // set up 4..8: t0 56, L2 read 56..57, write 57..58 (+2): 60. Move 3, read at 56, takes channel
  // 0 again at 60 (set up 56..60): t0 60, DRAM 60 + 28 = 88.
  EXPECT_EQ(b.retired, (std::vector<uint64_t>{56, 64, 60, 88}));
  EXPECT_EQ(b.record.descriptors[2].start, 56u);
}

// Random lists on two channels, half the moves background (DRAM -> L2), every destination a
// region of its own and no source written: every move retires with its bytes copied, no two
// background moves ever hold the channels at once (one stays free for demand), and background
// moves start oldest first.
TEST(DmaTb, RandomBackgroundMovesKeepOneChannelForDemand) {
  ArchConfig a = tiny();
  a.dma.channels = 2;
  std::mt19937 rng(33);
  std::vector<Descriptor> m;
  std::vector<uint64_t> gaps;
  for (uint32_t i = 0; i < 32; ++i) {
    const bool bg = rng() % 2 == 0;
    const MemSpace s = bg || rng() % 3 != 0 ? MemSpace::kDram : MemSpace::kL2;
    const MemSpace d = bg || s == MemSpace::kDram || rng() % 2 ? MemSpace::kL2 : MemSpace::kDram;
    const uint32_t rows = 1 + rng() % 4, row_bytes = 1 + rng() % 100;
    const uint64_t sa = (s == MemSpace::kDram ? 0x10000 : 40960) + rng() % 8192;
    const uint64_t da = (d == MemSpace::kDram ? 0x20000 : 0) + uint64_t(i) * 1024;
    Descriptor x = move(i, s, sa, d, da, rows, row_bytes, row_bytes + rng() % 50, row_bytes + 50);
    x.move.background = bg;
    m.push_back(x);
    gaps.push_back(rng() % 30);
  }
  Bench b("bench", a, m, gaps);
  std::vector<int8_t> seed_bytes(16384);
  for (size_t i = 0; i < seed_bytes.size(); ++i) seed_bytes[i] = int8_t(rng());
  b.dram->write(0x10000, seed_bytes.data(), seed_bytes.size());
  b.l2->write(40960, seed_bytes.data(), 8192 + 512);
  Space dram_model, l2_model;
  for (size_t i = 0; i < seed_bytes.size(); ++i) dram_model[0x10000 + i] = seed_bytes[i];
  for (size_t i = 0; i < 8192 + 512; ++i) l2_model[40960 + i] = seed_bytes[i];
  sc_core::sc_start();
  uint64_t background = 0, last_start = 0;
  for (const Descriptor& x : m) {
    ASSERT_GT(b.retired[x.id], 0u) << "move " << x.id;
    copy_2d(x.move, dram_model, l2_model);  // (regions of their own: any order)
    if (!x.move.background) continue;
    ++background;
    const DescriptorRecord& r = b.record.descriptors[x.id];
    EXPECT_GE(r.start, last_start) << "move " << x.id;  // oldest first
    last_start = r.start;
    for (const Descriptor& y : m) {
      if (y.id == x.id || !y.move.background) continue;
      const DescriptorRecord& o = b.record.descriptors[y.id];
      EXPECT_TRUE(b.retired[x.id] <= o.start || b.retired[y.id] <= r.start)
          << "moves " << x.id << " and " << y.id << " overlap";
    }
  }
  EXPECT_EQ(b.stats.get("dma.background_moves"), background);
  EXPECT_GT(background, 10u);
  expect_memories(b, dram_model, l2_model);
}

}  // namespace
}  // namespace strider
