// Layer-to-layer overlap in the lowering, with the cycles on the flat DRAM pipe:
// - weight prefetch ahead of the previous step (planner/lower/memory_layout.cpp place_staging): a
//   layer's staging slots live from the step of the layer with weights before it, so its first
//   weights load while that layer and the weightless steps after it run, not only during the
//   step before its own;
// - a graph input read by a conv in row bands loads in row chunks (planner/lower/lowering.cpp
//   load_input), each tile after the chunks its rows need, not after the whole input; a first
//   reader with whole-height tiles is cut into row bands (planner/lower/stream_io.cpp), and the
//   run's last output is stored band by band behind its producer's row bands.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "planner/import/network_loader.h"
#include "planner/lower/legalise.h"
#include "planner/lower/lowering.h"
#include "tests/e2e/list_run.h"

namespace strider {
namespace {

Lowered lowered(const std::string& network, const ArchConfig& arch) {
  Graph g = load_network(std::string(STRIDER_SOURCE_DIR) + "/tests/e2e/data/" + network, 0, 0, 1);
  fuse_activations(&g);
  return lower(g, arch, LowerOptions());
}

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

  RunRecord rec;
  // The first 8 descriptors are one fetch (512 B = 32 bus cycles + 100 = 132); descriptor i's
  // 64 B are in at 104 + 4i and decoded 2 cycles later. x's move on channel 0 from 107: setup to
  // 115, 2048 / 16 = 128 bus cycles to 243, + 100 = 343; a's weights on channel 1 from 111:
  // setup to 119, the bus free at 243, 72 cycles to 315, + 100 = 415; a's biases are set up on
  // channel 0 while x's move transfers and start when it ends, 343: 4 cycles, + 100 = 447.
  // b's weights are set up on channel 1 from 343 and start when a's weights end, 415: 4096 / 16
  // = 256 bus cycles to 671, + 100 = 771; its biases on channel 0 from 415 start at 447, the bus
  // free at 671, 64 cycles to 735, + 100 = 835. Both land while a computes (448-1827: its 16
  // output rows back to back in 4 runs, 2 groups x 3 fills of 64, 64 and 24 compute cycles =
  // 1,216, + its first fill's 40 writes + 16 cycles at each of the 7 later group starts, whose
  // first fill's 40 writes follow a 24-cycle fill; 1989 when it walked the padded stream's 5
  // runs). p (2x2 stride 2 over 16 x 16, one tile) runs as one stream over its input (2 runs of
  // 64 and 56 positions, 2 shifted writes per run and channel instead of 16), its load port's
  // reads now the longer part: it ends at 1960 (133 cycles after a). b starts one dispatch cycle
  // later, 1961, and runs its 1,051 cycles to 3012; the output's 16 KiB: 3013 + 8 + 1024 + 100 =
  // 4145 (4307 with a's padded stream, 4493 with the batch decoded after its last byte and each
  // move set up after the previous one). With the one-step lead b's moves waited for a's tile.
  EXPECT_EQ(simulate_list(arch, l.list, &rec), 4145u);
  EXPECT_EQ(rec.descriptors[5].start, 415u);  // took channel 1 when a's weights ended
  EXPECT_EQ(rec.descriptors[5].end, 771u);
  EXPECT_EQ(rec.descriptors[6].start, 447u);
  EXPECT_EQ(rec.descriptors[6].end, 835u);
  EXPECT_EQ(rec.descriptors[3].end, 1827u);
  EXPECT_EQ(rec.descriptors[4].end, 1960u);
  EXPECT_EQ(rec.descriptors[7].start, 1961u);
  EXPECT_EQ(rec.descriptors[7].end, 3012u);
}

// x (8 x 64 x 64 = 32 KiB) -> a: conv 3x3 stride 2, 8 channels, on the seed with the flat DRAM
// pipe: a's 32 x 32 output rows take 64 / 32 = 2 rows per tile, 16 tiles, tile k reading input
// rows [4k - 1, 4k + 3); the input loads in 8 chunks of 8 rows (every channel's: 8 rows of 512 B
// at the 4,096 B plane stride).
TEST(ChunkedInput, FirstTileStartsOnTheFirstRows) {
  ArchConfig arch;
  arch.dram.model = "simple";
  const Lowered l = lowered("chunked_input.yaml", arch);
  const std::vector<Descriptor>& d = l.list.descriptors;
  std::vector<uint32_t> chunks, tiles;
  for (const Descriptor& e : d) {
    if (e.kind == DescKind::kOp) tiles.push_back(e.id);
    if (e.kind == DescKind::kMove && l.list.layers[e.layer] == "input:x") chunks.push_back(e.id);
  }
  ASSERT_EQ(chunks.size(), 8u);
  ASSERT_EQ(tiles.size(), 16u);
  for (uint32_t k = 0; k < 8; ++k) {
    const MoveDesc& m = d[chunks[k]].move;
    EXPECT_EQ(m.rows, 8u);
    EXPECT_EQ(m.row_bytes, 512u);  // 8 rows of 64 B
    EXPECT_EQ(m.src_stride, 4096u);
    EXPECT_EQ(m.dst_addr, d[chunks[0]].move.dst_addr + k * 512u);
  }
  // Each chunk is emitted before the first tile that reads it: chunk 0 first, then a's weights
  // and biases (one channel block: staged once for every row band) and tile 0 (rows 0-2: chunk 0
  // only); tile 1 (rows 3-6) needs chunk 0 only too; tile 2 (rows 7-10) chunks 0 and 1.
  EXPECT_EQ(chunks[0], 0u);
  EXPECT_EQ(d[tiles[0]].deps, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(d[tiles[1]].deps, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(chunks[1], 5u);  // after tiles 0 (3) and 1 (4)
  EXPECT_EQ(d[tiles[2]].deps, (std::vector<uint32_t>{0, 1, 2, 5}));

  RunRecord rec;
  const uint64_t cycles = simulate_list(arch, l.list, &rec);
  // Descriptor i of the first fetch is decoded at 106 + 4i (as above). Chunk 0 on channel 0 from
  // 107: setup to 115 (its 7 further rows' addresses made while rows stream), 4,096 / 16 = 256
  // bus cycles to 371, + 100 latency = 471. a's 576 B of weights on channel 1 from 111: setup to
  // 119, the bus free at 371, 36 cycles to 407, + 100 = 507. Its 32 B of biases (one 64 B burst)
  // are set up on channel 0 from 115 while chunk 0 transfers and start at 471: 4 bus cycles, +
  // 100 = 575; tile 0 one dispatch cycle later, 576 (633 with the batch decoded after its last
  // byte and the setups in series). The whole input in one move took 2,305 cycles then and tile
  // 0 started at 2418; the run is DRAM-bound (the input's 32 KiB and the output's 8 KiB at 16 B
  // per bus cycle: 2,560 bus cycles). It took 5,261 cycles while each of the 16 tiles staged
  // a's weights again (16 x 608 B more).
  EXPECT_EQ(rec.descriptors[0].end, 471u);
  EXPECT_EQ(rec.descriptors[1].end, 507u);
  EXPECT_EQ(rec.descriptors[2].end, 575u);
  EXPECT_EQ(rec.descriptors[tiles[0]].start, 576u);
  EXPECT_EQ(cycles, 3697u);
}


// x (8 x 64 x 64 = 32 KiB) -> a: conv 3x3 stride 1 pad 1, 8 channels, on the seed with the flat
// DRAM pipe (16 B per bus cycle, 100 cycles latency, DMA setup 8). a's 64-wide output rows take
// the whole height in one tile by themselves (band_rows), which waited for the whole input: one
// 32 KiB move, 107 + 8 setup + 32,768 / 16 = 2,048 bus cycles + 100 = 2,263, the tile from 2,368
// and the output's 32 KiB store 8 + 2,048 + 100 = 2,156 more after it. As the first reader of a
// chunked graph input it is cut into row bands (planner/lower/stream_io.cpp; its closed form
// keeps 10 bands of 7 rows, ceil(64 / 10), the last of 1: with the output rows walked back to back
// a band of r rows is r runs of the 64 neurons, so short bands add no run tails), each tile after
// the chunk that brings its rows, halo included; the chunks are 8 rows (an eighth of the input).
TEST(StreamedInput, FirstConvStartsAfterTheFirstBandsMove) {
  ArchConfig arch;
  arch.dram.model = "simple";
  const Lowered l = lowered("streamed_input.yaml", arch);
  const std::vector<Descriptor>& d = l.list.descriptors;
  std::vector<uint32_t> chunks, tiles;
  for (const Descriptor& e : d) {
    if (e.kind == DescKind::kOp) tiles.push_back(e.id);
    if (e.kind == DescKind::kMove && l.list.layers[e.layer] == "input:x") chunks.push_back(e.id);
  }
  ASSERT_EQ(tiles.size(), 10u);
  ASSERT_EQ(chunks.size(), 8u);
  // Band k: output rows [7k, 7k + 7), input rows [7k - 1, 7k + 8). Chunk j: input rows [8j, 8j +
  // 8) of every channel (8 rows of 8 x 64 = 512 B at the 4,096 B plane stride).
  for (uint32_t c : chunks) {
    EXPECT_EQ(d[c].move.rows, 8u);
    EXPECT_EQ(d[c].move.row_bytes, 512u);
  }
  // Tile 0 (input rows 0-7) waits for chunk 0 and the weights and biases (staged once: one
  // channel block); tile 1 (input rows 6-15) for chunks 0 and 1; tile 2 (13-22) for chunks 1 and
  // 2.
  EXPECT_EQ(d[tiles[0]].deps, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(d[tiles[1]].deps, (std::vector<uint32_t>{0, 1, 2, chunks[1]}));
  EXPECT_EQ(d[tiles[2]].deps, (std::vector<uint32_t>{1, 2, chunks[1], chunks[2]}));
  EXPECT_EQ(d[tiles[2]].op.row_begin, 14u);
  EXPECT_EQ(d[tiles[9]].op.row_end - d[tiles[9]].op.row_begin, 1u);

  RunRecord rec;
  const uint64_t cycles = simulate_list(arch, l.list, &rec);
  // As in ChunkedInput above: chunk 0 on channel 0 from 107, setup to 115, 4,096 / 16 = 256 bus
  // cycles to 371, + 100 latency = 471. The 576 B of weights on channel 1 from 111: setup to
  // 119, the bus free at 371, 36 cycles to 407, + 100 = 507. The 32 B of biases (one 64 B burst)
  // set up on channel 0 while chunk 0 transfers, start at 471: 4 bus cycles, + 100 = 575; tile 0
  // one dispatch cycle later, 576 (2,368 in one tile: 1,792 earlier).
  EXPECT_EQ(rec.descriptors[chunks[0]].end, 471u);
  EXPECT_EQ(rec.descriptors[1].end, 507u);
  EXPECT_EQ(rec.descriptors[2].end, 575u);
  EXPECT_EQ(rec.descriptors[tiles[0]].start, 576u);
  // The ten tiles end at 10,350; then the one store, 10,351 + 2,156 = 12,507.
  EXPECT_EQ(rec.descriptors[tiles[9]].end, 10350u);
  EXPECT_EQ(cycles, 12507u);
}

// x (8 x 32 x 64 = 16 KiB, below the 32 KiB of a chunked load) -> a: conv 3x3 stride 2 pad 1,
// 16 channels, the run's last layer, on the seed with the flat DRAM pipe (16 B per bus cycle,
// 100 cycles latency, DMA setup 8). a's 32-wide output rows run in bands of 64 / 32 = 2 rows
// (band_rows): 8 tiles. Its output (16 x 16 x 32 = 8 KiB) was stored in one move after the last
// tile: 8 setup + 8,192 / 16 = 512 bus cycles + 100 = 620 cycles after it, 4,442 in all. Stored
// band by band behind the tiles (planner/lower/stream_io.cpp), only the last band's store is
// left after the last tile.
TEST(StreamedOutput, LastLayersBandsAreStoredBehindItsTiles) {
  ArchConfig arch;
  arch.dram.model = "simple";
  const Lowered l = lowered("streamed_output.yaml", arch);
  const std::vector<Descriptor>& d = l.list.descriptors;
  std::vector<uint32_t> tiles, stores;
  for (const Descriptor& e : d) {
    if (e.kind == DescKind::kOp) tiles.push_back(e.id);
    if (e.kind == DescKind::kMove && l.list.layers[e.layer] == "output:a") stores.push_back(e.id);
  }
  ASSERT_EQ(tiles.size(), 8u);
  ASSERT_EQ(stores.size(), 8u);
  for (uint32_t k = 0; k < 8; ++k) {
    // Band k: output rows [2k, 2k + 2) of every channel, 16 rows of 2 x 32 = 64 B at the 512 B
    // plane stride in L2 and in DRAM, after the band's one tile.
    const MoveDesc& m = d[stores[k]].move;
    EXPECT_EQ(m.rows, 16u);
    EXPECT_EQ(m.row_bytes, 64u);
    EXPECT_EQ(m.src_stride, 512u);
    EXPECT_EQ(m.dst_stride, 512u);
    EXPECT_EQ(m.dst_addr, d[stores[0]].move.dst_addr + k * 64u);
    EXPECT_EQ(d[stores[k]].deps, (std::vector<uint32_t>{tiles[k]}));
  }

  RunRecord rec;
  const uint64_t cycles = simulate_list(arch, l.list, &rec);
  // The last tile ends at 3,821 as before; its band's store issues a cycle later, 3,822: 8 setup
  // + 1,024 / 16 = 64 bus cycles + 100 latency = 3,994 (448 fewer than 4,442), the earlier
  // bands' stores having run under the tiles after them.
  EXPECT_EQ(rec.descriptors[tiles[7]].end, 3821u);
  EXPECT_EQ(rec.descriptors[stores[7]].start, 3822u);
  EXPECT_EQ(rec.descriptors[stores[7]].end, 3994u);
  EXPECT_EQ(cycles, 3994u);
}

}  // namespace
}  // namespace strider
