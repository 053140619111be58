#include "core/arch/energy_presets.h"

#include <cmath>
#include <stdexcept>

namespace strider {
namespace {

// ---- Sources -------------------------------------------------------------------------------
// [H14] M. Horowitz, "Computing's energy problem (and what we can do about it)", ISSCC 2014,
//       45 nm, 0.9 V. Energy: 8-bit add 0.03 pJ, 32-bit add 0.1 pJ, 8-bit multiply 0.2 pJ,
//       32-bit multiply 3.1 pJ; SRAM 64-bit read: 8 KB 10 pJ, 32 KB 20 pJ, 1 MB 100 pJ; DRAM
//       1.3-2.6 nJ per 64 bit. Area: 8-bit add 36 um2, 32-bit add 137 um2, 8-bit mult 282 um2.
// [ACC] Accelergy (Wu, Emer, Sze, ICCAD 2019), its CACTI plug-in's DRAM table, pJ per bit:
//       LPDDR4 8, DDR4 15, HBM2 3.9 (DDR4 is quoted 15-20 elsewhere; 15 is taken).
// [SB17] A. Stillmaker, B. Baas, "Scaling equations for the accurate prediction of CMOS device
//       performance from 180 nm to 7 nm", Integration 58 (2017) 74-81: energy per operation
//       from 45 nm falls to roughly 0.3x at 16 nm and 0.15x at 7 nm (read off its fitted
//       curves at nominal voltage; approximate, not a table value).
// [BC]  SRAM bit cells: 45 nm 0.346 um2 (Intel, Mistry et al., IEDM 2007); 16 nm 0.070 um2
//       (TSMC 16FinFET, Wu et al., IEDM 2013); 7 nm 0.027 um2 (TSMC N7, Chang et al.,
//       ISSCC 2017); an array efficiency of 70 % (cells / macro area) is assumed on top.
// [LD]  Logic density, transistors per mm2: Intel 45 nm ~3.3 M, TSMC 16FF+ ~28.9 M, TSMC N7
//       ~91.2 M (vendor figures as compiled by WikiChip): logic area 45 -> 16 nm x0.114,
//       45 -> 7 nm x0.036.
// [NG]  NAND2_X1 of the Nangate 45 nm Open Cell Library: 0.798 um2 (one gate equivalent).
// [ASM] Assumption, no single published figure: SRAM leakage 0.41 uW per KiB at 45 nm (50 pW
//       per bit cell, low-power process), 0.20 at 16 nm, 0.15 at 7 nm (FinFETs leak less per
//       cell); the per-unit gate counts below.
//
// Energy scaling between nodes: [SB17] for logic and SRAM dynamic energy (factors 1, 0.3,
// 0.15). DRAM energy is off-chip and does not scale with the accelerator's node.

constexpr double k16 = 0.30, k7 = 0.15;                      // [SB17]
constexpr double kLogic16 = 3.3 / 28.9, kLogic7 = 3.3 / 91.2;  // [LD]
constexpr double kArrayEfficiency = 0.7;                      // [BC] assumption
constexpr double kBitsPerKib = 8192;

double sram_mm2_per_kib(double bitcell_um2) {
  return kBitsPerKib * bitcell_um2 / kArrayEfficiency * 1e-6;
}

TechPreset make(const std::string& tech, double e, double logic_area, double bitcell_um2,
                double leak_uw) {
  TechPreset p;
  p.tech = tech;
  p.mac_pj = e * (0.2 + 0.03);           // [H14] 8-bit multiply + 8-bit add (lane sum)
  p.acc_update_pj = e * 0.1;             // [H14] 32-bit add into the accumulator
  p.vector_op_pj = e * (3.1 + 0.1);      // [H14] 32-bit multiply + 32-bit add per lane op
  p.sram_pj_per_byte_8kib = e * 10 / 8;  // [H14] 8 KB SRAM, 10 pJ per 64-bit read
  p.sram_leak_uw_per_kib = leak_uw;      // [ASM]
  p.mac_um2 = logic_area * (282 + 36);   // [H14] 8-bit multiplier + 8-bit adder
  p.acc_um2 = logic_area * 137;          // [H14] 32-bit adder
  p.sram_mm2_per_kib = sram_mm2_per_kib(bitcell_um2);  // [BC]
  p.gate_um2 = logic_area * 0.798;                      // [NG]
  return p;
}

// Gate counts of the units' control logic [ASM]: controller (decode, dependency scoreboard,
// dispatch), one DMA channel (address generation for 2-D moves, burst splitting), load unit
// (input iterator and the shift network's control) and store unit (output iterator).
constexpr double kControllerGates = 20000, kDmaChannelGates = 15000, kLoadGates = 30000,
                 kStoreGates = 10000;

}  // namespace

const std::vector<std::string>& energy_techs() {
  static const std::vector<std::string> kTechs = {"45nm", "16nm", "7nm"};
  return kTechs;
}

const std::vector<std::string>& energy_dram_types() {
  static const std::vector<std::string> kTypes = {"lpddr4", "ddr4", "hbm2"};
  return kTypes;
}

TechPreset tech_preset(const std::string& tech) {
  if (tech == "45nm") return make(tech, 1.0, 1.0, 0.346, 0.41);
  if (tech == "16nm") return make(tech, k16, kLogic16, 0.070, 0.20);
  if (tech == "7nm") return make(tech, k7, kLogic7, 0.027, 0.15);
  throw std::invalid_argument("unknown energy.tech '" + tech + "' (45nm, 16nm or 7nm)");
}

double dram_pj_per_byte(const std::string& dram_type) {
  // [ACC] pJ per bit x 8.
  if (dram_type == "lpddr4") return 8 * 8.0;
  if (dram_type == "ddr4") return 15 * 8.0;
  if (dram_type == "hbm2") return 3.9 * 8;
  throw std::invalid_argument("unknown energy.dram_type '" + dram_type +
                              "' (lpddr4, ddr4 or hbm2)");
}

// CACTI-like scaling of an access with capacity C in B banks, from the 8 KiB reference E8:
//   E(C, B) = E8 x (0.5 x sqrt((C / B) / 8 KiB) + 0.5 x sqrt(C / 8 KiB))
// Half the reference access is the bank's own array (bit- and word-lines grow with the square
// root of the bank's capacity), half the routing to and from the bank (the H-tree spans the
// whole macro, the square root of the total capacity). For one bank it is E8 x sqrt(C / 8 KiB),
// which meets [H14]'s three points: 8 KB 10 pJ, 32 KB 20 pJ, 1 MB 113 pJ (quoted 100). The
// even split is an assumption in the spirit of CACTI, whose large arrays are wire-dominated.
double sram_pj_per_byte(const TechPreset& p, double capacity_bytes, double banks) {
  const double ref = 8192;
  return p.sram_pj_per_byte_8kib *
         (0.5 * std::sqrt(capacity_bytes / banks / ref) + 0.5 * std::sqrt(capacity_bytes / ref));
}

std::vector<std::pair<std::string, double*>> energy_override_fields(EnergyConfig& e) {
  return {{"mac_pj", &e.mac_pj},
          {"acc_update_pj", &e.acc_update_pj},
          {"lb_write_pj_per_byte", &e.lb_write_pj_per_byte},
          {"lb_write_cycle_pj", &e.lb_write_cycle_pj},
          {"kernel_read_pj_per_byte", &e.kernel_read_pj_per_byte},
          {"kernel_write_pj_per_byte", &e.kernel_write_pj_per_byte},
          {"l2_read_pj_per_byte", &e.l2_read_pj_per_byte},
          {"l2_write_pj_per_byte", &e.l2_write_pj_per_byte},
          {"dram_pj_per_byte", &e.dram_pj_per_byte},
          {"descriptor_pj", &e.descriptor_pj},
          {"vector_op_pj", &e.vector_op_pj},
          {"sram_leak_pj_per_kib_cycle", &e.sram_leak_pj_per_kib_cycle},
          {"mac_area_um2", &e.mac_area_um2},
          {"sram_area_mm2_per_kib", &e.sram_area_mm2_per_kib}};
}

std::vector<std::pair<std::string, double>> energy_override_values(const EnergyConfig& e) {
  EnergyConfig copy = e;
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [key, field] : energy_override_fields(copy)) out.emplace_back(key, *field);
  return out;
}

ActionEnergy action_energy(const ArchConfig& arch) {
  const TechPreset p = tech_preset(arch.energy.tech);
  const EnergyConfig& o = arch.energy;
  auto pick = [](double override_value, double preset) {
    return override_value >= 0 ? override_value : preset;
  };
  // Structure sizes: the line buffer is its two fill buffers (one bank each), the kernel region
  // one array, the controller's prefetch buffer prefetch_depth descriptors.
  const double lb = 2.0 * arch.l1.lines * arch.l1.line_bytes;
  const double prefetch = double(arch.controller.prefetch_depth) * arch.controller.descriptor_bytes;
  const double l2 = sram_pj_per_byte(p, double(arch.l2.size_bytes), arch.l2.banks);
  const double kernel = sram_pj_per_byte(p, arch.l1.kernel_bytes, 1);
  ActionEnergy e;
  e.mac = pick(o.mac_pj, p.mac_pj);
  e.acc_update = pick(o.acc_update_pj, p.acc_update_pj);
  e.lb_write_per_byte = pick(o.lb_write_pj_per_byte, sram_pj_per_byte(p, lb, 2));
  // [ASM] A write cycle's fixed cost (row decode, the write-enable tree, the block driven onto
  // the line-buffer write bus) is one 64-bit access of the line-buffer array; the cells it writes
  // are charged per byte above. A shifted write pays it once for every line it fills.
  e.lb_write_cycle = pick(o.lb_write_cycle_pj, 8 * sram_pj_per_byte(p, lb, 2));
  e.kernel_read_per_byte = pick(o.kernel_read_pj_per_byte, kernel);
  e.kernel_write_per_byte = pick(o.kernel_write_pj_per_byte, kernel);
  e.l2_read_per_byte = pick(o.l2_read_pj_per_byte, l2);
  e.l2_write_per_byte = pick(o.l2_write_pj_per_byte, l2);  // CACTI: a write costs about a read
  // The JEDEC model's preset sets the DRAM energy with its timing; dram_type is the simple model's.
  e.dram_per_byte = pick(o.dram_pj_per_byte, arch.dram.model == "jedec"
                                                 ? arch.dram.spec.pj_per_byte
                                                 : dram_pj_per_byte(o.dram_type));
  e.descriptor = pick(o.descriptor_pj, arch.controller.descriptor_bytes *
                                           sram_pj_per_byte(p, prefetch, 1));
  e.vector_op = pick(o.vector_op_pj, p.vector_op_pj);
  // uW per KiB over one cycle of f MHz: 1e-6 W x 1 / (f x 1e6) s = 1/f x 1e-12 J = 1/f pJ.
  e.sram_leak_per_kib_cycle =
      pick(o.sram_leak_pj_per_kib_cycle, p.sram_leak_uw_per_kib / arch.clock.frequency_mhz);
  return e;
}

std::map<std::string, double> unit_area_mm2(const ArchConfig& arch) {
  const TechPreset p = tech_preset(arch.energy.tech);
  const EnergyConfig& o = arch.energy;
  const double mac_um2 = o.mac_area_um2 >= 0 ? o.mac_area_um2 : p.mac_um2;
  const double sram = o.sram_area_mm2_per_kib >= 0 ? o.sram_area_mm2_per_kib : p.sram_mm2_per_kib;
  const double kib = 1.0 / 1024, um2 = 1e-6;
  const double lanes = double(arch.neurons.count) * arch.neurons.macs_per_cycle;
  const double prefetch = double(arch.controller.prefetch_depth) * arch.controller.descriptor_bytes;
  return {
      {"neurons", (lanes * mac_um2 + arch.neurons.count * p.acc_um2) * um2},
      {"l1", double(arch.l1.size_bytes) * kib * sram},
      {"l2", double(arch.l2.size_bytes) * kib * sram},
      {"controller", kControllerGates * p.gate_um2 * um2 + prefetch * kib * sram},
      {"dma", arch.dma.channels * kDmaChannelGates * p.gate_um2 * um2},
      {"load", kLoadGates * p.gate_um2 * um2},
      {"store", kStoreGates * p.gate_um2 * um2},
  };
}

}  // namespace strider
