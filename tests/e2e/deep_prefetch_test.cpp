// Deep weight prefetch (planner/lower/deep_prefetch.cpp): a layer DRAM-bound on its own weights
// gets a staging ring of more than two slots, live from earlier steps, whose fills the DMA runs
// under earlier layers; with no room in L2 the two-slot ring of before stays.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/arch/config_loader.h"
#include "planner/import/network_loader.h"
#include "planner/lower/legalise.h"
#include "planner/lower/lowering.h"
#include "tests/e2e/list_run.h"

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
  arch.dma.background_priority = false;  // demand moves: the credit at 3/4, the latest steps first
  const Lowered l = lowered(arch);
  // The fc's ring holds all 4 blocks (4 x 4,352 = 17,408 B), live from a's step (0) to its own
  // (3), above a's two-slot ring (2 x 9,472 B at 20,992: a's 64 channels of 144 + 4 B each): its
  // first two slots as one request, the two more each on its own (prefetch-slot:fc#2, #3), which
  // here land right after them.
  const PlannedBuffer* p = row(l, "prefetch:fc");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(row(l, "staging:fc"), nullptr);
  EXPECT_EQ(p->offset, 39936u);  // 20,992 + 18,944
  EXPECT_EQ(p->size, 8704u);
  EXPECT_EQ(p->first, 0);
  EXPECT_EQ(p->last, 3);
  for (uint64_t k : {2u, 3u}) {
    const PlannedBuffer* e = row(l, "prefetch-slot:fc#" + std::to_string(k));
    ASSERT_NE(e, nullptr) << k;
    EXPECT_EQ(e->offset, 39936u + k * 4352u) << k;
    EXPECT_EQ(e->size, 4352u) << k;
    EXPECT_EQ(e->first, 0) << k;
    EXPECT_EQ(e->last, 3) << k;
  }
  const std::vector<Descriptor>& d = l.list.descriptors;
  ASSERT_EQ(d.size(), 18u);
  // x; a's weights and biases (1, 2); fc's fills 0-2 in a's span (3-8: the credit of a's
  // estimated cycles covers them; emitted behind a's only fill, emit_prefetches' pacing); a's
  // tile (9); g's tile (10); fc's fill 3 in g's span (11, 12); fc's 4 tiles (13-16); the output
  // (17). The ring is free from step 0: no fence.
  for (uint32_t i : {3u, 4u, 5u, 6u, 7u, 8u, 11u, 12u}) {
    ASSERT_EQ(d[i].kind, DescKind::kMove) << i;
    EXPECT_TRUE(d[i].deps.empty()) << i;
    EXPECT_EQ(d[i].move.dst_addr, 39936u + (i - (i < 10 ? 3u : 5u)) / 2 * 4352u +
                                      ((i - (i < 10 ? 3u : 5u)) % 2) * 4096u)
        << i;
  }
  EXPECT_EQ(d[9].kind, DescKind::kOp);
  // The prefetch's moves are background moves (the DMA and the DRAM run them behind demand
  // moves); a's own weight and bias moves are demand moves.
  for (uint32_t i : {3u, 4u, 5u, 6u, 7u, 8u, 11u, 12u}) EXPECT_TRUE(d[i].move.background) << i;
  EXPECT_FALSE(d[1].move.background);
  EXPECT_FALSE(d[2].move.background);
  // They form the layer prefetch:fc, added after a's (layers: input:x, a, prefetch:fc, g, fc,
  // output:fc); the fc's own layer moves none.
  ASSERT_EQ(l.list.layers.size(), 6u);
  EXPECT_EQ(l.list.layers[2], "prefetch:fc");
  EXPECT_EQ(d[3].layer, 2u);
  EXPECT_EQ(d[11].layer, 2u);
  EXPECT_EQ(d[13].deps, (std::vector<uint32_t>{3, 4, 10}));
  EXPECT_EQ(d[16].deps, (std::vector<uint32_t>{10, 11, 12}));
  EXPECT_EQ(l.layers[2].weight_bytes, 17408u);
  EXPECT_EQ(l.layers[2].prefetch_bytes, 17408u);
  EXPECT_EQ(l.layers[1].weight_bytes, 9472u);  // a's own
  EXPECT_EQ(l.layers[4].weight_bytes, 0u);

  RunRecord rec;
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
  EXPECT_EQ(simulate_list(arch, l.list, &rec), 12052u);  // 11,927 + 1 + the output's 256 B: 16 + 100 + 8 = 12,052
  EXPECT_EQ(rec.descriptors[3].start, 1047u);
  EXPECT_EQ(rec.descriptors[3].end, 1403u);
  EXPECT_EQ(rec.descriptors[8].end, 2916u);
  EXPECT_EQ(rec.descriptors[12].end, 3032u);
  EXPECT_EQ(rec.descriptors[9].end, 10863u);
  EXPECT_EQ(rec.descriptors[13].start, 11396u);
  EXPECT_EQ(rec.descriptors[14].start, 11524u);
  EXPECT_EQ(rec.descriptors[15].start, 11652u);
  EXPECT_EQ(rec.descriptors[16].start, 11780u);
  EXPECT_EQ(rec.descriptors[16].end, 11927u);
}

// The same network with 2,560 B staging slots: a's 64 channels in 4 blocks of 16 (16 x 144 B
// of weights + 64 B of biases, aligned: 2,304 + 256), each filled when a tile frees its slot. The
// fc's ring takes 17,408 B of credit: g's step its closed-form 520 cycles x 16 B x 3/4 = 6,240, a's
// the other 11,168. A prefetch's share of a step is emitted between the step's own fills, in
// proportion to the output channels they have staged (16, 32, 48, 64 of 64: quotas 2,792, 5,584,
// 8,376, 11,168 B); fill j goes once its quota reaches 4,352 j + 2,176 B (half the fill): fill 0
// behind a's fill 0, fill 1 (6,528) behind a's fill 2, fill 2 (10,880) behind a's fill 3, fill 3
// (15,232) in g's step. Emitted after a's tiles, as before, fills 0-2 would wait in the DMA's list
// behind a's fill 3, which waits for a's tile 1 (5,557).
TEST(DeepPrefetch, FillsArePacedBetweenTheLayersOwnFills) {
  ArchConfig arch;
  arch.dram.model = "simple";
  arch.dma.background_priority = false;
  arch.lowering.weight_slot_bytes = 2560;
  const Lowered l = lowered(arch);
  const std::vector<Descriptor>& d = l.list.descriptors;
  ASSERT_EQ(d.size(), 27u);
  // x (0); a's fill 0 (1, 2), fc's fill 0 (3, 4), a's tile 0 (5); a's fill 1 (6, 7), tile 1 (8);
  // a's fill 2 (9, 10), fc's fill 1 (11, 12), tile 2 (13); a's fill 3 (14, 15), fc's fill 2
  // (16, 17), tile 3 (18); g (19); fc's fill 3 (20, 21); the fc's tiles (22-25); the output.
  const std::vector<uint32_t> prefetch = {3, 4, 11, 12, 16, 17, 20, 21};
  for (uint32_t i = 0; i < d.size(); ++i) {
    const bool pf = std::find(prefetch.begin(), prefetch.end(), i) != prefetch.end();
    EXPECT_EQ(l.list.layers[d[i].layer] == "prefetch:fc", pf) << i;
  }
  for (uint32_t i : {5u, 8u, 13u, 18u}) {
    ASSERT_EQ(d[i].kind, DescKind::kOp) << i;
    EXPECT_EQ(l.list.layers[d[i].layer], "a") << i;
  }
  RunRecord rec;
  // On the flat pipe (16 B per cycle, 100 cycles latency): a's fill 0 takes channel 0 at 111 and
  // ends at 615 (the input's 4,096 B share the bus until 471); fc's fill 0 starts when a channel
  // frees, 615, and ends 4,096 / 16 + 100 = 356 later; fc's fill 2 ends at 6,182, long before its
  // tiles run (from 10,958, g ending at 10,957; 128 cycles apart, the last 147).
  EXPECT_EQ(simulate_list(arch, l.list, &rec), 11614u);  // the last fc tile ends at 11,489; + 1 + the output's 124
  EXPECT_EQ(rec.descriptors[3].start, 615u);
  EXPECT_EQ(rec.descriptors[3].end, 971u);
  EXPECT_EQ(rec.descriptors[17].end, 6182u);
  EXPECT_EQ(rec.descriptors[22].start, 10958u);
  EXPECT_EQ(rec.descriptors[25].end, 11489u);
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
  RunRecord rec;
  EXPECT_EQ(simulate_list(arch, l.list, &rec), 12767u);
}

// mobilenet_v2 on the seed (1 MiB L2): its 112 x 112 and 56 x 56 tensors spill, so four row-band
// buffers of 64 KiB sit at the top of L2 (786,432 up), used by the steps up to 7 (the last that
// reads or writes a spilled tensor). Its classifier (1280 -> 1000, 1.28 MB) is DRAM-bound on its
// weights; its ring lives from step 60 (its residual Adds unfused here) and may take the
// bands' room (heap 786,432): 9 slots of 65,536 B from 311,808 up to 901,632, as one run: placed
// one by one (the scratch planner giving each the smallest hole) they do not fit from step 60,
// as one run they do (plan_prefetch tries both). The band rows of the plan end at step 7, so
// the plan's check sees no overlap; the ring's first fills also wait for the bands' last readers
// (band_war).
TEST(DeepPrefetch, RingTakesTheBandBuffersRoomAfterTheLastBandedStep) {
  ArchConfig arch = load_arch(std::string(STRIDER_SOURCE_DIR) + "/configs/arch/seed.yaml");
  arch.dma.background_priority = false;  // (at background priority the ring starts early: below)
  Graph g = load_network(std::string(STRIDER_SOURCE_DIR) + "/configs/networks/mobilenet_v2.onnx", 0,
                         0, 1);
  fuse_activations(&g);
  const Lowered l = lower(g, arch, LowerOptions());
  EXPECT_EQ(l.band_bytes, 4u * 65536);
  for (const char* band : {"in_band0", "in_band1", "out_band0", "out_band1"}) {
    const PlannedBuffer* b = row(l, band);
    ASSERT_NE(b, nullptr) << band;
    EXPECT_GE(b->offset, 786432u) << band;
    EXPECT_EQ(b->first, 0) << band;
    EXPECT_EQ(b->last, 7) << band;
  }
  const PlannedBuffer* p = row(l, "prefetch:/classifier/classifier.1/Gemm");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->first, 60);
  EXPECT_EQ(p->offset, 311808u);
  EXPECT_EQ(p->size, 589824u);
  EXPECT_GT(p->offset + p->size, 786432u);
  EXPECT_EQ(row(l, "prefetch-slot:/classifier/classifier.1/Gemm#2"), nullptr);
}

// x (16 x 16 x 16, 4,096 B) -> a: conv 3x3, 64 channels, its global pool g fused into its store
// path (step 0) -> flatten (1) -> h: fc 64 -> 64 (2) -> fc: 64 -> 512 (3), on the seed in a 24 KiB
// L2 (weight slots of 24 channels: 24 x 64 + 24 x 4 B, aligned, 1,536 + 128 = 1,664 B) with the
// flat DRAM pipe. The fc's 512 channels (22 blocks) are DRAM-bound; its ring takes 8 slots live
// from step 0 (the holes beside x, g, a's ring and h's) and a ninth, fc#8, live from step 1 in
// the room of a's staging ring (10,816: live at step 0 only) — a late slot, the ring growing as
// the early tensors die. Its fill waits for step 0's fence (a's tiles), not merely its order in the
// list. h's ring holds all three of its blocks (24 + 24 + 16 channels): its last slot only the 16
// (16 x 64 + 16 x 4, aligned: 1,024 + 64 = 1,088 B).
TEST(DeepPrefetch, RingGrowsIntoTheRoomAnEarlierStepFrees) {
  ArchConfig arch = load_arch(std::string(STRIDER_SOURCE_DIR) + "/configs/arch/seed.yaml");
  arch.dram.model = "simple";
  arch.l2.size_bytes = 24576;
  Graph g =
      load_network(std::string(STRIDER_SOURCE_DIR) + "/tests/e2e/data/prefetch_late.yaml", 0, 0, 1);
  fuse_activations(&g);
  ASSERT_EQ(fuse_global_pools(&g), 1);
  const Lowered l = lower(g, arch, LowerOptions());
  const PlannedBuffer* a = row(l, "staging:a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->offset, 10816u);
  EXPECT_EQ(a->last, 0);
  for (int k = 2; k <= 7; ++k) {
    const PlannedBuffer* e = row(l, "prefetch-slot:fc#" + std::to_string(k));
    ASSERT_NE(e, nullptr) << k;
    EXPECT_EQ(e->size, 1664u) << k;
    EXPECT_EQ(e->first, 0) << k;
  }
  const PlannedBuffer* late = row(l, "prefetch-slot:fc#8");
  ASSERT_NE(late, nullptr);
  EXPECT_EQ(late->offset, 10816u);
  EXPECT_EQ(late->size, 1664u);
  EXPECT_EQ(late->first, 1);
  EXPECT_EQ(late->last, 3);
  EXPECT_EQ(row(l, "prefetch-slot:fc#9"), nullptr);
  const PlannedBuffer* h_last = row(l, "prefetch-slot:h#2");
  ASSERT_NE(h_last, nullptr);
  EXPECT_EQ(h_last->size, 1088u);
  // The late slot's fill: its weight and bias moves, background, after a's last tile.
  uint32_t last_a = 0;
  std::vector<const Descriptor*> fill;
  for (const Descriptor& d : l.list.descriptors) {
    const std::string& layer = l.list.layers[d.layer];
    if (d.kind == DescKind::kOp && layer == "a") last_a = d.id;
    if (d.kind == DescKind::kMove && layer == "prefetch:fc" && d.move.dst_addr >= 10816 &&
        d.move.dst_addr < 10816 + 1664) {
      fill.push_back(&d);
    }
  }
  ASSERT_EQ(fill.size(), 2u);
  for (const Descriptor* d : fill) {
    EXPECT_TRUE(d->move.background);
    EXPECT_GT(d->id, last_a);
    EXPECT_NE(std::find(d->deps.begin(), d->deps.end(), last_a), d->deps.end());
  }
}

}  // namespace
}  // namespace strider
