// Deep weight prefetch (planner/lower/deep_prefetch.cpp): a layer DRAM-bound on its own weights
// gets a staging ring of more than two slots, live from earlier steps, whose fills the DMA runs
// under earlier layers; with no room in L2 the two-slot ring of before stays.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/top/top.h"
#include "planner/import/network_loader.h"
#include "planner/lower/legalise.h"
#include "planner/lower/lowering.h"

namespace strider {
namespace {

Lowered lowered(const ArchConfig& arch) {
  Graph g = load_network(std::string(STRIDER_SOURCE_DIR) + "/tests/e2e/data/prefetch_fc.yaml", 0,
                         0, 1);
  fuse_activations(&g);
  return lower(g, arch, LowerOptions());
}

const PlannedBuffer* row(const Lowered& l, const std::string& name) {
  for (const PlannedBuffer& b : l.plan) {
    if (b.tensor == name) return &b;
  }
  return nullptr;
}

// x (16 x 16 x 16) -> a: conv 3x3, 64 channels (step 0) -> g: global pool (step 1) -> flatten
// (step 2) -> fc: 64 -> 256 (step 3), on the seed with the flat DRAM pipe (dram.model: simple:
// 16 B per cycle, 100 cycles latency). The fc's blocks are 64 channels (one run of neurons),
// 64 x 64 weight bytes + 64 x 4 bias bytes = 4,352 B each, 4 blocks: 17,408 B take 1,088 bus
// cycles, its 4 tiles 4 x 128 line-buffer write cycles, so it is DRAM-bound on its weights.
TEST(DeepPrefetch, FcWeightsLoadWhileTheConvComputes) {
  ArchConfig arch;
  arch.dram.model = "simple";
  const Lowered l = lowered(arch);
  // The fc's ring holds all 4 blocks (4 x 4,352 = 17,408 B), live from a's step (0) to its own
  // (3), above a's two-slot ring (2 x 9,472 B at 20,992: a's 64 channels of 144 + 4 B each).
  const PlannedBuffer* p = row(l, "prefetch:fc");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(row(l, "staging:fc"), nullptr);
  EXPECT_EQ(p->offset, 39936u);  // 20,992 + 18,944
  EXPECT_EQ(p->size, 17408u);
  EXPECT_EQ(p->first, 0);
  EXPECT_EQ(p->last, 3);
  const std::vector<Descriptor>& d = l.list.descriptors;
  ASSERT_EQ(d.size(), 18u);
  // x; a's weights, biases, tile (3); fc's fills 0-2 in a's span (4-9: the credit of a's
  // estimated cycles covers them); g's tile (10); fc's fill 3 in g's span (11, 12); fc's 4
  // tiles (13-16); the output (17). The ring is free from step 0: no fence.
  for (uint32_t i : {4u, 5u, 6u, 7u, 8u, 9u, 11u, 12u}) {
    ASSERT_EQ(d[i].kind, DescKind::kMove) << i;
    EXPECT_TRUE(d[i].deps.empty()) << i;
    EXPECT_EQ(d[i].move.dst_addr, 39936u + (i - (i < 10 ? 4u : 5u)) / 2 * 4352u +
                                      ((i - (i < 10 ? 4u : 5u)) % 2) * 4096u)
        << i;
  }
  // They form the layer prefetch:fc, added after a's (layers: input:x, a, prefetch:fc, g, fc,
  // output:fc); the fc's own layer moves none.
  ASSERT_EQ(l.list.layers.size(), 6u);
  EXPECT_EQ(l.list.layers[2], "prefetch:fc");
  EXPECT_EQ(d[4].layer, 2u);
  EXPECT_EQ(d[11].layer, 2u);
  EXPECT_EQ(d[13].deps, (std::vector<uint32_t>{4, 5, 10}));
  EXPECT_EQ(d[16].deps, (std::vector<uint32_t>{10, 11, 12}));
  EXPECT_EQ(l.layers[2].weight_bytes, 17408u);
  EXPECT_EQ(l.layers[2].prefetch_bytes, 17408u);
  EXPECT_EQ(l.layers[1].weight_bytes, 9472u);  // a's own
  EXPECT_EQ(l.layers[4].weight_bytes, 0u);

  SimOptions sim;
  StatRegistry stats;
  RunRecord rec;
  Top top("top", arch, sim, l.list, stats, rec);
  // Each move holds its DMA channel for its bus cycles (bytes / 16) + 100 of latency, the bus
  // shared: fill 0's weights take channel 1 when a's weights end (1,047): 1,047 + 4,096 / 16 +
  // 100 = 1,403; the six moves of fills 0-2 (13,056 B, 816 bus cycles) and fill 3's two end at
  // 2,916 and 3,032 — on the bus alone 1,963 and 2,235; the rest is their L2 writes waiting on
  // banks that a's tiles read their row pieces and kernels from — all while a computes (1,084 -
  // 10,863: its 16 output rows walked back to back, 4 runs of 4 rows x 8 groups of 8 channels x
  // 304 cycles = 9,728 compute cycles). The fc's tiles then run back to back from 11,396 (g ends
  // at 11,395), each 128 cycles after the one before (64 lines, each its output channel's 64
  // weight bytes in two writes of 32 B), the last ending 147 cycles after its start (its 128
  // writes, the compute and the store): 11,780 + 147 = 11,927, 531 cycles. Without the deep
  // prefetch (two slots, each refilled when a tile is done) tile 2's fill waits for tile 0 and the
  // fc takes about twice as long (1,050 cycles when a ran in im2col).
  EXPECT_EQ(top.run(), 12052u);  // 11,927 + 1 + the output's 256 B: 16 + 100 + 8 = 12,052
  EXPECT_EQ(rec.descriptors[4].start, 1047u);
  EXPECT_EQ(rec.descriptors[4].end, 1403u);
  EXPECT_EQ(rec.descriptors[9].end, 2916u);
  EXPECT_EQ(rec.descriptors[12].end, 3032u);
  EXPECT_EQ(rec.descriptors[3].end, 10863u);
  EXPECT_EQ(rec.descriptors[13].start, 11396u);
  EXPECT_EQ(rec.descriptors[14].start, 11524u);
  EXPECT_EQ(rec.descriptors[15].start, 11652u);
  EXPECT_EQ(rec.descriptors[16].start, 11780u);
  EXPECT_EQ(rec.descriptors[16].end, 11927u);
}

// The same network in an L2 of 27 KiB: beside x (4,096 B), a (16,896 B) and a's ring at step 0
// there is room for the fc's two ordinary slots (2 x 1,856 B: L2 / 16 = 1,728 B holds 27 channels
// of 64 B, + 27 x 4 bias bytes aligned up) but not a third, and the fc's ring cannot start later
// than a's step (it would be the ordinary lead), so it keeps its two slots; its fills are emitted
// in its own step as before (the list is the tree's before the deep prefetch; 12,767 cycles with a
// walking its rows back to back, 15,169 when it ran in im2col).
TEST(DeepPrefetch, NoRoomInL2KeepsTheTwoSlots) {
  ArchConfig arch;
  arch.dram.model = "simple";
  arch.l2.size_bytes = 27648;
  const Lowered l = lowered(arch);
  EXPECT_EQ(row(l, "prefetch:fc"), nullptr);
  const PlannedBuffer* s = row(l, "staging:fc");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->size, 3712u);
  EXPECT_EQ(s->first, 0);
  EXPECT_EQ(s->last, 3);
  for (const LayerReport& r : l.layers) EXPECT_EQ(r.prefetch_bytes, 0u) << r.name;
  // Every fc weight move is in the fc's layer (its own step); no prefetch layer.
  for (const std::string& name : l.list.layers) EXPECT_NE(name, "prefetch:fc");
  uint64_t fc_bytes = 0;
  for (const Descriptor& x : l.list.descriptors) {
    if (x.kind == DescKind::kMove && l.list.layers[x.layer] == "fc") fc_bytes += x.move.bytes();
  }
  EXPECT_EQ(fc_bytes, 256u * 64 + 256 * 4);  // 17,408: all its weights and biases
  SimOptions sim;
  StatRegistry stats;
  RunRecord rec;
  Top top("top", arch, sim, l.list, stats, rec);
  EXPECT_EQ(top.run(), 12767u);
}

}  // namespace
}  // namespace strider
