// The weight-slot search (see weight_slot_search.h).
#include "planner/lower/weight_slot_search.h"

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/arch/dram_bandwidth.h"
#include "core/arch/energy_presets.h"
#include "planner/lower/lowerer.h"
#include "planner/lower/mapper.h"

namespace strider {

namespace {

// The DRAM bytes of the layers the mapper did not search (their DRAM time is not in a row),
// without the weights a deep prefetch loads under them for later layers (deep_prefetch.cpp: the
// planner gave them only the DMA time those layers leave idle).
uint64_t unsearched_dram_bytes(const Lowered& l) {
  std::vector<bool> searched(l.layers.size(), false);
  for (const MappingRow& r : l.mapping) {
    if (r.layer < searched.size()) searched[r.layer] = true;
  }
  uint64_t other = 0;
  for (size_t i = 0; i < l.layers.size(); ++i) {
    if (!searched[i]) other += dram_bytes(l.layers[i]) - l.layers[i].prefetch_bytes;
  }
  return other;
}

}  // namespace

uint64_t predicted_plan_cycles(const Lowered& l, const ArchConfig& arch) {
  uint64_t cycles = 0;
  for (const MappingRow& r : l.mapping) cycles += r.predicted_cycles;
  return cycles + dram_peak_cycles(arch, unsearched_dram_bytes(l));
}

double predicted_plan_energy_pj(const Lowered& l, const ArchConfig& arch) {
  double pj = 0;
  for (const MappingRow& r : l.mapping) pj += r.predicted_energy_pj;
  const ActionEnergy e = action_energy(arch);
  const uint64_t other = unsearched_dram_bytes(l);
  return pj + double(other) * (e.dram_per_byte + e.l2_write_per_byte) +
         double(dram_peak_cycles(arch, other)) * leak_pj_per_cycle(arch);
}

Lowered search_weight_slot(const Graph& g, const ArchConfig& arch, const LowerOptions& opt,
                           const LowerAt& lower_at) {
  const uint64_t l2 = arch.l2.size_bytes;
  ArchConfig a = arch;
  a.lowering.weight_slot_bytes = weight_slot_bytes(arch);  // the default, L2 / 32
  Lowered best = lower_at(g, a, opt);  // the default: its errors are the run's
  best.weight_slot_bytes = a.lowering.weight_slot_bytes;
  const std::string& objective = arch.lowering.objective;
  auto cost = [&](const Lowered& l) {
    const double cycles = double(predicted_plan_cycles(l, arch));
    return objective == "energy" ? predicted_plan_energy_pj(l, arch)
           : objective == "edp"  ? predicted_plan_energy_pj(l, arch) * cycles
                                 : cycles;
  };
  double best_cost = cost(best);
  double planner = best.planner_seconds, search = best.search_seconds;
  for (uint64_t slot : {l2 / 64, l2 / 16, l2 / 8}) {
    if (slot == 0) continue;
    a.lowering.weight_slot_bytes = slot;
    Lowered l;
    try {
      l = lower_at(g, a, opt);
    } catch (const std::runtime_error&) {  // this slot does not fit beside the activations
      continue;
    }
    planner += l.planner_seconds, search += l.search_seconds;
    const double c = cost(l);
    if (c < best_cost * (1 - kMinGain)) {
      best = std::move(l);
      best.weight_slot_bytes = slot;
      best_cost = c;
    }
  }
  // The list runs on the arch as given (its slot searched), whose fingerprint it carries.
  best.list.arch_fingerprint = arch.fingerprint();
  best.planner_seconds = planner;
  best.search_seconds = search;
  return best;
}

}  // namespace strider
