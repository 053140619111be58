// The weight-slot search (see weight_slot_search.h).
#include "planner/lower/weight_slot_search.h"

#include <stdexcept>
#include <utility>
#include <vector>

#include "core/arch/dram_bandwidth.h"
#include "planner/lower/lowerer.h"
#include "planner/lower/mapper.h"

namespace strider {

uint64_t predicted_plan_cycles(const Lowered& l, const ArchConfig& arch) {
  std::vector<bool> searched(l.layers.size(), false);
  uint64_t cycles = 0;
  for (const MappingRow& r : l.mapping) {
    if (r.layer < searched.size()) searched[r.layer] = true;
    cycles += r.predicted_cycles;
  }
  uint64_t other = 0;
  for (size_t i = 0; i < l.layers.size(); ++i) {
    if (!searched[i]) other += dram_bytes(l.layers[i]);
  }
  return cycles + dram_peak_cycles(arch, other);
}

Lowered search_weight_slot(const Graph& g, const ArchConfig& arch, const LowerOptions& opt,
                           const LowerAt& lower_at) {
  const uint64_t l2 = arch.l2.size_bytes;
  ArchConfig a = arch;
  a.lowering.weight_slot_bytes = weight_slot_bytes(arch);  // the default, L2 / 32
  Lowered best = lower_at(g, a, opt);  // the default: its errors are the run's
  best.weight_slot_bytes = a.lowering.weight_slot_bytes;
  uint64_t best_cycles = predicted_plan_cycles(best, arch);
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
    const uint64_t cycles = predicted_plan_cycles(l, arch);
    if (double(cycles) < double(best_cycles) * (1 - kMinGain)) {
      best = std::move(l);
      best.weight_slot_bytes = slot;
      best_cycles = cycles;
    }
  }
  // The list runs on the arch as given (its slot searched), whose fingerprint it carries.
  best.list.arch_fingerprint = arch.fingerprint();
  best.planner_seconds = planner;
  best.search_seconds = search;
  return best;
}

}  // namespace strider
