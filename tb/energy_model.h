// EnergyModel: turns the actions the units counted into energy, power and efficiency, never from
// cycles. Counts come per descriptor (so per layer and in total by the same sums): bytes moved,
// MACs, compute cycles, accumulator updates, line-buffer write bytes and cycles and kernel-region
// loads from its DescriptorRecord, as the load unit and the neurons recorded them (the e2e tests
// check the sums against neurons.acc_updates, line_buffer.write_bytes and kernel.load_bytes); plus the stat `vector.ops` (the vector unit's
// lane operations; 0 while no unit registers it).
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
//   descriptor     descriptors fetched and decoded                                 [controller]
//   vector_op      vector-unit lane operations, stat vector.ops                        [vector]
// Leakage: SRAM leakage per KiB per cycle over the whole run, for L2 (l2.size_bytes, unit l2)
// and L1 (l1.size_bytes, unit l1). A layer's energy is the dynamic energy of its descriptors
// (leakage belongs to the run; vector ops to no descriptor yet), so the layers sum to
// dynamic_pj minus the vector_op energy.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/arch/arch_config.h"
#include "core/arch/energy_presets.h"
#include "model/common/run_record.h"

namespace strider {

struct ActionCounts {
  uint64_t macs = 0, acc_updates = 0, lb_write_bytes = 0, lb_write_cycles = 0,
           kernel_read_bytes = 0, kernel_write_bytes = 0, l2_read_bytes = 0, l2_write_bytes = 0, dram_bytes = 0,
           descriptors = 0, vector_ops = 0;
  ActionCounts& operator+=(const ActionCounts& o);
};

// One descriptor's actions, as its units recorded them; a fetched descriptor adds its own fetch
// (descriptor_bytes of DRAM).
ActionCounts descriptor_actions(const DescriptorRecord& d, const ArchConfig& arch);

struct ActionEnergyRow {
  std::string action, unit;
  uint64_t count = 0;    // actions (bytes, MACs, descriptors; KiB-cycles for leakage)
  double pj_each = 0;
  double pj = 0;         // count x pj_each
};

// The dynamic actions of `c`, in the order of the table above.
std::vector<ActionEnergyRow> dynamic_energy(const ActionCounts& c, const ActionEnergy& e);
double total_pj(const std::vector<ActionEnergyRow>& rows);

struct EnergyReport {
  std::vector<ActionEnergyRow> rows;     // dynamic actions, then l2_leakage and l1_leakage
  std::map<std::string, double> by_unit;  // pJ
  double dynamic_pj = 0, leakage_pj = 0, total_pj = 0;
  double power_mw = 0;       // total energy over the run's time at the configured clock
  double tops_per_watt = 0;  // 2 ops per useful MAC / total energy
  double edp = 0;            // energy x delay, J x s
  std::map<std::string, double> area_mm2;  // per unit
  double area_total_mm2 = 0;
};

EnergyReport energy_report(const ActionCounts& c, uint64_t cycles, const ArchConfig& arch);

}  // namespace strider
