// Energy and area tables in Accelergy's form: the ERT (energy reference table: per component,
// per action, pJ) and the ART (area reference table: per component, um2), as Accelergy writes
// them (`ERT: {version, tables: [{name, actions: [{name, arguments, energy}]}]}`, `ART: {version,
// tables: [{name, area}]}`), with components named `system.strider.<component>`. Export writes
// every action energy of an arch (core/arch/energy_presets.h's ActionEnergy) and every unit's
// area; import (`arch.energy.ert: PATH`, `arch.energy.art: PATH`) replaces the entries a table
// names, so a user can plug in figures from their own flow. Energies are written with 17
// significant digits: an exported table re-imports to the same doubles.
//
// Components and actions (pJ each; the by_action rows they price in brackets):
//   neurons        mac [mac], acc_update [acc_update]
//   line_buffer    write_byte [lb_write], write_cycle [lb_write_cycle]
//   kernel_region  read_byte [kernel_read], write_byte [kernel_write]
//   l2             read_byte [l2_read], write_byte [l2_write]
//   dram           access_byte [dram], act, pre, rd_burst, wr_burst, rd_io_burst, wr_odt_burst,
//                  ref, act_standby_cycle, pre_standby_cycle, act_powerdown_cycle,
//                  pre_powerdown_cycle [dram_act ... dram_pre_powerdown]
//   controller     descriptor [descriptor]
//   vector         mac, exp, reduce, divide [vector_*]
//   clock          flop_cycle [<unit>_clock]
//   logic          leak_mm2_cycle [<unit>_logic_leakage, per mm2]
//   sram           leak_kib_cycle [l1_leakage, l2_leakage]
// The ART's components are the units of area_mm2 (neurons, l1, l2, controller, dma, load, store,
// vector).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/arch/diagnostics.h"
#include "core/arch/energy_presets.h"

namespace strider {

struct ErtField {
  const char* component;
  const char* action;
  double ActionEnergy::*field;
};
const std::vector<ErtField>& ert_fields();

// The tables' text (YAML).
std::string write_ert(const ActionEnergy& e);
std::string write_art(const std::map<std::string, double>& area_mm2);

// Reads a table file into `out` ("component.action" -> pJ; component -> mm2). Every problem goes
// to `diags` naming the file, line and key (`ERT.tables[1].actions[0].energy`); false on any.
bool read_ert(const std::string& path, config::Diagnostics& diags,
              std::map<std::string, double>& out);
bool read_art(const std::string& path, config::Diagnostics& diags,
              std::map<std::string, double>& out);

}  // namespace strider
