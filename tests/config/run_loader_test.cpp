// Run files: relative path resolution, inline arch overrides, defaults, and the errors of the
// run-level keys (networks, execution, planner, sim, output_dir).
#include <gtest/gtest.h>

#include "core/arch/config_loader.h"
#include "tests/config/config_test_util.h"

namespace strider {
namespace {

using testing::CwdGuard;
using testing::errors_of;
using testing::source_path;
using testing::TempDir;
using Errors = std::vector<std::string>;

const char* const kTinyArch =
    "arch:\n"
    "  name: tiny\n"
    "  l2:\n"
    "    size_bytes: 65536\n"
    "    banks: 4\n"
    "    port_bytes_per_cycle: 16\n"
    "  l1:\n"
    "    lines: 8\n"  // line 8
    "    line_bytes: 16\n"
    "    kernel_bytes: 512\n"
    "  neurons:\n"
    "    count: 8\n";  // line 12

// A layout like the repository's: <dir>/configs/{arch,networks,runs}.
void write_layout(const TempDir& t) {
  t.write("configs/arch/tiny.yaml", kTinyArch);
  t.write("configs/networks/lenet.yaml", "layers: []\n");
  t.write("configs/networks/mobilenet.onnx", "x");
}

TEST(RunLoader, PathsResolveAgainstTheRunFileAndAreUsableFromTheCurrentDirectory) {
  TempDir t;
  write_layout(t);
  t.write("configs/runs/r.yaml",
          "arch: ../arch/tiny.yaml\n"
          "networks:\n"
          "  - path: ../networks/lenet.yaml\n"
          "    input: [28, 28]\n"
          "    seed: 7\n"
          "  - ../networks/mobilenet.onnx\n"
          "  - {path: ./../networks/lenet.yaml, name: lenet2}\n"
          "execution: concurrent\n"
          "output_dir: results/r\n");
  CwdGuard cwd(t.path());
  const RunConfig r = load_run("configs/runs/r.yaml");
  EXPECT_EQ(r.source, "configs/runs/r.yaml");
  EXPECT_EQ(r.arch_file, "configs/arch/tiny.yaml");
  EXPECT_EQ(r.arch.name, "tiny");
  EXPECT_EQ(r.arch.l1.lines, 8u);
  ASSERT_EQ(r.networks.size(), 3u);
  EXPECT_EQ(r.networks[0].path, "configs/networks/lenet.yaml");
  EXPECT_EQ(r.networks[0].name, "lenet");  // the file stem
  EXPECT_EQ(r.networks[0].input_h, 28);
  EXPECT_EQ(r.networks[0].input_w, 28);
  EXPECT_EQ(r.networks[0].seed, 7u);
  EXPECT_EQ(r.networks[1].path, "configs/networks/mobilenet.onnx");
  EXPECT_EQ(r.networks[1].name, "mobilenet");
  EXPECT_EQ(r.networks[1].input_h, 0);
  EXPECT_EQ(r.networks[1].seed, 1u);
  EXPECT_EQ(r.networks[2].path, "configs/networks/lenet.yaml");
  EXPECT_EQ(r.networks[2].name, "lenet2");
  EXPECT_EQ(r.execution, "concurrent");
  EXPECT_EQ(r.output_dir, "results/r");  // relative to the current directory, as written
}

TEST(RunLoader, PathsOutsideTheCurrentDirectoryAreAbsolute) {
  TempDir t;
  write_layout(t);
  const std::string run = t.write("configs/runs/r.yaml",
                                  "arch: ../arch/tiny.yaml\nnetworks: [../networks/lenet.yaml]\n");
  t.write("elsewhere/.keep", "");
  CwdGuard cwd(t.path() / "elsewhere");
  const RunConfig r = load_run(run);
  EXPECT_EQ(r.arch_file, (t.path() / "configs/arch/tiny.yaml").string());
  EXPECT_EQ(r.networks[0].path, (t.path() / "configs/networks/lenet.yaml").string());
}

TEST(RunLoader, DefaultsForEverythingButTheNetworks) {
  TempDir t;
  t.write("n.yaml", "layers: []\n");
  const std::string run = t.write("r.yaml", "networks: [n.yaml]\n");
  const RunConfig r = load_run(run);
  EXPECT_EQ(r.arch_file, "");
  EXPECT_EQ(arch_yaml(r.arch), arch_yaml(ArchConfig{}));  // the built-in seed
  EXPECT_EQ(r.execution, "serial");
  EXPECT_EQ(r.planner.allocator, "auto");
  EXPECT_EQ(r.planner.schedule, "dfs");
  EXPECT_EQ(r.planner.time_limit_s, 10.0);
  EXPECT_FALSE(r.sim.functional);
  EXPECT_TRUE(r.sim.trace);
  EXPECT_FALSE(r.sim.vcd);
  EXPECT_EQ(r.sim.watchdog_cycles, 10000000u);
  EXPECT_EQ(r.sim.detail, "full");
  EXPECT_EQ(r.sim.trace_max_slices, 20000u);
  EXPECT_EQ(r.output_dir, "results/default");
}

TEST(RunLoader, DetailAndTraceMaxSlices) {
  TempDir t;
  const std::string net = source_path("configs/networks/tiny_cnn.yaml");
  const std::string run = t.write("r.yaml", "networks: [{path: " + net +
                                                "}]\n"
                                                "sim:\n"
                                                "  detail: some\n"             // line 3
                                                "  trace_max_slices: 0\n");  // line 4
  EXPECT_EQ(errors_of([&] { load_run(run); }),
            (Errors{run + ":3: sim.detail: expected one of full, layers, got \"some\"",
                    run + ":4: sim.trace_max_slices: must be at least 1, got 0"}));
  const RunConfig r = load_run(run, {"sim.detail=layers", "sim.trace_max_slices=500"});
  EXPECT_EQ(r.sim.detail, "layers");
  EXPECT_EQ(r.sim.trace_max_slices, 500u);
}

TEST(RunLoader, InlineArchOverridesSitOnTopOfTheArchFile) {
  TempDir t;
  write_layout(t);
  const std::string run = t.write("configs/runs/r.yaml",
                                  "arch:\n"
                                  "  file: ../arch/tiny.yaml\n"
                                  "  l2: {size_bytes: 32768}\n"
                                  "  dram:\n"
                                  "    latency_cycles: 50\n"
                                  "networks: [../networks/lenet.yaml]\n");
  const RunConfig r = load_run(run);
  EXPECT_EQ(r.arch.l2.size_bytes, 32768u);
  EXPECT_EQ(r.arch.l2.banks, 4u);  // from the file
  EXPECT_EQ(r.arch.dram.latency_cycles, 50u);
  EXPECT_EQ(r.arch.name, "tiny");
}

TEST(RunLoader, ArchErrorsNameTheFileTheValueWasWrittenIn) {
  TempDir t;
  write_layout(t);
  const std::string run = t.write("configs/runs/r.yaml",
                                  "arch:\n"
                                  "  file: ../arch/tiny.yaml\n"
                                  "  l2: {banks: 6, bankz: 2}\n"  // line 3
                                  "  neurons:\n"
                                  "    count: 16\n"  // line 5
                                  "networks: [../networks/lenet.yaml]\n");
  const std::string arch = (t.path() / "configs/arch/tiny.yaml").string();
  // l1.lines (written in the arch file, line 8) is the first field of the lines/neurons check.
  EXPECT_EQ(errors_of([&] { load_run(run); }),
            (Errors{run + ":3: arch.l2.bankz: unknown key, expected one of: size_bytes, banks, "
                          "bank_width_bytes, port_bytes_per_cycle, latency_cycles, "
                          "fast_region_bytes, fast_latency_cycles, alignment_bytes",
                    run + ":3: arch.l2.banks: must be a power of two, got 6",
                    arch + ":8: arch.l1.lines: must equal arch.neurons.count (line i feeds neuron "
                           "i), got 8 lines and 16 neurons"}));
}

TEST(RunLoader, MissingArchFile) {
  TempDir t;
  t.write("n.yaml", "");
  const std::string run = t.write("r.yaml", "arch: nope.yaml\nnetworks: [n.yaml]\n");
  EXPECT_EQ(errors_of([&] { load_run(run); }),
            Errors{run + ":1: arch.file: file not found: " + (t.path() / "nope.yaml").string()});
}

TEST(RunLoader, NetworkErrors) {
  TempDir t;
  t.write("a.yaml", "");
  const std::string run = t.write("r.yaml",
                                  "networks:\n"
                                  "  - path: missing.onnx\n"                  // line 2
                                  "  - name: nameless\n"                      // line 3
                                  "  - {path: a.yaml, input: [0, 4]}\n"       // line 4
                                  "  - {path: a.yaml, name: b, input: 32}\n"  // line 5
                                  "  - {path: a.yaml, size: 3}\n"             // line 6
                                  "  - 42: x\n"                               // line 7
                                  "  - [a.yaml]\n"                            // line 8
                                  "  - {path: a.yaml, name: c, batch: 0}\n"    // line 9
                                  "  - {path: a.yaml, name: d, scalesim: {output_size: round}}\n");
  const std::string missing = (t.path() / "missing.onnx").string();
  EXPECT_EQ(errors_of([&] { load_run(run); }),
            (Errors{
                run + ":2: networks[0].path: file not found: " + missing,
                run + ":3: networks[1].path: required key is missing",
                run + ":4: networks[2].input[0]: must be at least 1, got 0",
                run + ":5: networks[3].input: expected [H, W] (two positive integers), got \"32\"",
                run + ":6: networks[4].size: unknown key, expected one of: path, name, input, "
                      "seed, batch, scalesim",
                run + ":6: networks[4].name: duplicate network name \"a\" (also networks[2]); "
                      "give each network a distinct name",
                run + ":7: networks[5].42: unknown key, expected one of: path, name, input, "
                      "seed, batch, scalesim",
                run + ":7: networks[5].path: required key is missing",
                run + ":8: networks[6]: expected a network path or a map {path, name, input, "
                      "seed, batch, scalesim}, got a list of 1 item",
                run + ":9: networks[7].batch: must be at least 1, got 0",
                run + ":10: networks[8].scalesim.output_size: expected one of ceil, floor, got "
                      "\"round\"",
            }));
}

TEST(RunLoader, RunLevelErrors) {
  TempDir t;
  const std::string run = t.write("r.yaml",
                                  "execution: parallel\n"  // line 1
                                  "planner:\n"
                                  "  schedule: bfs\n"     // line 3
                                  "  time_limit_s: -1\n"  // line 4
                                  "  allocater: naive\n"  // line 5
                                  "sim:\n"
                                  "  watchdog_cycles: 0\n"  // line 7
                                  "  functional: 1\n"       // line 8
                                  "output_dir: ''\n"        // line 9
                                  "outputs: x\n");          // line 10
  EXPECT_EQ(errors_of([&] { load_run(run); }),
            (Errors{
                run + ": networks: required key is missing, a run needs at least one network",
                run + ":1: execution: expected one of serial, concurrent, got \"parallel\"",
                run + ":3: planner.schedule: expected one of dfs, memory, got \"bfs\"",
                run + ":4: planner.time_limit_s: must be greater than 0, got -1",
                run + ":5: planner.allocater: unknown key, expected one of: allocator, schedule, "
                      "time_limit_s, image_segments",
                run + ":7: sim.watchdog_cycles: must be at least 1, got 0",
                run + ":8: sim.functional: expected true or false, got \"1\"",
                run + ":9: output_dir: must not be empty",
                run + ":10: outputs: unknown key, expected one of: arch, networks, execution, "
                      "planner, sim, quant, output_dir",
            }));
}

TEST(RunLoader, EmptyNetworkList) {
  TempDir t;
  const std::string run = t.write("r.yaml", "networks: []\n");
  EXPECT_EQ(errors_of([&] { load_run(run); }),
            Errors{run + ":1: networks: must list at least one network"});
}

TEST(RunLoader, ArchMustBeAPathOrAMap) {
  TempDir t;
  t.write("n.yaml", "");
  const std::string run = t.write("r.yaml", "arch: [a, b]\nnetworks: [n.yaml]\n");
  EXPECT_EQ(errors_of([&] { load_run(run); }),
            Errors{run + ":1: arch: expected an arch file path or a map {file: PATH, "
                         "...overrides}, got a list of 2 items"});
}

TEST(RunLoader, SeedArchThroughARunFile) {
  TempDir t;
  t.write("n.yaml", "");
  const std::string run = t.write(
      "r.yaml", "arch: " + source_path("configs/arch/seed.yaml") + "\nnetworks: [n.yaml]\n");
  const RunConfig r = load_run(run);
  EXPECT_EQ(r.arch.fingerprint(), load_arch(source_path("configs/arch/seed.yaml")).fingerprint());
}

}  // namespace
}  // namespace strider
