// The hybrid tile end to end (core/timing/tile_work.h): a 1x1 convolution on a 14x14 plane
// (tests/e2e/data/hybrid_1x1.yaml) on the seed machine runs its partial last run of 4 positions
// in the channels form, and a 3x3 convolution on a 13x13 plane (hybrid_3x3.yaml) its partial last
// run of 1 in the im2col form, with exactly the cycles worked out below, and functional mode
// matches the reference bit for bit with the timing run's cycles. Each simulation runs in a
// forked child.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/e2e/child_run.h"

namespace strider {
namespace {

struct Figures {
  uint64_t cycles = 0, checked = 0, mismatches = 0, tiles = 0, positions_tiles = 0;
  uint64_t compute = 0, shifted = 0, line_writes = 0, fills_span = 0, macs = 0;
  int status = -1;
  char detail[160] = {};
};

Figures simulate(const std::vector<std::string>& extra, const char* network = "hybrid_1x1") {
  std::vector<std::string> sets = {"networks[0].path=" + std::string(STRIDER_SOURCE_DIR) +
                                       "/tests/e2e/data/" + network + ".yaml",
                                   "sim.trace=false"};
  sets.insert(sets.end(), extra.begin(), extra.end());
  return simulate_in_child<Figures>(
      std::string(STRIDER_SOURCE_DIR) + "/configs/runs/default.yaml", sets,
      [](const RunResult& r, Figures& f) {
        f.cycles = r.cycles;
        f.checked = r.checked_tensors;
        f.mismatches = r.mismatches;
        for (const Descriptor& d : r.lowered.list.descriptors) {
          if (d.kind != DescKind::kOp) continue;
          const DescriptorRecord& rec = r.record.descriptors[d.id];
          ++f.tiles;
          f.positions_tiles += d.op.mapping == Mapping::kPositions;
          f.compute += rec.compute_cycles;
          f.shifted += rec.shifted_writes;
          f.line_writes += rec.line_writes;
          f.macs += rec.macs;
          f.fills_span = rec.end - rec.start;
        }
      });
}

// Seed: 64 neurons x 4 MAC lanes, 8 accumulators, 32-byte lines, post-op 2, L2 latency 4. The
// tile (24 channels, 196 positions, 32 input channels) runs 3 runs of 64 positions x 3 groups of
// 8 channels, one fill each of the 32 one-byte segments: 32 shifted writes, 8 x ceil(32 / 4) = 64
// compute cycles (compute-bound: the 9 fills' compute ends at 32 + 9 x 64 = 608). The 4-position
// tail, channels form: the 24 channels on 24 neurons, the 4 positions in one group, one fill of
// the 32 input channels: 24 line writes (fill 10's buffer is free when fill 8's compute ends at
// 544: writes 544 -> 568) and 4 x 8 = 32 compute cycles (608 -> 640). In the positions form the
// tail would be 3 more fills of 64: 800. Compute 9 x 64 + 32 = 608 cycles. The tile: the neurons
// start after the first fill's 32 writes + 4 L2 latency = 36 cycles, their MACs end at
// 36 + 640 - 32 = 644, the post-ops at 646, and the store retires the tile 1 + 4 (latency) later:
// 651 cycles from the load unit's start.
TEST(HybridTile, PointwiseTailRunsInTheChannelsFormWithExactCycles) {
  const Figures timing = simulate({});
  const Figures functional = simulate({"sim.functional=true"});
  ASSERT_EQ(timing.status, 0) << timing.detail;
  ASSERT_EQ(functional.status, 0) << functional.detail;
  EXPECT_EQ(timing.tiles, 1u);
  EXPECT_EQ(timing.positions_tiles, 1u);
  EXPECT_EQ(timing.compute, 608u);
  EXPECT_EQ(timing.shifted, 9u * 32u);
  EXPECT_EQ(timing.line_writes, 24u);
  EXPECT_EQ(timing.macs, 24u * 196u * 32u);
  EXPECT_EQ(timing.fills_span, 651u);
  EXPECT_EQ(functional.checked, 1u);
  EXPECT_EQ(functional.mismatches, 0u) << functional.detail;
  EXPECT_EQ(functional.cycles, timing.cycles);
}

// Seed machine as above, on the first stream (l1.shared_pad false: virtual rows of 13 + 1 + 1 =
// 15; with shared pad columns, rows of 14, the stream is 12 x 14 + 13 = 181 positions, 2 runs and a
// partial one of 53 with 50 valid outputs, too many for the im2col form to beat a third run: the
// tile runs plain, 3 x 8 x 152 = 3,648 compute cycles). The tile (64 channels, 8 input channels,
// 3x3, pad 1, 13x13) walks the padded stream of 12 x 15 + 13 = 193 positions: 3 runs of 64 (stream positions 0..191, 168 valid
// outputs and 24 windows across a row end per channel), 8 groups of 8 channels each, the 24
// segments (8 channels x 3 kernel rows, 3 B) in fills of 10, 10 and 4: 10, 10, 4 shifted writes
// against 8 x ceil(30 / 4) = 64, 64 and 8 x ceil(12 / 4) = 24 compute cycles, compute-bound:
// 3 x 8 x 152 = 3,648 compute cycles from the first fill's 10 writes, ending at 3,658 (the last
// run's second-last fill at 3,634). The tail, stream position 192 = output row 12, column 12 (1
// valid position), in the im2col form: the 64 channels on the 64 neurons, the 72-element window
// (8 channels x 3 x 3) in fills of 32, 32, 8, each 64 line writes (each line its channel's
// weights) and 1 x 8, 8, 2 compute cycles: writes 3,634 -> 3,698 (the buffer of the run's
// second-last fill), 3,698 -> 3,762, 3,762 -> 3,826; compute 3,698 -> 3,706, 3,762 -> 3,770,
// 3,826 -> 3,828. In the positions form the tail would be a fourth run of 1,216 cycles (4,874 in
// all). Compute 3,648 + 18 = 3,666 cycles; the neurons start after 10 writes + 4 L2 latency = 14,
// their MACs end at 14 + 3,828 - 10 = 3,832, the post-ops at 3,834, and the store retires the
// tile 1 + 4 later: 3,839 cycles from the load unit's start.
TEST(HybridTile, K3TailRunsInTheIm2colFormWithExactCycles) {
  const Figures timing = simulate({"arch.l1.shared_pad=false"}, "hybrid_3x3");
  const Figures functional =
      simulate({"arch.l1.shared_pad=false", "sim.functional=true"}, "hybrid_3x3");
  ASSERT_EQ(timing.status, 0) << timing.detail;
  ASSERT_EQ(functional.status, 0) << functional.detail;
  EXPECT_EQ(timing.tiles, 1u);
  EXPECT_EQ(timing.positions_tiles, 1u);
  EXPECT_EQ(timing.compute, 3666u);
  EXPECT_EQ(timing.shifted, 3u * 8u * 24u);
  EXPECT_EQ(timing.line_writes, 3u * 64u);
  EXPECT_EQ(timing.macs, 64u * 169u * 72u);
  EXPECT_EQ(timing.fills_span, 3839u);
  EXPECT_EQ(functional.checked, 1u);
  EXPECT_EQ(functional.mismatches, 0u) << functional.detail;
  EXPECT_EQ(functional.cycles, timing.cycles);
}

}  // namespace
}  // namespace strider
