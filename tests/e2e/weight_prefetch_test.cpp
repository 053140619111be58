// Weight prefetch ahead of the previous step (planner/lower/memory_layout.cpp place_staging): a
// layer's staging slots live from the step of the layer with weights before it, so its first
// weights load while that layer and the weightless steps after it run, not only during the step
// before its own.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/top/top.h"
#include "planner/import/network_loader.h"
#include "planner/lower/legalise.h"
#include "planner/lower/lowering.h"

namespace strider {
namespace {

const PlannedBuffer& row(const Lowered& l, const std::string& name) {
  for (const PlannedBuffer& b : l.plan) {
    if (b.tensor == name) return b;
  }
  throw std::runtime_error("no plan row " + name);
}

// x (8 x 16 x 16) -> a: conv 3x3, 16 channels (step 0) -> p: max pool 2x2 (step 1) -> b: conv
// 1x1, 256 channels (step 2), on the seed with the flat DRAM pipe (dram.model: simple: 16 B per
// cycle, 100 cycles latency; DMA setup 8 cycles).
TEST(WeightPrefetch, NextWeightedLayerLoadsDuringTheOneBefore) {
  ArchConfig arch;
  arch.dram.model = "simple";
  Graph g = load_network(std::string(STRIDER_SOURCE_DIR) + "/tests/e2e/data/prefetch_chain.yaml", 0,
                         0, 1);
  fuse_activations(&g);
  const Lowered l = lower(g, arch, LowerOptions());
  // b's slots (2 x (16 x 256 + 4 x 256) = 10,240 B) live from a's step: steps 0-2 (the one-step
  // lead: 1-2), beside a's slots (step 0).
  EXPECT_EQ(row(l, "staging:b").first, 0);
  EXPECT_EQ(row(l, "staging:b").last, 2);
  EXPECT_EQ(row(l, "staging:b").size, 10240u);
  EXPECT_EQ(row(l, "staging:a").first, 0);
  const std::vector<Descriptor>& d = l.list.descriptors;
  ASSERT_EQ(d.size(),
            9u);  // x; a's weights, biases, tile; p's tile; b's weights, biases, tile; out
  ASSERT_EQ(d[5].kind, DescKind::kMove);
  EXPECT_EQ(d[5].move.bytes(), 4096u);
  EXPECT_EQ(d[6].move.bytes(), 1024u);
  // The ring is free since step 0, so nothing fences its first fill (it waited for a's tile, 3).
  EXPECT_TRUE(d[5].deps.empty());
  EXPECT_TRUE(d[6].deps.empty());
  EXPECT_EQ(d[7].deps, (std::vector<uint32_t>{4, 5, 6}));

  SimOptions sim;
  StatRegistry stats;
  RunRecord rec;
  Top top("top", arch, sim, l.list, stats, rec);
  // a's weight move ends at 457 on channel 1 and its bias move at 497 on channel 0 (the bus is
  // idle from 397). b's weights take channel 1 at 457: setup to 465, 4096 / 16 = 256 bus cycles
  // to 721, + 100 latency = 821; its biases channel 0 at 497: setup to 505, the bus free at 721,
  // 64 cycles to 785, + 100 = 885. Both land while a computes (498-2039). b starts one dispatch
  // cycle after p ends (2308): 2309, and runs its 1,051 cycles to 3360; the output's 16 KiB:
  // 3361 + 8 + 1024 + 100 = 4493. With the one-step lead b's moves waited for a's tile (2039):
  // weights 2040 + 8 + 256 + 100 = 2404, biases behind them on the bus 2468, b from 2469 to 3520,
  // and p, sharing the L2 with those moves, ended at 2348: 4653 cycles in all.
  EXPECT_EQ(top.run(), 4493u);
  EXPECT_EQ(rec.descriptors[5].start, 457u);
  EXPECT_EQ(rec.descriptors[5].end, 821u);
  EXPECT_EQ(rec.descriptors[6].start, 497u);
  EXPECT_EQ(rec.descriptors[6].end, 885u);
  EXPECT_EQ(rec.descriptors[3].end, 2039u);
  EXPECT_EQ(rec.descriptors[4].end, 2308u);
  EXPECT_EQ(rec.descriptors[7].start, 2309u);
  EXPECT_EQ(rec.descriptors[7].end, 3360u);
}

}  // namespace
}  // namespace strider
