// The weight-slot search (see weight_slot_search.h).
#include "planner/lower/weight_slot_search.h"

#include <memory>
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
  const std::string& objective = arch.lowering.objective;
  auto cost = [&](const Lowered& l) {
    const double cycles = double(predicted_plan_cycles(l, arch));
    return objective == "energy" ? predicted_plan_energy_pj(l, arch)
           : objective == "edp"  ? predicted_plan_energy_pj(l, arch) * cycles
                                 : cycles;
  };
  // The two searches over the slots, one per start (0: auto's im2col picks, 1: without them):
  // each keeps its first candidate and leaves it only for a gain above kMinGain over its best so
  // far. Where a slot's lowering from auto's start made no im2col pick, both starts are the
  // same plan, lowered once and shared.
  struct Best {
    std::shared_ptr<Lowered> plan;
    double cost = 0;
    uint64_t slot = 0;
  };
  Best best[2];
  auto offer = [&](Best& b, const std::shared_ptr<Lowered>& l, double c, uint64_t slot) {
    if (!b.plan || c < b.cost * (1 - kMinGain)) b = Best{l, c, slot};
  };
  ArchConfig a = arch;
  LowerOptions o = opt;
  double planner = 0, search = 0;
  bool first = true;
  for (uint64_t slot : {weight_slot_bytes(arch), l2 / 64, l2 / 16, l2 / 8}) {
    if (slot == 0) continue;
    a.lowering.weight_slot_bytes = slot;
    bool picks = true;  // unknown until the lowering from auto's start is made
    for (int start = 0; start < 2; ++start) {
      if (start == 1 && !picks) continue;
      o.search_from_im2col = start == 0;
      std::shared_ptr<Lowered> l;
      try {
        l = std::make_shared<Lowered>(lower_at(g, a, o));
      } catch (const std::runtime_error&) {  // this slot does not fit beside the activations
        if (first) throw;                    // the default from auto's start: the run's error
        continue;
      }
      first = false;
      planner += l->planner_seconds, search += l->search_seconds;
      const double c = cost(*l);
      offer(best[start], l, c, slot);
      if (start == 0 && l->im2col_picks == 0) {
        picks = false;
        offer(best[1], l, c, slot);
      }
    }
  }
  // The plan without the picks where the model predicts it more than kPlanMinGain cheaper.
  const int k = best[1].plan && (!best[0].plan || best[1].cost < best[0].cost * (1 - kPlanMinGain));
  Lowered chosen = std::move(*best[k].plan);
  chosen.weight_slot_bytes = best[k].slot;
  // The list runs on the arch as given (its slot searched), whose fingerprint it carries.
  chosen.list.arch_fingerprint = arch.fingerprint();
  chosen.planner_seconds = planner;
  chosen.search_seconds = search;
  return chosen;
}

}  // namespace strider
