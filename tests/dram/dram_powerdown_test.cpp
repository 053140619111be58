// Power-down and idle refresh of the JEDEC DRAM model (model/dram/dram_channel.h) on hand-built
// sequences of the small test spec with power-down (tests/dram/dram_test_spec.h: idle 20, nXP 6,
// nCKE 5; nRCD 10, nRAS 24, nREFI 1000, nRFC 50, PREA -> REF 10, read latency 14, tCK 1 ns),
// every cycle and every figure worked out by hand, and DRAMPower's power-down energy.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/arch/energy_presets.h"
#include "model/dram/dram_system.h"
#include "tb/energy_model.h"
#include "tests/dram/command_log.h"
#include "tests/dram/dram_test_spec.h"

namespace strider {
namespace {

std::string text(const std::vector<DramCommandRecord>& log) {
  return test::command_text(log, false, false);
}

std::string text(const std::vector<DramPowerDownRecord>& log) {
  std::string s;
  for (const DramPowerDownRecord& p : log)
    s += std::string(p.active ? "active" : "precharge") + "[" + std::to_string(p.entry) + "," +
         std::to_string(p.exit) + ") ";
  return s;
}

struct Fixture {
  explicit Fixture(const DramSpec& s) : spec(s), sys(spec, DramPolicy{}) {
    sys.channel(0).set_command_log(&log);
    sys.channel(0).set_powerdown_log(&pd);
  }
  DramSpec spec;
  DramSystem sys;
  std::vector<DramCommandRecord> log;
  std::vector<DramPowerDownRecord> pd;
  // A 64 B read of bank 0, row 0 arriving at `t`, queued after every command before t.
  DramRequestState* read_at(uint64_t t) {
    sys.advance(t);
    DramRequestState* r = sys.submit(t, 0, 64, false);
    sys.drain();
    return r;
  }
};

TEST(DramPowerDown, AnIdleGapEntersItAndTheNextRequestWaitsForTxp) {
  Fixture f(test::small_dram_spec_powerdown());
  const DramRequestState* a = f.read_at(0);
  const DramRequestState* b = f.read_at(100);
  // A: ACT@0, RD@10 (nRCD), data until 24. Idle from max(RD 10 + 20, 24) = 30 with the row open:
  // active power-down. B arrives at 100: exit at max(100, 30 + nCKE 5) = 100, its RD (a row hit)
  // at 100 + nXP 6 = 106, data until 106 + 14 = 120.
  EXPECT_EQ(text(f.log), "ACT@0 RD@10 RD@106 ");
  EXPECT_EQ(text(f.pd), "active[30,100) ");
  EXPECT_EQ(a->end, 24u);
  EXPECT_EQ(b->end, 120u);
  // Without power-down B's RD goes at 100.
  Fixture off(test::small_dram_spec());
  off.read_at(0);
  EXPECT_EQ(off.read_at(100)->end, 114u);
}

TEST(DramPowerDown, AStayLastsAtLeastTcke) {
  Fixture f(test::small_dram_spec_powerdown());
  f.read_at(0);
  const DramRequestState* b = f.read_at(32);
  // Entry at 30; B at 32 wakes it, but the stay lasts until 30 + nCKE 5 = 35; RD at 35 + 6 = 41.
  EXPECT_EQ(text(f.log), "ACT@0 RD@10 RD@41 ");
  EXPECT_EQ(text(f.pd), "active[30,35) ");
  EXPECT_EQ(b->end, 55u);
  // B at 30, the entry cycle: the rank is wanted, it does not enter; RD at 30.
  Fixture g(test::small_dram_spec_powerdown());
  g.read_at(0);
  EXPECT_EQ(g.read_at(30)->end, 44u);
  EXPECT_EQ(text(g.pd), "");
}

TEST(DramPowerDown, ARefreshDueDuringItWakesTheRank) {
  Fixture f(test::small_dram_spec_powerdown());
  f.read_at(0);
  const DramRequestState* c = f.read_at(1200);
  // Active power-down from 30; the REF due at nREFI 1000 wakes it at 1000: PREA at 1000 + nXP 6 =
  // 1006 (the row is open), REF at PREA + 10 = 1016, busy until 1016 + nRFC 50 = 1066. Precharge
  // power-down from max(1016 + 20, 1066) = 1066 until C arrives at 1200: ACT at 1206, RD at 1216,
  // data until 1230.
  EXPECT_EQ(text(f.log), "ACT@0 RD@10 PREA@1006 REF@1016 ACT@1206 RD@1216 ");
  EXPECT_EQ(text(f.pd), "active[30,1000) precharge[1066,1200) ");
  EXPECT_EQ(c->end, 1230u);
  const DramTotals t = f.sys.totals();
  EXPECT_EQ(t.powerdown_entries, 2u);
  EXPECT_EQ(t.powerdown_active_cycles, 970u);      // 1000 - 30
  EXPECT_EQ(t.powerdown_precharged_cycles, 134u);  // 1200 - 1066
}

// The idle tail: the refreshes due before the run's end are issued and charged (they were not
// before: a refresh issued only while requests were queued), with power-down around them.
TEST(DramPowerDown, AnIdleTailOwesItsRefreshes) {
  Fixture f(test::small_dram_spec_powerdown());
  f.read_at(0);
  f.sys.finish(2500);
  // As above until REF@1016; precharge power-down [1066, 2000); the REF due at 2000 wakes it:
  // REF at 2006 (no row open; REF -> REF 50 since 1016 is long past), busy until 2056; power-down
  // again from max(2006 + 20, 2056) = 2056 to the end, 2500 (the next REF is due at 3000).
  EXPECT_EQ(text(f.log), "ACT@0 RD@10 PREA@1006 REF@1016 REF@2006 ");
  EXPECT_EQ(text(f.pd), "active[30,1000) precharge[1066,2000) precharge[2056,2500) ");
  const DramTotals t = f.sys.totals();
  EXPECT_EQ(t.commands[int(DramCmd::kRef)], 2u);
  // A row is open [0, 1006): 1006 rank-cycles, 970 of them in power-down, so 36 active standby.
  // Precharge power-down 934 + 444 = 1378; precharge standby 2500 - 1006 - 1378 = 116.
  const DramResidency r = dram_residency(t, 2500);
  EXPECT_EQ(r.active_standby, 36u);
  EXPECT_EQ(r.active_powerdown, 970u);
  EXPECT_EQ(r.precharged_powerdown, 1378u);
  EXPECT_EQ(r.precharged_standby, 116u);
  // Without power-down the tail owes the same two refreshes: PREA@1000, REF@1010, REF@2000.
  Fixture off(test::small_dram_spec());
  off.read_at(0);
  off.sys.finish(2500);
  EXPECT_EQ(text(off.log), "ACT@0 RD@10 PREA@1000 REF@1010 REF@2000 ");
}

TEST(DramPowerDown, EnergyOfTheTailFromTheCurrents) {
  DramSpec spec = test::small_dram_spec_powerdown();
  spec.power = {{"vdd", 1.0},   {"idd0", 60},   {"idd2n", 20}, {"idd3n", 30},
                {"idd4r", 150}, {"idd4w", 140}, {"idd5", 100}, {"idd2p", 5},
                {"idd3p", 10},  {"devices", 1}, {"io_mw", 0},  {"odt_mw", 0}};
  Fixture f(spec);
  f.read_at(0);
  f.sys.finish(2500);
  ActionEnergy e;
  dram_command_energy(spec, e);
  EXPECT_DOUBLE_EQ(e.dram_act_powerdown, 10.0);  // IDD3P 10 mA x 1 V x 1 ns
  EXPECT_DOUBLE_EQ(e.dram_pre_powerdown, 5.0);   // IDD2P 5 mA x 1 V x 1 ns
  const DramTotals t = f.sys.totals();
  const DramResidency r = dram_residency(t, 2500);
  DramActivity a;
  a.measured = true;
  a.commands = t.commands;
  a.active_cycles = r.active_standby;
  a.precharged_cycles = r.precharged_standby;
  a.active_powerdown_cycles = r.active_powerdown;
  a.precharged_powerdown_cycles = r.precharged_powerdown;
  double pj = 0;
  for (const ActionEnergyRow& row : dram_command_rows(e, a)) pj += row.pj;
  // ACT (60-30) x 24 = 720; PREA as a PRE (60-20) x 10 = 400; RD (150-30) x 4 = 480;
  // 2 REF x (100-30) x 50 = 7000; active standby 36 x 30 = 1080; precharge standby 116 x 20 =
  // 2320; active power-down 970 x 10 = 9700; precharge power-down 1378 x 5 = 6890.
  // Sum: 720 + 400 + 480 + 7000 + 1080 + 2320 + 9700 + 6890 = 28590 pJ (without power-down the
  // same 2348 idle cycles at IDD3N / IDD2N would cost 970 x 30 + 1378 x 20 = 56660 pJ, not 16590).
  EXPECT_DOUBLE_EQ(pj, 28590.0);
}

}  // namespace
}  // namespace strider
