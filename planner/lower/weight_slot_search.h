// Weight-slot search (`lowering.mapping: search`, `weight_slot_bytes: 0`): the weight-staging
// slot size is a searched dimension of the mapper (mapper.h). The whole plan is lowered at L2/32
// (the default) and then at L2/64, L2/16 and L2/8 — a slot changes the blocks the mapper can take
// and the L2 left to the activations, so what spills — and the candidate with the least predicted
// plan cost by `lowering.objective` is kept, leaving the default only for a predicted gain above
// kMinGain (1 %) over the best so far, in that fixed order. A slot the L2 cannot hold beside the
// activations and band buffers (the lowering throws) is skipped.
//
// The start of the mapper is searched with it: the memory plan sizes each layer's staging ring
// for the mapping the mapper starts from, and an im2col block (a run of neurons.count channels)
// takes a larger ring than positions, so auto's im2col picks change what spills. Each slot is
// lowered from auto's choice with its picks and, where that lowering made one
// (Lowered::im2col_picks), without them (LowerOptions::search_from_im2col); a slot that does not
// fit from the picks is tried without them too. That makes two searches over the slots, each with
// the hysteresis above; the one without the picks is kept where its best plan is predicted more
// than kPlanMinGain (0.1 %) cheaper than the other's, so the list's staging is the staging of the
// plan the mapper ran on (inception_v3: 64 KiB without the picks, simulated 27,580,591 cycles,
// against 32 KiB from them, 28,305,784).
//
// predicted_plan_cycles: the searched layers' predicted cycles (mapping.csv predicted_cycles:
// the tile model plus their DRAM time) plus the other layers' DRAM bytes at the DRAM's peak
// bandwidth. Measured (docs/figures.md) it ranks the four slots as the simulator does on
// convnext_tiny, mobilenet_v2, resnet50 and densenet121 except where two predictions lie within
// 0.1 % of each other, which the 1 % hysteresis leaves at the smaller slot.
// predicted_plan_energy_pj: the searched layers' predicted energy (the mapper's: tile actions,
// DRAM bytes, leakage over their predicted cycles) plus the other layers' DRAM bytes at the DRAM
// and L2-write energies per byte and leakage over their DRAM time. `edp` ranks plans by the
// product of the two.
#pragma once

#include <cstdint>
#include <functional>

#include "planner/lower/lowering.h"

namespace strider {

uint64_t predicted_plan_cycles(const Lowered& l, const ArchConfig& arch);
double predicted_plan_energy_pj(const Lowered& l, const ArchConfig& arch);

constexpr double kPlanMinGain = 0.001;  // predicted gain to leave the search from auto's picks

using LowerAt = std::function<Lowered(const Graph&, const ArchConfig&, const LowerOptions&)>;

// Lowers with `lower_at` at each candidate slot and returns the chosen lowering (its
// weight_slot_bytes set, planner and search seconds summed over the candidates).
Lowered search_weight_slot(const Graph& g, const ArchConfig& arch, const LowerOptions& opt,
                           const LowerAt& lower_at);

}  // namespace strider
