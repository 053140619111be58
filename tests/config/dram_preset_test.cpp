// DRAM presets (configs/dram/*.yaml, core/arch/dram_spec.h): every shipped preset loads with its
// peak bandwidth, and bad presets are refused naming the file, line, key and the constraint.
#include <gtest/gtest.h>

#include "core/arch/config_loader.h"
#include "core/arch/dram_bandwidth.h"
#include "tests/config/config_test_util.h"

namespace strider {
namespace {

using testing::errors_of;
using testing::TempDir;

// A valid minimal preset; tests replace one line.
const char* kPreset =
    "dram:\n"                                                                       // 1
    "  name: T\n"                                                                   // 2
    "  source: test\n"                                                              // 3
    "  organization: {channels: 1, ranks: 1, banks: 8, rows: 1024, columns: 64,\n"  // 4
    "                 dq_bits: 64, burst_length: 8}\n"                              // 5
    "  tck_ps: 1000\n"                                                              // 6
    "  mapping: RoBaCoCh\n"                                                         // 7
    "  timing: {nBL: 4, nCL: 10, nRAS: 24, nRC: 34, nRFC: 50, nREFI: 1000}\n"       // 8
    "  read_latency: nCL + nBL\n"                                                   // 9
    "  write_latency: nBL\n"                                                        // 10
    "  constraints:\n"                                                              // 11
    "    - [RD, RD, channel, nBL]\n"                                                // 12
    "    - [ACT, ACT, bank, nRC]\n"                                                 // 13
    "  energy: {pj_per_byte: 10}\n";                                                // 14

std::string with(const std::string& from, const std::string& to) {
  std::string s = kPreset;
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

// Loads an arch whose dram.preset is `preset_text`; returns the errors.
std::vector<std::string> load(const TempDir& dir, const std::string& preset_text) {
  const std::string preset = dir.write("bad.yaml", preset_text);
  const std::string arch = dir.write("arch.yaml", "arch:\n  dram:\n    preset: " + preset + "\n");
  return errors_of([&] { load_arch(arch); });
}

TEST(DramPreset, ShippedPresetsLoadWithTheirPeakBandwidth) {
  const std::pair<const char*, double> presets[] = {
      {"lpddr4_3200", 12.8e9}, {"lpddr5_6400", 25.6e9}, {"ddr4_3200", 25.6e9}, {"hbm2", 64e9}};
  for (const auto& [name, peak] : presets) {
    const ArchConfig a = load_arch(testing::source_path("configs/arch/seed.yaml"),
                                   {std::string("arch.dram.preset=") + name});
    EXPECT_DOUBLE_EQ(a.dram.spec.peak_bytes_per_second(), peak) << name;
    EXPECT_FALSE(a.dram.spec.source.empty());
    EXPECT_GT(a.dram.spec.pj_per_byte, 0);
  }
  // LPDDR4-3200 x32 at 1 GHz: 12.8 B/cycle, so 12800 B take 1000 cycles and 64 B take 5.
  const ArchConfig seed = load_arch(testing::source_path("configs/arch/seed.yaml"));
  EXPECT_EQ(seed.dram.model, "jedec");
  EXPECT_EQ(dram_peak_cycles(seed, 12800), 1000u);
  EXPECT_EQ(dram_peak_cycles(seed, 64), 5u);
}

TEST(DramPreset, NegativeTimingIsRefused) {
  TempDir d;
  const std::vector<std::string> e = load(d, with("nRAS: 24", "nRAS: -3"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0], d.path().string() +
                      "/bad.yaml:8: dram.timing.nRAS: expected an unsigned "
                      "integer, got \"-3\"");
}

TEST(DramPreset, ZeroPeriodIsRefused) {
  TempDir d;
  const std::vector<std::string> e = load(d, with("tck_ps: 1000", "tck_ps: 0"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0], d.path().string() +
                      "/bad.yaml:6: dram.tck_ps: the DRAM clock period must be greater than 0");
  const std::vector<std::string> e2 = load(d, with("nBL: 4", "nBL: 0"));
  ASSERT_EQ(e2.size(), 1u);
  EXPECT_EQ(e2[0],
            d.path().string() + "/bad.yaml:8: dram.timing.nBL: must be greater than 0 (a period)");
}

TEST(DramPreset, RasLongerThanRcIsRefused) {
  TempDir d;
  const std::vector<std::string> e = load(d, with("nRAS: 24", "nRAS: 40"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0], d.path().string() +
                      "/bad.yaml:8: dram.timing.nRAS: 40 > nRC = 34; expected nRAS <= nRC");
}

TEST(DramPreset, MappingNamingAMissingFieldIsRefused) {
  TempDir d;
  const std::vector<std::string> e = load(d, with("RoBaCoCh", "RoBgBaCoCh"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0], d.path().string() +
                      "/bad.yaml:7: dram.mapping: 'RoBgBaCoCh' places bankgroups, which "
                      "dram.organization does not declare");
  const std::vector<std::string> e2 = load(d, with("RoBaCoCh", "RoBaXyCoCh"));
  ASSERT_EQ(e2.size(), 1u);
  EXPECT_EQ(e2[0], d.path().string() +
                       "/bad.yaml:7: dram.mapping: 'RoBaXyCoCh': 'Xy' is not a field (Ch, Ra, "
                       "Bg, Ba, Ro, Co)");
}

TEST(DramPreset, UnknownKeysAndTimingNamesAreRefused) {
  TempDir d;
  const std::vector<std::string> e =
      load(d, with("  tck_ps: 1000\n", "  tck_ps: 1000\n  tRCD: 5\n"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].rfind(d.path().string() + "/bad.yaml:7: dram.tRCD: unknown key", 0), 0u) << e[0];
  const std::vector<std::string> e2 =
      load(d, with("[ACT, ACT, bank, nRC]", "[ACT, ACT, bank, nRCD]"));
  ASSERT_EQ(e2.size(), 1u);
  EXPECT_EQ(e2[0], d.path().string() +
                       "/bad.yaml:13: dram.constraints[1]: names 'nRCD', which dram.timing does "
                       "not define");
}

// Power-down: the presets' idle threshold (8 x nXP) and timings, the arch key over it, and a
// threshold without nXP / nCKE refused in the preset and through the arch key.
TEST(DramPreset, PowerDownIdleCyclesAndItsTimings) {
  const ArchConfig seed = load_arch(testing::source_path("configs/arch/seed.yaml"));
  EXPECT_EQ(seed.dram.spec.powerdown_idle, 96u);  // LPDDR4-3200: 8 x nXP 12
  EXPECT_EQ(seed.dram.spec.powerdown_exit, 12u);
  EXPECT_EQ(seed.dram.spec.powerdown_min, 12u);
  const ArchConfig off = load_arch(testing::source_path("configs/arch/seed.yaml"),
                                   {"arch.dram.powerdown_idle_cycles=0"});
  EXPECT_EQ(off.dram.spec.powerdown_idle, 0u);
  const ArchConfig later = load_arch(testing::source_path("configs/arch/seed.yaml"),
                                     {"arch.dram.powerdown_idle_cycles=400"});
  EXPECT_EQ(later.dram.spec.powerdown_idle, 400u);
  TempDir d;
  const std::vector<std::string> e =
      load(d, with("  tck_ps: 1000\n", "  tck_ps: 1000\n  powerdown_idle_cycles: 50\n"));
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0], d.path().string() +
                      "/bad.yaml:7: dram.powerdown_idle_cycles: 50 needs dram.timing.nXP and "
                      "nCKE (power-down exit and minimum stay; 0 turns power-down off)");
  const std::string preset = d.write("ok.yaml", kPreset);
  const std::string arch = d.write(
      "arch2.yaml", "arch:\n  dram:\n    preset: " + preset + "\n    powerdown_idle_cycles: 10\n");
  const std::vector<std::string> e2 = errors_of([&] { load_arch(arch); });
  ASSERT_EQ(e2.size(), 1u);
  EXPECT_EQ(e2[0], d.path().string() +
                       "/arch2.yaml:4: arch.dram.powerdown_idle_cycles: 10 needs dram.timing.nXP "
                       "and nCKE (power-down exit and minimum stay; 0 turns power-down off) in " +
                       preset);
}

TEST(DramPreset, MissingPresetNamesTheArchKey) {
  TempDir d;
  const std::string arch = d.write("arch.yaml", "arch:\n  dram:\n    preset: nosuch\n");
  const std::vector<std::string> e = errors_of([&] { load_arch(arch); });
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].rfind(arch + ":3: arch.dram.preset: no DRAM preset 'nosuch' (looked for ", 0), 0u)
      << e[0];
}

}  // namespace
}  // namespace strider
