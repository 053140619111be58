// The planner's output always passes its own validator (issue 27): every zoo network and the
// SCALE-Sim topologies under tests/planner/data/scalesim are planned on seed.yaml at several L2
// sizes and each descriptor list is validated. Each failure names network and L2 size.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "core/arch/config_loader.h"
#include "planner/import/network_loader.h"
#include "planner/lower/descriptor_validator.h"
#include "planner/lower/lowering.h"

namespace strider {
namespace {

namespace fs = std::filesystem;
const std::string kDir = STRIDER_SOURCE_DIR;

std::vector<std::string> networks() {
  std::vector<std::string> out;
  for (const char* sub : {"/configs/networks", "/tests/planner/data/scalesim"}) {
    for (const auto& e : fs::directory_iterator(kDir + sub)) {
      const std::string ext = e.path().extension().string();
      if (e.path().filename().string().rfind("err_", 0) == 0) continue;
      if (ext == ".onnx" || ext == ".csv" || (ext == ".yaml" && e.path().stem() != "README")) {
        out.push_back(e.path().string());
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

class PlannerValidates : public ::testing::TestWithParam<std::string> {};

// L2 of 256 KiB, 1 MiB and 8 MiB; the small topologies at 64 KiB too (input-channel blocks).
TEST_P(PlannerValidates, AtEveryL2Size) {
  const std::string path = GetParam();
  const ArchConfig seed = load_arch(kDir + "/configs/arch/seed.yaml");
  const Graph g = load_network(path, 0, 0, 1);
  std::vector<uint64_t> sizes = {262144, 1048576, 8388608};
  if (fs::path(path).extension() != ".onnx") sizes.insert(sizes.begin(), 65536);
  for (uint64_t l2 : sizes) {
    ArchConfig arch = seed;
    arch.l2.size_bytes = l2;
    try {
      const Lowered l = lower(g, arch, LowerOptions());
      validate_descriptors(l.list, arch, path);
    } catch (const std::exception& e) {
      ADD_FAILURE() << path << " at L2 " << l2 << ": " << e.what();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Networks, PlannerValidates, ::testing::ValuesIn(networks()),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string n = fs::path(p.param).filename().string();
                           for (char& c : n)
                             c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return n;
                         });

// Conv2 of SCALE-Sim's yolo_tiny topology at 64 KiB: its input channels are split into blocks with
// int32 partial sums and its output is spilled; every block names the L2 band slot the last one
// writes (the blocks before it named the output's DRAM home, which the validator refuses).
TEST(PlannerOutput, PartialSumBlocksOfASpilledOutputNameItsL2Slot) {
  ArchConfig arch = load_arch(kDir + "/configs/arch/seed.yaml");
  arch.l2.size_bytes = 65536;
  const Graph g = load_network(kDir + "/tests/planner/data/scalesim/yolo_tiny_shapes.csv", 0, 0, 1);
  const Lowered l = lower(g, arch, LowerOptions());
  size_t blocks = 0;
  for (const Descriptor& d : l.list.descriptors) {
    if (d.kind != DescKind::kOp || !(d.op.psum_mode & OpDesc::kPsumWrite)) continue;
    ++blocks;
    EXPECT_EQ(d.op.output.space, MemSpace::kL2) << "descriptor " << d.id;
  }
  EXPECT_GT(blocks, 0u);
  validate_descriptors(l.list, arch, "yolo");
}

// A GEMM with K = 600,000: one output channel's int8 weights (600,000 B, 64-aligned) and int32
// bias (4 B -> 64) make a slot of 600,064 B, double-buffered 1,200,128 B; at 1 MiB the row-band
// and partial-sum buffers take 393,216 B, leaving 655,360.
TEST(PlannerOutput, WeightStagingErrorNamesLayerBytesAndCapacity) {
  const ArchConfig arch = load_arch(kDir + "/configs/arch/seed.yaml");
  const Graph g = load_network(kDir + "/tests/planner/data/scalesim/err_long_k.csv", 0, 0, 1);
  try {
    lower(g, arch, LowerOptions());
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "L2 of 1048576 bytes cannot hold the weight staging: the largest, layer 'long_k', "
                 "needs 1200128 bytes (2 slots of 600064 bytes, each the weights and biases of 1 "
                 "output channel) and 655360 bytes are left beside 393216 bytes of row-band and "
                 "partial-sum buffers");
  }
}

}  // namespace
}  // namespace strider
