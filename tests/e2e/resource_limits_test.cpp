// Resource limits (tb/resource_limits.h): a run needing absurd memory or time is refused before
// planning with one error listing every exceeded bound; the bundled runs pass.
#include "tb/resource_limits.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

#include "core/arch/config_loader.h"
#include "planner/import/network_loader.h"

namespace strider {
namespace {

// A run on the seed arch (defaults) naming n.yaml.
RunConfig small_run() {
  RunConfig cfg;
  cfg.source = "run.yaml";
  NetworkSpec net;
  net.path = "n.yaml";
  cfg.networks.push_back(net);
  return cfg;
}

// x [1,16,32,32] -> conv 3x3 pad 1, 32 out channels -> y [1,32,32,32].
// MACs = 32*32*32 outputs x 16*3*3 per output = 32768 x 144 = 4718592.
Graph conv_graph() {
  Graph g;
  g.name = "g";
  Tensor x;
  x.name = "x";
  x.shape = {1, 16, 32, 32};
  g.inputs.push_back(g.add_tensor(x));
  Tensor w;
  w.name = "w";
  w.kind = TensorKind::kWeight;
  w.shape = {32, 16, 3, 3};
  const int wid = g.add_tensor(w);
  Tensor y;
  y.name = "y";
  y.shape = {1, 32, 32, 32};
  const int yid = g.add_tensor(y);
  Node n;
  n.name = "conv";
  n.op = OpType::kConv;
  n.inputs = {0};
  n.outputs = {yid};
  n.weights = wid;
  n.kernel_h = n.kernel_w = 3;
  n.pad_top = n.pad_left = n.pad_bottom = n.pad_right = 1;
  g.add_node(n);
  g.outputs.push_back(yid);
  return g;
}

std::string refusal(const RunConfig& cfg, const Graph& g, const ResourceLimits& lim = {}) {
  try {
    check_resource_limits(cfg, g, lim);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(ResourceLimits, SmallRunPasses) {
  EXPECT_EQ(refusal(small_run(), conv_graph()), "");
}

TEST(ResourceLimits, BundledDefaultRunPasses) {
  const RunConfig cfg = load_run(std::string(STRIDER_SOURCE_DIR) + "/configs/runs/default.yaml");
  const Graph g = import_network(cfg.networks[0].path);
  EXPECT_NO_THROW(check_resource_limits(cfg, g));
}

TEST(ResourceLimits, MacsOverTheBoundAreRefused) {
  ResourceLimits lim;
  lim.max_macs = 4718591;  // one below the conv's 4718592
  EXPECT_EQ(refusal(small_run(), conv_graph(), lim),
            "run.yaml: refused before planning: network n.yaml: MACs is 4718592, over the limit "
            "of 4718591");
  lim.max_macs = 4718592;
  EXPECT_EQ(refusal(small_run(), conv_graph(), lim), "");
}

TEST(ResourceLimits, FunctionalModeHasALowerMacBound) {
  ResourceLimits lim;
  lim.max_functional_macs = 1000000;
  RunConfig cfg = small_run();
  EXPECT_EQ(refusal(cfg, conv_graph(), lim), "");  // timing mode: only max_macs applies
  cfg.sim.functional = true;
  EXPECT_EQ(refusal(cfg, conv_graph(), lim),
            "run.yaml: refused before planning: network n.yaml: MACs with sim.functional (each "
            "computed on real data) is 4718592, over the limit of 1000000");
}

TEST(ResourceLimits, HugeTensorIsRefusedNamingIt) {
  Graph g = conv_graph();
  // 1 x 32 x 65536 x 4096 int8 = 2^33 bytes = 8 GiB, over the default 4 GiB.
  g.tensors[2].shape = {1, 32, 65536, 4096};
  const std::string what = refusal(small_run(), g);
  EXPECT_NE(what.find("network n.yaml: tensor 'y' (1x32x65536x4096) is 8589934592 (8.00 GiB), "
                      "over the limit of 4294967296 (4.00 GiB)"),
            std::string::npos)
      << what;
}

TEST(ResourceLimits, OverflowingShapeSaturatesInsteadOfWrapping) {
  Graph g = conv_graph();
  // 2^40 x 2^40 elements wraps int64 to 0; the check must still refuse it.
  g.tensors[0].shape = {1, 1, int64_t{1} << 40, int64_t{1} << 40};
  const std::string what = refusal(small_run(), g);
  EXPECT_NE(what.find("tensor 'x' (1x1x1099511627776x1099511627776) is more than 2^64"),
            std::string::npos)
      << what;
  EXPECT_EQ(saturating_mul(uint64_t{1} << 32, uint64_t{1} << 32), UINT64_MAX);
  EXPECT_EQ(saturating_mul(uint64_t{1} << 31, uint64_t{1} << 32), uint64_t{1} << 63);
  EXPECT_EQ(saturating_add(UINT64_MAX - 1, 2), UINT64_MAX);
}

TEST(ResourceLimits, EveryExceededBoundIsListed) {
  RunConfig cfg = small_run();
  cfg.sim.functional = true;
  cfg.sim.watchdog_cycles = 0;
  cfg.arch.l2.size_bytes = uint64_t{1} << 31;  // 2 GiB: under 4 GiB, over 1 GiB functional
  cfg.arch.neurons.count = 100000;
  EXPECT_EQ(refusal(cfg, conv_graph()),
            "run.yaml: refused before planning: 3 resource limits exceeded:\n"
            "  arch.l2.size_bytes with sim.functional (a dense host backing store) is 2147483648 "
            "(2.00 GiB), over the limit of 1073741824 (1.00 GiB)\n"
            "  arch.neurons.count is 100000, over the limit of 65536\n"
            "  sim.watchdog_cycles is 0, expected at least 1 (0 would flag every run a deadlock)");
}

TEST(ResourceLimits, ConfigAloneIsCheckedBeforeLoadingTheNetwork) {
  RunConfig cfg = small_run();
  cfg.arch.dram.size_bytes = uint64_t{1} << 41;
  try {
    check_config_limits(cfg);
    FAIL() << "expected a refusal";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "run.yaml: refused before planning: arch.dram.size_bytes is 2199023255552 "
                 "(2.00 TiB), over the limit of 1099511627776 (1.00 TiB)");
  }
}

TEST(ResourceLimits, DescriptorCountIsBoundedBeforeSimulation) {
  ResourceLimits lim;
  lim.max_descriptors = 2;
  DescriptorList list;
  list.descriptors.resize(3);
  try {
    check_descriptor_limits(small_run(), list, lim);
    FAIL() << "expected a refusal";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "run.yaml: refused before simulation: network n.yaml: descriptor count is 3, "
                 "over the limit of 2");
  }
  list.descriptors.resize(2);
  EXPECT_NO_THROW(check_descriptor_limits(small_run(), list, lim));
}

}  // namespace
}  // namespace strider

namespace strider {
namespace {

// The descriptor bound holds while lowering, before the list's memory is spent: conv_graph on
// the seed is 5 descriptors (input load, weight and bias staging, the conv tile, output store);
// at a limit of 3 the fourth, the conv's first tile, is refused, naming the layer.
TEST(ResourceLimits, DescriptorCountIsBoundedWhileLowering) {
  const ArchConfig arch = load_arch(std::string(STRIDER_SOURCE_DIR) + "/configs/arch/seed.yaml");
  Graph g = conv_graph();
  materialise_parameters(&g, 1);
  ResourceLimits lim;
  EXPECT_EQ(lower_within_limits(small_run(), g, arch, LowerOptions(), lim).list.descriptors.size(),
            5u);
  lim.max_descriptors = 3;
  try {
    lower_within_limits(small_run(), g, arch, LowerOptions(), lim);
    FAIL() << "expected a refusal";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "run.yaml: refused during planning: network n.yaml: descriptor count passes the "
                 "limit of 3 at layer 'conv' (about 0.9 KiB of host memory each; a larger "
                 "arch.l2.size_bytes makes fewer, larger tiles)");
  }
}

#if !defined(__SANITIZE_ADDRESS__)
// A failed allocation reaches the user as a sentence, not a bare "std::bad_alloc": `strider plan`
// of resnet50 under a 64 MiB address-space limit (ulimit -v; not under ASan, whose shadow memory
// needs terabytes of address space).
TEST(ResourceLimits, OutOfHostMemoryIsASentence) {
  const std::string out = ::testing::TempDir() + "strider_oom.txt";
  const std::string cmd = "(ulimit -v 65536; " + std::string(STRIDER_BINARY_DIR) +
                          "/strider plan " + STRIDER_SOURCE_DIR +
                          "/configs/runs/resnet50.yaml --out " + ::testing::TempDir() +
                          "strider_oom) > " + out + " 2>&1";
  EXPECT_NE(std::system(cmd.c_str()), 0);
  std::ifstream f(out);
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("out of host memory: an allocation failed (the run needs more memory than "
                      "this host has free; a larger arch.l2.size_bytes makes fewer, larger tiles)"),
            std::string::npos)
      << text;
}
#endif

}  // namespace
}  // namespace strider
