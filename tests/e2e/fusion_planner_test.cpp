// FusionPlanner (tb/fusion_planner.h): candidates lowered with the networks' payloads lent give
// the lists, DRAM images and tensors of graphs holding their own (one network and two merged),
// lending leaves the planner as it was, and resnet50's choice is every Add fused because the
// alternative moves more DRAM bytes. default_threads() (core/common/parallel_for.h) and a run on
// one thread: byte-identical reports and tensors to a run on two.
#include "tb/fusion_planner.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/arch/config_loader.h"
#include "core/common/parallel_for.h"
#include "planner/import/network_loader.h"
#include "planner/lower/legalise.h"
#include "planner/lower/network_merge.h"
#include "planner/quant/calibrator.h"
#include "tb/resource_limits.h"

namespace strider {
namespace {

std::string source(const std::string& rel) { return std::string(STRIDER_SOURCE_DIR) + "/" + rel; }

Graph calibrated(const std::string& network) {
  Graph g = load_network(source(network), 0, 0, 1);
  fuse_activations(&g);
  calibrate(&g, CalibrationOptions{1, 1});
  return g;
}

LowerOptions options(const RunConfig& cfg) {
  LowerOptions opt;
  opt.allocator = cfg.planner.allocator;
  opt.schedule = cfg.planner.schedule;
  opt.time_limit_s = cfg.planner.time_limit_s;
  opt.segment_choice = cfg.planner.image_segments;
  return opt;
}

void expect_same_lowering(const Lowered& got, const Lowered& want, const std::string& what) {
  EXPECT_TRUE(got.list == want.list) << what;
  ASSERT_EQ(got.dram.blobs.size(), want.dram.blobs.size()) << what;
  for (size_t i = 0; i < got.dram.blobs.size(); ++i) {
    EXPECT_EQ(got.dram.blobs[i].addr, want.dram.blobs[i].addr) << what << " blob " << i;
    EXPECT_TRUE(got.dram.blobs[i].bytes == want.dram.blobs[i].bytes) << what << " blob " << i;
  }
  EXPECT_EQ(got.tensor_addr, want.tensor_addr) << what;
  EXPECT_EQ(got.tensor_spilled, want.tensor_spilled) << what;
  EXPECT_EQ(got.weights_stored_bytes, want.weights_stored_bytes) << what;
}

void expect_same_tensors(const Graph& got, const Graph& want) {
  ASSERT_EQ(got.tensors.size(), want.tensors.size());
  for (size_t t = 0; t < got.tensors.size(); ++t) {
    const Tensor &a = got.tensors[t], &b = want.tensors[t];
    EXPECT_EQ(a.name, b.name);
    EXPECT_TRUE(a.data == b.data && a.bias == b.bias && a.float_data == b.float_data) << a.name;
  }
}

TEST(FusionPlanner, LentPayloadsLowerAsGraphsHoldingTheirOwn) {
  const RunConfig cfg = load_run(source("configs/runs/resnet50.yaml"));
  const Graph net = calibrated("configs/networks/resnet50.onnx");
  Graph owned = net;
  ASSERT_EQ(fuse_residual_adds(&owned), 16);
  const Lowered want = lower_within_limits(cfg, owned, cfg.arch, options(cfg));

  FusionPlanner planner({net}, {"resnet50"}, cfg, options(cfg));
  FusionCandidate c = planner.plan(std::set<std::string>());
  expect_same_lowering(c.lowered, want, "first");
  EXPECT_EQ(c.dram_bytes, dram_move_bytes(want.list));
  EXPECT_TRUE(c.graph.tensors[size_t(c.graph.nodes[0].weights)].data.empty());  // lent back
  // The payloads came back: a second plan is the same, and network(0) is the network.
  expect_same_lowering(planner.plan(std::set<std::string>()).lowered, want, "second");
  expect_same_tensors(planner.network(0), net);
  planner.adopt(c);
  expect_same_tensors(c.graph, owned);
}

TEST(FusionPlanner, MergedNetworksBorrowTheirPayloadsAtTheirOffsets) {
  RunConfig cfg = load_run(source("configs/runs/default.yaml"));
  const Graph a = calibrated("configs/networks/tiny_cnn.yaml");
  const Graph b = calibrated("configs/networks/mobilenet_v1.yaml");
  const std::vector<std::string> names = {"a", "b"};
  std::vector<Graph> fused = {a, b};
  for (size_t k = 0; k < fused.size(); ++k) fuse_residual_adds(&fused[k], {}, names[k] + "/");
  MergedNetworks m = merge_networks(fused, names, cfg.planner.schedule, cfg.execution);
  LowerOptions opt = options(cfg);
  opt.order = m.order;
  const Lowered want = lower_within_limits(cfg, m.graph, cfg.arch, opt);

  FusionPlanner planner({a, b}, names, cfg, options(cfg));
  FusionCandidate c = planner.plan(std::set<std::string>());
  EXPECT_EQ(c.order, m.order);
  expect_same_lowering(c.lowered, want, "merged");
  // Network b alone, fused as the candidate: its payloads at offset 0.
  Graph alone = b;
  fuse_residual_adds(&alone, {}, "b/");
  LowerOptions alone_opt = options(cfg);
  expect_same_lowering(planner.lower_alone(1, std::set<std::string>()),
                       lower_within_limits(cfg, alone, cfg.arch, alone_opt), "b alone");
  planner.adopt(c);
  expect_same_tensors(c.graph, m.graph);
}

// resnet50: the plan with every Add fused spills residual operands some fused convs then read per
// tile; leaving those Adds separate moves more DRAM bytes, so every Add stays fused (the run's
// choice, Fusion.RunsChooseFusionPerLayerWithThePlan).
TEST(FusionPlanner, Resnet50KeepsEveryAddFusedForFewerDramBytes) {
  RunConfig cfg = load_run(source("configs/runs/resnet50.yaml"));
  FusionPlanner planner({calibrated("configs/networks/resnet50.onnx")}, {"resnet50"}, cfg,
                        options(cfg));
  const FusionCandidate all = planner.plan(std::set<std::string>());
  const std::set<std::string> refused =
      residuals_read_from_dram(all.graph, all.lowered.tensor_spilled);
  ASSERT_FALSE(refused.empty());
  const FusionCandidate separate = planner.plan(refused);
  EXPECT_GT(separate.dram_bytes, all.dram_bytes);
  const FusionCandidate chosen = planner.choose();
  ASSERT_TRUE(chosen.keep.has_value());
  EXPECT_TRUE(chosen.keep->empty());
  EXPECT_EQ(chosen.dram_bytes, all.dram_bytes);
  EXPECT_TRUE(chosen.lowered.list == all.lowered.list);
}

TEST(Threads, DefaultThreadsFromTheMachineOrTheEnvironment) {
  unsetenv("STRIDER_THREADS");
  EXPECT_EQ(default_threads(), int(std::clamp(std::thread::hardware_concurrency(), 1u, 2u)));
  setenv("STRIDER_THREADS", "1", 1);
  EXPECT_EQ(default_threads(), 1);
  setenv("STRIDER_THREADS", "3", 1);
  EXPECT_EQ(default_threads(), 3);
  for (const char* bad : {"0", "65", "two", "2x", ""}) {
    setenv("STRIDER_THREADS", bad, 1);
    try {
      default_threads();
      ADD_FAILURE() << bad << " accepted";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), std::string("STRIDER_THREADS: '") + bad +
                                           "', expected a whole number from 1 to 64");
    }
  }
  unsetenv("STRIDER_THREADS");
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// summary.json without its timing fields (wall and stage seconds, simulation speed).
nlohmann::json untimed(nlohmann::json j) {
  if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& k = it.key();
      const bool timing = (k.find("seconds") != std::string::npos && k != "seconds_at_clock") ||
                          k.find("per_second") != std::string::npos || k == "stages";
      if (!timing) out[k] = untimed(it.value());
    }
    return out;
  }
  if (j.is_array()) {
    for (auto& v : j) v = untimed(v);
  }
  return j;
}

// Functional resnet50 on one thread (calibration, weights, the reference, trace.json) and on two:
// the same reports and tensors, byte for byte (summary.json apart from its timing fields).
TEST(Threads, OneThreadedRunIsByteIdenticalToTwo) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("strider_threads_" + std::to_string(getpid()));
  fs::remove_all(dir);
  for (const char* threads : {"1", "2"}) {
    const fs::path out = dir / threads;
    const std::string cmd = std::string("STRIDER_THREADS=") + threads + " " + STRIDER_BINARY_DIR +
                            "/strider run " + source("configs/runs/resnet50.yaml") +
                            " --set sim.functional=true --out " + (out / "run").string() +
                            " --dump-tensors " + (out / "dump").string() + " > /dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  int compared = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir / "1")) {
    if (!e.is_regular_file()) continue;
    const fs::path rel = fs::relative(e.path(), dir / "1");
    const fs::path other = dir / "2" / rel;
    ASSERT_TRUE(fs::exists(other)) << rel;
    if (rel.filename() == "run.json" || rel.filename() == "effective_config.yaml") continue;
    if (rel.filename() == "summary.json") {
      EXPECT_EQ(untimed(nlohmann::json::parse(read_file(e.path()))),
                untimed(nlohmann::json::parse(read_file(other))));
    } else {
      EXPECT_TRUE(read_file(e.path()) == read_file(other)) << rel << " differs";
    }
    ++compared;
  }
  EXPECT_GT(compared, 56);  // the reports and a dump per checked layer
  fs::remove_all(dir);
}

}  // namespace
}  // namespace strider
