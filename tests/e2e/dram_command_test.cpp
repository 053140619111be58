// Tests of `strider dram` (tb/dram_command.cpp): exact figures of a small trace on LPDDR4-3200,
// and bad traces refused naming the file and line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tb/commands.h"

namespace strider {
namespace {

struct Result {
  int status;
  std::string out, err;
};

std::string trace_file(const std::string& name, const std::string& text) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("strider_dram_" + name)).string();
  std::ofstream(path) << text;
  return path;
}

Result dram(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const int status = dram_command(args, out, err);
  return {status, out.str(), err.str()};
}

TEST(DramCommand, FourSequentialReadsOnLpddr4) {
  const std::string t = trace_file("seq.trace",
                                   "# four 64 B reads at DRAM cycle 0\n"
                                   "0 R 0 64\n0 R 0x40 64\n0 R 128 64\n0 R 192 64\n");
  const Result r = dram({t, "--dram", "lpddr4_3200"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  // Each 64 B request is one 32 B burst on each of the two channels (RoBaRaCoCh: Ch lowest), all
  // in row 0 of bank 0. Per channel: ACT @0, RD @nRCD 29, then every nCCD 8: 37, 45, 53; data
  // ends nCL 28 + nBL 8 = 36 later: 65, 73, 81, 89.
  EXPECT_EQ(j["dram_cycles"], 89);
  EXPECT_EQ(j["commands"]["ACT"], 2);
  EXPECT_EQ(j["commands"]["RD"], 8);
  EXPECT_DOUBLE_EQ(j["row_hit_rate"].get<double>(), 6.0 / 8);  // the first burst per channel misses
  // (65 + 73 + 81 + 89) / 4 = 77 cycles x 0.625 ns; p99 (nearest rank) is the slowest, 89.
  EXPECT_DOUBLE_EQ(j["avg_read_latency_ns"].get<double>(), 77 * 0.625);
  EXPECT_DOUBLE_EQ(j["p99_read_latency_ns"].get<double>(), 89 * 0.625);
  EXPECT_DOUBLE_EQ(j["peak_gb_per_s"].get<double>(), 12.8);
  EXPECT_DOUBLE_EQ(j["achieved_gb_per_s"].get<double>(), 256 / (89 * 0.625));
}

TEST(DramCommand, BadTracesNameTheFileAndLine) {
  const std::string a = trace_file("short.trace", "0 R 0 64\n5 R 0x40\n");
  Result r = dram({a, "--dram", "lpddr4_3200"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err,
            "strider dram: " + a + ":2: expected `CYCLE R|W ADDRESS BYTES`, got '5 R 0x40'\n");
  const std::string b = trace_file("rw.trace", "0 X 0 64\n");
  r = dram({b, "--dram", "lpddr4_3200"});
  EXPECT_EQ(r.err, "strider dram: " + b + ":1: expected R or W, got 'X'\n");
  const std::string c = trace_file("order.trace", "10 R 0 64\n5 W 64 64\n");
  r = dram({c, "--dram", "lpddr4_3200"});
  EXPECT_EQ(r.err, "strider dram: " + c +
                       ":2: CYCLE 5 is before the previous request's 10 (the trace must be in "
                       "order)\n");
  const std::string d = trace_file("zero.trace", "0 R 0 0\n");
  r = dram({d, "--dram", "lpddr4_3200"});
  EXPECT_EQ(r.err, "strider dram: " + d + ":1: BYTES must be 1..4294967296, got 0\n");
  EXPECT_EQ(dram({d}).status, 2);  // --dram is required
}

}  // namespace
}  // namespace strider
