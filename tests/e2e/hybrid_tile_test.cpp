// The hybrid tile end to end (core/timing/tile_work.h): a 1x1 convolution on a 14x14 plane
// (tests/e2e/data/hybrid_1x1.yaml) on the seed machine runs its partial last run of 4 positions
// in the channels form, with exactly the cycles worked out below, and functional mode matches the
// reference bit for bit with the timing run's cycles. Each simulation runs in a forked child.
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

Figures simulate(const std::vector<std::string>& extra) {
  std::vector<std::string> sets = {
      "networks[0].path=" + std::string(STRIDER_SOURCE_DIR) + "/tests/e2e/data/hybrid_1x1.yaml",
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

}  // namespace
}  // namespace strider
