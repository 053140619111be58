// Depthwise fused with its producer (issue 30; planner/lower/depthwise_fusion.cpp): an expand 1x1
// conv e (8 -> 32 channels, 32 x 32) and the depthwise 3x3 / 2 d reading its output T, in a 32
// KiB L2 (the seed otherwise, with the flat DRAM pipe: 16 B per bus cycle, 100 cycles latency,
// DMA setup 8): T (32 KiB) cannot stay in L2. Fused, e and d run interleaved in row bands through
// the in-band slots and no byte of T goes to or comes from DRAM; unfused, e spills T and d fills
// it back band by band.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "planner/import/network_loader.h"
#include "planner/lower/legalise.h"
#include "planner/lower/lowering.h"
#include "tests/e2e/child_run.h"
#include "tests/e2e/list_run.h"

namespace strider {
namespace {

const std::string kNet = std::string(STRIDER_SOURCE_DIR) + "/tests/e2e/data/expand_dw.yaml";

ArchConfig small_l2(bool fuse) {
  ArchConfig arch;
  arch.dram.model = "simple";
  arch.l2.size_bytes = 32768;
  arch.lowering.fuse = fuse;
  return arch;
}

Graph network() {
  Graph g = load_network(kNet, 0, 0, 1);
  fuse_activations(&g);
  return g;
}

uint32_t layer_of(const Lowered& l, const std::string& name) {
  for (uint32_t k = 0; k < l.list.layers.size(); ++k) {
    if (l.list.layers[k] == name) return k;
  }
  throw std::runtime_error("no layer " + name);
}

// DRAM bytes the list's moves read or write in [lo, hi).
uint64_t dram_bytes_in(const Lowered& l, uint64_t lo, uint64_t hi) {
  uint64_t bytes = 0;
  for (const Descriptor& d : l.list.descriptors) {
    if (d.kind != DescKind::kMove) continue;
    const MoveDesc& m = d.move;
    for (uint32_t r = 0; r < m.rows; ++r) {
      if (m.src_space == MemSpace::kDram) {
        const uint64_t a = m.src_addr + uint64_t(r) * m.src_stride;
        if (a < hi && a + m.row_bytes > lo) bytes += m.row_bytes;
      }
      if (m.dst_space == MemSpace::kDram) {
        const uint64_t a = m.dst_addr + uint64_t(r) * m.dst_stride;
        if (a < hi && a + m.row_bytes > lo) bytes += m.row_bytes;
      }
    }
  }
  return bytes;
}

TEST(DepthwiseFusion, FusedListMovesNoByteOfTheTensorBetween) {
  const Graph g = network();
  const int t = g.find_tensor("e");
  ASSERT_GE(t, 0);
  for (bool fuse : {true, false}) {
    const Lowered l = lower(g, small_l2(fuse), LowerOptions());
    // T lives in DRAM in both plans (the activation plan never holds it); fused, it is never
    // touched there.
    ASSERT_TRUE(l.tensor_spilled[size_t(t)]) << fuse;
    EXPECT_EQ(bool(l.tensor_in_bands[size_t(t)]), fuse);
    // Its 32 planes lie 1,032 B apart (skewed_plane_stride of 32 x 32 on the seed's banks).
    ASSERT_EQ(l.tensor_channel_stride[size_t(t)], 1032u);
    const uint64_t lo = l.tensor_addr[size_t(t)], hi = lo + 32 * 1032;
    const LayerReport& e = l.layers[layer_of(l, "e")];
    const LayerReport& d = l.layers[layer_of(l, "d")];
    if (fuse) {
      EXPECT_EQ(dram_bytes_in(l, lo, hi), 0u);
      EXPECT_EQ(e.spill_bytes, 0u);
      EXPECT_EQ(d.fill_bytes, 0u);
      // Each layer's weights (32 x 8 + 32 x 4 bias = 384 B; 32 x 9 + 128 = 416 B) staged once.
      EXPECT_EQ(e.weight_bytes, 384u);
      EXPECT_EQ(d.weight_bytes, 416u);
    } else {
      // e spills all of T; d reads it back in bands of one output row: 32 x (15 x 3 + 2) x 32.
      EXPECT_EQ(e.spill_bytes, 32768u);
      EXPECT_EQ(d.fill_bytes, 48128u);
      EXPECT_EQ(dram_bytes_in(l, lo, hi), e.spill_bytes + d.fill_bytes);
    }
  }
}

// The fused bands: the in-band slot is 2,048 B (L2 / 16) and the block 8 channels (one
// accumulator group; the closed form's cheapest): a band of d's output rows [r, r + 3) reads T's
// rows [2r - 1, 2r + 6), 7 rows x 8 channels x 32 = 1,792 B (4 rows would read 9: 2,304 B). 16
// output rows: 6 bands (3, 3, 3, 3, 3, 1) x 4 blocks, an e tile then a d tile each: e computes
// T's rows [0, 6), [5, 12), [11, 18), [17, 24), [23, 30), [29, 32): 6 + 4 x 7 + 3 = 37 rows of
// 32, the 5 halo rows recomputed (303,104 MACs instead of 262,144).
TEST(DepthwiseFusion, BandsAlternateTheTwoLayersTiles) {
  const Lowered l = lower(network(), small_l2(true), LowerOptions());
  const uint32_t e = layer_of(l, "e"), d = layer_of(l, "d");
  std::vector<const Descriptor*> ops;
  for (const Descriptor& x : l.list.descriptors) {
    if (x.kind == DescKind::kOp) ops.push_back(&x);
  }
  ASSERT_EQ(ops.size(), 48u);
  const uint32_t t_rows[6][2] = {{0, 6}, {5, 12}, {11, 18}, {17, 24}, {23, 30}, {29, 32}};
  uint64_t rows = 0;
  for (uint32_t k = 0; k < 24; ++k) {
    const Descriptor& p = *ops[2 * k];
    const Descriptor& c = *ops[2 * k + 1];
    const uint32_t band = k / 4, c0 = 8 * (k % 4);
    ASSERT_EQ(p.layer, e);
    ASSERT_EQ(c.layer, d);
    EXPECT_EQ(p.op.row_begin, t_rows[band][0]) << k;
    EXPECT_EQ(p.op.row_end, t_rows[band][1]) << k;
    EXPECT_EQ(p.op.ch_begin, c0) << k;
    EXPECT_EQ(p.op.ch_end, c0 + 8) << k;
    EXPECT_EQ(c.op.row_begin, 3 * band) << k;
    EXPECT_EQ(c.op.row_end, std::min(16u, 3 * band + 3)) << k;
    // d reads the slot e wrote, in L2, after that tile.
    EXPECT_EQ(p.op.output.space, MemSpace::kL2);
    EXPECT_EQ(c.op.input.space, MemSpace::kL2);
    EXPECT_EQ(c.op.input.addr, p.op.output.addr) << k;
    EXPECT_EQ(c.op.input.first_row, p.op.row_begin) << k;
    EXPECT_EQ(c.op.input.rows, p.op.row_end - p.op.row_begin) << k;
    EXPECT_NE(std::find(c.deps.begin(), c.deps.end(), p.id), c.deps.end()) << k;
    rows += p.op.row_end - p.op.row_begin;
  }
  EXPECT_EQ(rows, 4u * 37u);
  EXPECT_EQ(l.layers[e].macs, 262144u);  // the layer's own MACs; the tiles compute 303,104
}

// Exact cycles of the fused run. x's 8 KiB move on channel 0 from 107: setup to 115, 8,192 / 16
// = 512 bus cycles to 627, + 100 latency = 727; e's 256 B of weights on channel 1 from 111, the
// bus free at 627: 16 cycles, + 100 = 743; its 128 B of biases start when x's move ends, 727: 8
// cycles + 100 = 835, and e's first tile (rows 0-5, channels 0-7) starts one dispatch cycle later,
// 836. d's weights (288 B: 5 bursts of 64 B, 20 bus cycles) on channel 1 from 743, + 100 = 863,
// its biases from 835 to 943: d's first tile from 944. From there the 48 tiles alternate on the
// compute pipeline, e's tile of band b + 1 overlapping d's tile of band b (they share no slot:
// two in-band slots), and the last d tile ends at 4,174. d's output (8 KiB) is the run's output:
// its store from 4,175, 8 setup + 512 + 100 = 620 cycles, ends the run at 4,795.
// Unfused (next test) the same network takes 13,414 cycles: e spills T (32,768 B at 16 B per
// cycle: 2,048 bus cycles) and restages its 384 B of weights per band (6,144 B), and d reads T
// back in 16 bands of one output row, 3 input rows each (2 for the first, its top row padding)
// per block of 16 channels: 32 x (15 x 3 + 2) x 32 = 48,128 B, 3,008 bus cycles, its tiles
// waiting for the fills.
TEST(DepthwiseFusion, FusedPairExactCycles) {
  const ArchConfig arch = small_l2(true);
  const Lowered l = lower(network(), arch, LowerOptions());
  RunRecord rec;
  const uint64_t cycles = simulate_list(arch, l.list, &rec);
  EXPECT_EQ(rec.descriptors[0].end, 727u);
  EXPECT_EQ(rec.descriptors[1].end, 743u);
  EXPECT_EQ(rec.descriptors[2].end, 835u);
  EXPECT_EQ(rec.descriptors[3].start, 836u);
  EXPECT_EQ(rec.descriptors[4].end, 863u);
  EXPECT_EQ(rec.descriptors[5].end, 943u);
  EXPECT_EQ(rec.descriptors[6].start, 944u);
  const size_t last = l.list.descriptors.size() - 1;
  EXPECT_EQ(rec.descriptors[last - 1].end, 4174u);
  EXPECT_EQ(rec.descriptors[last].start, 4175u);
  EXPECT_EQ(cycles, 4795u);
}

TEST(DepthwiseFusion, UnfusedPairExactCycles) {
  const ArchConfig arch = small_l2(false);
  const Lowered l = lower(network(), arch, LowerOptions());
  RunRecord rec;
  EXPECT_EQ(simulate_list(arch, l.list, &rec), 13414u);
}

struct Figures {
  uint64_t cycles = 0, checked = 0, mismatches = 0;
  int status = -1;
  char detail[160] = {};
};

Figures functional(bool fuse) {
  const std::vector<std::string> sets = {
      "networks[0].path=" + kNet, "arch.l2.size_bytes=32768",
      "arch.dram.model=simple",   "sim.functional=true",
      "sim.trace=false",          std::string("arch.lowering.fuse=") + (fuse ? "true" : "false")};
  return simulate_in_child<Figures>(std::string(STRIDER_SOURCE_DIR) + "/configs/runs/default.yaml",
                                    sets, [](const RunResult& r, Figures& f) {
                                      f.cycles = r.cycles;
                                      f.checked = r.checked_tensors;
                                      f.mismatches = r.mismatches;
                                    });
}

// Functional runs match the reference bit for bit with the same cycles as in timing mode; fused,
// only d's output is checked (T is never whole anywhere: d's output is computed from all of it).
TEST(DepthwiseFusion, FunctionalRunIsBitExact) {
  const Figures fused = functional(true), plain = functional(false);
  ASSERT_EQ(fused.status, 0) << fused.detail;
  ASSERT_EQ(plain.status, 0) << plain.detail;
  EXPECT_EQ(fused.mismatches, 0u) << fused.detail;
  EXPECT_EQ(plain.mismatches, 0u) << plain.detail;
  EXPECT_EQ(fused.checked, 1u);
  EXPECT_EQ(plain.checked, 2u);
  EXPECT_EQ(fused.cycles, 4795u);
  EXPECT_EQ(plain.cycles, 13414u);
}

}  // namespace
}  // namespace strider
