// --dump-tensors: the .npy format of write_npy byte for byte, and a functional run of the default
// network writing per layer inputs, weights, bias, output and <layer>.json (in a forked child,
// as SystemC elaborates once per process), and the refusal without functional mode.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tb/commands.h"
#include "tb/tensor_dump.h"

namespace strider {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(FunctionalDump, NpyHeaderIsVersionOnePaddedTo64Bytes) {
  const fs::path p = fs::temp_directory_path() / ("strider_npy_" + std::to_string(::getpid()));
  const int32_t v[2] = {1, -2};
  write_npy(p.string(), "<i4", {2}, v, sizeof v);
  const std::string s = slurp(p);
  fs::remove(p);
  // Magic (6) + version 1.0 (2) + length (2) + the 57-character dict + newline = 68 bytes, padded
  // with spaces to 128: header length 118 (little-endian), then the data.
  ASSERT_EQ(s.size(), 128u + 8u);
  EXPECT_EQ(s.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_EQ(uint8_t(s[8]), 118);
  EXPECT_EQ(uint8_t(s[9]), 0);
  EXPECT_EQ(s.substr(10, 57), "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }");
  EXPECT_EQ(s.substr(67, 60), std::string(60, ' '));
  EXPECT_EQ(s[127], '\n');
  EXPECT_EQ(s.substr(128), std::string("\x01\x00\x00\x00\xfe\xff\xff\xff", 8));
  EXPECT_EQ(tensor_dump_stem("/layer1/conv:0"), "_layer1_conv_0");
}

TEST(FunctionalDump, DefaultRunDumpsEveryComputeLayer) {
  const fs::path dir = fs::temp_directory_path() / ("strider_dump_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::ostringstream out, err;
    const int rc = dispatch({"run", std::string(STRIDER_SOURCE_DIR) + "/configs/runs/default.yaml",
                             "--out", (dir / "out").string(), "--set", "sim.functional=true",
                             "--dump-tensors", (dir / "t").string()},
                            out, err);
    std::fflush(nullptr);
    ::_exit(rc);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  const nlohmann::json index = nlohmann::json::parse(slurp(dir / "t" / "index.json"));
  // tiny_cnn's compute layers (add1 fused into conv2b, pool1 into conv1)
  ASSERT_EQ(index.size(), 7u);
  EXPECT_EQ(index[0]["layer"], "conv1");
  const nlohmann::json j = nlohmann::json::parse(slurp(dir / "t" / "dw3.json"));
  EXPECT_EQ(j["op"], "conv");
  EXPECT_EQ(j["groups"], 16);
  EXPECT_EQ(j["stride"], nlohmann::json({2, 2}));
  EXPECT_EQ(j["padding"]["top"], 1);
  EXPECT_EQ(j["activation"], "relu6");
  EXPECT_EQ(j["weights"]["shape"], nlohmann::json({16, 1, 3, 3}));
  EXPECT_TRUE(j["requant"].contains("multiplier"));
  // Sizes: 10-byte preamble + padded header, then the data: input 3x32x32, weights 16x3x3x3,
  // bias 16 x 4 bytes, output 16x16x16 (pool1's: the 2x2 / 2 max-pool fused into conv1).
  auto data_bytes = [&](const std::string& f) {
    const std::string s = slurp(dir / "t" / f);
    return s.size() - 10 - (uint8_t(s[8]) | uint8_t(s[9]) << 8);
  };
  EXPECT_EQ(data_bytes("conv1.input0.npy"), 3u * 32 * 32);
  EXPECT_EQ(data_bytes("conv1.weights.npy"), 16u * 27);
  EXPECT_EQ(data_bytes("conv1.bias.npy"), 16u * 4);
  EXPECT_EQ(data_bytes("conv1.output.npy"), 16u * 16 * 16);
  const nlohmann::json p = nlohmann::json::parse(slurp(dir / "t" / "conv1.json"));
  EXPECT_EQ(p["fused_max_pool"]["kernel"], nlohmann::json({2, 2}));
  EXPECT_EQ(p["fused_max_pool"]["stride"], nlohmann::json({2, 2}));
  EXPECT_FALSE(fs::exists(dir / "t" / "pool1.json"));
  // add1 is fused into conv2b: its other operand is conv2b's input 1, its arithmetic in the JSON.
  EXPECT_TRUE(fs::exists(dir / "t" / "conv2b.input1.npy"));
  EXPECT_FALSE(fs::exists(dir / "t" / "add1.json"));
  const nlohmann::json c = nlohmann::json::parse(slurp(dir / "t" / "conv2b.json"));
  EXPECT_EQ(c["residual"]["activation"], "relu");
  EXPECT_GT(c["residual"]["operand_multiplier"].get<int>(), 0);
  EXPECT_FALSE(fs::exists(dir / "t" / "pool1.weights.npy"));
  fs::remove_all(dir);
}

TEST(FunctionalDump, NeedsFunctionalMode) {
  std::ostringstream out, err;
  const int rc = dispatch({"run", std::string(STRIDER_SOURCE_DIR) + "/configs/runs/default.yaml",
                           "--dump-tensors", "/tmp/never"},
                          out, err);
  EXPECT_EQ(rc, 2);
  EXPECT_NE(err.str().find("--dump-tensors needs functional mode (sim.functional: true"),
            std::string::npos)
      << err.str();
}

}  // namespace
}  // namespace strider
