// Issue 27: a K = 1 GEMM written as a SCALE-Sim conv row whose output spills (Transformer_short's
// Embedding: 512 x 1 IFMAP, 1 channel, 33,708 filters; here 4,096 filters, a 2 MiB output on the
// seed's 1 MiB L2). Under `auto` the block was the whole weight slot (L2 / 32 = 32,768 one-byte
// filters) and the out-band then held one row: every band wrote one byte per channel at the
// channel stride, each a DRAM burst of its own (8,388,608 B written for a 2,097,152 B output,
// 1,007,947 cycles). The band choice (planner/lower/banded_lowering.cpp) now halves the block
// until a band holds a DMA burst (64 B = 64 rows of width 1) per channel.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>

#include "tests/e2e/child_run.h"

namespace strider {
namespace {

struct Figures {
  uint64_t cycles = 0, dram_read = 0, dram_written = 0, tiles = 0, spill = 0, weights = 0;
  uint64_t narrowest_spill = 0;  // bytes of the smallest piece an Embedding spill moves
  int status = -1;
  char detail[160] = {};
};

TEST(GemmBands, SpilledOutputLeavesInWholeBursts) {
  const std::string dir = ::testing::TempDir() + "strider_gemm_bands";
  ::mkdir(dir.c_str(), 0755);
  const std::string run = dir + "/run.yaml";
  std::ofstream(run) << "arch: " << STRIDER_SOURCE_DIR << "/configs/arch/seed.yaml\n"
                     << "networks:\n  - {path: " << STRIDER_SOURCE_DIR
                     << "/tests/e2e/data/scalesim/embedding_k1.csv}\n"
                     << "sim: {functional: false, trace: false}\noutput_dir: " << dir << "/out\n";
  const Figures f = simulate_in_child<Figures>(run, {}, [](const RunResult& r, Figures& f) {
    f.cycles = r.cycles;
    f.dram_read = r.stats.get("dram.read_bytes");
    f.dram_written = r.stats.get("dram.write_bytes");
    uint32_t layer = 0;
    while (layer + 1 < r.lowered.layers.size() && r.lowered.layers[layer].name != "Embedding")
      ++layer;
    const LayerReport& l = r.lowered.layers[layer];
    f.tiles = l.tiles, f.spill = l.spill_bytes, f.weights = l.weight_bytes;
    f.narrowest_spill = UINT64_MAX;
    for (const Descriptor& d : r.lowered.list.descriptors) {
      if (d.kind == DescKind::kMove && d.layer == layer && d.move.dst_space == MemSpace::kDram) {
        f.narrowest_spill = std::min<uint64_t>(f.narrowest_spill, d.move.row_bytes);
      }
    }
  });
  ASSERT_EQ(f.status, 0) << f.detail;
  // The weight slot's 32,768 channels halve to 1,024, whose 64-row band (one burst per channel)
  // fills the 64 KiB out-band slot: 4 blocks x 8 bands = 32 tiles, each spilling 1,024 pieces
  // of 64 contiguous bytes (one burst each); the blocks' weights are staged per band.
  EXPECT_EQ(f.tiles, 32u);
  EXPECT_EQ(f.narrowest_spill, 64u);
  EXPECT_EQ(f.spill, 2097152u);
  EXPECT_EQ(f.weights, 8 * (4096u + 4 * 4096u));  // one-byte filters, int32 biases; 8 bands
  // Every output byte is written once (was 4x); all DRAM traffic within 3x of compulsory
  // (input 512 + weights 4,096 + biases 16,384 + output 2,097,152 = 2,118,144 B): the reads
  // beyond it are the descriptors fetched from DRAM.
  EXPECT_EQ(f.dram_written, 2097152u);
  EXPECT_LE(f.dram_read + f.dram_written, 3 * 2118144u);
  EXPECT_LT(f.cycles, 1007947u / 3);
}

}  // namespace
}  // namespace strider
