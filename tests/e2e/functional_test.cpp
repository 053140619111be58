// Functional mode end to end: the default run (tiny_cnn on seed.yaml) simulated with
// sim.functional on has every compute layer's output equal to the reference and exactly the cycles
// of the timing-only run, with shift-stride writes on and off; corrupting one weight byte in the
// DRAM image makes the check fail. Each simulation runs in a forked child (SystemC elaborates
// once per process; tests/e2e/child_run.h).
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "tests/e2e/child_run.h"

namespace strider {
namespace {

struct Figures {
  uint64_t cycles = 0, checked = 0, mismatches = 0, compute_layers = 0;
  int status = -1;  // 0: the child simulated without deadlock
  char detail[160] = {};
};

// Loads configs/runs/default.yaml with `sets`, plans it, applies `tamper` to the planned run and
// simulates it in a child process.
Figures simulate(const std::vector<std::string>& sets,
                 const std::function<void(RunResult&)>& tamper = nullptr) {
  return simulate_in_child<Figures>(
      std::string(STRIDER_SOURCE_DIR) + "/configs/runs/default.yaml", sets,
      [](const RunResult& r, Figures& f) {
        f.cycles = r.cycles;
        f.checked = r.checked_tensors;
        f.mismatches = r.mismatches;
        std::set<uint32_t> layers;  // layers with operation tiles
        for (const Descriptor& d : r.lowered.list.descriptors) {
          if (d.kind == DescKind::kOp) layers.insert(d.layer);
        }
        f.compute_layers = layers.size();
      },
      tamper);
}

// tiny_cnn's compute layers: conv1, conv2a, conv2b, conv3, dw3, gap, fc (the concat is in place;
// add1 is fused into conv2b's store path and pool1 into conv1's, lowering.fuse, the default).
constexpr uint64_t kTinyCnnComputeLayers = 7;

void expect_functional_matches_timing(const std::string& shift_stride) {
  const Figures timing = simulate({"arch.l1.shift_stride=" + shift_stride});
  const Figures functional =
      simulate({"arch.l1.shift_stride=" + shift_stride, "sim.functional=true"});
  ASSERT_EQ(timing.status, 0) << timing.detail;
  ASSERT_EQ(functional.status, 0) << functional.detail;
  EXPECT_EQ(timing.checked, 0u);  // nothing is checked without functional mode
  EXPECT_EQ(functional.compute_layers, kTinyCnnComputeLayers);
  EXPECT_EQ(functional.checked, kTinyCnnComputeLayers);
  EXPECT_EQ(functional.mismatches, 0u) << functional.detail;
  EXPECT_GT(timing.cycles, 0u);
  EXPECT_EQ(functional.cycles, timing.cycles);
}

TEST(Functional, DefaultRunMatchesReferenceWithTimingCyclesShiftStrideOn) {
  expect_functional_matches_timing("true");
}

TEST(Functional, DefaultRunMatchesReferenceWithTimingCyclesShiftStrideOff) {
  expect_functional_matches_timing("false");
}

TEST(Functional, CorruptedWeightByteIsDetected) {
  // The first DRAM blob is conv1's weights (the first layer with weights in schedule order); the
  // reference reads the graph's untouched copy, so conv1 and everything after it differ.
  const Figures f = simulate({"sim.functional=true"}, [](RunResult& r) {
    r.lowered.dram.blobs.at(0).bytes.at(0) ^= 0x40;
  });
  ASSERT_EQ(f.status, 0) << f.detail;
  EXPECT_EQ(f.checked, kTinyCnnComputeLayers);
  EXPECT_GT(f.mismatches, 0u);
  EXPECT_EQ(std::string(f.detail).rfind("layer conv1 (conv): ", 0), 0u) << f.detail;
}

TEST(Functional, CorruptedGraphWeightIsDetected) {
  // The other direction: the DRAM image keeps the planned weights while the reference's graph
  // copy of fc's weights changes; only the last layer can differ.
  const Figures f = simulate({"sim.functional=true"}, [](RunResult& r) {
    for (Node& n : r.graph.nodes) {
      if (n.name == "fc") r.graph.tensors[n.weights].data.at(0) ^= 0x7f;
    }
  });
  ASSERT_EQ(f.status, 0) << f.detail;
  EXPECT_EQ(f.mismatches, 1u);
  EXPECT_EQ(std::string(f.detail).rfind("layer fc (fc): ", 0), 0u) << f.detail;
}

}  // namespace
}  // namespace strider
