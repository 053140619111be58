// StoreUnit testbench: a source pushes one-channel result tiles of a 4x8x8 output (stored with
// a row pitch of 16 bytes inside a wider buffer) through a one-entry channel after seeded random
// gaps; a collector takes the retirements. The L2 bytes must be the tiles' rows at their planar
// places and nothing else; each tile's acceptance (the source's back-pressure) and retirement
// must follow a plain C++ model of the unit's timing.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <vector>

#include "core/contract/quant.h"
#include "model/l1/store_unit.h"
#include "model/l2/l2_sram.h"
#include "tests/model/unit_bench.h"

namespace strider {
namespace {

constexpr uint64_t kOut = 4096;

// Tile k: output channel k % 4 of a 4x8x8 tensor whose rows sit 16 bytes apart (planes 128).
Descriptor tile(uint32_t id) {
  Descriptor d;
  d.id = id;
  d.kind = DescKind::kOp;
  d.op.op = OpCode::kActivation;
  d.op.input = TensorRef{MemSpace::kL2, 0, 4, 8, 8, 8, 64, 1};
  d.op.output = TensorRef{MemSpace::kL2, kOut, 4, 8, 8, 16, 128, 1};
  d.op.row_end = 8;
  d.op.ch_begin = id % 4;
  d.op.ch_end = id % 4 + 1;
  return d;
}

// count tiles with seeded random gaps and neuron end cycles.
struct Stimulus {
  std::vector<Descriptor> tiles;
  std::vector<uint64_t> gaps, neuron_end;
};
Stimulus stimulus(size_t count, uint32_t seed) {
  Stimulus s;
  std::mt19937 rng(seed);
  for (uint32_t i = 0; i < count; ++i) {
    s.tiles.push_back(tile(i));
    s.gaps.push_back(rng() % 12);
    s.neuron_end.push_back(6 * i + rng() % 20);
  }
  return s;
}

struct Bench : UnitBench<TileToken> {
  L2Config cfg = tiny_l2();
  L2Sram l2{cfg, true, stats};
  std::vector<uint64_t> neuron_end;
  std::unique_ptr<StoreUnit> unit;

  Bench(sc_core::sc_module_name n, Stimulus s)
      : UnitBench(n, std::move(s.tiles), std::move(s.gaps)), neuron_end(std::move(s.neuron_end)) {
    unit = std::make_unique<StoreUnit>("store", clock, true, l2, in, retire, record, stats);
  }
  TileToken item(const Descriptor& d) override {
    TileToken t;
    t.desc = &d;
    t.work.output_bytes = t.work.valid_outputs = 64;
    t.neuron_end = neuron_end[d.id];
    for (int i = 0; i < 64; ++i) t.output.push_back(int8_t(d.id * 64 + i));
    return t;
  }
};

TEST(StoreUnitTb, StridedTilesUnderRandomBackPressure) {
  Bench b("bench", stimulus(16, 9));
  sc_core::sc_start();
  ASSERT_EQ(b.accepted.size(), b.descriptors.size());
  // Reference timing: the source writes tile k `gap` after tile k-1 was accepted, but the channel
  // has room only once the unit took tile k-1; the unit takes tile k when its previous store-port
  // transaction ended. A 64-byte tile holds the store port ceil(64 / 16) = 4 cycles (banks: 8
  // words over 4 banks, 2 cycles each), + 2 latency; it retires at max(that, neuron_end + 1 + 2).
  uint64_t accepted = 0, taken = 0, port_end = 0, held = 0;
  for (size_t k = 0; k < b.descriptors.size(); ++k) {
    held += taken > accepted + b.gaps[k];  // the channel was still full
    accepted = std::max(accepted + b.gaps[k], taken);  // taken = when tile k-1 was read
    taken = std::max(accepted, port_end);
    port_end = taken + 4 + 2;
    EXPECT_EQ(b.accepted[k], accepted) << "tile " << k;
    EXPECT_EQ(b.retired[k], std::max(port_end, b.neuron_end[k] + 3)) << "tile " << k;
  }
  EXPECT_GT(held, 0u);  // the back-pressure really held the source back
  // Functional: the last tile stored into each channel is there, rows 16 bytes apart, and the
  // padding columns 8..15 of every row were never written.
  std::vector<int8_t> got(512);
  b.l2.read(kOut, got.data(), got.size());
  for (uint32_t c = 0; c < 4; ++c) {
    const uint32_t last = 12 + c;  // tiles 12..15 wrote channels 0..3 last
    for (int y = 0; y < 8; ++y) {
      for (int x = 0; x < 16; ++x) {
        const int8_t want = x < 8 ? int8_t(last * 64 + y * 8 + x) : 0;
        ASSERT_EQ(got[c * 128 + y * 16 + x], want) << "c " << c << " y " << y << " x " << x;
      }
    }
  }
  EXPECT_EQ(b.stats.get("store.bytes"), 16u * 64u);
}

TEST(StoreUnitTb, SingleTileExactCycles) {
  Bench b("bench", stimulus(1, 1));
  b.gaps = {0};
  b.neuron_end = {10};
  sc_core::sc_start();
  // Taken at 0; store port 0..4, + 2 latency = 6; but the neurons' last result is out at 10:
  // retire at 10 + 1 + 2 = 13.
  EXPECT_EQ(b.retired[0], 13u);
  EXPECT_EQ(b.record.descriptors[0].l2_write_bytes, 64u);
}

// A conv tile (channel 1 of the 4x8x8 output) with a residual Add fused into its store path: the
// operand r sits compact (rows 8 bytes apart) at kResidual; out = relu(requantize(y x 3 + r x 5,
// 1, 3)).
constexpr uint64_t kResidual = 8192;
struct FusedBench : Bench {
  FusedBench(sc_core::sc_module_name n, Stimulus s) : Bench(n, std::move(s)) {
    for (Descriptor& d : descriptors) {
      d.op.op = OpCode::kConv;
      d.op.post = PostOp{PostOpKind::kAdd, TensorRef{MemSpace::kL2, kResidual, 4, 8, 8, 8, 64, 1},
                         3, 5, 3, PostAct::kRelu, -128, 127};
    }
    std::vector<int8_t> r(256);
    for (int i = 0; i < 256; ++i) r[i] = int8_t(i % 41 - 20);  // -20 .. 20
    l2.write(kResidual, r.data(), r.size());
  }
};

TEST(StoreUnitTb, FusedAddTileExactCycles) {
  Stimulus s = stimulus(2, 1);
  s.tiles.resize(1), s.gaps = {0}, s.neuron_end = {3};
  s.tiles[0].op.ch_begin = 1, s.tiles[0].op.ch_end = 2;
  FusedBench b("bench", std::move(s));
  sc_core::sc_start();
  // Taken at 0. The operand read first on the store port: 64 B at 16 B/cycle = 4 cycles (8 bank
  // words over 4 banks, 2 each, done by 2), port free at 4, data at 4 + 2 latency = 6. The write
  // then queues on the port: 4..8 (each bank's 2 words after its 2 read ones, done by 6 <= 8),
  // + 2 latency = 10. Neurons' last result at 3: 3 + 1 + 2 = 6 < 10, so it retires at 10 (the
  // same tile unfused: 0..4 + 2 = 6). The write's wait for the read is not a conflict stall.
  EXPECT_EQ(b.retired[0], 10u);
  EXPECT_EQ(b.record.descriptors[0].stall_l2_conflict, 0u);
  EXPECT_EQ(b.record.descriptors[0].l2_read_bytes, 64u);
  EXPECT_EQ(b.record.descriptors[0].l2_write_bytes, 64u);
  EXPECT_EQ(b.stats.get("store.post_op_read_bytes"), 64u);
  // Channel 1, element (y, x) = i: y_i = int8(i) (the bench's tile 0 output), r = r[64 + i].
  // E.g. i = 0: r = 64 % 41 - 20 = 3, 0 x 3 + 3 x 5 = 15, 15 / 8 = 1.875 -> 2; i = 30: r = 94 %
  // 41 - 20 = -8, 30 x 3 - 8 x 5 = 50 -> 6.25 -> 6; i = 1: r = 4, 3 + 20 = 23 -> 2.875 -> 3.
  std::vector<int8_t> got(128);
  b.l2.read(kOut + 128, got.data(), got.size());
  EXPECT_EQ(got[0], 2);
  EXPECT_EQ(got[1], 3);
  EXPECT_EQ(got[3 * 16 + 6], 6);  // i = 30: row 3, column 6
  for (int i = 0; i < 64; ++i) {
    const int8_t r = int8_t((64 + i) % 41 - 20);
    const int8_t want = activate(requantize(i * 3 + r * 5, 1, 3), PostAct::kRelu, -128, 127);
    ASSERT_EQ(got[(i / 8) * 16 + i % 8], want) << "element " << i;
  }
}

// A conv tile (channel 1 of the 4x8x8 result, y(r, c) = 8 r + c) with a 3x3 / 2 max-pool (pads
// 1) fused into its store path: the 4x4 pooled plane is written compact at kPooled.
constexpr uint64_t kPooled = 12288;
struct PooledBench : Bench {
  PooledBench(sc_core::sc_module_name n, Stimulus s) : Bench(n, std::move(s)) {
    for (Descriptor& d : descriptors) {
      d.op.op = OpCode::kConv;
      d.op.pool.kernel_h = d.op.pool.kernel_w = 3;
      d.op.pool.stride_h = d.op.pool.stride_w = 2;
      d.op.pool.pad_top = d.op.pool.pad_left = d.op.pool.pad_bottom = d.op.pool.pad_right = 1;
      d.op.pool.output = TensorRef{MemSpace::kL2, kPooled, 4, 4, 4, 4, 16, 1};
    }
  }
};

TEST(StoreUnitTb, FusedMaxPoolTileExactCycles) {
  Stimulus s = stimulus(2, 1);
  s.tiles.resize(1), s.gaps = {0}, s.neuron_end = {10};
  s.tiles[0].op.ch_begin = 1, s.tiles[0].op.ch_end = 2;
  PooledBench b("bench", std::move(s));
  sc_core::sc_start();
  // Taken at 0; the pooled plane, 16 B at kPooled + 16, holds the port 16 / 16 = 1 cycle (2 bank
  // words on 2 banks), + 2 latency = 3. The neurons' last result at 10, the last window's
  // compare one cycle later: 10 + 1 + 1 + 2 = 14 (unfused: 13, SingleTileExactCycles).
  EXPECT_EQ(b.retired[0], 14u);
  EXPECT_EQ(b.record.descriptors[0].l2_write_bytes, 16u);  // 64 conv results, 16 pooled
  EXPECT_EQ(b.stats.get("store.bytes"), 16u);
  EXPECT_EQ(b.stats.get("store.pool_tiles"), 1u);
  // Window rows per pooled row (clipped to 0..7): [0, 2), [1, 4), [3, 6), [5, 8): 2 + 3 + 3 + 3 =
  // 11, columns alike. Compares: sum over windows of (rows x cols - 1) = 11 x 11 - 16 = 105.
  // Row-buffer accesses: per pooled element 2 rows - 1: 4 columns x (3 + 5 + 5 + 5) = 72.
  EXPECT_EQ(b.stats.get("store.pool_compares"), 105u);
  EXPECT_EQ(b.stats.get("store.pool_row_buffer_accesses"), 72u);
  // Each window's maximum is its last row's last column: pooled (py, px) = 8 min(2 py + 1, 7) +
  // min(2 px + 1, 7), e.g. (0, 0) = 9, (3, 3) = 63; channel 0 and the conv's own output untouched.
  std::vector<int8_t> got(32), conv(256);
  b.l2.read(kPooled, got.data(), got.size());
  b.l2.read(kOut, conv.data(), conv.size());
  EXPECT_EQ(got[16], 9);
  EXPECT_EQ(got[31], 63);
  for (uint32_t py = 0; py < 4; ++py) {
    for (uint32_t px = 0; px < 4; ++px) {
      ASSERT_EQ(got[py * 4 + px], 0) << py << " " << px;
      ASSERT_EQ(got[16 + py * 4 + px], int8_t(8 * std::min(2 * py + 1, 7u) + std::min(2 * px + 1, 7u)))
          << py << " " << px;
    }
  }
  for (int8_t v : conv) ASSERT_EQ(v, 0);
}

// A conv tile (channel 1 of the 4x8x8 result, y_i = int8(i) for i = 0..63: the bench's tile 0)
// with a global average pool fused into its store path: the pooled 4x1x1 output at kGap, the
// int32 partial sums (4x1x1, 4 bytes each) at kPartial. requantize(sum, 1, 6): sum / 64 rounded
// half away from zero, then ReLU.
constexpr uint64_t kGap = 16384, kPartial = 20480;
struct GapBench : Bench {
  GapBench(sc_core::sc_module_name n, Stimulus s, uint8_t flags) : Bench(n, std::move(s)) {
    for (Descriptor& d : descriptors) {
      d.op.op = OpCode::kConv;
      FusedGap& g = d.op.gap;
      g.output = TensorRef{MemSpace::kL2, kGap, 4, 1, 1, 1, 1, 1};
      if ((flags & (FusedGap::kFirst | FusedGap::kLast)) != (FusedGap::kFirst | FusedGap::kLast)) {
        g.partial = TensorRef{MemSpace::kL2, kPartial, 4, 1, 1, 4, 4, 4};
      }
      g.requant_multiplier = 1, g.requant_shift = 6;
      g.act = PostAct::kRelu;
      g.flags = flags;
    }
    // Earlier bands' sums of channel 1: 1,000 (little-endian int32 at kPartial + 4).
    const int8_t earlier[4] = {int8_t(0xe8), 0x03, 0, 0};
    l2.write(kPartial + 4, earlier, 4);
  }
  // The tile's rows of its channel: 8 results per row, the bench's bytes 0, 1, ...
  TileToken item(const Descriptor& d) override {
    TileToken t = Bench::item(d);
    t.work.output_bytes = t.work.valid_outputs = 8 * (d.op.row_end - d.op.row_begin);
    t.output.resize(t.work.output_bytes);
    return t;
  }
};

Stimulus one_gap_tile() {
  Stimulus s = stimulus(2, 1);
  s.tiles.resize(1), s.gaps = {0}, s.neuron_end = {3};
  s.tiles[0].op.ch_begin = 1, s.tiles[0].op.ch_end = 2;
  return s;
}

int32_t int32_at(const L2Sram& l2, uint64_t addr) {
  uint8_t b[4];
  l2.read(addr, reinterpret_cast<int8_t*>(b), 4);
  return int32_t(uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 |
                 uint32_t(b[3]) << 24);
}

TEST(StoreUnitTb, FusedGlobalPoolWholeHeightTileExactCycles) {
  GapBench b("bench", one_gap_tile(), FusedGap::kFirst | FusedGap::kLast);
  sc_core::sc_start();
  // Taken at 0: the result's 64 B hold the store port 0..4 (16 B/cycle), then the pooled byte
  // queues 4..5, + 2 latency = 7. Neurons' last result at 3, the requantisation one cycle after:
  // 3 + 1 + 1 + 2 = 7. Retires at 7 (unfused: 6, FusedAddTileExactCycles' note).
  EXPECT_EQ(b.retired[0], 7u);
  EXPECT_EQ(b.record.descriptors[0].l2_write_bytes, 65u);  // 64 results + 1 pooled
  EXPECT_EQ(b.record.descriptors[0].l2_read_bytes, 0u);    // the whole height: no partial sums
  EXPECT_EQ(b.stats.get("store.gap_tiles"), 1u);
  EXPECT_EQ(b.stats.get("store.gap_partial_bytes"), 0u);
  // Sum 0 + 1 + ... + 63 = 2,016; 2,016 / 64 = 31.5 -> 32. The result itself is stored too.
  int8_t pooled[4];
  b.l2.read(kGap, pooled, 4);
  EXPECT_EQ(pooled[0], 0);
  EXPECT_EQ(pooled[1], 32);
  int8_t y[8];
  b.l2.read(kOut + 128 + 16, y, 8);  // channel 1, row 1: 8..15
  EXPECT_EQ(y[0], 8);
  EXPECT_EQ(y[7], 15);
}

TEST(StoreUnitTb, FusedGlobalPoolMiddleBandExactCycles) {
  Stimulus s = one_gap_tile();
  s.tiles[0].op.row_begin = 2, s.tiles[0].op.row_end = 6;  // rows 2..5 of 8: neither end
  GapBench b("bench", std::move(s), FusedGap::kResultNotStored);
  sc_core::sc_start();
  // Taken at 0: the partial sums' read (4 B) holds the port 0..1; the result is never stored;
  // the sums' write-back (4 B) queues 1..2, + 2 latency = 4. Neurons' last result at 3 (no
  // requantisation in a middle band): 3 + 1 + 2 = 6. Retires at 6.
  EXPECT_EQ(b.retired[0], 6u);
  EXPECT_EQ(b.record.descriptors[0].l2_read_bytes, 4u);
  EXPECT_EQ(b.record.descriptors[0].l2_write_bytes, 4u);
  EXPECT_EQ(b.stats.get("store.gap_partial_bytes"), 8u);
  // The tile's 32 results (bench bytes 0..31) sum to 496: 1,000 + 496 = 1,496; no pooled byte,
  // no result written.
  EXPECT_EQ(int32_at(b.l2, kPartial + 4), 1496);
  int8_t pooled[4], y[8];
  b.l2.read(kGap, pooled, 4);
  b.l2.read(kOut + 128 + 2 * 16, y, 8);
  for (int8_t v : pooled) EXPECT_EQ(v, 0);
  for (int8_t v : y) EXPECT_EQ(v, 0);
}

TEST(StoreUnitTb, FusedGlobalPoolLastBandExactCycles) {
  Stimulus s = one_gap_tile();
  s.tiles[0].op.row_begin = 4;  // rows 4..7 of 8: the last band
  GapBench b("bench", std::move(s), FusedGap::kLast);
  sc_core::sc_start();
  // Taken at 0: the partial sums' read 0..1, the result's 32 B 1..3, the pooled byte 3..4,
  // + 2 latency = 6; neurons' last result at 3, the requantisation one cycle after: 3 + 1 + 1 +
  // 2 = 7. Retires at 7.
  EXPECT_EQ(b.retired[0], 7u);
  EXPECT_EQ(b.record.descriptors[0].l2_read_bytes, 4u);
  EXPECT_EQ(b.record.descriptors[0].l2_write_bytes, 33u);
  // (1,000 + 496) / 64 = 23.375 -> 23.
  int8_t pooled[4];
  b.l2.read(kGap, pooled, 4);
  EXPECT_EQ(pooled[1], 23);
  EXPECT_EQ(int32_at(b.l2, kPartial + 4), 1000);  // the last band writes no partial sums back
}

}  // namespace
}  // namespace strider
