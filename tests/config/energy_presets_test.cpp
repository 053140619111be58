// The energy section: presets, the CACTI-like SRAM scaling (a larger L2 costs more per access,
// more banks less), DRAM by type, overrides by key, area per unit, and exact error texts.
#include "core/arch/energy_presets.h"

#include <gtest/gtest.h>

#include "core/arch/arch_reader.h"
#include "core/arch/config_loader.h"
#include "tests/config/config_test_util.h"

namespace strider {
namespace {

using testing::errors_of;
using testing::source_path;
using testing::TempDir;
using Errors = std::vector<std::string>;

TEST(EnergyPresets, HorowitzFiguresAt45nm) {
  const TechPreset p = tech_preset("45nm");
  EXPECT_DOUBLE_EQ(p.mac_pj, 0.23);                 // 8-bit multiply 0.2 + 8-bit add 0.03
  EXPECT_DOUBLE_EQ(p.acc_update_pj, 0.1);           // 32-bit add
  EXPECT_DOUBLE_EQ(p.sram_pj_per_byte_8kib, 1.25);  // 10 pJ per 64-bit read of 8 KB
  EXPECT_DOUBLE_EQ(tech_preset("16nm").mac_pj, 0.23 * 0.3);
  EXPECT_DOUBLE_EQ(tech_preset("7nm").mac_pj, 0.23 * 0.15);
  EXPECT_DOUBLE_EQ(tech_preset("28nm").mac_pj, 0.23 * 0.5);
  EXPECT_EQ(dram_pj_per_byte("lpddr4"), 64.0);       // 8 pJ/bit
  EXPECT_EQ(dram_pj_per_byte("ddr4"), 120.0);        // 15 pJ/bit
  EXPECT_DOUBLE_EQ(dram_pj_per_byte("hbm2"), 31.2);  // 3.9 pJ/bit
}

TEST(EnergyPresets, LargerL2CostsMorePerAccessMoreBanksLess) {
  const TechPreset p = tech_preset("45nm");
  // 1.25 x (0.5 x sqrt(bank KiB / 8) + 0.5 x sqrt(total KiB / 8)):
  // 512 KiB / 16 banks: 1.25 x (0.5 x sqrt(4) + 0.5 x sqrt(64)) = 1.25 x 5 = 6.25 pJ/B
  EXPECT_DOUBLE_EQ(sram_pj_per_byte(p, 524288, 16), 6.25);
  // 2 MiB / 16 banks: 1.25 x (0.5 x sqrt(16) + 0.5 x sqrt(256)) = 1.25 x 10 = 12.5 pJ/B
  EXPECT_DOUBLE_EQ(sram_pj_per_byte(p, 2097152, 16), 12.5);
  // 2 MiB / 64 banks: 1.25 x (0.5 x sqrt(4) + 0.5 x 16) = 1.25 x 9 = 11.25 pJ/B
  EXPECT_DOUBLE_EQ(sram_pj_per_byte(p, 2097152, 64), 11.25);
  // One 8 KiB bank is the reference point itself; 32 KiB single bank is Horowitz's 20 pJ / 8 B.
  EXPECT_DOUBLE_EQ(sram_pj_per_byte(p, 8192, 1), 1.25);
  EXPECT_DOUBLE_EQ(sram_pj_per_byte(p, 32768, 1), 2.5);
  ArchConfig small, big;
  small.energy.tech = big.energy.tech = "45nm";
  small.l2.size_bytes = 524288;
  big.l2.size_bytes = 2097152;
  EXPECT_DOUBLE_EQ(action_energy(small).l2_read_per_byte, 6.25);
  EXPECT_DOUBLE_EQ(action_energy(big).l2_read_per_byte, 12.5);
  EXPECT_DOUBLE_EQ(action_energy(big).l2_write_per_byte, 12.5);
}

TEST(EnergyPresets, TinyArchEnergiesAndOverrides) {
  ArchConfig a = load_arch(source_path("configs/arch/tiny.yaml"));
  ASSERT_EQ(a.energy.tech, "45nm");
  const ActionEnergy e = action_energy(a);
  // Line buffer: 2 x 8 lines x 16 B = 256 B in 2 banks: 1.25 x (0.5 x sqrt(128/8192) + 0.5 x
  // sqrt(256/8192)) = 1.25 x (0.0625 + 0.0883883476) = 0.18861043 pJ/B.
  EXPECT_NEAR(e.lb_write_per_byte, 0.18861043, 1e-8);
  // A write cycle: one 64-bit access of the same array, 8 x 0.188610435 = 1.50888348 pJ.
  EXPECT_NEAR(e.lb_write_cycle, 1.50888348, 1e-8);
  // Kernel region 512 B, one bank: 1.25 x sqrt(1/16) = 0.3125 pJ/B.
  EXPECT_DOUBLE_EQ(e.kernel_read_per_byte, 0.3125);
  // L2 64 KiB / 4 banks: 1.25 x (0.5 x sqrt(2) + 0.5 x sqrt(8)) = 1.25 x 2.1213203 = 2.6516504.
  EXPECT_NEAR(e.l2_read_per_byte, 2.65165043, 1e-8);
  // Descriptor: 64 B out of a 4 x 64 = 256 B prefetch buffer: 64 x 1.25 x sqrt(1/32) = 14.142136.
  EXPECT_NEAR(e.descriptor, 14.1421356, 1e-6);
  // Leakage 0.41 uW/KiB at 1000 MHz = 0.00041 pJ per KiB per cycle.
  EXPECT_DOUBLE_EQ(e.sram_leak_per_kib_cycle, 0.41 / 1000);

  TempDir t;
  const std::string f = t.write("a.yaml",
                                "arch:\n  dram:\n    model: simple\n"  // dram_type: the flat pipe's
                                "  energy:\n    tech: 7nm\n    dram_type: hbm2\n"
                                "    mac_pj: 0.05\n    l2_read_pj_per_byte: 1.5\n");
  a = load_arch(f);
  const ActionEnergy o = action_energy(a);
  EXPECT_EQ(o.mac, 0.05);
  EXPECT_EQ(o.l2_read_per_byte, 1.5);
  EXPECT_DOUBLE_EQ(o.dram_per_byte, 31.2);
  EXPECT_DOUBLE_EQ(o.acc_update, 0.1 * 0.15);  // not overridden: the 7 nm preset
  // The override survives the effective config.
  EXPECT_NE(arch_yaml(a).find("mac_pj: 0.05"), std::string::npos) << arch_yaml(a);
}

TEST(EnergyPresets, AreaPerUnit) {
  ArchConfig a;
  a.energy.tech = "45nm";
  const std::map<std::string, double> area = unit_area_mm2(a);
  // 64 neurons x 4 lanes x (282 + 36) um2 + 64 x 137 um2 = 81408 + 8768 = 90176 um2, plus
  // 10240 pipeline flip-flops x 4.522 um2 (DFF_X1) = 46305.28 um2: 136481.28 um2.
  EXPECT_NEAR(area.at("neurons"), 0.13648128, 1e-12);
  // 1024 KiB x 8192 bits x 0.346 um2 / 0.7 = 1024 x 4049.0057 um2 = 4.1462 mm2.
  EXPECT_NEAR(area.at("l2"), 1024 * 8192 * 0.346 / 0.7 * 1e-6, 1e-12);
  // Vector unit: 16 lanes x (3495 + 137) um2 + a 3495 um2 divider = 61607 um2 of logic, plus
  // its 512 B exp table: 0.5 KiB x 8192 x 0.346 / 0.7 um2 = 2024.503 um2.
  EXPECT_NEAR(unit_logic_area_mm2(a).at("vector"), 0.061607, 1e-12);
  EXPECT_NEAR(area.at("vector"), 0.061607 + 0.5 * 8192 * 0.346 / 0.7 * 1e-6, 1e-12);
  // The logic units leak, SRAMs are charged as SRAM leakage.
  EXPECT_EQ(unit_logic_area_mm2(a).count("l2"), 0u);
  EXPECT_EQ(unit_flops(a).at("neurons"), 64 * 4 * 32 + 64 * 32);  // 10240
}

// Time-proportional terms per preset: logic leakage mW/mm2 -> pJ per mm2-cycle = mW x 1000 / MHz;
// clock fJ per flop -> pJ; and the vector unit's element-op classes at 45 nm.
TEST(EnergyPresets, ClockLeakageAndVectorClasses) {
  ArchConfig a;
  a.energy.tech = "45nm";
  ActionEnergy e = action_energy(a);
  EXPECT_DOUBLE_EQ(e.logic_leak_per_mm2_cycle, 10.0);  // 10 mW/mm2 at 1000 MHz
  EXPECT_DOUBLE_EQ(e.clock_per_flop_cycle, 0.003);     // 3 fJ
  EXPECT_DOUBLE_EQ(e.vector_op, 3.2);                  // 32-bit multiply 3.1 + add 0.1
  EXPECT_DOUBLE_EQ(e.vector_reduce, 0.1);
  EXPECT_DOUBLE_EQ(e.vector_divide, 3.2);  // 32 x 0.1
  // exp: 2 B of a 512 B table, 1.25 x sqrt(512 / 8192) = 0.3125 pJ/B, plus a multiply-add.
  EXPECT_DOUBLE_EQ(e.vector_exp, 2 * 0.3125 + 3.2);
  a.energy.tech = "7nm";
  a.clock.frequency_mhz = 500;
  e = action_energy(a);
  EXPECT_DOUBLE_EQ(e.logic_leak_per_mm2_cycle, 10.0);  // 5 mW/mm2 over a 2 ns cycle
  EXPECT_DOUBLE_EQ(e.clock_per_flop_cycle, 3 * 0.15 * 1e-3);
  a.energy.tech = "28nm";
  a.energy.clock_fj_per_flop = 1.5;
  a.energy.logic_leak_mw_per_mm2 = 2;
  e = action_energy(a);
  EXPECT_DOUBLE_EQ(e.clock_per_flop_cycle, 0.0015);
  EXPECT_DOUBLE_EQ(e.logic_leak_per_mm2_cycle, 4.0);
}

TEST(EnergyPresets, BadTechAndNegativeOverrideAreErrors) {
  TempDir t;
  const std::string f = t.write("a.yaml", "arch:\n  energy:\n    tech: 5nm\n    mac_pj: -0.5\n");
  const Errors e = errors_of([&] { load_arch(f); });
  ASSERT_EQ(e.size(), 2u) << ::testing::PrintToString(e);
  EXPECT_EQ(e[0], f + ":3: arch.energy.tech: expected one of 45nm, 28nm, 16nm, 7nm, got \"5nm\"");
  EXPECT_EQ(e[1], f + ":4: arch.energy.mac_pj: must be at least 0 (leave the key out to take the "
                      "16nm preset), got -0.5");
}

}  // namespace
}  // namespace strider
