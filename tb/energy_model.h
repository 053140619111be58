// EnergyModel: turns the actions the units counted into energy, power and efficiency, never from
// cycles. Counts come per descriptor (so per layer and in total by the same sums): bytes moved,
// MACs, compute cycles, accumulator updates, line-buffer write bytes and cycles and kernel-region
// loads from its DescriptorRecord, as the load unit and the neurons recorded them (the e2e tests
// check the sums against neurons.acc_updates, line_buffer.write_bytes and kernel.load_bytes), and
// the vector unit's element operations by class from each vector descriptor's op (below).
// The energy of each action is core/arch/energy_presets.h's ActionEnergy.
//
// Actions and what they count (unit in brackets):
//   mac            useful int8 MACs, neurons.macs                                     [neurons]
//   acc_update     accumulator updates, neurons.acc_updates (active neurons x cycles) [neurons]
//   lb_write       bytes written into line-buffer lines, line_buffer.write_bytes           [l1]
//                  (the cells: a shifted write stores a segment in every active line, so it
//                  writes as many cells as the per-line writes it replaces)
//   lb_write_cycle line-buffer write cycles, line_buffer.write_cycles                      [l1]
//                  (the write port's fixed cost per cycle: decode, enables, the block on the
//                  write bus; what shift stride saves in line-buffer energy)
//   kernel_read    bytes broadcast from the kernel region: one read of macs_per_cycle bytes
//                  per compute cycle (compute cycles x macs_per_cycle)                     [l1]
//   kernel_write   bytes loaded into the kernel region, kernel.load_bytes                  [l1]
//   l2_read        bytes read from L2 (load port, DMA reads)                               [l2]
//   l2_write       bytes written to L2 (store port, DMA writes)                            [l2]
//   dram           bytes read or written in DRAM, incl. the descriptor-list fetch        [dram]
//                  (dram.model simple, or arch.energy.dram_pj_per_byte set); with the JEDEC
//                  model and a preset with IDD currents, DRAMPower's terms instead:
//   dram_act, dram_pre         ACT / PRE commands (PREA counted as one PRE)           [dram]
//   dram_rd, dram_wr           RD / WR bursts (the array and its periphery)           [dram]
//   dram_rd_io, dram_wr_odt    the bursts' pins: read I/O, write termination          [dram]
//                  A layer is charged its own bursts (the move descriptors' dram_bursts, RD or
//                  WR by direction; each fetched descriptor descriptor_bytes / burst bytes RD
//                  bursts) and an ACT and a PRE per burst that missed its row (bursts - row
//                  hits); the run's rows count the DRAM's own commands, and the difference (the
//                  descriptor fetches' ACTs, PREs beyond one per ACT, open rows at the end) is
//                  dram_unattributed_pj.
// DRAM background (time-proportional, JEDEC with currents):
//   dram_ref       REF commands, (IDD5 - IDD3N) x tRFC each                          [dram]
//   dram_act_standby  rank-cycles with a bank open, dram.rank_active_cycles           [dram]
//   dram_pre_standby  rank-cycles all banks precharged, dram.rank_precharged_cycles   [dram]
//   dram_act_powerdown  rank-cycles in active power-down, IDD3P each                  [dram]
//   dram_pre_powerdown  rank-cycles in precharge power-down, IDD2P each               [dram]
//   descriptor     descriptors fetched and decoded                                 [controller]
//   vector_mac     vector multiply-adds                                                [vector]
//   vector_exp     vector exp / erf evaluations (LUT read + multiply-add)              [vector]
//   vector_reduce  vector running sums and maxima (32-bit add or compare)             [vector]
//   vector_divide  vector divides and square roots                                    [vector]
//                  Per vector tile of E output elements, R read elements (E, or every channel of
//                  the tile's positions for Softmax / LayerNorm) and P positions:
//                    Softmax   reduce 2R (max, sum), exp R, divide E (each probability)
//                    LayerNorm reduce 2R (sum, sum of squares), mac 2R (centre, square) + E
//                              (x gamma + beta), divide E + P (normalise; a square root per
//                              position)
//                    InstanceNorm as LayerNorm with R every position of the tile's C channels
//                              and a square root per channel: divide E + C
//                    GELU      exp E (the erf table), mac E (x Phi(x))
// Time-proportional terms, per unit:
//   <unit>_clock   flip-flops (unit_flops) x clocked cycles x clock energy per flop; with
//                  energy.clock_gating a unit is clocked on its busy cycles (neurons, load,
//                  vector: their busy_cycles stat; dma: dma.busy_cycles channel-cycles), the
//                  controller and the store unit (no busy statistic) every cycle; without it
//                  every unit every cycle (dma: every channel)
//   <unit>_logic_leakage  logic area (unit_logic_area_mm2) x cycles x leakage per mm2 per cycle
//   l2_leakage, l1_leakage  SRAM leakage per KiB per cycle over the whole run (l2.size_bytes,
//                  l1.size_bytes)
// A layer's energy is the dynamic energy of its descriptors (clock and leakage belong to the
// run), so the layers sum to dynamic_pj.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/arch/arch_config.h"
#include "core/arch/energy_presets.h"
#include "core/contract/descriptor.h"
#include "model/common/run_record.h"

namespace strider {

struct ActionCounts {
  uint64_t macs = 0, acc_updates = 0, lb_write_bytes = 0, lb_write_cycles = 0,
           kernel_read_bytes = 0, kernel_write_bytes = 0, l2_read_bytes = 0, l2_write_bytes = 0,
           dram_bytes = 0, descriptors = 0, vector_macs = 0, vector_exps = 0, vector_reduces = 0,
           vector_divides = 0;
  uint64_t dram_acts = 0, dram_rd_bursts = 0, dram_wr_bursts = 0;  // JEDEC: attributed
  ActionCounts& operator+=(const ActionCounts& o);
};

// One descriptor's actions, as its units recorded them; a fetched descriptor adds its own fetch
// (descriptor_bytes of DRAM); a vector op (Softmax, LayerNorm, GELU) its element operations.
ActionCounts descriptor_actions(const DescriptorRecord& d, const OpDesc& op,
                                const ArchConfig& arch);

struct ActionEnergyRow {
  std::string action, unit;
  uint64_t count = 0;  // actions (bytes, MACs, descriptors; flop-cycles for clock;
                       // KiB-cycles for SRAM leakage; cycles for logic leakage)
  double pj_each = 0;
  double pj = 0;  // count x pj_each
};

// The dynamic actions of `c`, in the order of the table above.
std::vector<ActionEnergyRow> dynamic_energy(const ActionCounts& c, const ActionEnergy& e);
double total_pj(const std::vector<ActionEnergyRow>& rows);

// Cycles each unit was busy (stats neurons.busy_cycles, load.busy_cycles, vector.busy_cycles,
// dma.busy_cycles), keyed by unit name; units not in it count as busy every cycle.
using UnitBusy = std::map<std::string, uint64_t>;

// What the JEDEC DRAM did (its dram.cmd_* and dram.rank_*_cycles stats); measured false for the
// simple model.
struct DramActivity {
  bool measured = false;
  std::array<uint64_t, kDramCmdCount> commands{};
  uint64_t active_cycles = 0, precharged_cycles = 0;  // standby, outside power-down
  uint64_t active_powerdown_cycles = 0, precharged_powerdown_cycles = 0;
};

struct EnergyReport {
  std::vector<ActionEnergyRow> rows;      // dynamic actions, clock and logic_leakage by unit,
                                          // then l2_leakage and l1_leakage
  std::map<std::string, double> by_unit;  // pJ
  double dynamic_pj = 0, clock_pj = 0, leakage_pj = 0, total_pj = 0;
  double dram_background_pj = 0;    // refresh and standby (total = dynamic + clock + leakage + it)
  double dram_unattributed_pj = 0;  // run's DRAM command energy no layer is charged (see above)
  double dram_pj = 0, onchip_pj = 0;  // unit dram; everything else (total = their sum)
  double power_mw = 0;  // total (on-chip + DRAM) energy over the run's time at the clock
  double power_onchip_mw = 0, power_dram_mw = 0;  // the same split (sum to power_mw)
  double tops_per_watt = 0;                // 2 ops per useful MAC / total energy (DRAM included)
  double tops_per_watt_onchip = 0;         // 2 ops per useful MAC / on-chip energy
  double edp = 0;                          // energy x delay, J x s
  std::map<std::string, double> area_mm2;  // per unit
  double area_total_mm2 = 0;
};

// DRAMPower's terms for what the DRAM did: the kDramCommandRows command rows (dram_act ..
// dram_wr_odt, as dynamic_energy names them), then dram_ref, dram_refpb, dram_act_standby,
// dram_pre_standby, dram_act_powerdown, dram_pre_powerdown.
constexpr size_t kDramCommandRows = 6;
std::vector<ActionEnergyRow> dram_command_rows(const ActionEnergy& e, const DramActivity& d);

EnergyReport energy_report(const ActionCounts& c, uint64_t cycles, const UnitBusy& busy,
                           const DramActivity& dram, const ArchConfig& arch);

}  // namespace strider
