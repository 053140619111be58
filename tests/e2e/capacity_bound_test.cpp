// The capacity bound (tb/capacity_bound.h): exact cycles of a classifier whose weights do not fit
// L2, the cut it is taken at, where it does not apply (a batch, a branch around the classifier),
// and that a simulated run never beats it (its summary's bound takes it).
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "core/arch/config_loader.h"
#include "planner/import/yaml_network.h"
#include "tb/capacity_bound.h"
#include "tb/run_summary.h"
#include "tests/e2e/child_run.h"
#include "tests/lib/test_file.h"

namespace strider {
namespace {

// conv1 (16 -> 64, 3x3) -> conv2 (64 -> 64, 3x3) -> gap -> fc1 (64 -> 2048) -> fc2 (2048 ->
// 1000): 2 MB of fc2 weights against the seed's 1 MiB of L2, behind 184 k cycles of convs.
// `extra` adds layers (and `outputs` the outputs line).
std::string classifier(const std::string& batch, const std::string& extra = "",
                       const std::string& outputs = "[fc2]") {
  return "network:\n"
         "  name: classifier\n"
         "  input: {name: x, shape: [" + batch + ", 16, 32, 32]}\n"
         "  layers:\n"
         "    - {name: conv1, op: conv, inputs: [x], out_channels: 64, kernel: 3, pad: 1, activation: relu}\n"
         "    - {name: conv2, op: conv, inputs: [conv1], out_channels: 64, kernel: 3, pad: 1, activation: relu}\n"
         "    - {name: gap, op: globalavgpool, inputs: [conv2]}\n"
         "    - {name: fc1, op: fc, inputs: [gap], out_features: 2048, activation: relu}\n"
         "    - {name: fc2, op: fc, inputs: [fc1], out_features: 1000}\n" +
         extra + "  outputs: " + outputs + "\n";
}

CapacityBound bound_of(const std::string& network_text,
                       const std::vector<std::pair<std::string, uint64_t>>& lb = {}) {
  const Graph g = import_yaml_network(write_test_file("capacity_net.yaml", network_text));
  std::vector<uint64_t> lb_writes(g.nodes.size(), 0);
  for (const auto& [name, cycles] : lb) {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      if (g.nodes[i].name == name) lb_writes[i] = cycles;
    }
  }
  return capacity_bound(g, default_arch({}), lb_writes);
}

TEST(CapacityBound, ClassifierExactCycles) {
  // Seed: peak 64 x 4 = 256 MACs per cycle; LPDDR4-3200 x32 at 1 GHz: 12.8 B per cycle
  // (dram_peak_cycles: ceil(bytes x 5 / 64)); L2 1,048,576 B.
  // Cut at fc1. Upstream conv1 + conv2 + gap: 1,024 positions x 64 x (144 + 576) = 47,185,920
  // MACs -> 184,320 cycles; weights 9,216 + 256 + 36,864 + 256 + the 16,384 B input = 62,976 B
  // -> 4,920 cycles; max 184,320. From fc1 on: 64 x 2048 + 2048 x 1000 = 2,179,072 MACs -> 8,512
  // cycles; weights 131,072 + 8,192 + 2,048,000 + 4,000 = 2,191,264 B, less L2: 1,142,688, plus
  // the 1,000 B output: 1,143,688 B -> 89,351 cycles. 184,320 + 89,351 = 273,671.
  // Cut at fc2: upstream 47,316,992 MACs -> 184,832; 202,240 B -> 15,800; fc2: 8,000 cycles of
  // MACs, 2,052,000 - 1,048,576 + 1,000 = 1,004,424 B -> 78,471; 263,303 < 273,671.
  const CapacityBound b = bound_of(classifier("1"));
  EXPECT_EQ(b.cycles, 273671u);
  EXPECT_EQ(b.node, "fc1");
  // The line-buffer writes of the run's tiles count as in the whole-run bound: conv2 200,000
  // and fc2 95,000 cycles of writes. Cut at fc1: max(184,320, 200,000, 4,920) + max(8,512,
  // 95,000, 89,351) = 295,000; at fc2: max(184,832, 200,000, 15,800) + max(8,000, 95,000,
  // 78,471) = 295,000, not larger: fc1 stays.
  const CapacityBound w = bound_of(classifier("1"), {{"conv2", 200000}, {"fc2", 95000}});
  EXPECT_EQ(w.cycles, 295000u);
  EXPECT_EQ(w.node, "fc1");
}

TEST(CapacityBound, NoneForABatchOrABranchAroundTheClassifier) {
  // A batch's images may interleave across the cut: no bound.
  EXPECT_EQ(bound_of(classifier("2")).cycles, 0u);
  // side reads conv1 and is neither upstream nor downstream of fc1 or fc2: no chain point.
  const CapacityBound b = bound_of(classifier(
      "1", "    - {name: side, op: conv, inputs: [conv1], out_channels: 8, kernel: 1}\n",
      "[fc2, side]"));
  EXPECT_EQ(b.cycles, 0u);
  EXPECT_EQ(b.node, "");
}

struct Figures {
  uint64_t cycles = 0, bound = 0, capacity = 0, lb_writes = 0;
  int status = -1;
  char detail[200] = {};
};

TEST(CapacityBound, ARunNeverBeatsItAndTheSummaryBoundTakesIt) {
  const std::string net = write_test_file("capacity_run_net.yaml", classifier("1"));
  const std::string run = write_test_file(
      "capacity_run.yaml", "arch: " + std::string(STRIDER_SOURCE_DIR) +
                               "/configs/arch/seed.yaml\nnetworks:\n  - {path: " + net +
                               "}\nsim: {functional: false, trace: false}\n");
  const Figures f =
      simulate_in_child<Figures>(run, {}, [](const RunResult& r, Figures& out) {
        const RunSummary s = summarise(r);
        out.cycles = r.cycles;
        out.bound = s.bound_cycles;
        out.capacity = s.capacity_bound_cycles;
        out.lb_writes = s.totals.lb_write_cycles;
      });
  ASSERT_EQ(f.status, 0) << f.detail;
  EXPECT_EQ(f.capacity, 273671u);
  // The whole-run roofline's terms are lower: 49,364,992 MACs -> 192,832 cycles; about 2.26 MB
  // of DRAM traffic -> 176 k. The run's line-buffer writes (conv1 + conv2 159,744, gap fused
  // into conv2's store; fc1 + fc2 4,096 + 64,000: 32 B of weights per write) stay under both
  // sides' other terms.
  EXPECT_EQ(f.bound, 273671u);
  EXPECT_EQ(f.lb_writes, 227840u);
  EXPECT_GE(f.cycles, f.capacity);
}

}  // namespace
}  // namespace strider
