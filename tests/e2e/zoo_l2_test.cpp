// Every zoo network on seed.yaml with L2 at 128 KiB, 1 MiB and 8 MiB: each run completes, cycles
// never increase when L2 grows, DRAM reads cover at least the weights, and at 8 MiB nothing
// spills. Simulations run as child processes (SystemC elaborates once per process); planning
// alone runs in-process.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/arch/config_loader.h"
#include "planner/import/network_loader.h"
#include "planner/lower/lowering.h"

namespace strider {
namespace {

namespace fs = std::filesystem;
const std::string kDir = STRIDER_SOURCE_DIR;
const std::string kStrider = std::string(STRIDER_BINARY_DIR) + "/strider";
const uint64_t kSizes[] = {131072, 1048576, 8388608};

class ZooL2 : public ::testing::TestWithParam<std::string> {};

uint64_t weight_bytes(const Graph& g) {
  uint64_t w = 0;
  for (const Tensor& t : g.tensors) w += t.kind == TensorKind::kWeight ? uint64_t(t.bytes()) : 0;
  return w;
}

TEST_P(ZooL2, RunsOnEveryL2Size) {
  const std::string net = GetParam();
  const fs::path out = fs::temp_directory_path() / ("strider_zoo_" + net + "_" + std::to_string(getpid()));
  const Graph g = load_network(kDir + "/configs/networks/" + net + ".onnx", 0, 0, 1);
  uint64_t previous = UINT64_MAX;
  for (uint64_t l2 : kSizes) {
    const std::string dir = (out / std::to_string(l2)).string();
    const std::string cmd = kStrider + " run " + kDir + "/configs/runs/" + net + ".yaml --out " +
                            dir + " --set arch.l2.size_bytes=" + std::to_string(l2) +
                            // timing only: what is checked here needs neither the functional
                            // check nor the trace (both minutes under the sanitizers)
                            " --set sim.trace=false --set sim.functional=false > " + dir +
                            ".log 2>&1";
    fs::create_directories(out);
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::ifstream f(dir + "/summary.json");
    const nlohmann::json s = nlohmann::json::parse(f);
    const uint64_t cycles = s["cycles"].get<uint64_t>();
    EXPECT_LE(cycles, previous) << net << " got slower with L2 = " << l2;
    EXPECT_GE(s["dram"]["read_bytes"].get<uint64_t>(), weight_bytes(g)) << net << " " << l2;
    previous = cycles;
    // No layer runs faster than its own bound.
    std::ifstream layers(dir + "/layers.csv");
    std::string header, row;
    std::getline(layers, header);
    while (std::getline(layers, row)) {
      std::vector<std::string> f;
      std::stringstream cells(row);
      for (std::string c; std::getline(cells, c, ',');) f.push_back(c);
      ASSERT_GE(f.size(), 19u) << row;  // trailing empty fields are not split off
      EXPECT_LE(std::stoull(f[18]), std::stoull(f[5])) << net << " " << l2 << ": " << row;
    }
    if (l2 == 1048576) {
      // The DNN module at the efficiency of its design (issue 14): on the seed (1 MiB) every zoo
      // network within 2x its bound max(MACs / 256, DRAM bytes / peak, L2 port bytes / 64);
      // resnet50 and googlenet within 1.35x, mobilenet_v2 within 1.7x (1.6x on the flat DRAM
      // pipe: the bound's DRAM term is LPDDR4-3200's peak, which the JEDEC model's refresh, row
      // misses and turnarounds keep its spill / fill traffic below; issue 25).
      const double over = s["cycles_over_bound"].get<double>();
      const double limit = net == "resnet50" || net == "googlenet" ? 1.35
                           : net == "mobilenet_v2"                 ? 1.7
                                                                   : 2.0;
      EXPECT_LE(over, limit) << net;
    }
  }
  ArchConfig arch = load_arch(kDir + "/configs/arch/seed.yaml");
  arch.l2.size_bytes = 8388608;
  const Lowered l = lower(g, arch, LowerOptions());
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    EXPECT_FALSE(l.tensor_spilled[t]) << net << ": " << g.tensors[t].name << " spilled at 8 MiB";
  }
  EXPECT_EQ(l.band_bytes, 0u);
  fs::remove_all(out);
}

INSTANTIATE_TEST_SUITE_P(Networks, ZooL2,
                         ::testing::Values("resnet50", "mobilenet_v2", "inception_v3", "googlenet",
                                           "densenet121"));

}  // namespace
}  // namespace strider
