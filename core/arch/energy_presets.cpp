#include "core/arch/energy_presets.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/arch/energy_tables.h"

namespace strider {
namespace {

// ---- Sources -------------------------------------------------------------------------------
// [H14] M. Horowitz, "Computing's energy problem (and what we can do about it)", ISSCC 2014,
//       45 nm, 0.9 V. Energy: 8-bit add 0.03 pJ, 32-bit add 0.1 pJ, 8-bit multiply 0.2 pJ,
//       32-bit multiply 3.1 pJ; SRAM 64-bit read: 8 KB 10 pJ, 32 KB 20 pJ, 1 MB 100 pJ; DRAM
//       1.3-2.6 nJ per 64 bit. Area: 8-bit add 36 um2, 32-bit add 137 um2, 8-bit mult 282 um2,
//       32-bit mult 3495 um2.
// [ACC] Accelergy (Wu, Emer, Sze, ICCAD 2019), its CACTI plug-in's DRAM table, pJ per bit:
//       LPDDR4 8, DDR4 15, HBM2 3.9 (DDR4 is quoted 15-20 elsewhere; 15 is taken).
// [SB17] A. Stillmaker, B. Baas, "Scaling equations for the accurate prediction of CMOS device
//       performance from 180 nm to 7 nm", Integration 58 (2017) 74-81: energy per operation
//       from 45 nm falls to roughly 0.5x at 28 nm, 0.3x at 16 nm and 0.15x at 7 nm (read off
//       its fitted curves at nominal voltage; approximate, not a table value).
// [BC]  SRAM bit cells: 45 nm 0.346 um2 (Intel, Mistry et al., IEDM 2007); 16 nm 0.070 um2
//       (TSMC 16FinFET, Wu et al., IEDM 2013); 7 nm 0.027 um2 (TSMC N7, Chang et al.,
//       ISSCC 2017); 28 nm 0.127 um2 (TSMC 28 nm high-density cell as published, 2011); an
//       array efficiency of 70 % (cells / macro area) is assumed on top.
// [LD]  Logic density, transistors per mm2: Intel 45 nm ~3.3 M, TSMC 16FF+ ~28.9 M, TSMC N7
//       ~91.2 M (vendor figures as compiled by WikiChip): logic area 45 -> 16 nm x0.114,
//       45 -> 7 nm x0.036. 28 nm: ideal square-law scaling (28/45)^2 = x0.387 [ASM], no
//       single density figure taken.
// [NG]  Nangate 45 nm Open Cell Library: NAND2_X1 0.798 um2 (one gate equivalent); DFF_X1
//       4.522 um2 with a clock-pin capacitance of about 1 fF.
// [TPU] N. Jouppi et al., "In-datacenter performance analysis of a tensor processing unit",
//       ISCA 2017: the 65,536 int8 MACs of the matrix unit take 24 % of a die under 331 mm2 at
//       28 nm, at most ~1,200 um2 per MAC with its operand registers and systolic wiring.
// [CK]  Clock energy per flip-flop per clocked cycle, an estimate built on [NG]: about 3 fF
//       switched per flip-flop and cycle (its clock pin ~1 fF, its internal clock inverters and
//       its share of the clock tree's wires and buffers about as much again each) at 1.0 V:
//       3 fJ at 45 nm, scaled to the other nodes like dynamic energy [SB17]. Clock trees take
//       a third to a half of a synchronous design's dynamic power, which this reproduces in
//       order of magnitude for register-heavy units; it is not a measured figure.
// [LK]  Logic leakage per mm2 of placed standard cells, an assumption of the order of the
//       typical-corner libraries: 10 mW/mm2 at 45 and 28 nm (planar, ~10 nW per NAND2
//       equivalent at 70 % placement density), 5 mW/mm2 at 16 and 7 nm (FinFETs leak several
//       times less per gate, packed ~10x denser). Real figures vary 10x with threshold voltage
//       and temperature; override arch.energy.logic_leak_mw_per_mm2 with your library's.
// [ASM] Assumption, no single published figure: SRAM leakage 0.41 uW per KiB at 45 nm (50 pW
//       per bit cell, low-power process), 0.20 at 16 nm, 0.15 at 7 nm (FinFETs leak less per
//       cell); the per-unit gate counts below.
//
// Energy scaling between nodes: [SB17] for logic and SRAM dynamic energy (factors 1, 0.5,
// 0.3, 0.15). DRAM energy is off-chip and does not scale with the accelerator's node.

constexpr double k28 = 0.50, k16 = 0.30, k7 = 0.15;            // [SB17]
constexpr double kLogic28 = (28.0 / 45) * (28.0 / 45);         // [ASM]
constexpr double kLogic16 = 3.3 / 28.9, kLogic7 = 3.3 / 91.2;  // [LD]
constexpr double kArrayEfficiency = 0.7;                       // [BC] assumption
constexpr double kBitsPerKib = 8192;

double sram_mm2_per_kib(double bitcell_um2) {
  return kBitsPerKib * bitcell_um2 / kArrayEfficiency * 1e-6;
}

TechPreset make(const std::string& tech, double e, double logic_area, double bitcell_um2,
                double leak_uw, double logic_leak_mw) {
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
  p.gate_um2 = logic_area * 0.798;                     // [NG]
  p.dff_um2 = logic_area * 4.522;                      // [NG]
  p.mult32_um2 = logic_area * 3495;                    // [H14]
  p.logic_leak_mw_per_mm2 = logic_leak_mw;             // [LK]
  p.clock_fj_per_flop = e * 3.0;                       // [CK]
  return p;
}

// Gate counts of the units' control logic [ASM]: controller (decode, dependency scoreboard,
// dispatch), one DMA channel (address generation for 2-D moves, burst splitting), load unit
// (input iterator and the shift network's control) and store unit (output iterator).
constexpr double kControllerGates = 20000, kDmaChannelGates = 15000, kLoadGates = 30000,
                 kStoreGates = 10000;
// Flip-flops of a control unit [ASM]: one gate equivalent in 25 is a flip-flop's worth (a
// DFF_X1 is 5.7 NAND2 equivalents [NG], so about a fifth of the area is registers).
constexpr double kGatesPerFlop = 25;
// The vector unit's exp / erf table: 256 entries of 16 bits [ASM].
constexpr double kVectorLutBytes = 512;

}  // namespace

const std::vector<std::string>& energy_techs() {
  static const std::vector<std::string> kTechs = {"45nm", "28nm", "16nm", "7nm"};
  return kTechs;
}

const std::vector<std::string>& energy_dram_types() {
  static const std::vector<std::string> kTypes = {"lpddr4", "ddr4", "hbm2"};
  return kTypes;
}

TechPreset tech_preset(const std::string& tech) {
  if (tech == "45nm") return make(tech, 1.0, 1.0, 0.346, 0.41, 10);
  if (tech == "28nm") return make(tech, k28, kLogic28, 0.127, 0.30, 10);
  if (tech == "16nm") return make(tech, k16, kLogic16, 0.070, 0.20, 5);
  if (tech == "7nm") return make(tech, k7, kLogic7, 0.027, 0.15, 5);
  throw std::invalid_argument("unknown energy.tech '" + tech + "' (45nm, 28nm, 16nm or 7nm)");
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
          {"sram_area_mm2_per_kib", &e.sram_area_mm2_per_kib},
          {"logic_leak_mw_per_mm2", &e.logic_leak_mw_per_mm2},
          {"clock_fj_per_flop", &e.clock_fj_per_flop}};
}

std::vector<std::pair<std::string, double>> energy_override_values(const EnergyConfig& e) {
  EnergyConfig copy = e;
  std::vector<std::pair<std::string, double>> out;
  for (const auto& [key, field] : energy_override_fields(copy)) out.emplace_back(key, *field);
  return out;
}

// DRAMPower's current-based model (Chandrasekar et al., "Improved power modeling of DDR SDRAMs",
// DSD 2011; DRAMPower's bank power calculation): a command's energy is the current it draws
// above the background current of the state the bank is in, over the command's time; the
// background (IDD3N with a bank open, IDD2N with all precharged) is charged per cycle of state
// residency; I/O and termination as DRAMPower's calcIoTermEnergy, a burst's beats each take half
// a clock on every DQ and DQS pin (reads) or DQ, DQS and DM pin (writes). mA x V x ns = pJ,
// mW x ns = pJ.
void dram_command_energy(const DramSpec& spec, ActionEnergy& e) {
  e.dram_commands = false;
  for (const char* k : {"vdd", "idd0", "idd2n", "idd3n", "idd4r", "idd4w", "idd5"}) {
    if (spec.power.count(k) == 0) return;
  }
  for (const char* k : {"nRAS", "nRP", "nBL", "nRFC"}) {
    if (spec.timing.count(k) == 0) return;
  }
  const auto p = [&](const char* k, double fallback) {
    const auto it = spec.power.find(k);
    return it == spec.power.end() ? fallback : it->second;
  };
  const double tck = spec.tck_ps * 1e-3;  // ns
  const double v = p("vdd", 0) * p("devices", 1);
  const double idd3n = p("idd3n", 0), idd2n = p("idd2n", 0), idd0 = p("idd0", 0);
  const auto above = [](double a, double b) { return a > b ? a - b : 0.0; };
  const auto cycles = [&](const char* t) { return double(spec.timing.at(t)) * tck; };
  e.dram_commands = true;
  e.dram_act = above(idd0, idd3n) * cycles("nRAS") * v;
  e.dram_pre = above(idd0, idd2n) * cycles("nRP") * v;
  e.dram_rd = above(p("idd4r", 0), idd3n) * cycles("nBL") * v;
  e.dram_wr = above(p("idd4w", 0), idd3n) * cycles("nBL") * v;
  e.dram_ref = above(p("idd5", 0), idd3n) * cycles("nRFC") * v;
  // A per-bank refresh refreshes one bank's rows of what an all-bank REF refreshes (no IDD5PB in
  // the presets): the same energy per refreshed row.
  e.dram_refpb = e.dram_ref / std::max<uint32_t>(1, spec.banks_per_rank());
  e.dram_act_standby = idd3n * tck * v;
  e.dram_pre_standby = idd2n * tck * v;
  // Power-down (DRAMPower: IDD2P / IDD3P per cycle of precharge / active power-down); a preset
  // without the figures cannot enable power-down (read_dram_spec), so none is charged then.
  e.dram_act_powerdown = p("idd3p", 0) * tck * v;
  e.dram_pre_powerdown = p("idd2p", 0) * tck * v;
  const double dq = spec.dq_bits, beats = spec.burst_length * tck / 2;
  e.dram_rd_io = p("io_mw", 0) * (dq + dq / 8) * beats;
  e.dram_wr_odt = p("odt_mw", 0) * (dq + dq / 4) * beats;
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
  // [H14]-derived element-op classes: a running sum or maximum is one 32-bit add; a divide (or
  // integer square root) 32 subtract-and-shift steps of a 32-bit add; an exp / erf one 2-byte
  // read of the LUT plus the interpolating multiply-add.
  e.vector_reduce = p.acc_update_pj;
  e.vector_divide = 32 * p.acc_update_pj;
  e.vector_exp = 2 * sram_pj_per_byte(p, kVectorLutBytes, 1) + e.vector_op;
  // uW per KiB over one cycle of f MHz: 1e-6 W x 1 / (f x 1e6) s = 1/f x 1e-12 J = 1/f pJ.
  e.sram_leak_per_kib_cycle =
      pick(o.sram_leak_pj_per_kib_cycle, p.sram_leak_uw_per_kib / arch.clock.frequency_mhz);
  // mW per mm2 over one cycle: 1e-3 W x 1 / (f x 1e6) s = 1e-9 / f J = 1000 / f pJ.
  e.logic_leak_per_mm2_cycle =
      pick(o.logic_leak_mw_per_mm2, p.logic_leak_mw_per_mm2) * 1000 / arch.clock.frequency_mhz;
  e.clock_per_flop_cycle = pick(o.clock_fj_per_flop, p.clock_fj_per_flop) * 1e-3;  // fJ -> pJ
  // dram_pj_per_byte set: the user asked for energy per byte, not from commands.
  if (arch.dram.model == "jedec" && o.dram_pj_per_byte < 0) dram_command_energy(arch.dram.spec, e);
  // An imported ERT (arch.energy.ert) replaces every entry it names.
  for (const ErtField& f : ert_fields()) {
    const auto it = o.ert_table.find(std::string(f.component) + "." + f.action);
    if (it != o.ert_table.end()) e.*f.field = it->second;
  }
  return e;
}

// Registers clocked every cycle the unit's clock runs [ASM]: a MAC lane's two 8-bit operands and
// 16-bit product (32), a neuron's 32-bit adder output (its accumulators are L1 SRAM, see
// l1_required_bytes); a vector lane's two 32-bit operands and 32-bit result (96); a control
// unit one flip-flop per kGatesPerFlop gates.
std::map<std::string, double> unit_flops(const ArchConfig& arch) {
  const double lanes = double(arch.neurons.count) * arch.neurons.macs_per_cycle;
  return {
      {"neurons", lanes * 32 + arch.neurons.count * 32.0},
      {"controller", kControllerGates / kGatesPerFlop},
      {"dma", kDmaChannelGates / kGatesPerFlop},
      {"load", kLoadGates / kGatesPerFlop},
      {"store", kStoreGates / kGatesPerFlop},
      {"vector", arch.vector.lanes * 96.0},
  };
}

namespace {

double sram_mm2_per_kib_of(const ArchConfig& arch, const TechPreset& p) {
  const double o = arch.energy.sram_area_mm2_per_kib;
  return o >= 0 ? o : p.sram_mm2_per_kib;
}

// Each unit's area split into logic and SRAM (mm2).
std::map<std::string, std::pair<double, double>> unit_areas(const ArchConfig& arch) {
  const TechPreset p = tech_preset(arch.energy.tech);
  const EnergyConfig& o = arch.energy;
  const double mac_um2 = o.mac_area_um2 >= 0 ? o.mac_area_um2 : p.mac_um2;
  const double sram = sram_mm2_per_kib_of(arch, p);
  const double kib = 1.0 / 1024, um2 = 1e-6;
  const double lanes = double(arch.neurons.count) * arch.neurons.macs_per_cycle;
  const double prefetch = double(arch.controller.prefetch_depth) * arch.controller.descriptor_bytes;
  // Vector unit: a 32-bit multiplier and adder per lane, one shared divider / square-root unit
  // the size of a 32-bit multiplier [ASM], and the exp / erf table in SRAM.
  const double vector_logic = (arch.vector.lanes * (p.mult32_um2 + p.acc_um2) + p.mult32_um2);
  // Neurons: MAC lanes and accumulate adders [H14] plus their pipeline registers (unit_flops) as
  // DFF_X1 [NG]; the accumulators themselves are L1 SRAM (l1_required_bytes). Check against
  // [TPU] at 28 nm: (318 + 32 x 4.522 + (137 + 32 x 4.522) / 4) x 0.387 = 206 um2 per MAC, a
  // sixth of the TPU's upper bound, whose figure includes the systolic array's wiring.
  const double neuron_flops = unit_flops(arch).at("neurons");
  return {
      {"neurons",
       {(lanes * mac_um2 + arch.neurons.count * p.acc_um2 + neuron_flops * p.dff_um2) * um2, 0}},
      {"l1", {0, double(arch.l1.size_bytes) * kib * sram}},
      {"l2", {0, double(arch.l2.size_bytes) * kib * sram}},
      {"controller", {kControllerGates * p.gate_um2 * um2, prefetch * kib * sram}},
      {"dma", {arch.dma.channels * kDmaChannelGates * p.gate_um2 * um2, 0}},
      {"load", {kLoadGates * p.gate_um2 * um2, 0}},
      {"store", {kStoreGates * p.gate_um2 * um2, 0}},
      {"vector", {vector_logic * um2, kVectorLutBytes * kib * sram}},
  };
}

}  // namespace

std::map<std::string, double> unit_area_mm2(const ArchConfig& arch) {
  std::map<std::string, double> out;
  for (const auto& [unit, a] : unit_areas(arch)) {
    const auto it = arch.energy.art_table.find(unit);  // an imported ART's area replaces it
    out[unit] = it != arch.energy.art_table.end() ? it->second : a.first + a.second;
  }
  return out;
}

// An imported ART's area scales the unit's logic part in proportion.
std::map<std::string, double> unit_logic_area_mm2(const ArchConfig& arch) {
  std::map<std::string, double> out;
  for (const auto& [unit, a] : unit_areas(arch)) {
    if (a.first <= 0) continue;
    const auto it = arch.energy.art_table.find(unit);
    out[unit] =
        it == arch.energy.art_table.end() ? a.first : a.first * it->second / (a.first + a.second);
  }
  return out;
}

}  // namespace strider
