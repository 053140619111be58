// Energy and area presets: the published per-action energies and per-unit areas of a technology
// node, the CACTI-like scaling of SRAM access energy with capacity and banks, and the resolution
// of an arch's `energy:` section (preset + per-key overrides) into the energy of every action and
// the area of every unit. SystemC-free (arch/); the model's action counts are turned into joules
// by tb/energy_model.h. Every number and its source: core/arch/energy_presets.cpp.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/arch/arch_config.h"
#include "core/arch/dram_spec.h"

namespace strider {

// Energy of every action the model counts (pJ), after preset, scaling and overrides.
struct ActionEnergy {
  double mac = 0;                    // one int8 multiply-accumulate lane operation
  double acc_update = 0;             // one int32 accumulator update (a neuron's add per cycle)
  double lb_write_per_byte = 0;      // a byte written into a line-buffer line (its cells)
  double lb_write_cycle = 0;         // one line-buffer write cycle (the write port's fixed cost)
  double kernel_read_per_byte = 0;   // a byte of the kernel region broadcast to the neurons
  double kernel_write_per_byte = 0;  // a byte loaded into the kernel region
  double l2_read_per_byte = 0;
  double l2_write_per_byte = 0;
  double dram_per_byte = 0;            // read or written, by dram_type
  double descriptor = 0;               // one descriptor read out of the prefetch buffer and decoded
  double vector_op = 0;                // one vector-unit multiply-add (32-bit)
  double vector_exp = 0;               // one exp / erf: a 512-byte LUT read and a multiply-add
  double vector_reduce = 0;            // one 32-bit add or compare into a running sum / maximum
  double vector_divide = 0;            // one 32-bit divide (or square root): 32 subtract steps
  double sram_leak_per_kib_cycle = 0;  // SRAM leakage, per KiB per cycle at the configured clock
  double logic_leak_per_mm2_cycle = 0;  // logic leakage, per mm2 per cycle at the configured clock
  double clock_per_flop_cycle = 0;      // clock energy of one flip-flop in one clocked cycle
  // DRAM from commands (dram.model jedec with the preset's IDD currents; DRAMPower's equations,
  // see dram_command_energy): per command, per burst, per rank-cycle of state residency.
  bool dram_commands = false;
  double dram_act = 0;     // ACT: (IDD0 - IDD3N) x tRAS x VDD x devices
  double dram_pre = 0;     // PRE: (IDD0 - IDD2N) x tRP x VDD x devices
  double dram_rd = 0;      // RD burst: (IDD4R - IDD3N) x tBL x VDD x devices
  double dram_wr = 0;      // WR burst: (IDD4W - IDD3N) x tBL x VDD x devices
  double dram_rd_io = 0;   // RD burst on the pins: io_mw x (DQ + DQS pins) x BL x tCK / 2
  double dram_wr_odt = 0;  // WR burst termination: odt_mw x (DQ + DQS + DM pins) x BL x tCK / 2
  double dram_ref = 0;     // REF: (IDD5 - IDD3N) x tRFC x VDD x devices
  double dram_refpb = 0;   // REFPB: one bank's share of a REF (dram_ref / banks per rank)
  double dram_act_standby = 0;  // a rank-cycle with a bank open: IDD3N x tCK x VDD x devices
  double dram_pre_standby = 0;  // a rank-cycle all banks precharged: IDD2N x tCK x VDD x devices
  double dram_act_powerdown = 0;  // a rank-cycle in active power-down: IDD3P x tCK x VDD x devices
  double dram_pre_powerdown = 0;  // a rank-cycle in precharge power-down: IDD2P x tCK x VDD x dev.
};

// The DRAM fields of `e` from a preset's currents (dram_commands false when it has none).
void dram_command_energy(const DramSpec& spec, ActionEnergy& e);

// The node's raw preset (before capacity scaling and overrides).
struct TechPreset {
  std::string tech;
  double mac_pj, acc_update_pj, vector_op_pj;
  double sram_pj_per_byte_8kib;  // one byte of a 64-bit access of an 8 KiB single-bank SRAM
  double sram_leak_uw_per_kib;   // leakage power per KiB
  double mac_um2, acc_um2;       // area of one MAC lane, of one neuron's accumulate adder
  double sram_mm2_per_kib;
  double gate_um2;               // one NAND2-equivalent gate (per-unit control logic)
  double mult32_um2;             // a 32-bit multiplier (the vector unit's lanes)
  double dff_um2;                // one D flip-flop (pipeline registers)
  double logic_leak_mw_per_mm2;  // leakage power of placed logic
  double clock_fj_per_flop;      // clock energy per flip-flop per clocked cycle
};

const std::vector<std::string>& energy_techs();       // 45nm, 28nm, 16nm, 7nm
const std::vector<std::string>& energy_dram_types();  // lpddr4, ddr4, hbm2
// Throws std::invalid_argument for a name not in the lists above.
TechPreset tech_preset(const std::string& tech);
double dram_pj_per_byte(const std::string& dram_type);

// The override keys of `energy:` and their fields, in file order (reader, writer, checks).
std::vector<std::pair<std::string, double*>> energy_override_fields(EnergyConfig& e);
std::vector<std::pair<std::string, double>> energy_override_values(const EnergyConfig& e);

// CACTI-like access energy per byte of an SRAM of `capacity_bytes` in `banks` banks (see .cpp).
double sram_pj_per_byte(const TechPreset& p, double capacity_bytes, double banks);

// Preset, scaled to the arch's structure sizes, then every override key that is set (>= 0).
ActionEnergy action_energy(const ArchConfig& arch);

// Area per unit (mm2): neurons, l1, l2, controller, dma, load, store, vector; ordered by name.
std::map<std::string, double> unit_area_mm2(const ArchConfig& arch);
// The logic (non-SRAM) part of each unit's area, mm2: every unit but l1 and l2 (their clocking
// is in their access energy, their leakage is SRAM leakage).
std::map<std::string, double> unit_logic_area_mm2(const ArchConfig& arch);
// Flip-flops each logic unit clocks per cycle (dma: per channel; see the .cpp for the counts).
std::map<std::string, double> unit_flops(const ArchConfig& arch);

}  // namespace strider
