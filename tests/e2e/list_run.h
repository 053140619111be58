// Shared by the end-to-end tests that time a lowered list: one timing simulation of `list` on
// `arch` (sim options default), each descriptor's times in `rec`; returns the run's cycles.
#pragma once

#include <cstdint>

#include "core/arch/arch_config.h"
#include "core/contract/descriptor.h"
#include "model/common/run_record.h"
#include "model/common/stats.h"
#include "model/top/top.h"

namespace strider {

inline uint64_t simulate_list(const ArchConfig& arch, const DescriptorList& list, RunRecord* rec) {
  SimOptions sim;
  StatRegistry stats;
  Top top("top", arch, sim, list, stats, *rec);
  return top.run();
}

}  // namespace strider
