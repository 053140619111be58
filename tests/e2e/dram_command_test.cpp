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

// DRAM energy from commands (tb/energy_model.h's DRAM rows) for the four reads above: per channel
// one ACT and four RD, the bank open from 0 to the last data beat 89, no PRE.
TEST(DramCommand, EnergyOfFourSequentialReadsByHand) {
  const std::string t =
      trace_file("seq_energy.trace", "0 R 0 64\n0 R 0x40 64\n0 R 128 64\n0 R 192 64\n");
  const Result r = dram({t, "--dram", "lpddr4_3200"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json e = nlohmann::json::parse(r.out)["energy"];
  // LPDDR4-3200 (configs/dram/lpddr4_3200.yaml): VDD 1.1 V, tCK 0.625 ns, one device per channel.
  // ACT (70 - 33) mA x 68 x 0.625 ns x 1.1 V = 1729.75 pJ; RD (290 - 33) x 8 x 0.6875 = 1413.5;
  // RD I/O 2.5 mW x (16 DQ + 2 DQS) x 16 beats x 0.3125 ns = 225; active standby 33 x 0.6875 =
  // 22.6875 per rank-cycle over 2 channels x 89 = 178.
  EXPECT_DOUBLE_EQ(e["by_action"]["dram_act"]["pj"].get<double>(), 2 * 1729.75);
  EXPECT_DOUBLE_EQ(e["by_action"]["dram_rd"]["pj"].get<double>(), 8 * 1413.5);
  EXPECT_DOUBLE_EQ(e["by_action"]["dram_rd_io"]["pj"].get<double>(), 8 * 225.0);
  EXPECT_EQ(e["by_action"]["dram_act_standby"]["count"], 178);
  EXPECT_EQ(e["by_action"]["dram_pre_standby"]["count"], 0);
  // 3459.5 + 11308 + 1800 + 4038.375 = 20605.875 pJ over 256 B.
  EXPECT_NEAR(e["total_pj"].get<double>(), 20605.875, 1e-9);
  EXPECT_NEAR(e["pj_per_byte"].get<double>(), 20605.875 / 256, 1e-12);
}

// Equal bytes, different row-hit rates: 256 reads of 64 B, one every 8 cycles, consecutive
// (a stream: 63 of 64 bursts hit their row) or each in a new row of the same bank (every burst
// misses: ACT + PRE each, and the bank's tRC spaces them). Then the same stream on DDR4-3200.
TEST(DramCommand, EnergyDependsOnTheRowHitRateAndThePreset) {
  std::string stream, thrash;
  for (int i = 0; i < 256; ++i) {
    stream += std::to_string(i * 8) + " R " + std::to_string(i * 64) + " 64\n";
    thrash += std::to_string(i * 8) + " R " + std::to_string(uint64_t(i) << 18) + " 64\n";
  }
  const nlohmann::json a = nlohmann::json::parse(
      dram({trace_file("stream.trace", stream), "--dram", "lpddr4_3200"}).out);
  const nlohmann::json b = nlohmann::json::parse(
      dram({trace_file("thrash.trace", thrash), "--dram", "lpddr4_3200"}).out);
  const nlohmann::json c =
      nlohmann::json::parse(dram({trace_file("stream.trace", stream), "--dram", "ddr4_3200"}).out);
  ASSERT_EQ(a["read_bytes"], 16384);
  ASSERT_EQ(b["read_bytes"], 16384);
  EXPECT_DOUBLE_EQ(a["row_hit_rate"].get<double>(), 504.0 / 512);  // one ACT per channel's row
  EXPECT_DOUBLE_EQ(b["row_hit_rate"].get<double>(), 0.0);
  // Bursts cost the same either way; the misses add 510 ACTs + PREs and the standby of the longer
  // run: the thrashing pattern costs more than three times the stream.
  EXPECT_EQ(a["energy"]["by_action"]["dram_rd"]["pj"], b["energy"]["by_action"]["dram_rd"]["pj"]);
  EXPECT_EQ(b["energy"]["by_action"]["dram_act"]["count"], 512);
  EXPECT_GT(b["energy"]["total_pj"].get<double>(), 3 * a["energy"]["total_pj"].get<double>());
  // DDR4 (four x16 devices at 1.2 V, terminated writes): another energy for the same stream.
  EXPECT_NE(c["energy"]["total_pj"].get<double>(), a["energy"]["total_pj"].get<double>());
  EXPECT_GT(c["energy"]["pj_per_byte"].get<double>(), a["energy"]["pj_per_byte"].get<double>());
}

}  // namespace
}  // namespace strider
