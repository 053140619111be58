// DRAM energy from commands (core/arch/energy_presets.h's dram_command_energy, DRAMPower's
// equations) and the channel's state residency (model/dram/dram_channel.h) on a hand-built command
// sequence of the small test spec (tests/dram/dram_test_spec.h: tCK 1 ns, nRAS 24, nRP 10, nBL 4,
// nRFC 50, 64-bit bus, BL8), every figure worked out by hand.
#include <gtest/gtest.h>

#include <vector>

#include "core/arch/energy_presets.h"
#include "model/dram/dram_system.h"
#include "tests/dram/dram_test_spec.h"

namespace strider {
namespace {

// Byte address of bank group g, bank b, row r (RoBaBgCo, 64 B bursts).
uint64_t addr(uint32_t g, uint32_t b, uint32_t r) {
  return ((uint64_t(r) << 7) | (uint64_t(b) << 5) | (uint64_t(g) << 4)) * 64;
}

DramSpec powered_spec() {
  DramSpec s = test::small_dram_spec();
  s.power = {{"vdd", 1.0},   {"idd0", 60},  {"idd2n", 20},  {"idd3n", 30},  {"idd4r", 150},
             {"idd4w", 140}, {"idd5", 100}, {"devices", 2}, {"io_mw", 1.0}, {"odt_mw", 2.0}};
  return s;
}

TEST(DramEnergy, PerCommandEnergiesFromTheCurrents) {
  ActionEnergy e;
  dram_command_energy(powered_spec(), e);
  ASSERT_TRUE(e.dram_commands);
  // mA x V x ns = pJ; two devices.
  EXPECT_DOUBLE_EQ(e.dram_act, (60 - 30) * 24 * 1.0 * 2);   // 1440: (IDD0-IDD3N) tRAS
  EXPECT_DOUBLE_EQ(e.dram_pre, (60 - 20) * 10 * 1.0 * 2);   // 800: (IDD0-IDD2N) tRP
  EXPECT_DOUBLE_EQ(e.dram_rd, (150 - 30) * 4 * 1.0 * 2);    // 960: (IDD4R-IDD3N) tBL
  EXPECT_DOUBLE_EQ(e.dram_wr, (140 - 30) * 4 * 1.0 * 2);    // 880
  EXPECT_DOUBLE_EQ(e.dram_ref, (100 - 30) * 50 * 1.0 * 2);  // 7000: (IDD5-IDD3N) tRFC
  EXPECT_DOUBLE_EQ(e.dram_act_standby, 30 * 1.0 * 2);       // 60 per rank-cycle
  EXPECT_DOUBLE_EQ(e.dram_pre_standby, 20 * 1.0 * 2);       // 40
  // Pins: 64 DQ + 8 DQS (reads), + 8 DM (writes); 8 beats of half a 1 ns clock. mW x ns = pJ.
  EXPECT_DOUBLE_EQ(e.dram_rd_io, 1.0 * 72 * 8 * 0.5);   // 288
  EXPECT_DOUBLE_EQ(e.dram_wr_odt, 2.0 * 80 * 8 * 0.5);  // 640
}

TEST(DramEnergy, APresetWithoutCurrentsHasNoCommandEnergy) {
  ActionEnergy e;
  dram_command_energy(test::small_dram_spec(), e);
  EXPECT_FALSE(e.dram_commands);
}

TEST(DramEnergy, HandBuiltSequenceResidencyAndEnergy) {
  const DramSpec spec = powered_spec();
  DramSystem sys(spec, DramPolicy{});
  sys.submit(0, addr(0, 0, 0), 64, false);
  sys.submit(0, addr(0, 0, 1), 64, false);  // same bank, next row
  sys.drain();
  sys.finish(100);
  // ACT@0 RD@10 PRE@24 ACT@34 RD@44 (tests/dram/dram_timing_test.cpp's first case): the bank is
  // open [0, 24) and [34, 100): 24 + 66 = 90 active cycles, 10 precharged.
  const DramTotals t = sys.totals();
  EXPECT_EQ(t.active_cycles, 90u);
  ActionEnergy e;
  dram_command_energy(spec, e);
  const double pj =
      t.commands[int(DramCmd::kAct)] * e.dram_act + t.commands[int(DramCmd::kPre)] * e.dram_pre +
      t.commands[int(DramCmd::kRd)] * (e.dram_rd + e.dram_rd_io) +
      t.active_cycles * e.dram_act_standby + (100 - t.active_cycles) * e.dram_pre_standby;
  // 2 ACT x 1440 + 1 PRE x 800 + 2 RD x (960 + 288) + 90 x 60 + 10 x 40
  // = 2880 + 800 + 2496 + 5400 + 400 = 11976 pJ.
  EXPECT_DOUBLE_EQ(pj, 11976.0);
}

TEST(DramEnergy, ResidencySumsOpenIntervalsAcrossBanksAndRefresh) {
  const DramSpec spec = powered_spec();
  DramPolicy closed;
  closed.closed_page = true;
  std::vector<DramCommandRecord> log;
  DramSystem sys(spec, closed);
  sys.channel(0).set_command_log(&log);
  sys.submit(0, addr(0, 0, 0), 64, false);
  sys.submit(0, addr(1, 0, 0), 64, false);     // the other bank group
  sys.submit(1200, addr(0, 0, 0), 64, false);  // after the refresh due at nREFI 1000
  sys.drain();
  sys.finish(1300);
  std::string s;
  for (const DramCommandRecord& c : log)
    s += std::string(to_string(c.cmd)) + "@" + std::to_string(c.cycle) + " ";
  // Bank (0,0): ACT@0 RD@10 auto-PRE@24 (nRAS), issued before bank (1,0)'s RD@14 (out of cycle
  // order); bank (1,0): ACT@4 (nRRDS) RD@14 PRE@28. REF@1000 when due (all banks closed), then
  // ACT@1200 RD@1210 PRE@1224.
  ASSERT_EQ(s, "ACT@0 ACT@4 RD@10 PRE@24 RD@14 PRE@28 REF@1000 ACT@1200 RD@1210 PRE@1224 ");
  // Open: [0, 28) (the union of [0, 24) and [4, 28)) + [1200, 1224) = 28 + 24 = 52.
  EXPECT_EQ(sys.totals().active_cycles, 52u);
}

}  // namespace
}  // namespace strider
