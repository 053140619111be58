// effective_yaml(): the run with every default filled in. Loading it again must give an identical
// RunConfig (from any directory), and its text is deterministic.
#include <gtest/gtest.h>

#include "core/arch/config_loader.h"
#include "tests/config/config_test_util.h"

namespace strider {
namespace {

using testing::CwdGuard;
using testing::TempDir;

// Every field but `source` (the file each was loaded from).
void expect_same_run(const RunConfig& a, const RunConfig& b) {
  EXPECT_EQ(a.arch_file, b.arch_file);
  EXPECT_EQ(arch_yaml(a.arch), arch_yaml(b.arch));
  EXPECT_EQ(a.arch.fingerprint(), b.arch.fingerprint());
  EXPECT_EQ(a.arch.clock.frequency_mhz, b.arch.clock.frequency_mhz);  // bit-exact double
  ASSERT_EQ(a.networks.size(), b.networks.size());
  for (size_t i = 0; i < a.networks.size(); ++i) {
    EXPECT_EQ(a.networks[i].path, b.networks[i].path) << i;
    EXPECT_EQ(a.networks[i].name, b.networks[i].name) << i;
    EXPECT_EQ(a.networks[i].input_h, b.networks[i].input_h) << i;
    EXPECT_EQ(a.networks[i].input_w, b.networks[i].input_w) << i;
    EXPECT_EQ(a.networks[i].seed, b.networks[i].seed) << i;
  }
  EXPECT_EQ(a.execution, b.execution);
  EXPECT_EQ(a.planner.allocator, b.planner.allocator);
  EXPECT_EQ(a.planner.schedule, b.planner.schedule);
  EXPECT_EQ(a.planner.time_limit_s, b.planner.time_limit_s);  // bit-exact double
  EXPECT_EQ(a.sim.functional, b.sim.functional);
  EXPECT_EQ(a.sim.trace, b.sim.trace);
  EXPECT_EQ(a.sim.vcd, b.sim.vcd);
  EXPECT_EQ(a.sim.watchdog_cycles, b.sim.watchdog_cycles);
  EXPECT_EQ(a.sim.detail, b.sim.detail);
  EXPECT_EQ(a.sim.trace_max_slices, b.sim.trace_max_slices);
  EXPECT_EQ(a.quant.calibration.inputs, b.quant.calibration.inputs);
  EXPECT_EQ(a.quant.calibration.count, b.quant.calibration.count);
  EXPECT_EQ(a.quant.method, b.quant.method);
  EXPECT_EQ(a.quant.percentile, b.quant.percentile);
  EXPECT_EQ(a.quant.output_headroom, b.quant.output_headroom);
  EXPECT_EQ(a.quant.bias_correction, b.quant.bias_correction);
  EXPECT_EQ(a.quant.unsigned_activations, b.quant.unsigned_activations);
  EXPECT_EQ(a.quant.evaluation.inputs, b.quant.evaluation.inputs);
  EXPECT_EQ(a.quant.preprocess.mean, b.quant.preprocess.mean);
  EXPECT_EQ(a.quant.preprocess.std, b.quant.preprocess.std);
  EXPECT_EQ(a.quant.preprocess.resize, b.quant.preprocess.resize);
  EXPECT_EQ(a.output_dir, b.output_dir);
}

class EffectiveYaml : public ::testing::Test {
 protected:
  EffectiveYaml() {
    t_.write("configs/arch/tiny.yaml",
             "arch:\n  name: tiny\n  l1: {lines: 8}\n  neurons: {count: 8}\n");
    t_.write("configs/networks/lenet.yaml", "");
    t_.write("configs/networks/resnet.onnx", "");
    run_ = t_.write("configs/runs/r.yaml",
                    "arch:\n"
                    "  file: ../arch/tiny.yaml\n"
                    "  clock: {frequency_mhz: 933.3333333333334}\n"
                    "  l2: {size_bytes: 524288, fast_region_bytes: 65536}\n"
                    "networks:\n"
                    "  - {path: ../networks/lenet.yaml, input: [28, 28], seed: 3}\n"
                    "  - {path: ../networks/resnet.onnx, name: 'res: net #1'}\n"
                    "execution: concurrent\n"
                    "planner: {allocator: best_fit, time_limit_s: 0.1}\n"
                    "sim: {vcd: true}\n"
                    "output_dir: 'results/with space'\n");
  }
  TempDir t_;
  std::string run_;
};

TEST_F(EffectiveYaml, LoadsBackIdenticalFromAnotherDirectory) {
  const RunConfig first = load_run(run_, {"sim.functional=true", "arch.dma.channels=4"});
  const std::string text = effective_yaml(first);
  const std::string saved = t_.write("results/x/effective_config.yaml", text);
  const RunConfig second = load_run(saved);
  expect_same_run(first, second);
  EXPECT_EQ(effective_yaml(second), text);
  EXPECT_EQ(second.arch.dma.channels, 4u);
  EXPECT_TRUE(second.sim.functional);
  EXPECT_EQ(second.networks[1].name, "res: net #1");
  EXPECT_EQ(second.planner.time_limit_s, 0.1);
}

// dma.background_priority off (every move a demand move) survives the round trip, and changes the
// arch fingerprint (a list planned for one is refused by the other's model).
TEST_F(EffectiveYaml, BackgroundPriorityOffRoundTrips) {
  const RunConfig on = load_run(run_);
  EXPECT_TRUE(on.arch.dma.background_priority);
  const RunConfig first = load_run(run_, {"arch.dma.background_priority=false"});
  const std::string text = effective_yaml(first);
  EXPECT_NE(text.find("    row_setup_cycles: 1\n    background_priority: false\n"),
            std::string::npos)
      << text;
  const RunConfig second = load_run(t_.write("results/x/effective_config.yaml", text));
  expect_same_run(first, second);
  EXPECT_FALSE(second.arch.dma.background_priority);
  EXPECT_NE(on.arch.fingerprint(), second.arch.fingerprint());
}

TEST_F(EffectiveYaml, RelativePathsStayRelativeAfterTheRoundTrip) {
  CwdGuard cwd(t_.path());
  const RunConfig first = load_run("configs/runs/r.yaml");
  EXPECT_EQ(first.networks[0].path, "configs/networks/lenet.yaml");
  t_.write("results/x/effective_config.yaml", effective_yaml(first));
  const RunConfig second = load_run("results/x/effective_config.yaml");
  expect_same_run(first, second);
}

TEST_F(EffectiveYaml, IsDeterministic) {
  EXPECT_EQ(effective_yaml(load_run(run_)), effective_yaml(load_run(run_)));
}

TEST(EffectiveYamlText, ExactTextOfAMinimalRun) {
  TempDir t;
  const std::string net = t.write("n.yaml", "");
  const std::string run = t.write("r.yaml", "networks: [n.yaml]\n");
  EXPECT_EQ(effective_yaml(load_run(run)),
            "arch:\n"
            "  name: seed\n"
            "  clock:\n"
            "    frequency_mhz: 1000\n"
            "  controller:\n"
            "    prefetch_depth: 8\n"
            "    descriptor_bytes: 64\n"
            "    decode_cycles: 2\n"
            "    dispatch_cycles: 1\n"
            "  dma:\n"
            "    channels: 2\n"
            "    burst_bytes: 64\n"
            "    setup_cycles: 8\n"
            "    row_setup_cycles: 1\n"
            "    background_priority: true\n"
            "  dram:\n"
            "    model: jedec\n"
            "    preset: lpddr4_3200\n"
            "    page_policy: open\n"
            "    scheduler: frfcfs\n"
            "    queue_depth: 16\n"
            "    bytes_per_cycle: 16\n"
            "    latency_cycles: 100\n"
            "    size_bytes: 4294967296\n"
            "    row_buffer: false\n"
            "    banks: 8\n"
            "    row_bytes: 2048\n"
            "    row_miss_cycles: 30\n"
            "  l2:\n"
            "    size_bytes: 1048576\n"
            "    banks: 16\n"
            "    bank_width_bytes: 8\n"
            "    port_bytes_per_cycle: 64\n"
            "    latency_cycles: 4\n"
            "    fast_region_bytes: 0\n"
            "    fast_latency_cycles: 1\n"
            "    alignment_bytes: 64\n"
            "  l1:\n"
            "    size_bytes: 8192\n"
            "    lines: 64\n"
            "    line_bytes: 32\n"
            "    kernel_bytes: 2048\n"
            "    shift_stride: true\n"
            "    pad_in_block: true\n"
            "    shared_pad: true\n"
            "  neurons:\n"
            "    count: 64\n"
            "    macs_per_cycle: 4\n"
            "    accumulators: 8\n"
            "    postop_cycles: 2\n"
            "  vector:\n"
            "    lanes: 16\n"
            "    softmax_cycles: 2\n"
            "    softmax_passes: 3\n"
            "    layernorm_cycles: 1\n"
            "    layernorm_passes: 3\n"
            "    gelu_cycles: 2\n"
            "    gelu_passes: 1\n"
            "  lowering:\n"
            "    mapping: auto\n"
            "    weight_slot_bytes: 0\n"
            "  energy:\n"
            "    tech: 16nm\n"
            "    dram_type: lpddr4\n"
            "    clock_gating: true\n"
            "networks:\n"
            "  - path: " +
                net +
                "\n"
                "    name: n\n"
                "    seed: 1\n"
                "execution: serial\n"
                "planner:\n"
                "  allocator: auto\n"
                "  schedule: dfs\n"
                "  time_limit_s: 10\n"
                "sim:\n"
                "  functional: false\n"
                "  trace: true\n"
                "  vcd: false\n"
                "  watchdog_cycles: 10000000\n"
                "  detail: full\n"
                "  trace_max_slices: 20000\n"
                "quant:\n"
                "  calibration:\n"
                "    inputs: \"\"\n"
                "    count: 0\n"
                "    method: mse\n"
                "    percentile: 99.99\n"
                "    output_headroom: 1\n"
                "    bias_correction: true\n"
                "  unsigned_activations: true\n"
                "  evaluation:\n"
                "    inputs: \"\"\n"
                "    count: 0\n"
                "  preprocess:\n"
                "    resize: 0\n"
                "    mean: [0]\n"
                "    std: [1]\n"
                "    channels: rgb\n"
                "    layout: nchw\n"
                "output_dir: results/default\n");
}

}  // namespace
}  // namespace strider
