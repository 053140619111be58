// The default run end to end (the "make run" figure) and an emitted descriptor list run
// directly. Each test is its own process (one SystemC elaboration).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tb/commands.h"

namespace strider {
namespace {

namespace fs = std::filesystem;
const std::string kDir = STRIDER_SOURCE_DIR;

std::string scratch(const std::string& tag) {
  const fs::path p = fs::temp_directory_path() / ("strider_run_" + tag + "_" + std::to_string(getpid()));
  fs::remove_all(p);
  return p.string();
}

nlohmann::json summary(const std::string& dir) {
  std::ifstream f(dir + "/summary.json");
  return nlohmann::json::parse(f);
}

// The default run's cycle count, pinned: any change to the model's timing, the lowering or the
// planner that moves it must update this figure deliberately (and the regression goldens).
// On the JEDEC LPDDR4-3200 model (7790 on the flat 16 B/cycle pipe, dram.model: simple), add1
// fused into conv2b's store path (8161 with lowering.fuse: false, add1 its own layer); 8132
// before the DMA channels' requests shared the DRAM controller's queue (FR-FCFS across requests);
// 8141 before the positions mapping's input row pieces went through the L2 banks one by one;
// 8154 before idle DRAM ranks entered power-down (a request after an idle gap waits tXP).
// 7780 before each layer's first weights could load from the step of the layer with weights
// before it (conv2a's during conv1 instead of pool1, whose L2 reads they slowed by 18 cycles),
// 7762 with that alone; 7748 with channel planes also skewed round the banks (tiny_cnn's 32 x 32
// and 16 x 16 planes: 1,024 -> 1,032 B, 256 -> 264 B; L2 bank-conflict cycles 1,368 -> 22);
// 7703 with the descriptor decode streaming behind the list's DRAM read (the first move issues
// at 43 instead of 92: the input and conv1's weights start 49 cycles earlier).
// 7432 with pool1 (2x2 / 2) and dw3 (3x3 / 2 depthwise) running each tile as one stream over the
// padded input (one shifted write per kernel row, not per output row: pool1 518 -> 457, dw3 418
// -> 199). 6963 with pool1 fused into conv1's store (OpDesc::pool): conv1 starts 3 cycles later
// and takes 1 more (the last window's compare), pool1's 473 cycles from conv1's end gone:
// 7432 - 473 + 4 = 6963 (7432 with l1.pool_row_buffer_bytes: 0, tests/e2e/pool_fusion_test.cpp).
// 6282 with stride-1 tiles walking their output rows back to back where shorter (no discarded
// windows): conv1 1,925 -> 1,822 cycles (32 x 32 pad 1: 31 x 34 + 32 = 1,086 stream positions in
// 17 runs, 1,024 in 16), conv2a 3,061 -> 2,483 (286 in 5 runs, 256 in 4; 6,751 unfused).
constexpr uint64_t kDefaultCycles = 6282;

TEST(Run, DefaultRunCyclesAndSummaryKeys) {
  const std::string out = scratch("default");
  std::ostringstream so, se;
  ASSERT_EQ(dispatch({"run", kDir + "/configs/runs/default.yaml", "--out", out}, so, se), 0) << se.str();
  const nlohmann::json s = summary(out);
  EXPECT_EQ(s["cycles"].get<uint64_t>(), kDefaultCycles);
  EXPECT_NE(so.str().find("cycles           6282"), std::string::npos) << so.str();
  for (const char* key : {"cycles", "seconds_at_clock", "macs", "utilization", "wall_seconds",
                          "simulated_cycles_per_second"}) {
    EXPECT_TRUE(s.contains(key)) << key;
  }
  EXPECT_EQ(s["macs"].get<uint64_t>(), 1254720u);  // tiny_cnn's conv + fc MACs
  EXPECT_TRUE(s["dram"].contains("read_bytes"));
  EXPECT_TRUE(s["l2"].contains("peak_observed_bytes"));
  EXPECT_TRUE(s["line_buffer"].contains("shifted_writes"));
  EXPECT_TRUE(s["planner"].contains("lower_bound_bytes"));
  EXPECT_EQ(s["functional"]["enabled"].get<bool>(), false);
  for (const char* f : {"layers.csv", "descriptors.csv", "occupancy.csv", "memory_plan.csv",
                        "effective_config.yaml"}) {
    EXPECT_TRUE(fs::exists(out + "/" + f)) << f;
  }
  fs::remove_all(out);
}

TEST(Run, EmittedListRunsWithTheSameCycles) {
  const std::string out = scratch("list");
  std::ostringstream so, se;
  ASSERT_EQ(dispatch({"plan", kDir + "/configs/runs/default.yaml", "--out", out, "--emit",
                      out + "/list.strd", "--text", out + "/list.yaml"}, so, se), 0)
      << se.str();
  ASSERT_EQ(dispatch({"run", out + "/list.strd", "--arch", kDir + "/configs/arch/seed.yaml",
                      "--out", out + "/sim"}, so, se), 0)
      << se.str();
  EXPECT_EQ(summary(out + "/sim")["cycles"].get<uint64_t>(), kDefaultCycles);
  fs::remove_all(out);
}

TEST(Run, ListPlannedForAnotherArchIsRefused) {
  const std::string out = scratch("arch");
  std::ostringstream so, se;
  ASSERT_EQ(dispatch({"plan", kDir + "/configs/runs/default.yaml", "--out", out, "--emit",
                      out + "/list.strd"}, so, se), 0);
  EXPECT_EQ(dispatch({"run", out + "/list.strd", "--arch", kDir + "/configs/arch/tiny.yaml"}, so, se), 1);
  EXPECT_NE(se.str().find("list.strd: planned for an arch with fingerprint 0xc55c5af90ec1514e, but "),
            std::string::npos)
      << se.str();
  fs::remove_all(out);
}

TEST(Run, BadRunFileNamesFileLineAndKey) {
  const std::string dir = scratch("bad");
  fs::create_directories(dir);
  {
    std::ofstream f(dir + "/bad.yaml");
    f << "arch: " << kDir << "/configs/arch/seed.yaml\n"
      << "networks:\n  - {path: " << kDir << "/configs/networks/tiny_cnn.yaml}\n"
      << "sim: {functionl: true}\n";
  }
  std::ostringstream so, se;
  EXPECT_EQ(dispatch({"run", dir + "/bad.yaml"}, so, se), 1);
  EXPECT_NE(se.str().find("bad.yaml:4: sim.functionl: unknown key"), std::string::npos) << se.str();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace strider
