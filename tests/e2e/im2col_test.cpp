// The im2col mapping end to end: a network of 3x3 and 5x5 convolutions at strides 1 and 2
// (tests/e2e/data/im2col_cnn.yaml) with `lowering.mapping: im2col` runs every tile in that
// mapping, with no shifted writes, and functional mode matches the reference bit for bit with
// exactly the timing run's cycles. Each simulation runs in a forked child (child_run.h).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/e2e/child_run.h"

namespace strider {
namespace {

struct Figures {
  uint64_t cycles = 0, checked = 0, mismatches = 0, tiles = 0, im2col_tiles = 0;
  uint64_t shifted_writes = 0;
  int status = -1;
  char detail[160] = {};
};

Figures simulate(const std::vector<std::string>& extra) {
  std::vector<std::string> sets = {
      "networks[0].path=" + std::string(STRIDER_SOURCE_DIR) + "/tests/e2e/data/im2col_cnn.yaml",
      "arch.lowering.mapping=im2col"};
  sets.insert(sets.end(), extra.begin(), extra.end());
  return simulate_in_child<Figures>(std::string(STRIDER_SOURCE_DIR) + "/configs/runs/default.yaml",
                                    sets, [](const RunResult& r, Figures& f) {
                                      f.cycles = r.cycles;
                                      f.checked = r.checked_tensors;
                                      f.mismatches = r.mismatches;
                                      for (const Descriptor& d : r.lowered.list.descriptors) {
                                        if (d.kind != DescKind::kOp) continue;
                                        ++f.tiles;
                                        f.im2col_tiles += d.op.mapping == Mapping::kIm2col;
                                        f.shifted_writes +=
                                            r.record.descriptors[d.id].shifted_writes;
                                      }
                                    });
}

TEST(Im2col, ConvolutionsMatchTheReferenceWithNoShiftedWrites) {
  const Figures timing = simulate({});
  const Figures functional = simulate({"sim.functional=true"});
  ASSERT_EQ(timing.status, 0) << timing.detail;
  ASSERT_EQ(functional.status, 0) << functional.detail;
  EXPECT_GT(timing.tiles, 0u);
  EXPECT_EQ(timing.im2col_tiles, timing.tiles);  // every layer is a k>1 conv with groups 1
  EXPECT_EQ(timing.shifted_writes, 0u);
  EXPECT_EQ(functional.checked, 4u);
  EXPECT_EQ(functional.mismatches, 0u) << functional.detail;
  EXPECT_EQ(functional.cycles, timing.cycles);
}

}  // namespace
}  // namespace strider
