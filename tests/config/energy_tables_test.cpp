// Accelergy ERT / ART tables (core/arch/energy_tables.h): an exported ERT re-imports to the same
// doubles; an imported table replaces the entries it names (relative paths resolve against the
// file that names them); bad tables are refused naming the table file, line and key.
#include "core/arch/energy_tables.h"

#include <gtest/gtest.h>

#include "core/arch/config_loader.h"
#include "tests/config/config_test_util.h"

namespace strider {
namespace {

using testing::errors_of;
using Errors = std::vector<std::string>;
using testing::TempDir;

TEST(EnergyTables, ExportedErtReimportsToTheSameEnergies) {
  TempDir t;
  const ArchConfig a = load_arch(testing::source_path("configs/arch/seed.yaml"));
  const ActionEnergy e = action_energy(a);
  const std::string ert = t.write("ert.yaml", write_ert(e));
  const ArchConfig b =
      load_arch(testing::source_path("configs/arch/seed.yaml"), {"energy.ert=" + ert});
  EXPECT_EQ(b.energy.ert_table.size(), ert_fields().size());
  const ActionEnergy f = action_energy(b);
  for (const ErtField& x : ert_fields())
    EXPECT_EQ(e.*x.field, f.*x.field) << x.component << "." << x.action;
  // The ART: areas in um2 in the table, mm2 inside: equal to rounding.
  const std::string art = t.write("art.yaml", write_art(unit_area_mm2(a)));
  const ArchConfig c =
      load_arch(testing::source_path("configs/arch/seed.yaml"), {"energy.art=" + art});
  EXPECT_EQ(c.energy.art_table.size(), 8u);
  for (const auto& [unit, mm2] : unit_area_mm2(a))
    EXPECT_NEAR(unit_area_mm2(c).at(unit), mm2, 1e-15) << unit;
}

TEST(EnergyTables, ATableReplacesOnlyWhatItNames) {
  TempDir t;
  const std::string ert = t.write("my_ert.yaml",
                                  "ERT:\n  version: '0.4'\n  tables:\n"
                                  "    - name: system.strider.neurons\n      actions:\n"
                                  "        - {name: mac, arguments: null, energy: 0.5}\n");
  const std::string art = t.write("my_art.yaml",
                                  "ART:\n  version: '0.4'\n  tables:\n"
                                  "    - {name: system.strider.l2, area: 2500000}\n");
  // Relative to the arch file that names them.
  const std::string f =
      t.write("a.yaml", "arch:\n  energy:\n    ert: my_ert.yaml\n    art: my_art.yaml\n");
  const ArchConfig a = load_arch(f);
  const ArchConfig seed = default_arch({});
  EXPECT_EQ(action_energy(a).mac, 0.5);
  EXPECT_EQ(action_energy(a).acc_update, action_energy(seed).acc_update);
  EXPECT_EQ(unit_area_mm2(a).at("l2"), 2.5);  // 2,500,000 um2
  EXPECT_EQ(unit_area_mm2(a).at("neurons"), unit_area_mm2(seed).at("neurons"));
}

TEST(EnergyTables, BadTablesNameTheFileLineAndKey) {
  TempDir t;
  const std::string ert = t.write("bad_ert.yaml",
                                  "ERT:\n  version: '0.4'\n  tables:\n"
                                  "    - name: system.strider.neurons\n      actions:\n"
                                  "        - {name: mac, energy: -1}\n"
                                  "        - {name: mac, energy: .nan}\n"
                                  "        - {name: mac, energy: 1e308}\n"
                                  "        - {name: madd, energy: 1}\n"
                                  "    - name: system.gpu.core\n      actions: []\n");
  Errors e = errors_of([&] { default_arch({"energy.ert=" + ert}); });
  ASSERT_EQ(e.size(), 5u) << ::testing::PrintToString(e);
  EXPECT_EQ(e[0], ert + ":6: ERT.tables[0].actions[0].energy: must be at least 0, got -1");
  EXPECT_EQ(e[1], ert + ":7: ERT.tables[0].actions[1].energy: expected a number, got \".nan\"");
  EXPECT_EQ(e[2], ert +
                      ":8: ERT.tables[0].actions[2].energy: must be a finite number between "
                      "-1e12 and 1e12 (the range of every real-valued key), got 1e308");
  EXPECT_EQ(e[3], ert +
                      ":9: ERT.tables[0].actions[3].name: expected one of mac, acc_update "
                      "(component neurons), got \"madd\"");
  EXPECT_EQ(e[4], ert +
                      ":10: ERT.tables[1].name: expected system.strider.<component> of a "
                      "Strider component, got \"system.gpu.core\"");
  const std::string empty = t.write("empty.yaml", "ERT:\n  version: '0.4'\n");
  e = errors_of([&] { default_arch({"energy.ert=" + empty}); });
  ASSERT_EQ(e.size(), 1u) << ::testing::PrintToString(e);
  EXPECT_EQ(e[0], empty + ":2: ERT.tables: expected a list of tables, got nothing");
  const std::string art =
      t.write("bad_art.yaml", "ART:\n  tables:\n    - {name: system.strider.l2}\n");
  e = errors_of([&] { default_arch({"energy.art=" + art}); });
  ASSERT_EQ(e.size(), 1u) << ::testing::PrintToString(e);
  EXPECT_EQ(e[0], art + ":3: ART.tables[0].area: missing");
}

}  // namespace
}  // namespace strider
