// Input-channel blocks with int32 partial sums: forced by a small L2, checked bit-exactly against
// the reference in functional mode, with the same cycles as the timing run's figure.
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

TEST(PartialSums, WideConvOnSmallL2IsBitExact) {
  const std::string dir = STRIDER_SOURCE_DIR;
  const fs::path out = fs::temp_directory_path() / ("strider_psum_" + std::to_string(getpid()));
  fs::create_directories(out);
  {
    std::ofstream f(out / "run.yaml");
    f << "arch: {file: " << dir << "/configs/arch/tiny.yaml, l2: {size_bytes: 32768}}\n"
      << "networks:\n  - {path: " << dir << "/tests/e2e/data/wide_conv.yaml}\n"
      << "sim: {functional: true}\n";
  }
  std::ostringstream so, se;
  ASSERT_EQ(dispatch({"run", (out / "run.yaml").string(), "--out", (out / "r").string(), "--set",
                      "planner.allocator=greedy_by_size"},
                     so, se),
            0)
      << se.str();
  std::ifstream f(out / "r/summary.json");
  const nlohmann::json s = nlohmann::json::parse(f);
  EXPECT_EQ(s["functional"]["checked_tensors"].get<uint64_t>(), 1u);
  EXPECT_EQ(s["functional"]["mismatches"].get<uint64_t>(), 0u);
  // The plan used partial-sum buffers.
  std::ifstream plan(out / "r/memory_plan.csv");
  const std::string text((std::istreambuf_iterator<char>(plan)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("psum0,scratch"), std::string::npos) << text;
  fs::remove_all(out);
}

}  // namespace
}  // namespace strider
