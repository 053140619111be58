// `--set key.path=value` overrides: applied to the YAML tree before validation, so they are
// checked like the file; errors name the `--set` instead of a file line.
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

// A run on the tiny arch with one network, in a temporary directory.
class SetOverride : public ::testing::Test {
 protected:
  SetOverride() {
    t_.write("arch/tiny.yaml", "arch:\n  name: tinyish\n  l1: {lines: 8}\n  neurons: {count: 8}\n");
    t_.write("nets/a.yaml", "");
    t_.write("nets/b.yaml", "");
    run_ = t_.write("runs/r.yaml",
                    "arch: ../arch/tiny.yaml\n"
                    "networks:\n"
                    "  - ../nets/a.yaml\n"
                    "output_dir: results/r\n");
  }
  TempDir t_;
  std::string run_;
};

TEST_F(SetOverride, SetsAnyKey) {
  const RunConfig r =
      load_run(run_, {"arch.l2.size_bytes=524288", "sim.functional=true", "planner.allocator=naive",
                      "output_dir=x", "networks[0].input=[32, 16]", "execution=concurrent",
                      "planner.time_limit_s=2.5"});
  EXPECT_EQ(r.arch.l2.size_bytes, 524288u);
  EXPECT_EQ(r.arch.name, "tinyish");  // still the arch file underneath
  EXPECT_EQ(r.arch.l1.lines, 8u);
  EXPECT_TRUE(r.sim.functional);
  EXPECT_EQ(r.planner.allocator, "naive");
  EXPECT_EQ(r.output_dir, "x");
  EXPECT_EQ(r.networks[0].input_h, 32);
  EXPECT_EQ(r.networks[0].input_w, 16);
  EXPECT_EQ(r.execution, "concurrent");
  EXPECT_EQ(r.planner.time_limit_s, 2.5);
}

TEST_F(SetOverride, LaterSetsWin) {
  const RunConfig r = load_run(run_, {"arch.l2.size_bytes=524288", "arch.l2.size_bytes=262144"});
  EXPECT_EQ(r.arch.l2.size_bytes, 262144u);
}

TEST_F(SetOverride, UnknownKeyNamesTheSet) {
  EXPECT_EQ(errors_of([&] { load_run(run_, {"arch.l2.bankz=4"}); }),
            Errors{"--set arch.l2.bankz=4: unknown key, expected one of: size_bytes, banks, "
                   "bank_width_bytes, port_bytes_per_cycle, latency_cycles, fast_region_bytes, "
                   "fast_latency_cycles, alignment_bytes"});
  // An unknown section on the way: the error names the first unknown part.
  EXPECT_EQ(errors_of([&] { load_run(run_, {"arch.l3.banks=4"}); }),
            Errors{"--set arch.l3.banks=4: arch.l3: unknown key, expected one of: name, clock, "
                   "controller, dma, dram, l2, l1, neurons, vector, lowering, energy"});
  EXPECT_EQ(errors_of([&] { load_run(run_, {"simulation.vcd=true"}); }),
            Errors{"--set simulation.vcd=true: simulation: unknown key, expected one of: arch, "
                   "networks, execution, planner, sim, quant, output_dir"});
}

TEST_F(SetOverride, BadValueNamesTheSet) {
  EXPECT_EQ(errors_of([&] { load_run(run_, {"arch.l2.size_bytes=lots"}); }),
            Errors{"--set arch.l2.size_bytes=lots: expected an unsigned integer, got \"lots\""});
  EXPECT_EQ(errors_of([&] { load_run(run_, {"sim.functional=maybe"}); }),
            Errors{"--set sim.functional=maybe: expected true or false, got \"maybe\""});
  EXPECT_EQ(errors_of([&] { load_run(run_, {"arch.l2.banks=6"}); }),
            Errors{"--set arch.l2.banks=6: must be a power of two, got 6"});
  EXPECT_EQ(errors_of([&] { load_run(run_, {"output_dir="}); }),
            Errors{"--set output_dir=: expected a string, got an empty value"});
}

TEST_F(SetOverride, CrossFieldErrorNamesTheFirstFieldAndWhereItWasWritten) {
  // Set alone, either side leads and the other (written in the arch file) follows.
  EXPECT_EQ(load_run(run_, {"arch.neurons.count=16"}).arch.l1.lines, 16u);
  EXPECT_EQ(load_run(run_, {"arch.l1.lines=16"}).arch.neurons.count, 16u);
  // Both set, differently: the error is at the first field involved, where it was set.
  EXPECT_EQ(errors_of([&] { load_run(run_, {"arch.l1.lines=16", "arch.neurons.count=32"}); }),
            Errors{"--set arch.l1.lines=16: must equal arch.neurons.count (line i feeds neuron "
                   "i), got 16 lines and 32 neurons"});
  // Both changed together: consistent.
  EXPECT_EQ(load_run(run_, {"arch.l1.lines=16", "arch.neurons.count=16"}).arch.neurons.count, 16u);
}

TEST_F(SetOverride, ErrorsFromFilesAndSetsAreAllCollected) {
  const std::string bad = t_.write("runs/bad.yaml",
                                   "arch: ../arch/tiny.yaml\n"
                                   "networks: [../nets/a.yaml]\n"
                                   "execution: sometimes\n");  // line 3
  EXPECT_EQ(errors_of([&] {
              load_run(bad, {"sim.vcd=no", "arch.dma.channels=0"});
            }),
            (Errors{bad + ":3: execution: expected one of serial, concurrent, got \"sometimes\"",
                    "--set sim.vcd=no: expected true or false, got \"no\"",
                    "--set arch.dma.channels=0: must be at least 1, got 0"}));
}

TEST_F(SetOverride, MalformedAssignments) {
  EXPECT_EQ(errors_of([&] { load_run(run_, {"arch.l2.size_bytes"}); }),
            Errors{"--set arch.l2.size_bytes: expected key.path=value (e.g. "
                   "arch.l2.size_bytes=524288)"});
  EXPECT_EQ(errors_of([&] { load_run(run_, {"arch..l2=4"}); }),
            Errors{"--set arch..l2=4: expected key.path=value (e.g. arch.l2.size_bytes=524288)"});
  EXPECT_EQ(errors_of([&] { load_run(run_, {"networks[3].seed=2"}); }),
            Errors{"--set networks[3].seed=2: networks[3]: index out of range, the list has 1 "
                   "item"});
  EXPECT_EQ(errors_of([&] { load_run(run_, {"output_dir[0]=x"}); }),
            Errors{"--set output_dir[0]=x: output_dir: cannot index \"results/r\", it is not a "
                   "list"});
  const Errors e = errors_of([&] { load_run(run_, {"networks=[a, b"}); });
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].rfind("--set networks=[a, b: value is not valid YAML: ", 0), 0u) << e[0];
}

TEST_F(SetOverride, PathsInASetAreRelativeToTheCurrentDirectory) {
  CwdGuard cwd(t_.path());
  const RunConfig r = load_run("runs/r.yaml", {"networks[0].path=nets/b.yaml"});
  EXPECT_EQ(r.networks[0].path, "nets/b.yaml");
  EXPECT_EQ(r.networks[0].name, "b");
  const RunConfig two = load_run("runs/r.yaml", {"networks=[nets/a.yaml, nets/b.yaml]"});
  ASSERT_EQ(two.networks.size(), 2u);
  EXPECT_EQ(two.networks[1].path, "nets/b.yaml");
}

TEST_F(SetOverride, ArchFileAndWholeArch) {
  const std::string with_overrides = t_.write("runs/o.yaml",
                                              "arch:\n"
                                              "  file: ../arch/tiny.yaml\n"
                                              "  l2: {size_bytes: 32768}\n"
                                              "networks: [../nets/a.yaml]\n");
  const std::string seed = source_path("configs/arch/seed.yaml");
  // arch.file swaps the file and keeps the run's inline overrides...
  const RunConfig kept = load_run(with_overrides, {"arch.file=" + seed});
  EXPECT_EQ(kept.arch.name, "seed");
  EXPECT_EQ(kept.arch.l2.size_bytes, 32768u);
  // ...while arch replaces the whole arch, overrides included.
  const RunConfig replaced = load_run(with_overrides, {"arch=" + seed});
  EXPECT_EQ(replaced.arch.name, "seed");
  EXPECT_EQ(replaced.arch.l2.size_bytes, 1048576u);
  // A map value merges into the arch.
  const RunConfig merged = load_run(with_overrides, {"arch.l2={banks: 8}"});
  EXPECT_EQ(merged.arch.l2.size_bytes, 32768u);
  EXPECT_EQ(merged.arch.l2.banks, 8u);
}

}  // namespace
}  // namespace strider

namespace strider {
namespace {

// `--set arch=FILE` followed by `--set arch.<key>=v`: the file stays, the key applies on top.
TEST(SetOverrideOrder, ArchFileThenArchKeyKeepsTheFile) {
  const std::string dir = STRIDER_SOURCE_DIR;
  const RunConfig r = load_run(dir + "/configs/runs/default.yaml",
                               {"arch=" + dir + "/configs/arch/tiny.yaml", "arch.l2.banks=8"});
  EXPECT_EQ(r.arch.name, "tiny");
  EXPECT_EQ(r.arch.neurons.count, 8u);
  EXPECT_EQ(r.arch.l2.banks, 8u);
}

}  // namespace
}  // namespace strider
